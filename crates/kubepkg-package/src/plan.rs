//! The plan: what `kubepkg apply` would do, computed without touching anything
//! (docs/rules.md#plan).
//!
//! [`plan`] is a pure function of the new package, the previous revision (if any, with the
//! objects its releases rendered) and the objects each component renders now. It gives the order
//! (with each component's direct dependencies, so the DAG can be drawn), the hooks that would run
//! and why, each component's change (install, upgrade from→to, unchanged) with a unified diff of
//! its rendered objects, components that would be removed, the readiness gates, and what a
//! failure would do. Rendering is the caller's job and never consults the cluster for CRDs, so a
//! plan works offline even when an earlier component provides the CRDs of a later one.
//!
//! The plan serializes to JSON (`-o json`); the CLI prints it as text
//! (`crates/kubepkg/src/present/plan.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use kubepkg_model::graph;
use kubepkg_model::manifest::Package;

use crate::revision::{History, PackageRevision};
use crate::rollback_policy::{self, Downgrade};

/// One object rendered by a component's chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderedObject {
    pub api_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    /// The object's YAML as rendered.
    pub yaml: String,
    /// The Helm hook events of a hook object (`helm.sh/hook`: `pre-install`, `test`, …);
    /// `None` for an object of the release itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
}

impl RenderedObject {
    /// `Kind namespace/name` (or `Kind name`), how the plan names it.
    pub fn id(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    fn key(&self) -> (String, String, String, String) {
        (
            group_of(&self.api_version).to_string(),
            self.kind.clone(),
            self.namespace.clone().unwrap_or_default(),
            self.name.clone(),
        )
    }
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// What a component's chart renders.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedComponent {
    /// `name-version` of the chart.
    pub chart: String,
    pub objects: Vec<RenderedObject>,
}

/// A rendered manifest's objects, through the one manifest → objects conversion apply uses
/// ([`kubepkg_manifest::parse`]): empty documents are skipped; a document that is not a
/// Kubernetes object is an error naming its template, as apply would refuse it.
pub fn objects_from_manifest(
    manifest: &str,
) -> Result<Vec<RenderedObject>, kubepkg_manifest::ManifestError> {
    Ok(kubepkg_manifest::parse(manifest)?
        .into_iter()
        .map(|o| RenderedObject {
            hook: o.hook().map(str::to_string),
            api_version: o.id.api_version,
            kind: o.id.kind,
            namespace: Some(o.id.namespace).filter(|n| !n.is_empty()),
            name: o.id.name,
            yaml: o.text,
        })
        .collect())
}

/// The previous state a plan compares with.
#[derive(Debug, Clone, Copy)]
pub struct Previous<'a> {
    /// The deployed package revision.
    pub revision: &'a PackageRevision,
    /// Every recorded revision (`revision` among them), for the rollback policy of a downgrade.
    pub history: &'a History,
    /// What each component's deployed release rendered (by component name). A component
    /// missing here is planned as an upgrade whose diff is unknown.
    pub rendered: &'a BTreeMap<String, RenderedComponent>,
}

/// Why a plan is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum Intent {
    /// `kubepkg apply`: install or upgrade.
    Apply,
    /// `kubepkg rollback`: re-apply an earlier revision (never runs hooks).
    Rollback { to_revision: u64 },
}

/// The kind of apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// No previous revision.
    Install,
    /// The package moves to another version.
    Upgrade,
    /// Same version, something else (values, charts, manifest) changed.
    Reconfigure,
    /// Back to an earlier revision.
    Rollback,
    /// Nothing would change; no revision is recorded.
    NoChange,
}

/// A requirement as the plan reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequirementPlan {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub optional: bool,
}

/// A hook and whether it would run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookPlan {
    pub name: String,
    pub release: String,
    pub namespace: String,
    pub runs: bool,
    pub why: String,
    /// The objects the hook would create (when it runs).
    pub objects: Vec<String>,
}

/// What happens to a component.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum Change {
    Install {
        chart: String,
    },
    Upgrade {
        from_chart: String,
        to_chart: String,
        from_revision: u64,
        to_revision: u64,
    },
    Unchanged {
        chart: String,
        revision: u64,
    },
}

/// How one object changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ObjectChange {
    Added,
    Removed,
    Changed,
}

/// One object's change, with a unified diff of its YAML. A Secret's values are never in it
/// ([`secret`]): `diff` shows the rest of the object and `secret_keys` each key of `data` and
/// `stringData` with its size; [`Plan::reveal_secrets`] puts the real diff back
/// (`--show-secrets`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectDiff {
    pub object: String,
    pub change: ObjectChange,
    /// The Helm hook events of a hook object ([`RenderedObject::hook`]): apply runs it at
    /// those events (a `test` hook only runs with `kubepkg test`), it is not kept applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    pub diff: String,
    /// A Secret's keys and how each changes (sizes, never values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_keys: Vec<secret::KeyChange>,
    /// A Secret's unmasked diff, printed only when asked for.
    #[serde(skip)]
    pub revealed: Option<String>,
}

/// A readiness gate of a component.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum Gate {
    /// Every workload of the release is ready (kstatus rules).
    Release { release: String },
    /// A `readyWhen` condition.
    Condition {
        api_version: String,
        object_kind: String,
        name: String,
        /// The component's namespace unless the entry names one; ignored for cluster-scoped kinds.
        namespace: String,
        condition: String,
        status: String,
    },
    /// The backend's object of the component (`--backend flux|argocd`) in the state its
    /// controller reports when it released the component (`ready`, e.g. `Synced and Healthy`).
    Backend {
        object_kind: String,
        namespace: String,
        name: String,
        ready: String,
    },
}

/// One component in apply order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub name: String,
    pub release: String,
    pub namespace: String,
    /// Direct dependencies (the DAG's edges).
    pub depends_on: Vec<String>,
    pub change: Change,
    pub upgrade_context: bool,
    pub gates: Vec<Gate>,
    /// Object changes; `None` when the previous rendering is unknown.
    pub diff: Option<Vec<ObjectDiff>>,
}

/// A component of the previous revision that the new package no longer has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removal {
    pub name: String,
    pub release: String,
    pub namespace: String,
}

/// What a failure during the apply would do: the rollback policy's one decision.
pub use crate::rollback_policy::FailurePolicy;

/// A full plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Package instance name.
    pub name: String,
    pub namespace: String,
    /// `package.name`.
    pub package: String,
    pub from_version: Option<String>,
    pub to_version: String,
    pub action: Action,
    /// The revision the apply would record (absent when nothing changes).
    pub revision: Option<u64>,
    pub requirements: Vec<RequirementPlan>,
    pub hooks: Vec<HookPlan>,
    pub steps: Vec<Step>,
    pub removals: Vec<Removal>,
    pub on_failure: FailurePolicy,
    /// The apply moves to a lower version than the package runs: from, to and what the
    /// rollback policy says ([`crate::rollback_policy`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downgrade: Option<Downgrade>,
    pub warnings: Vec<String>,
    /// The `PreRollback` hooks of this version (run before a rollback away from it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rollback_hooks: Vec<String>,
    /// What each changed CustomResourceDefinition does to existing objects, safe or not
    /// ([`kubepkg_crd`]); `apply` refuses unsafe ones unless `--allow-unsafe-crd-changes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crd_changes: Vec<PlannedCrdChange>,
    /// Where live objects differ from what the deployed revision applied (a `kubectl edit`,
    /// a change outside the package): filled by `plan --cluster` ([`Drift`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<Drift>,
    /// The `.Capabilities` an offline plan assumed (absent when rendered with the server's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<String>,
    /// With a backend other than helm: the objects kubepkg creates or changes for it, in the
    /// order it applies them (`backend: flux`: each component's `OCIRepository` and
    /// `HelmRelease`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backend_objects: Vec<BackendObject>,
}

/// An object a backend gets for a component (docs/backends.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendObject {
    pub component: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// Created, changed, or (absent) left as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ObjectChange>,
    /// The object as it is applied (YAML).
    pub yaml: String,
}

/// A CRD change of a component.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedCrdChange {
    pub component: String,
    #[serde(flatten)]
    pub change: kubepkg_crd::CrdChange,
}

impl Plan {
    /// The CRD changes that are not safe.
    pub fn unsafe_crd_changes(&self) -> Vec<&PlannedCrdChange> {
        self.crd_changes.iter().filter(|c| !c.change.safe).collect()
    }

    /// Gates each step on its backend object of `kind` (among `backend_objects`) being
    /// `ready`, first; with `replaces_release` that gate stands for the release's own (a
    /// backend that makes no Helm release: its controller's readiness and kubepkg's of the
    /// objects it deployed).
    pub fn gate_on_backend(&mut self, kind: &str, ready: &str, replaces_release: bool) {
        for step in &mut self.steps {
            let Some(object) = self
                .backend_objects
                .iter()
                .find(|o| o.kind == kind && o.component == step.name)
            else {
                continue;
            };
            if replaces_release {
                step.gates.retain(|g| !matches!(g, Gate::Release { .. }));
            }
            step.gates.insert(
                0,
                Gate::Backend {
                    object_kind: object.kind.clone(),
                    namespace: object.namespace.clone(),
                    name: object.name.clone(),
                    ready: ready.to_string(),
                },
            );
        }
    }
}

/// The changes of every CRD (`apiextensions.k8s.io/v1`) present in both renderings, by name.
fn crd_changes(old: &[RenderedObject], new: &[RenderedObject]) -> Vec<kubepkg_crd::CrdChange> {
    let crds = |objects: &[RenderedObject]| -> Vec<(String, serde_json::Value)> {
        objects
            .iter()
            .filter(|o| {
                o.kind == "CustomResourceDefinition" && o.api_version == "apiextensions.k8s.io/v1"
            })
            .filter_map(|o| {
                let parsed = kubepkg_manifest::parse(&o.yaml).ok()?;
                Some((o.name.clone(), parsed.into_iter().next()?.object))
            })
            .collect()
    };
    let old = crds(old);
    let mut out = Vec::new();
    for (name, n) in crds(new) {
        if let Some((_, o)) = old.iter().find(|(on, _)| *on == name) {
            out.extend(kubepkg_crd::compare(o, &n));
        }
    }
    out
}

/// A live object that differs from what the deployed revision applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    pub component: String,
    /// `Kind namespace/name`.
    pub object: String,
    /// `missing`, or what differs (`changed: spec.replicas: live 5, applied 2`).
    pub what: String,
}

/// Computes the plan. `namespace` is where the package is installed (components without
/// `install.namespace` go there); `rendered` holds what each component renders now (hooks
/// included; a component missing here is planned with no objects).
pub fn plan(
    package: &Package,
    name: &str,
    namespace: &str,
    intent: Intent,
    previous: Option<Previous<'_>>,
    rendered: &BTreeMap<String, RenderedComponent>,
) -> Plan {
    let order = graph::order(&package.components);
    let to_version = package.meta.version.to_string();
    let from_version = previous.map(|p| p.revision.version.clone());
    let version_changes = from_version.as_deref().is_some_and(|f| f != to_version);
    let empty = RenderedComponent::default();
    let mut warnings = Vec::new();
    let mut crd_changes_all: Vec<PlannedCrdChange> = Vec::new();

    let hooks = order
        .hooks
        .iter()
        .filter_map(|h| package.component(h))
        .map(|c| {
            let (runs, why) = match (intent, &from_version) {
                (Intent::Rollback { .. }, _) => (false, "not run: hooks never run on a rollback".to_string()),
                (_, None) => (false, "not run: first install".to_string()),
                (_, Some(f)) if version_changes => {
                    (true, format!("the package moves from {f} to {to_version}"))
                }
                (_, Some(_)) => (
                    false,
                    format!("not run: the version stays {to_version} (values or configuration change only)"),
                ),
            };
            let objects = if runs {
                rendered
                    .get(&c.name)
                    .unwrap_or(&empty)
                    .objects
                    .iter()
                    .map(RenderedObject::id)
                    .collect()
            } else {
                Vec::new()
            };
            HookPlan {
                name: c.name.clone(),
                release: package.release_name(name, &c.name),
                namespace: c.namespace_or(namespace).to_string(),
                runs,
                why,
                objects,
            }
        })
        .collect();

    let mut steps = Vec::new();
    for comp_name in &order.components {
        let Some(c) = package.component(comp_name) else {
            continue;
        };
        let now = rendered.get(comp_name).unwrap_or(&empty);
        let release = package.release_name(name, comp_name);
        let ns = c.namespace_or(namespace).to_string();
        let before = previous.and_then(|p| p.revision.component(comp_name).map(|r| (p, r)));
        let (change, diff) = match before {
            None => (
                Change::Install {
                    chart: now.chart.clone(),
                },
                Some(diff_objects(&[], &now.objects)),
            ),
            Some((p, rec)) => match p.rendered.get(comp_name) {
                None => (
                    Change::Upgrade {
                        from_chart: rec.chart.clone(),
                        to_chart: now.chart.clone(),
                        from_revision: rec.revision,
                        to_revision: rec.revision + 1,
                    },
                    None,
                ),
                Some(old) => {
                    for change in crd_changes(&old.objects, &now.objects) {
                        crd_changes_all.push(PlannedCrdChange {
                            component: comp_name.clone(),
                            change,
                        });
                    }
                    let d = diff_objects(&old.objects, &now.objects);
                    if d.is_empty() && old.chart == now.chart {
                        (
                            Change::Unchanged {
                                chart: now.chart.clone(),
                                revision: rec.revision,
                            },
                            Some(d),
                        )
                    } else {
                        (
                            Change::Upgrade {
                                from_chart: old.chart.clone(),
                                to_chart: now.chart.clone(),
                                from_revision: rec.revision,
                                to_revision: rec.revision + 1,
                            },
                            Some(d),
                        )
                    }
                }
            },
        };
        if let Some((_, rec)) = before
            && rec.namespace != ns
        {
            warnings.push(format!(
                "component {comp_name} moves from namespace {} to {ns}: its release is reinstalled there",
                rec.namespace
            ));
        }
        let mut gates = vec![Gate::Release {
            release: release.clone(),
        }];
        for rw in &c.ready_when {
            gates.push(Gate::Condition {
                api_version: rw.api_version.clone(),
                object_kind: rw.kind.clone(),
                name: rw.name.clone(),
                namespace: rw.namespace.clone().unwrap_or_else(|| ns.clone()),
                condition: rw.condition.clone(),
                status: rw.status.clone(),
            });
        }
        steps.push(Step {
            name: comp_name.clone(),
            release,
            namespace: ns,
            depends_on: graph::dependencies(&package.components, comp_name).to_vec(),
            change,
            upgrade_context: c.gets_upgrade_context(),
            gates,
            diff,
        });
    }

    let removals: Vec<Removal> = previous
        .map(|p| {
            p.revision
                .components
                .iter()
                .rev()
                .filter(|r| package.component(&r.name).is_none_or(|c| c.is_hook()))
                .map(|r| Removal {
                    name: r.name.clone(),
                    release: r.release.clone(),
                    namespace: r.namespace.clone(),
                })
                .collect()
        })
        .unwrap_or_default();

    let any_change = steps
        .iter()
        .any(|s| !matches!(s.change, Change::Unchanged { .. }))
        || !removals.is_empty();
    let action = match (intent, previous) {
        (Intent::Rollback { .. }, _) => Action::Rollback,
        (_, None) => Action::Install,
        (_, Some(_)) if version_changes => Action::Upgrade,
        (_, Some(p)) if any_change || p.revision.manifest_digest != package.digest => {
            Action::Reconfigure
        }
        _ => Action::NoChange,
    };
    let revision = match (action, previous) {
        (Action::NoChange, _) => None,
        (_, Some(p)) => Some(p.revision.revision + 1),
        (_, None) => Some(1),
    };
    let on_failure = match previous {
        None => FailurePolicy::KeepForDiagnosis,
        Some(p) => rollback_policy::on_failure(
            p.history,
            Some(p.revision),
            &package.meta,
            p.history.next_revision(),
        ),
    };
    let downgrade = match intent {
        Intent::Apply => {
            previous.and_then(|p| rollback_policy::downgrade(p.history, &package.meta.version))
        }
        Intent::Rollback { .. } => None,
    };

    Plan {
        name: name.to_string(),
        namespace: namespace.to_string(),
        package: package.meta.name.clone(),
        from_version,
        to_version,
        action,
        revision,
        requirements: package
            .meta
            .requires
            .iter()
            .map(|r| RequirementPlan {
                name: r.name.clone(),
                version: r.version.as_ref().map(|v| v.to_string()),
                optional: r.optional,
            })
            .collect(),
        hooks,
        steps,
        removals,
        on_failure,
        downgrade,
        warnings,
        drift: Vec::new(),
        crd_changes: crd_changes_all,
        rollback_hooks: order.rollback_hooks.clone(),
        capabilities: None,
        backend_objects: Vec::new(),
    }
}

/// Object-by-object unified diff (objects matched by API group, kind, namespace and name;
/// output ordered by that key).
pub fn diff_objects(old: &[RenderedObject], new: &[RenderedObject]) -> Vec<ObjectDiff> {
    let old: BTreeMap<_, _> = old.iter().map(|o| (o.key(), o)).collect();
    let new: BTreeMap<_, _> = new.iter().map(|o| (o.key(), o)).collect();
    let mut keys: Vec<_> = old.keys().chain(new.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for k in keys {
        let (a, b) = (old.get(&k), new.get(&k));
        let id = b.or(a).map(|o| o.id()).unwrap_or_default();
        let hook = b.or(a).and_then(|o| o.hook.clone());
        let (change, from, to) = match (a, b) {
            (None, Some(b)) => (ObjectChange::Added, "", b.yaml.as_str()),
            (Some(a), None) => (ObjectChange::Removed, a.yaml.as_str(), ""),
            (Some(a), Some(b)) if a.yaml != b.yaml => {
                (ObjectChange::Changed, a.yaml.as_str(), b.yaml.as_str())
            }
            _ => continue,
        };
        let diff = unified_diff(&id, from, to);
        if b.or(a)
            .is_some_and(|o| secret::is_secret(&o.api_version, &o.kind))
        {
            let masked = secret::mask(
                &id,
                a.map(|o| o.yaml.as_str()),
                b.map(|o| o.yaml.as_str()),
                |x, y| unified_diff(&id, x, y),
            );
            out.push(ObjectDiff {
                object: id,
                change,
                hook,
                diff: masked.diff,
                secret_keys: masked.keys,
                revealed: Some(diff),
            });
        } else {
            out.push(ObjectDiff {
                object: id,
                change,
                hook,
                diff,
                secret_keys: Vec::new(),
                revealed: None,
            });
        }
    }
    out
}

/// A unified diff of two YAML texts of the object `id`.
fn unified_diff(id: &str, from: &str, to: &str) -> String {
    similar::TextDiff::from_lines(from, to)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{id} (deployed)"), &format!("{id} (planned)"))
        .to_string()
}

impl Plan {
    /// Puts the real diffs of Secrets back in place of their masked ones (`--show-secrets`).
    pub fn reveal_secrets(&mut self) {
        for d in self
            .steps
            .iter_mut()
            .filter_map(|s| s.diff.as_mut())
            .flatten()
        {
            if let Some(r) = d.revealed.take() {
                d.diff = r;
                d.secret_keys.clear();
            }
        }
    }
}

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod secret;

#[cfg(test)]
mod offline_tests;
#[cfg(test)]
mod tests;
