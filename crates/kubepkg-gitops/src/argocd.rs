//! Argo CD: an `Application` (`argoproj.io/v1alpha1`) per component, named after the
//! component's release (`<instance>-<component>`), in Argo CD's namespace. Field names and
//! meanings are those of Argo CD v3.5's API types (`pkg/apis/application/v1alpha1`):
//!
//! - `spec.source` is the component's chart in an OCI registry, in one of Argo CD's two forms:
//!   - **pinned** (the chart was pushed and its manifest digest is known: drive mode, `render
//!     --push-charts`): Argo CD's native OCI source (v3.1+) — `repoURL`
//!     `oci://<registry and path>/<chart>`, `targetRevision` the digest (`sha256:…`), `path:
//!     .`; the repo server pulls that manifest, sees Helm's config media type and renders the
//!     chart with Helm: what runs is exactly what was pushed, whatever the tag holds later;
//!   - **by version** (no digest known): a Helm chart in an OCI Helm repository — `repoURL` the
//!     registry and path **without** `oci://` (Argo CD takes a scheme-less `host[:port]/path` as
//!     an OCI Helm repository and runs `helm pull oci://<repoURL>/<chart> --version
//!     <targetRevision>`), `chart` the chart's name, `targetRevision` its version;
//!
//!   both with `helm.releaseName` the component's release and `helm.valuesObject` the values
//!   kubepkg supplies to the chart ([`target_revision`] is what a sync names);
//! - `spec.destination`: the cluster Argo CD runs in (`https://kubernetes.default.svc`) and the
//!   component's release namespace (`CreateNamespace=true` when that is not the package's);
//! - no `syncPolicy.automated`: nothing is applied until a sync operation is set (by kubepkg in
//!   order, [`sync`], or by a user);
//! - `argocd.argoproj.io/sync-wave`: the component's position in kubepkg's order, which Argo CD
//!   honours only between the Applications of one parent Application (app of apps), and there
//!   only waits for each wave's Applications to be applied, not Healthy, unless Argo CD is given
//!   a health check for `argoproj.io/Application` (docs/backends.md);
//! - the finalizer `resources-finalizer.argocd.argoproj.io`: deleting the Application deletes
//!   the objects it applied, as `helm uninstall` (and `kubepkg uninstall`) does.
//!
//! With a plain-HTTP registry (`insecure`) Argo CD is told so first, in its namespace (without
//! it the repo server pulls over HTTPS): for pinned sources a credential template (label
//! `argocd.argoproj.io/secret-type: repo-creds`, `type: oci`, `url: oci://<registry and
//! path>`, `insecureOCIForceHttp`), which Argo CD applies to every repository under that
//! prefix, so to each chart's; for sources by version a repository (`secret-type:
//! repository`, `type: helm`, `enableOCI`, `insecureOCIForceHttp`).
//!
//! What Argo CD cannot be told is said in [`Compiled::notes`](crate::Compiled): `readyWhen`
//! (Argo CD's health checks are per kind for a whole Argo CD instance, `argocd-cm`'s
//! `resource.customizations.health.<group>_<kind>`, never per Application: kubepkg checks them
//! when it drives the sync), hook components, the rollback policy (Argo CD never rolls an
//! Application back by itself).

pub mod sync;

use std::collections::BTreeMap;

use kubepkg_model::Package;
use serde_json::{Map, Value, json};

pub use crate::flux::ChartRef;
use crate::{CompileError, Compiled};

/// The API version of `Application`.
pub const APPLICATION_API: &str = "argoproj.io/v1alpha1";
/// The cluster Argo CD runs in, as Argo CD names it.
pub const IN_CLUSTER: &str = "https://kubernetes.default.svc";
/// The annotation carrying kubepkg's order.
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// The finalizer that makes an Application's deletion delete its objects.
pub const RESOURCES_FINALIZER: &str = "resources-finalizer.argocd.argoproj.io";
/// The label that makes a Secret one of Argo CD's repositories.
pub const SECRET_TYPE_LABEL: &str = "argocd.argoproj.io/secret-type";

/// How to compile.
#[derive(Debug, Clone)]
pub struct Options {
    /// The package instance name (`kubepkg apply NAME`).
    pub instance: String,
    /// The package's namespace: releases default to it.
    pub namespace: String,
    /// Where the Applications (and the repository Secret) live: Argo CD's namespace, or one of
    /// its `--application-namespaces`.
    pub argocd_namespace: String,
    /// The AppProject of the Applications.
    pub project: String,
    /// `oci://HOST/PATH`: the charts are at `<repository>/<chart name>`.
    pub repository: String,
    /// The registry is plain HTTP (a repository Secret with `insecureOCIForceHttp`).
    pub insecure: bool,
}

/// The Argo CD objects of `package`: `values` are each component's values as kubepkg supplies
/// them to its chart (`kubepkg_model::values::supplied`), `charts` each component's chart.
pub fn compile(
    package: &Package,
    values: &BTreeMap<String, Map<String, Value>>,
    charts: &BTreeMap<String, ChartRef>,
    opts: &Options,
) -> Result<Compiled, CompileError> {
    let repository = repo_url(&opts.repository)?;
    let order = kubepkg_model::graph::order(&package.components);
    let mut compiled = Compiled::default();
    if package.meta.rollback_safe == Some(true) {
        compiled.notes.push(
            "rollback.safe: Argo CD never rolls an Application back by itself; only kubepkg \
             driving the upgrade can sync the previous version's chart and values when it fails"
                .to_string(),
        );
    }
    for hook in order.hooks.iter().chain(&order.rollback_hooks) {
        compiled.notes.push(format!(
            "{hook}: a hook component runs only when kubepkg drives the change (kubepkg apply); \
             Argo CD has no step that runs once before an upgrade"
        ));
    }
    if opts.insecure {
        for pinned in [false, true] {
            if charts.values().any(|c| c.digest.is_some() == pinned) {
                compiled
                    .objects
                    .push(repository_secret(package, repository, opts, pinned));
            }
        }
    }
    for entry in crate::charted_components(package, &order, charts) {
        let (component, chart) = entry?;
        let name = &component.name;
        crate::argocd_post_renderers(component)?;
        for r in &component.ready_when {
            compiled.notes.push(format!(
                "{name}: readyWhen {} {} {}={} is checked by kubepkg only (when it drives the \
                 sync): Argo CD's health checks are per kind for a whole Argo CD instance, not per Application",
                r.kind, r.name, r.condition, r.status
            ));
        }
        compiled.objects.push(component_application(
            package,
            name,
            values.get(name).cloned().unwrap_or_default(),
            chart,
            opts,
        )?);
    }
    Ok(compiled)
}

/// One component's `Application`, exactly as [`compile`] writes it (its sync wave its position
/// in kubepkg's order; a hook component, which `compile` leaves out, gets wave 0): the form the
/// engine's Argo CD backend applies, one component at a time.
pub fn component_application(
    package: &Package,
    component: &str,
    values: Map<String, Value>,
    chart: &ChartRef,
    opts: &Options,
) -> Result<Value, CompileError> {
    let repository = repo_url(&opts.repository)?;
    let order = kubepkg_model::graph::order(&package.components);
    let wave = order
        .components
        .iter()
        .position(|c| c == component)
        .unwrap_or(0);
    let release = package.release_name(&opts.instance, component);
    let release_namespace = package
        .component(component)
        .map_or(opts.namespace.as_str(), |c| c.namespace_or(&opts.namespace));
    Ok(application(Application {
        package,
        release: &release,
        release_namespace,
        repository,
        chart,
        values,
        wave,
        opts,
    }))
}

/// The repository Secret [`compile`] writes for a plain-HTTP registry (`None` otherwise), for
/// `pinned` sources (charts known by digest) or sources by version.
pub fn repository_secret_object(
    package: &Package,
    opts: &Options,
    pinned: bool,
) -> Result<Option<Value>, CompileError> {
    let repository = repo_url(&opts.repository)?;
    Ok(opts
        .insecure
        .then(|| repository_secret(package, repository, opts, pinned)))
}

/// What a sync of `chart`'s Application names as its revision: the digest of a pinned source,
/// else the chart's version (the `targetRevision` [`compile`] writes).
pub fn target_revision(chart: &ChartRef) -> &str {
    chart.digest.as_deref().unwrap_or(&chart.version)
}

/// `oci://HOST/PATH` as Argo CD's `repoURL` of an OCI Helm repository: `HOST/PATH`.
pub fn repo_url(repository: &str) -> Result<&str, CompileError> {
    repository
        .strip_prefix("oci://")
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| !r.is_empty())
        .ok_or_else(|| CompileError::NotOciForArgoCd(repository.to_string()))
}

fn labels(package: &Package, opts: &Options) -> Value {
    json!({
        "app.kubernetes.io/managed-by": "kubepkg",
        "kubepkg.dev/package": opts.instance,
        "kubepkg.dev/version": package.meta.version.to_string(),
    })
}

/// The name of the repository Secret of a package instance: `<instance>-charts` for sources
/// by version, `<instance>-chart-creds` (a credential template) for pinned ones.
pub fn repository_secret_name(instance: &str, pinned: bool) -> String {
    match pinned {
        false => format!("{instance}-charts"),
        true => format!("{instance}-chart-creds"),
    }
}

fn repository_secret(package: &Package, repository: &str, opts: &Options, pinned: bool) -> Value {
    let mut labels = labels(package, opts);
    let name = repository_secret_name(&opts.instance, pinned);
    let data = match pinned {
        true => {
            labels[SECRET_TYPE_LABEL] = "repo-creds".into();
            json!({
                "type": "oci",
                "url": format!("oci://{repository}"),
                "insecureOCIForceHttp": "true",
            })
        }
        false => {
            labels[SECRET_TYPE_LABEL] = "repository".into();
            json!({
                "name": name,
                "type": "helm",
                "url": repository,
                "enableOCI": "true",
                "insecureOCIForceHttp": "true",
            })
        }
    };
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": { "name": name, "namespace": opts.argocd_namespace, "labels": labels },
        "stringData": data,
    })
}

struct Application<'a> {
    package: &'a Package,
    release: &'a str,
    release_namespace: &'a str,
    repository: &'a str,
    chart: &'a ChartRef,
    values: Map<String, Value>,
    wave: usize,
    opts: &'a Options,
}

fn application(a: Application<'_>) -> Value {
    let mut helm = json!({ "releaseName": a.release });
    if !a.values.is_empty() {
        helm["valuesObject"] = Value::Object(a.values);
    }
    let source = match &a.chart.digest {
        Some(digest) => json!({
            "repoURL": format!("oci://{}/{}", a.repository, a.chart.name),
            "path": ".",
            "targetRevision": digest,
            "helm": helm,
        }),
        None => json!({
            "repoURL": a.repository,
            "chart": a.chart.name,
            "targetRevision": a.chart.version,
            "helm": helm,
        }),
    };
    let mut spec = json!({
        "project": a.opts.project,
        "source": source,
        "destination": { "server": IN_CLUSTER, "namespace": a.release_namespace },
    });
    if a.release_namespace != a.opts.namespace {
        spec["syncPolicy"] = json!({ "syncOptions": ["CreateNamespace=true"] });
    }
    json!({
        "apiVersion": APPLICATION_API,
        "kind": "Application",
        "metadata": {
            "name": a.release,
            "namespace": a.opts.argocd_namespace,
            "labels": labels(a.package, a.opts),
            "annotations": { SYNC_WAVE: a.wave.to_string() },
            "finalizers": [RESOURCES_FINALIZER],
        },
        "spec": spec,
    })
}

#[cfg(test)]
mod tests;
