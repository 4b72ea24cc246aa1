//! [`KubeCluster`]: the orchestrator's [`Cluster`] over a real cluster.
//!
//! - components are Helm releases (`kubepkg-release`), stored as Helm stores them in the
//!   component's namespace, rendered by `kubepkg-chart` with the cluster's capabilities;
//! - readiness is the release's objects by kstatus rules (`kubepkg-kube`'s watch-based wait),
//!   then the `readyWhen` gates ([`crate::ready`]);
//! - requirements are other packages' latest revisions, watched through their Secrets;
//! - revisions are Secrets ([`crate::store`]).
//!
//! Every step is reported as a typed [`Event`] into one sink, [`KubeCluster::sink`]: the
//! orchestrator's component states, the release layer's messages with the component they are
//! about, and the engine's own (the `Package` status it could not update).
//!
//! Crash tests stop the process at precise points of a package apply with the test-only
//! environment variable `KUBEPKG_FAILPOINT` ([`kubepkg_kube::failpoint`]: off unless set;
//! comma-separated names). At a named point the process prints `kubepkg: failpoint <name>
//! reached, pausing` to standard error and waits forever (its leases stay renewed, as a slow
//! process's would) until the test kills it. The package engine's points:
//! - `package-pending`: the package's pending revision is first recorded, nothing changed yet;
//! - `package-applied:<component>`: the component's release was installed or upgraded, not yet
//!   waited for (for a `PreUpgrade` hook: its Job is running);
//! - `package-ready:<component>`: the component is ready, the next one not started;
//! - `package-rolled-back:<release>`: during a rollback, that release was rolled back.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};
use kubepkg_package::conditions;
use kubepkg_package::orchestrator::{
    Cluster, ComponentApply, Event, Failure, FailureKind, ReadyWait, RequirementState, Waited,
};
use kubepkg_package::revision::{PackageRevision, RevisionStatus};
use kubepkg_package::verdict::HookOutput;
use kubepkg_progress::{Message, Sink};
use kubepkg_release::action::{ActionError, Options, Releases, manifest_objects};
use kubepkg_release::storage::SecretDriver;
use tokio::time::Instant;

use crate::chart::{ClusterCapabilities, component_payload};
use crate::store::RevisionStore;

/// Where progress goes as text lines (each event's `Display`): [`KubeCluster::new`].
pub type LineSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The orchestrator's cluster side on a real Kubernetes API.
pub struct KubeCluster {
    pub kube: kubepkg_kube::Cluster,
    pub store: RevisionStore,
    pub caps: ClusterCapabilities,
    /// Per-operation timeout of release steps (CRDs established, lease waits).
    pub timeout: Duration,
    /// How long to wait for required packages before `RequirementsNotMet`.
    pub requirements_timeout: Duration,
    /// Wait for a live holder of the package's or a release's Lease (false: `--no-wait-lock`,
    /// fail at once naming the holder).
    pub wait_lock: bool,
    requirements_deadline: Option<Instant>,
    /// Whether a pending revision was recorded yet (the `package-pending` failpoint).
    pending_recorded: bool,
    /// The revisions this operation recorded as pending and not yet as final (made final
    /// when the operation ends: `ops::unlock`).
    pub(crate) recorded_pending: std::collections::BTreeSet<u64>,
    /// Where every progress event goes, live, in order.
    pub sink: Sink,
    /// The orchestrator's events of this cluster's operations, in order (component states;
    /// not the messages, which only go to [`KubeCluster::sink`]).
    pub events: Vec<Event>,
    /// `backend: flux`: components are applied as Flux HelmReleases ([`crate::flux`]);
    /// `None`: as kubepkg's own Helm releases.
    pub flux: Option<crate::flux::FluxBackend>,
    /// `backend: argocd`: components are applied as Argo CD Applications ([`crate::argocd`]).
    pub argocd: Option<crate::argocd::ArgoCdBackend>,
}

impl KubeCluster {
    /// A cluster side reporting each progress event as its text line to `lines`.
    pub fn new(
        kube: kubepkg_kube::Cluster,
        caps: ClusterCapabilities,
        timeout: Duration,
        lines: LineSink,
    ) -> KubeCluster {
        Self::with_sink(
            kube,
            caps,
            timeout,
            kubepkg_progress::lines(move |l| lines(l)),
        )
    }

    /// A cluster side reporting each progress event to `sink`.
    pub fn with_sink(
        kube: kubepkg_kube::Cluster,
        caps: ClusterCapabilities,
        timeout: Duration,
        sink: Sink,
    ) -> KubeCluster {
        KubeCluster {
            store: RevisionStore::new(kube.client.clone()),
            kube,
            caps,
            timeout,
            requirements_timeout: timeout,
            wait_lock: true,
            requirements_deadline: None,
            pending_recorded: false,
            recorded_pending: Default::default(),
            sink,
            events: Vec::new(),
            flux: None,
            argocd: None,
        }
    }

    /// Reports `event` to the progress sink.
    pub fn report(&self, event: &Event) {
        (self.sink)(event);
    }

    /// `.Capabilities` for a render now: the server's version as connected, and the API
    /// versions it serves at this moment (asked again, as Helm builds them from discovery for
    /// every render; the known ones if the server cannot be asked). Plan and apply both
    /// render with this.
    pub async fn capabilities_now(&self) -> ClusterCapabilities {
        let mut caps = self.caps.clone();
        if let Ok(v) = served_api_versions(&self.kube.client).await {
            caps.api_versions = v;
        }
        caps
    }

    /// The cluster with `namespace` as the default for objects that name none.
    pub fn in_namespace(&self, namespace: &str) -> kubepkg_kube::Cluster {
        let mut c = self.kube.clone();
        c.namespace = namespace.to_string();
        c
    }

    /// Starts a new requirements timeout (each operation waits at most that long).
    pub fn reset_requirements_deadline(&mut self) {
        self.requirements_deadline = None;
        self.pending_recorded = false;
    }

    fn options(&self) -> Options {
        Options {
            wait: false,
            timeout: self.timeout,
            create_namespace: true,
            wait_lock: self.wait_lock,
            ..Default::default()
        }
    }
}

impl KubeCluster {
    /// Mirrors `rev` into the status of the `Package` object of the same name and namespace
    /// (docs/package-object.md#status), when the CRD is installed and such an object exists; a
    /// failure to do so is reported and does not stop the apply.
    pub async fn publish_status(&self, rev: &PackageRevision) {
        use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
        use kubepkg_package::object;
        let gvk = GroupVersionKind::gvk(object::GROUP, object::VERSION, object::KIND);
        let resource = ApiResource::from_gvk_with_plural(&gvk, object::PLURAL);
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.kube.client.clone(), &rev.namespace, &resource);
        let status = object::status_of(rev, None);
        let patch = serde_json::json!({ "status": status });
        match api
            .patch_status(&rev.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => {}
            // No Package CRD or no object of that name: nothing to mirror.
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Err(e) => self.report(&Event::message(
                None,
                Message::PackageStatusNotUpdated {
                    package: format!("{}/{}", rev.namespace, rev.name),
                    error: e.to_string(),
                },
            )),
        }
    }
}

/// Release operations of `namespace` reporting their messages to `sink` as messages about
/// `component`.
pub fn releases<'a>(
    cluster: &'a kubepkg_kube::Cluster,
    namespace: &str,
    sink: Sink,
    component: String,
) -> Releases<'a, SecretDriver> {
    let mut r = Releases::new(
        cluster,
        SecretDriver::new(cluster.client.clone(), Some(namespace)),
        namespace,
    );
    r.progress = Box::new(move |message| {
        sink(&Event::Message {
            component: Some(component.clone()),
            message,
        })
    });
    r
}

/// Pauses at the failpoint `name` when `KUBEPKG_FAILPOINT` names it (see the module docs).
async fn failpoint(name: &str) {
    kubepkg_kube::failpoint::reached(name).await;
}

/// The orchestrator's failure of a step `kind`, keeping the error as its source.
fn failure<E: std::error::Error + Send + Sync + 'static>(
    kind: FailureKind,
) -> impl FnOnce(E) -> Failure {
    move |e| Failure::caused(kind, e)
}

impl Cluster for KubeCluster {
    async fn requirement(&mut self, name: &str) -> RequirementState {
        let mut found = match self.store.find(name).await {
            Ok(found) => found,
            Err(e) => return RequirementState::Unknown(e.to_string()),
        };
        // An instance in this operation's namespace first, then by namespace.
        found.sort_by_key(|h| {
            h.latest()
                .is_none_or(|l| l.namespace != self.kube.namespace)
        });
        for h in found {
            let Some(latest) = h.latest() else { continue };
            if matches!(
                latest.status,
                RevisionStatus::Uninstalled | RevisionStatus::Uninstalling
            ) {
                continue;
            }
            let version = h.deployed().unwrap_or(latest).version.clone();
            // Ready as kstatus reads its conditions: deployed and not stalled (a package whose
            // upgrade was rolled back is not Ready until it is fixed forward).
            let ready = conditions::summary(&conditions::live(latest, None))
                == conditions::Summary::Current;
            return RequirementState::Present { version, ready };
        }
        RequirementState::Absent
    }

    async fn wait_for_requirements(&mut self) -> Waited {
        let deadline = *self
            .requirements_deadline
            .get_or_insert_with(|| Instant::now() + self.requirements_timeout);
        let api: Api<Secret> = Api::all(self.kube.client.clone());
        let cfg = watcher::Config::default().labels("owner=kubepkg");
        // A broken watch is set up again (with backoff) until the deadline.
        let mut stream = watcher(api, cfg).default_backoff().boxed();
        let mut initialised = false;
        loop {
            match tokio::time::timeout_at(deadline, stream.next()).await {
                Err(_) | Ok(None) => return Waited::TimedOut,
                Ok(Some(Ok(watcher::Event::InitDone))) => initialised = true,
                Ok(Some(Ok(watcher::Event::Apply(_)) | Ok(watcher::Event::Delete(_))))
                    if initialised =>
                {
                    return Waited::Changed;
                }
                Ok(Some(_)) => {}
            }
        }
    }

    async fn record(&mut self, revision: &PackageRevision) -> Result<(), Failure> {
        // Before the write: one whose answer is lost may still have gone through.
        if revision.status.is_pending() {
            self.recorded_pending.insert(revision.revision);
        }
        self.store
            .record(revision)
            .await
            .map_err(failure(FailureKind::Record))?;
        if revision.status != RevisionStatus::Superseded {
            self.publish_status(revision).await;
        }
        if !revision.status.is_pending() {
            self.recorded_pending.remove(&revision.revision);
        }
        if revision.status.is_pending() && !self.pending_recorded {
            self.pending_recorded = true;
            failpoint("package-pending").await;
        }
        Ok(())
    }

    async fn forget(&mut self, revision: &PackageRevision) -> Result<(), Failure> {
        self.store
            .delete(revision)
            .await
            .map_err(failure(FailureKind::Record))?;
        self.recorded_pending.remove(&revision.revision);
        // The Package object goes back to what is still recorded.
        if let Ok(h) = self
            .store
            .history(&revision.name, &revision.namespace)
            .await
            && let Some(latest) = h.latest()
        {
            self.publish_status(latest).await;
        }
        Ok(())
    }

    async fn apply_component(&mut self, request: &ComponentApply) -> Result<u64, Failure> {
        if self.flux.is_some() {
            let revision = self.flux_apply(request).await?;
            failpoint(&format!("package-applied:{}", request.component)).await;
            return Ok(revision);
        }
        if self.argocd.is_some() {
            let revision = self.argocd_apply(request).await?;
            failpoint(&format!("package-applied:{}", request.component)).await;
            return Ok(revision);
        }
        let ns_cluster = self.in_namespace(&request.namespace);
        let opts = self.options();
        let rel = releases(
            &ns_cluster,
            &request.namespace,
            self.sink.clone(),
            request.component.clone(),
        );
        ensure_namespace(&self.kube.client, &request.namespace)
            .await
            .map_err(failure(FailureKind::Apply))?;
        let mut last = rel
            .store
            .last(&request.release)
            .await
            .map_err(failure(FailureKind::Apply))?;
        if request.hook && last.is_some() {
            match rel.uninstall(&request.release, &opts).await {
                Ok(_) | Err(ActionError::NotFound { .. }) => {}
                Err(e) => return Err(failure(FailureKind::Apply)(e)),
            }
            last = None;
        }
        let is_upgrade = last.is_some();
        // Earlier components may have registered APIs (CRDs): ask the server again, as Helm
        // builds `.Capabilities.APIVersions` from discovery for every render.
        self.caps = self.capabilities_now().await;
        let out = component_payload(request, &self.caps, last.as_ref().map(|r| r.version))
            .map_err(failure(FailureKind::Render))?;
        if !out.crds.is_empty() {
            kubepkg_release::action::install_crds(&ns_cluster, &out.crds, self.timeout)
                .await
                .map_err(failure(FailureKind::Apply))?;
        }
        let release = if is_upgrade {
            rel.upgrade(&request.release, out.rendered, &opts, true)
                .await
        } else {
            rel.install(&request.release, out.rendered, &opts).await
        }
        .map_err(failure(FailureKind::Apply))?;
        failpoint(&format!("package-applied:{}", request.component)).await;
        Ok(release.version)
    }

    async fn wait_ready(&mut self, request: &ReadyWait) -> Result<(), Failure> {
        let deadline = Instant::now() + request.timeout;
        if self.flux.is_some() {
            self.flux_wait_ready(&request.component, &request.release, request.timeout)
                .await?;
        }
        let ns_cluster = self.in_namespace(&request.namespace);
        // Argo CD keeps no Helm release: its Application lists the objects it applied (found
        // without a configured backend too: `kubepkg rollback` of an argocd package).
        let argocd_at = if self.argocd.is_some() {
            Some(self.argocd_namespace())
        } else {
            None
        };
        let ids = if let Some(at) = argocd_at {
            self.argocd_wait_ready(&request.component, &at, &request.release, deadline)
                .await?
        } else {
            let rel = releases(
                &ns_cluster,
                &request.namespace,
                self.sink.clone(),
                request.component.clone(),
            );
            let release = rel
                .store
                .last(&request.release)
                .await
                .map_err(failure(FailureKind::NotReady))?;
            match release {
                Some(release) => {
                    manifest_objects(&release.manifest).map_err(failure(FailureKind::NotReady))?
                }
                None => match self
                    .argocd_application(&request.release, &request.namespace)
                    .await
                {
                    Some(app) => {
                        let at = app["metadata"]["namespace"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string();
                        self.argocd_wait_ready(&request.component, &at, &request.release, deadline)
                            .await?
                    }
                    None => {
                        return Err(Failure::new(
                            FailureKind::NotReady,
                            format!("release {} not found", request.release),
                        ));
                    }
                },
            }
        };
        let sink = self.sink.clone();
        let component = request.component.clone();
        let waiting_for = |object: &str, reason: &str| {
            sink(&Event::WaitingFor {
                component: component.clone(),
                object: object.to_string(),
                reason: reason.to_string(),
            })
        };
        kubepkg_kube::wait::wait_ready(&ns_cluster, &ids, request.timeout, |pending| {
            for (id, r) in pending {
                let mut reason = r.status.to_string();
                if !r.reason.is_empty() {
                    reason.push_str(&format!(" ({})", r.reason));
                }
                if !r.message.is_empty() {
                    reason.push_str(&format!(": {}", r.message));
                }
                waiting_for(&id.to_string(), &reason);
            }
        })
        .await
        .map_err(failure(FailureKind::NotReady))?;
        crate::ready::wait_jobs(
            &ns_cluster,
            &ids,
            &request.namespace,
            deadline,
            request.timeout,
            waiting_for,
        )
        .await
        .map_err(|m| Failure::new(FailureKind::NotReady, m))?;
        crate::ready::wait(
            &ns_cluster,
            &request.ready_when,
            &request.namespace,
            deadline,
            request.timeout,
            waiting_for,
        )
        .await
        .map_err(|m| Failure::new(FailureKind::NotReady, m))?;
        failpoint(&format!("package-ready:{}", request.component)).await;
        Ok(())
    }

    async fn rollback_component(
        &mut self,
        release: &str,
        namespace: &str,
        to_revision: u64,
    ) -> Result<u64, Failure> {
        // A component Flux releases is rolled back through its HelmRelease.
        if let Some(live) =
            crate::flux::helm_release(&self.kube.client, &self.kube.namespace, release).await
        {
            let r = self
                .flux_rollback(release, namespace, to_revision, live)
                .await?;
            failpoint(&format!("package-rolled-back:{release}")).await;
            return Ok(r);
        }
        // A component Argo CD deploys is rolled back through its Application.
        if let Some(live) = self.argocd_application(release, namespace).await {
            let r = self.argocd_rollback(release, to_revision, live).await?;
            failpoint(&format!("package-rolled-back:{release}")).await;
            return Ok(r);
        }
        let ns_cluster = self.in_namespace(namespace);
        let opts = self.options();
        let rel = releases(&ns_cluster, namespace, self.sink.clone(), release.into());
        let r = rel
            .rollback(release, to_revision, &opts)
            .await
            .map_err(failure(FailureKind::Rollback))?;
        failpoint(&format!("package-rolled-back:{release}")).await;
        Ok(r.version)
    }

    async fn uninstall_release(&mut self, release: &str, namespace: &str) -> Result<(), Failure> {
        if crate::flux::helm_release(&self.kube.client, &self.kube.namespace, release)
            .await
            .is_some()
        {
            return self.flux_delete(release, release, self.timeout).await;
        }
        if let Some(app) = self.argocd_application(release, namespace).await {
            let at = app["metadata"]["namespace"].as_str().unwrap_or_default();
            return self.argocd_delete(release, at, release, self.timeout).await;
        }
        let ns_cluster = self.in_namespace(namespace);
        let opts = self.options();
        let rel = releases(&ns_cluster, namespace, self.sink.clone(), release.into());
        match rel.uninstall(release, &opts).await {
            Ok(_) | Err(ActionError::NotFound { .. }) => Ok(()),
            Err(e) => Err(failure(FailureKind::Uninstall)(e)),
        }
    }

    async fn hook_output(&mut self, release: &str, namespace: &str) -> HookOutput {
        let ns_cluster = self.in_namespace(namespace);
        if self.argocd.is_some() {
            let ids = self.argocd_objects(release, namespace).await;
            return crate::hook_output::read(&ns_cluster, &ids, namespace).await;
        }
        let rel = releases(&ns_cluster, namespace, self.sink.clone(), release.into());
        let Ok(Some(r)) = rel.store.last(release).await else {
            return HookOutput::default();
        };
        let Ok(ids) = manifest_objects(&r.manifest) else {
            return HookOutput::default();
        };
        crate::hook_output::read(&ns_cluster, &ids, namespace).await
    }

    fn progress(&mut self, event: Event) {
        self.report(&event);
        self.events.push(event);
    }

    fn now(&self) -> String {
        jiff::Timestamp::now().to_string()
    }
}

/// Every `group/version` and `group/version/Kind` the server serves, subresource kinds
/// included (Helm's `GetVersionSet`), sorted: [`kubepkg_kube::discovery::server_capabilities`].
pub async fn served_api_versions(
    client: &kube::Client,
) -> Result<Vec<String>, kubepkg_kube::KubeError> {
    Ok(kubepkg_kube::discovery::server_capabilities(client)
        .await?
        .api_versions)
}

/// Creates `namespace` when absent (server-side apply of a bare Namespace).
pub async fn ensure_namespace(
    client: &kube::Client,
    namespace: &str,
) -> Result<(), crate::error::EngineError> {
    use k8s_openapi::api::core::v1::Namespace;
    let api: kube::Api<Namespace> = kube::Api::all(client.clone());
    let ns = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
    api.patch(
        namespace,
        &kube::api::PatchParams::apply(kubepkg_kube::apply::FIELD_MANAGER),
        &kube::api::Patch::Apply(&ns),
    )
    .await
    .map_err(|e| crate::error::EngineError::api("create", format!("Namespace {namespace}"), e))?;
    Ok(())
}
