//! The reads behind the views, each through the one function the CLI uses for the same thing:
//! `list --packages` ([`RevisionStore::list_latest`]), `status` ([`ops::status`]), `history`
//! ([`ops::history`]), `values --explain` ([`ops::values`]) and the plan's diff
//! ([`kubepkg_engine::compare::revisions`]). Nothing here decides anything.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ListParams};
use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_engine::compare::ComponentDiff;
use kubepkg_engine::store::RevisionStore;
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_model::values::Effective;
use kubepkg_package::instance::ComponentState;
use kubepkg_package::revision::{History, PackageRevision};

use crate::error::DashboardError;
use crate::{Dashboard, Scope};

/// A `Package` object with no revision in this cluster: its components are in another
/// cluster (`spec.kubeConfig`), or it was never applied (waiting for its requirements, not
/// reconciled yet). Shown from the object's own status.
pub struct ElsewhereRow {
    pub namespace: String,
    pub name: String,
    /// Where its components are (`status.target`, else the spec's kubeconfig Secret).
    pub target: Option<String>,
    pub version: String,
    pub revision: Option<u64>,
    /// The `Ready` condition: status, reason, message.
    pub ready: Option<(String, String, String)>,
}

/// A `PackageRollout`: its phase and where it stands.
pub struct RolloutRow {
    pub namespace: String,
    pub name: String,
    pub phase: String,
    pub stage: String,
    pub message: String,
    /// Each cluster and its state (`f1: Ready`).
    pub clusters: Vec<String>,
}

/// What the list shows besides the packages with revisions here.
#[derive(Default)]
pub struct Others {
    pub elsewhere: Vec<ElsewhereRow>,
    pub rollouts: Vec<RolloutRow>,
}

/// The `Ready` condition of `o`: status, reason, message.
fn ready_of(o: &serde_json::Value) -> Option<(String, String, String)> {
    let c = o
        .pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Ready")?;
    let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
    Some((text("status"), text("reason"), text("message")))
}

/// What the plan page shows of one `Package` object.
pub struct PlanPage {
    pub namespace: String,
    pub name: String,
    /// `metadata.generation` and `status.observedGeneration`.
    pub generation: Option<i64>,
    pub observed: Option<i64>,
    pub suspended: bool,
    /// The `Ready` condition's reason and message.
    pub ready: Option<(String, String)>,
    /// The plan's text, or why it could not be made.
    pub plan: Result<String, String>,
}

/// A package's latest revision with each component's live state.
pub struct Status {
    pub revision: PackageRevision,
    pub components: Vec<ComponentState>,
}

/// One Event about a package or its objects.
pub struct EventLine {
    pub when: String,
    pub warning: bool,
    pub object: String,
    pub reason: String,
    pub message: String,
}

impl Dashboard {
    /// The engine's view of the cluster for reads (no progress is reported).
    fn engine(&self, namespace: &str) -> KubeCluster {
        let mut kube = self.kube.clone();
        kube.namespace = namespace.to_string();
        KubeCluster::with_sink(
            kube,
            ClusterCapabilities::default(),
            Duration::from_secs(60),
            Arc::new(|_| {}),
        )
    }

    /// An error unless `namespace` is shown, and (served to many users) its user may read
    /// Packages there.
    pub(crate) async fn check(&self, namespace: &str) -> Result<(), DashboardError> {
        if !self.scope.shows(namespace) {
            return Err(DashboardError::OutOfScope {
                namespace: namespace.to_string(),
                shown: match &self.scope {
                    Scope::Namespace(n) => format!("namespace {n}"),
                    Scope::All => "every namespace".to_string(),
                },
            });
        }
        if self.readable(namespace).await? {
            return Ok(());
        }
        Err(DashboardError::Forbidden {
            user: self
                .user
                .as_ref()
                .map_or_else(String::new, |u| u.name.clone()),
            namespace: namespace.to_string(),
        })
    }

    /// The engine's view of `namespace` ([`Dashboard::engine`]), once [`Dashboard::check`]
    /// allows reading it.
    async fn checked_engine(&self, namespace: &str) -> Result<KubeCluster, DashboardError> {
        self.check(namespace).await?;
        Ok(self.engine(namespace))
    }

    /// Whether the request's user may read Packages in `namespace` (always, for one user on
    /// this machine; once asked, remembered for the request).
    async fn readable(&self, namespace: &str) -> Result<bool, DashboardError> {
        if !self.authenticated {
            return Ok(true);
        }
        let Some(user) = &self.user else {
            return Err(DashboardError::Unauthenticated);
        };
        if let Some(known) = self
            .readable
            .lock()
            .ok()
            .and_then(|m| m.get(namespace).copied())
        {
            return Ok(known);
        }
        let allowed = crate::auth::may_read(&self.kube.client, user, namespace).await?;
        if let Ok(mut m) = self.readable.lock() {
            m.insert(namespace.to_string(), allowed);
        }
        Ok(allowed)
    }

    /// The status of every package shown, by namespace and name.
    /// The reads are shared ([`kubepkg_engine::reads`]): one list of the revision records,
    /// and per namespace one of the releases and one per kind of object, whatever the count.
    pub(crate) async fn packages(&self) -> Result<Vec<Status>, DashboardError> {
        let store = RevisionStore::remembering(self.kube.client.clone());
        let shared = Arc::new(kubepkg_engine::reads::Reads::default());
        let mut latest = Vec::new();
        for rev in store.list_latest(self.scope.namespace()).await? {
            if self.readable(&rev.namespace).await? {
                latest.push(rev);
            }
        }
        let reads = latest.into_iter().map(|rev| {
            let (store, shared) = (store.clone(), shared.clone());
            async move {
                let ns = rev.namespace.clone();
                let mut kc = self.engine(&ns);
                kc.store = store;
                kc.reads = Some(shared);
                match self.status_in(&kc, &ns, &rev.name).await {
                    Ok(s) => s,
                    // Gone since it was listed, or unreadable: shown as recorded.
                    Err(_) => Status {
                        revision: rev,
                        components: Vec::new(),
                    },
                }
            }
        });
        Ok(futures::future::join_all(reads).await)
    }

    /// The objects of `kind` (group `kubepkg.dev`) in the namespaces shown and readable, as
    /// JSON; none when their CRD is not installed.
    async fn kubepkg_objects(
        &self,
        kind: &str,
        plural: &str,
    ) -> Result<Vec<serde_json::Value>, DashboardError> {
        use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
        let gvk = GroupVersionKind::gvk(
            kubepkg_package_object::GROUP,
            kubepkg_package_object::VERSION,
            kind,
        );
        let resource = ApiResource::from_gvk_with_plural(&gvk, plural);
        let api: Api<DynamicObject> = match self.scope.namespace() {
            Some(ns) => Api::namespaced_with(self.kube.client.clone(), ns, &resource),
            None => Api::all_with(self.kube.client.clone(), &resource),
        };
        let items = match api.list(&ListParams::default()).await {
            Ok(list) => list.items,
            // The CRD is not installed: there are none.
            Err(kube::Error::Api(s)) if s.code == 404 => Vec::new(),
            Err(e) => {
                return Err(DashboardError::Engine(kubepkg_engine::EngineError::Api(
                    kubepkg_kube::KubeError::refused("list", plural.to_string(), e),
                )));
            }
        };
        let mut out = Vec::new();
        for o in items {
            let ns = o.metadata.namespace.clone().unwrap_or_default();
            if self.readable(&ns).await? {
                out.push(serde_json::to_value(&o).unwrap_or_default());
            }
        }
        Ok(out)
    }

    /// The `Package` objects shown with no revision here (`listed` are those with one), and
    /// the `PackageRollout`s (shown to whoever may read the Packages of their namespace).
    pub(crate) async fn others(&self, listed: &[Status]) -> Result<Others, DashboardError> {
        let text = |o: &serde_json::Value, p: &str| {
            o.pointer(p)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let mut others = Others::default();
        for o in self
            .kubepkg_objects(kubepkg_package_object::KIND, kubepkg_package_object::PLURAL)
            .await?
        {
            let (namespace, name) = (text(&o, "/metadata/namespace"), text(&o, "/metadata/name"));
            if listed
                .iter()
                .any(|s| s.revision.namespace == namespace && s.revision.name == name)
            {
                continue;
            }
            let target = o
                .pointer("/status/target/server")
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .or_else(|| {
                    o.pointer("/spec/kubeConfig/secretRef/name")
                        .and_then(|v| v.as_str())
                        .map(|s| format!("kubeconfig Secret {s}"))
                });
            let version = match text(&o, "/status/version") {
                v if v.is_empty() => text(&o, "/status/lastAttemptedVersion"),
                v => v,
            };
            others.elsewhere.push(ElsewhereRow {
                target,
                version,
                revision: o.pointer("/status/revision").and_then(|r| r.as_u64()),
                ready: ready_of(&o),
                namespace,
                name,
            });
        }
        for o in self
            .kubepkg_objects(kubepkg_fleet::KIND, kubepkg_fleet::PLURAL)
            .await?
        {
            let clusters = o
                .pointer("/status/clusters")
                .and_then(|c| c.as_array())
                .into_iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{}: {}",
                        c["name"].as_str().unwrap_or_default(),
                        c["state"].as_str().unwrap_or_default()
                    )
                })
                .collect();
            others.rollouts.push(RolloutRow {
                namespace: text(&o, "/metadata/namespace"),
                name: text(&o, "/metadata/name"),
                phase: text(&o, "/status/phase"),
                stage: text(&o, "/status/stage"),
                message: text(&o, "/status/message"),
                clusters,
            });
        }
        Ok(others)
    }

    /// One package's latest revision and its components' live state.
    pub(crate) async fn status(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Status, DashboardError> {
        self.status_in(&self.engine(namespace), namespace, name)
            .await
    }

    /// [`Dashboard::status`] read through `kc`.
    async fn status_in(
        &self,
        kc: &KubeCluster,
        namespace: &str,
        name: &str,
    ) -> Result<Status, DashboardError> {
        self.check(namespace).await?;
        let (revision, components) = ops::status(kc, Instance { name, namespace }).await?;
        Ok(Status {
            revision,
            components,
        })
    }

    /// The plan page of the `Package` object `name` in `namespace`: its state and the plan of
    /// its current spec ([`crate::Planner`]). Served to many users, only to one who may also
    /// read the namespace's Secrets (a plan shows values that may come from them).
    pub(crate) async fn plan(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<PlanPage, DashboardError> {
        use kube::api::DynamicObject;
        self.check(namespace).await?;
        if self.authenticated {
            let Some(user) = &self.user else {
                return Err(DashboardError::Unauthenticated);
            };
            if !crate::auth::may_get(&self.kube.client, user, namespace, "", "secrets").await? {
                return Err(DashboardError::SecretsForbidden {
                    user: user.name.clone(),
                    namespace: namespace.to_string(),
                });
            }
        }
        let resource = kubepkg_package_object::api_resource();
        let api: kube::Api<DynamicObject> =
            kube::Api::namespaced_with(self.kube.client.clone(), namespace, &resource);
        let found = match api.get_opt(name).await {
            Ok(found) => found,
            // No Package CRD: no Package object either.
            Err(kube::Error::Api(s)) if s.code == 404 => None,
            Err(e) => {
                return Err(DashboardError::Engine(kubepkg_engine::EngineError::Api(
                    kubepkg_kube::KubeError::refused(
                        "get",
                        format!("Package {namespace}/{name}"),
                        e,
                    ),
                )));
            }
        };
        let Some(found) = found else {
            return Err(DashboardError::NoPackageObject {
                namespace: namespace.to_string(),
                name: name.to_string(),
            });
        };
        let o = serde_json::to_value(&found).unwrap_or_default();
        let ready = o
            .pointer("/status/conditions")
            .and_then(|c| c.as_array())
            .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready"))
            .map(|c| {
                let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (text("reason"), text("message"))
            });
        let plan = match &self.planner {
            None => Err("this dashboard was started without a planner".to_string()),
            Some(planner) => {
                let mut kube = self.kube.clone();
                kube.namespace = namespace.to_string();
                planner(crate::PlanFor {
                    kube,
                    namespace: namespace.to_string(),
                    name: name.to_string(),
                    object: o.clone(),
                })
                .await
            }
        };
        Ok(PlanPage {
            namespace: namespace.to_string(),
            name: name.to_string(),
            generation: o.pointer("/metadata/generation").and_then(|g| g.as_i64()),
            observed: o
                .pointer("/status/observedGeneration")
                .and_then(|g| g.as_i64()),
            suspended: o.pointer("/spec/suspend").and_then(|s| s.as_bool()) == Some(true),
            ready,
            plan,
        })
    }

    pub(crate) async fn history(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<History, DashboardError> {
        let kc = self.checked_engine(namespace).await?;
        Ok(ops::history(&kc, Instance { name, namespace }).await?)
    }

    pub(crate) async fn diff(
        &self,
        namespace: &str,
        name: &str,
        from: u64,
        to: u64,
    ) -> Result<Vec<ComponentDiff>, DashboardError> {
        let kc = self.checked_engine(namespace).await?;
        Ok(kubepkg_engine::compare::revisions(&kc, Instance { name, namespace }, from, to).await?)
    }

    pub(crate) async fn values(
        &self,
        namespace: &str,
        name: &str,
        revision: Option<u64>,
    ) -> Result<(PackageRevision, Vec<(String, Effective)>), DashboardError> {
        let kc = self.checked_engine(namespace).await?;
        Ok(ops::values(&kc, Instance { name, namespace }, revision).await?)
    }

    /// The Events of the namespace about the package (its `Package` object) or the objects of
    /// its components' releases (named after the release), newest first. What cannot be read
    /// is left out: Events explain, they never fail a page.
    pub(crate) async fn events(&self, namespace: &str, rev: &PackageRevision) -> Vec<EventLine> {
        let api: Api<Event> = Api::namespaced(self.kube.client.clone(), namespace);
        let Ok(list) = api.list(&ListParams::default()).await else {
            return Vec::new();
        };
        let ours = |kind: &str, name: &str| {
            (kind == "Package" && name == rev.name)
                || rev
                    .components
                    .iter()
                    .any(|c| name == c.release || name.starts_with(&format!("{}-", c.release)))
        };
        let mut out: Vec<(String, EventLine)> = list
            .items
            .into_iter()
            .filter(|e| {
                ours(
                    e.involved_object.kind.as_deref().unwrap_or_default(),
                    e.involved_object.name.as_deref().unwrap_or_default(),
                )
            })
            .map(|e| {
                let when = kubepkg_kube::diagnosis::event_time(&e);
                let object = format!(
                    "{} {}",
                    e.involved_object.kind.unwrap_or_default(),
                    e.involved_object.name.unwrap_or_default()
                );
                (
                    when.clone(),
                    EventLine {
                        when,
                        warning: e.type_.as_deref() == Some("Warning"),
                        object,
                        reason: e.reason.unwrap_or_default(),
                        message: e.message.unwrap_or_default(),
                    },
                )
            })
            .collect();
        // Newest first, by time (the two timestamp fields differ in precision).
        out.sort_by_key(|(when, _)| std::cmp::Reverse(when.parse::<jiff::Timestamp>().ok()));
        out.into_iter().map(|(_, e)| e).take(50).collect()
    }
}
