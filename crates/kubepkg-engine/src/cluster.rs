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
use tokio::time::Instant;

use std::borrow::Cow;

use kubepkg_model::Backend as Kind;
use kubepkg_package::revision::ComponentRecord;

use crate::backend::{Backend, ComponentBackend, Ctx, Rollback, Uninstall, failure, recorded_kind};
pub use crate::backend::{ensure_namespace, releases};
use crate::chart::ClusterCapabilities;
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
    /// The backend the components are applied with ([`crate::backend`]; default: kubepkg's
    /// own Helm releases).
    pub backend: Backend,
    /// The backend each release's record names, when it is not the operation's
    /// ([`KubeCluster::remember_backends`]).
    pub(crate) recorded: std::collections::BTreeMap<String, kubepkg_model::Backend>,
    /// The client the `Package` objects' status is written with (`None`: the cluster's). The
    /// controller's own, when the components are applied as a tenant's ServiceAccount.
    pub package_objects: Option<kube::Client>,
    /// The namespaces this cluster side made sure of (each asked for once).
    ensured_namespaces: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// The release histories this operation keeps (`backend::releases`).
    releases_known: kubepkg_release::storage::Remembered,
    /// The API versions served, as last asked in this operation (`None`: ask again).
    apis_now: std::sync::Mutex<Option<Vec<String>>>,
    /// The `Package` status this operation last wrote ([`KubeCluster::publish_status`] does
    /// not write the same again).
    published: std::sync::Mutex<Option<serde_json::Value>>,
    /// Whether the caller writes the last final status itself, with fields of its own, in one
    /// request ([`KubeCluster::publish_status_with`]; the controller, with the observed
    /// generation): a final revision's status then waits in `deferred` until the next
    /// revision's status is written or the caller writes it.
    pub defer_final_status: bool,
    deferred: std::sync::Mutex<Option<PackageRevision>>,
    /// Fields of a Package's status the next write of it carries too
    /// ([`KubeCluster::status_also`]).
    also: std::sync::Mutex<Option<StatusAlso>>,
    /// Reads shared with the other status reads of one page (`ops::status` of many packages;
    /// `None`: each reads for itself).
    pub reads: Option<Arc<crate::reads::Reads>>,
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
            store: RevisionStore::remembering(kube.client.clone()),
            kube,
            timeout,
            requirements_timeout: timeout,
            wait_lock: true,
            requirements_deadline: None,
            pending_recorded: false,
            recorded_pending: Default::default(),
            sink,
            events: Vec::new(),
            backend: Backend::default(),
            recorded: Default::default(),
            package_objects: None,
            ensured_namespaces: Default::default(),
            releases_known: Default::default(),
            // Capabilities just discovered are the server's now.
            published: Default::default(),
            defer_final_status: false,
            deferred: Default::default(),
            also: Default::default(),
            reads: None,
            apis_now: std::sync::Mutex::new(
                Some(caps.api_versions.clone()).filter(|v| !v.is_empty()),
            ),
            caps,
        }
    }

    /// What the backend's steps use of this operation.
    pub(crate) fn ctx(&self) -> Ctx<'_> {
        Ctx {
            kube: &self.kube,
            sink: &self.sink,
            caps: &self.caps,
            timeout: self.timeout,
            wait_lock: self.wait_lock,
            ensured: &self.ensured_namespaces,
            releases_known: &self.releases_known,
            apis_now: &self.apis_now,
            reads: self.reads.as_deref(),
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
        self.ctx().capabilities_now().await
    }

    /// Sets the capabilities the operation renders with, just discovered
    /// ([`crate::ops::capabilities`]): their API versions count as the server's now.
    pub fn set_capabilities(&mut self, caps: ClusterCapabilities) {
        if let Ok(mut k) = self.apis_now.lock() {
            *k = Some(caps.api_versions.clone()).filter(|v| !v.is_empty());
        }
        self.caps = caps;
    }

    /// Starts an operation on package instance `name` of `namespace` (its Lease just taken):
    /// nothing a step before it read of
    /// the histories counts any more (anyone may have written in between), and the status it
    /// writes is new.
    pub(crate) fn operation_starts(&self, name: &str, namespace: &str) {
        self.store.forget(name, namespace);
        self.releases_known.clear();
        if let Ok(mut p) = self.published.lock() {
            *p = None;
        }
    }

    /// Ends an operation: the release histories it kept and the API versions it asked for are
    /// read again by the next. The package's revisions stay as this operation left them, for
    /// what its caller reads right after it (the controller's last status); the next
    /// operation reads them again under its Lease.
    pub(crate) fn operation_over(&self) {
        self.releases_known.clear();
        if let Ok(mut k) = self.apis_now.lock() {
            *k = None;
        }
    }

    /// Counts `namespace` as existing, not to be made sure of (the namespace of the
    /// `Package` object being reconciled, in the cluster that holds it).
    pub fn namespace_exists(&self, namespace: &str) {
        if let Ok(mut set) = self.ensured_namespaces.lock() {
            set.insert(namespace.to_string());
        }
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
}

impl KubeCluster {
    /// The backend that acts on `record`'s component: the operation's when the record names
    /// its kind, else one of the recorded kind without settings.
    pub(crate) async fn backend_for_record(&self, record: &ComponentRecord) -> Cow<'_, Backend> {
        let kind = recorded_kind(&self.ctx(), record).await;
        self.backend_of_kind(kind)
    }

    /// Remembers which backend applied each component of `records`, for the steps the
    /// orchestrator then takes on their releases ([`KubeCluster::backend_of`]).
    pub(crate) async fn remember_backends(&mut self, records: &[ComponentRecord]) {
        for r in records {
            let kind = recorded_kind(&self.ctx(), r).await;
            self.recorded.insert(r.release.clone(), kind);
        }
    }

    /// The backend that acts on `release`: the one its record named
    /// ([`KubeCluster::remember_backends`]), else the operation's.
    pub(crate) fn backend_of(&self, release: &str) -> Cow<'_, Backend> {
        match self.recorded.get(release) {
            Some(&kind) => self.backend_of_kind(kind),
            None => Cow::Borrowed(&self.backend),
        }
    }

    fn backend_of_kind(&self, kind: Kind) -> Cow<'_, Backend> {
        if kind == self.backend.kind() {
            Cow::Borrowed(&self.backend)
        } else {
            Cow::Owned(Backend::of_kind(kind))
        }
    }
}

impl KubeCluster {
    /// The component's objects, then its Jobs and `readyWhen` gates, ready within its timeout.
    async fn wait_until_ready(&self, request: &ReadyWait) -> Result<(), Failure> {
        let deadline = Instant::now() + request.timeout;
        let ids = self
            .backend_of(&request.release)
            .ready_objects(&self.ctx(), request)
            .await?;
        let ns_cluster = self.in_namespace(&request.namespace);
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
        let wait = crate::ready::Wait {
            cluster: &ns_cluster,
            namespace: &request.namespace,
            deadline,
            timeout: request.timeout,
        };
        wait.jobs(&ids, waiting_for)
            .await
            .map_err(failure(FailureKind::NotReady))?;
        wait.gates(&request.ready_when, waiting_for)
            .await
            .map_err(failure(FailureKind::NotReady))?;
        failpoint(&format!("package-ready:{}", request.component)).await;
        Ok(())
    }

    /// Mirrors `rev` into the status of the `Package` object of the same name and namespace
    /// (docs/package-object.md#status), when the CRD is installed and such an object exists; a
    /// failure to do so is reported and does not stop the apply. With
    /// [`KubeCluster::defer_final_status`], a final revision's status waits for the caller.
    pub async fn publish_status(&self, rev: &PackageRevision) {
        if self.defer_final_status && !rev.status.is_pending() {
            if let Ok(mut d) = self.deferred.lock() {
                *d = Some(rev.clone());
            }
            return;
        }
        // A final status still waiting is shown first, in order.
        let deferred = self.deferred.lock().ok().and_then(|mut d| d.take());
        if let Some(earlier) = deferred {
            self.publish_reporting(&earlier, serde_json::Map::new())
                .await;
        }
        self.publish_reporting(rev, serde_json::Map::new()).await;
    }

    /// Writes the status a final revision left waiting ([`KubeCluster::defer_final_status`])
    /// or, when none, the fields [`KubeCluster::status_also`] left waiting: what a caller does
    /// that ends without [`KubeCluster::publish_status_with`].
    pub async fn flush_status(&self) {
        let deferred = self.deferred.lock().ok().and_then(|mut d| d.take());
        if let Some(rev) = deferred {
            self.publish_reporting(&rev, serde_json::Map::new()).await;
            return;
        }
        let also = self.also.lock().ok().and_then(|mut a| a.take());
        if let Some(also) = also {
            let fields = serde_json::Value::Object(also.fields);
            if let Err(e) = self.patch_status(&also.namespace, &also.name, fields).await {
                self.not_updated(&also.namespace, &also.name, &e);
            }
        }
    }

    /// Reports that the status of Package `name` of `namespace` could not be written.
    fn not_updated(&self, namespace: &str, name: &str, e: &kube::Error) {
        self.report(&Event::message(
            None,
            Message::PackageStatusNotUpdated {
                package: format!("{namespace}/{name}"),
                error: e.to_string(),
            },
        ));
    }

    /// `fields` of the status of Package `name` of `namespace` are written with the next write
    /// of that status (the controller's `lastAttemptedVersion` and `target` at the start of an
    /// apply ride on the pending revision's status), or by [`KubeCluster::flush_status`].
    pub fn status_also(
        &self,
        namespace: &str,
        name: &str,
        fields: serde_json::Map<String, serde_json::Value>,
    ) {
        if let Ok(mut a) = self.also.lock() {
            *a = Some(StatusAlso {
                namespace: namespace.to_string(),
                name: name.to_string(),
                fields,
            });
        }
    }

    /// Mirrors `rev` into the Package's status together with the caller's own `fields` of the
    /// status, in one request (nothing when that is what was last written); the status a final
    /// revision left waiting is replaced by it. A Package that does not exist is not an error.
    pub async fn publish_status_with(
        &self,
        rev: &PackageRevision,
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), kube::Error> {
        if let Ok(mut d) = self.deferred.lock() {
            *d = None;
        }
        self.write_status(rev, fields).await
    }

    async fn publish_reporting(
        &self,
        rev: &PackageRevision,
        fields: serde_json::Map<String, serde_json::Value>,
    ) {
        if let Err(e) = self.write_status(rev, fields).await {
            self.not_updated(&rev.namespace, &rev.name, &e);
        }
    }

    async fn write_status(
        &self,
        rev: &PackageRevision,
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), kube::Error> {
        let mut status = serde_json::to_value(kubepkg_package_object::status_of(rev, None))
            .unwrap_or_else(|_| serde_json::json!({}));
        let also =
            self.also.lock().ok().and_then(|mut a| {
                a.take_if(|a| a.namespace == rev.namespace && a.name == rev.name)
            });
        if let Some(s) = status.as_object_mut() {
            if let Some(also) = &also {
                s.extend(also.fields.clone());
            }
            s.extend(fields);
        }
        let written = self.patch_status(&rev.namespace, &rev.name, status).await;
        if written.is_err()
            && let Ok(mut a) = self.also.lock()
            && a.is_none()
        {
            *a = also;
        }
        written
    }

    /// Merge-patches `status` into the status of Package `name` of `namespace` (nothing when
    /// that is what was last written; nothing to do when no such object exists).
    async fn patch_status(
        &self,
        namespace: &str,
        name: &str,
        status: serde_json::Value,
    ) -> Result<(), kube::Error> {
        use kube::api::{DynamicObject, Patch, PatchParams};
        let resource = kubepkg_package_object::api_resource();
        let client = self
            .package_objects
            .clone()
            .unwrap_or_else(|| self.kube.client.clone());
        let api: Api<DynamicObject> = Api::namespaced_with(client, namespace, &resource);
        let patch = serde_json::json!({ "status": status });
        let same = |p: &Option<serde_json::Value>| p.as_ref() == Some(&patch);
        if self.published.lock().is_ok_and(|p| same(&p)) {
            return Ok(());
        }
        match api
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => {
                if let Ok(mut p) = self.published.lock() {
                    *p = Some(patch);
                }
                Ok(())
            }
            // No Package CRD or no object of that name: nothing to mirror.
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Fields a Package's next status write carries too ([`KubeCluster::status_also`]).
struct StatusAlso {
    namespace: String,
    name: String,
    fields: serde_json::Map<String, serde_json::Value>,
}

/// Pauses at the failpoint `name` when `KUBEPKG_FAILPOINT` names it (see the module docs).
async fn failpoint(name: &str) {
    kubepkg_kube::failpoint::reached(name).await;
}

impl Cluster for KubeCluster {
    async fn requirement(&mut self, name: &str) -> RequirementState {
        let mut found = match self.store.find(name, &self.kube.namespace).await {
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
        let applied = self.backend.apply(&self.ctx(), request).await;
        self.ctx().apis_may_have_changed();
        let revision = applied?;
        // From now on the release is this operation's backend's.
        self.recorded.remove(&request.release);
        failpoint(&format!("package-applied:{}", request.component)).await;
        Ok(revision)
    }

    async fn wait_ready(&mut self, request: &ReadyWait) -> Result<(), Failure> {
        let waited = self.wait_until_ready(request).await;
        if let Err(f) = &waited {
            // Recorded where the backend keeps it (a Helm release: `failed`); the wait's own
            // failure is what the run reports.
            let _ = self
                .backend_of(&request.release)
                .not_ready(&self.ctx(), request, &f.message)
                .await;
        }
        waited
    }

    async fn rollback_component(
        &mut self,
        release: &str,
        namespace: &str,
        to_revision: u64,
    ) -> Result<u64, Failure> {
        let step = Rollback {
            release,
            namespace,
            to_revision,
        };
        let r = self.backend_of(release).rollback(&self.ctx(), &step).await;
        self.ctx().apis_may_have_changed();
        let r = r?;
        failpoint(&format!("package-rolled-back:{release}")).await;
        Ok(r)
    }

    async fn uninstall_release(&mut self, release: &str, namespace: &str) -> Result<(), Failure> {
        let step = Uninstall {
            component: release,
            release,
            namespace,
            timeout: self.timeout,
        };
        let done = self.backend_of(release).uninstall(&self.ctx(), &step).await;
        self.ctx().apis_may_have_changed();
        done
    }

    async fn hook_output(&mut self, release: &str, namespace: &str) -> HookOutput {
        let ids = self
            .backend_of(release)
            .objects(&self.ctx(), release, namespace)
            .await;
        let ns_cluster = self.in_namespace(namespace);
        crate::hook_output::read(&ns_cluster, &ids, namespace).await
    }

    fn progress(&mut self, event: Event) {
        self.report(&event);
        self.events.push(event);
    }

    fn now(&self) -> String {
        jiff::Timestamp::now().to_string()
    }

    fn backend(&self) -> kubepkg_model::Backend {
        self.backend.kind()
    }
}
