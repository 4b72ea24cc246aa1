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
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_model::values::Effective;
use kubepkg_package::instance::ComponentState;
use kubepkg_package::revision::{History, PackageRevision};

use crate::error::DashboardError;
use crate::{Dashboard, Scope};

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
    pub(crate) async fn packages(&self) -> Result<Vec<Status>, DashboardError> {
        let store = &self.engine(&self.kube.namespace).store;
        let mut latest = Vec::new();
        for rev in store.list_latest(self.scope.namespace()).await? {
            if self.readable(&rev.namespace).await? {
                latest.push(rev);
            }
        }
        let reads = latest.into_iter().map(|rev| async move {
            let ns = rev.namespace.clone();
            match self.status(&ns, &rev.name).await {
                Ok(s) => s,
                // Gone since it was listed, or unreadable: shown as recorded.
                Err(_) => Status {
                    revision: rev,
                    components: Vec::new(),
                },
            }
        });
        Ok(futures::future::join_all(reads).await)
    }

    /// One package's latest revision and its components' live state.
    pub(crate) async fn status(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Status, DashboardError> {
        self.check(namespace).await?;
        let kc = self.engine(namespace);
        let (revision, components) = ops::status(&kc, Instance { name, namespace }).await?;
        Ok(Status {
            revision,
            components,
        })
    }

    pub(crate) async fn history(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<History, DashboardError> {
        self.check(namespace).await?;
        Ok(ops::history(&self.engine(namespace), Instance { name, namespace }).await?)
    }

    pub(crate) async fn diff(
        &self,
        namespace: &str,
        name: &str,
        from: u64,
        to: u64,
    ) -> Result<Vec<ComponentDiff>, DashboardError> {
        self.check(namespace).await?;
        let kc = self.engine(namespace);
        Ok(kubepkg_engine::compare::revisions(&kc, Instance { name, namespace }, from, to).await?)
    }

    pub(crate) async fn values(
        &self,
        namespace: &str,
        name: &str,
        revision: Option<u64>,
    ) -> Result<(PackageRevision, Vec<(String, Effective)>), DashboardError> {
        self.check(namespace).await?;
        let kc = self.engine(namespace);
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
