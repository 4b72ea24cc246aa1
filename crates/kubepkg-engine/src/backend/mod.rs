//! The component backends: how the orchestrator's component steps are carried out.
//!
//! [`Backend`] is the one backend configuration a package operation runs with — built once, by
//! the CLI from its flags (`--backend`, `--chart-repository`, …) and by the controller from a
//! `Package`'s spec — and held by [`KubeCluster`]. Each variant is an implementation of
//! [`ComponentBackend`], the steps the orchestrator drives:
//!
//! | step | [`helm`] (default) | [`flux`] | [`argocd`] |
//! |---|---|---|---|
//! | prepare | nothing to check | Flux's CRDs, the package expressible | Argo CD's CRD, the repository |
//! | apply | render + Helm release | push, OCIRepository + HelmRelease | push, Application + sync |
//! | ready | the release's objects | HelmRelease Ready, then its release's objects | Application Synced+Healthy, then its objects |
//! | rollback | Helm's rollback | HelmRelease back on the earlier chart and values | Application back on the earlier source |
//! | uninstall | Helm's uninstall | HelmRelease deleted | Application deleted |
//! | plan | the release diff only | the OCIRepositories and HelmReleases | the Applications |
//!
//! After a backend's ready step, the engine checks the objects it returns by kstatus, their
//! Jobs and the `readyWhen` gates the same way for every backend (`KubeCluster::wait_ready`).
//! Each component of a package revision records the backend that applied it
//! (`ComponentRecord::backend`), so rollback, uninstall and status act through that one
//! (`KubeCluster::backend_for_record`) without asking the cluster which it was (records written
//! before kubepkg kept it are recognised by the object their backend made). Adding a backend
//! is one implementation of [`ComponentBackend`], one arm of [`Backend`] (with its arms in
//! this file's matches), its name in `kubepkg_model::Backend`, and its settings where the
//! CLI and the controller build a [`Backend`].
//!
//! What the GitOps backends share lives here too: their state ([`Driven`]: the settings, and
//! what one apply of a package gives them to make their objects from, [`Run`]), the push of a
//! component's chart, the server-side apply of the objects they hand to their controller, the
//! watch of one until its controller says what they wait for ([`Ctx::watch_until`]) with a
//! progress line per new reason, its deletion until it is gone, and the rows of their plan
//! ([`plan_rows`]).

pub mod argocd;
pub use crate::backend_error as error;
pub mod flux;
pub mod helm;

use futures::StreamExt;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::time::Instant;

use kubepkg_gitops::flux::ChartRef;
use kubepkg_kube::ObjectRef;
use kubepkg_model::values::UserValues;
use kubepkg_model::{Backend as Kind, Package};
use kubepkg_package::orchestrator::{ComponentApply, Event, Failure, FailureKind, ReadyWait};
use kubepkg_package::plan::{BackendObject, ObjectChange, Plan, Step};
use kubepkg_package::revision::ComponentRecord;
use serde_json::Value;

pub use error::BackendError;

use crate::chart::ClusterCapabilities;
use kubepkg_progress::Sink;
use kubepkg_release::action::{Options, Releases};
use kubepkg_release::storage::{Remembered, Remembering, SecretDriver};

/// The backend configuration of one package operation (see the module docs).
#[derive(Debug, Clone)]
pub enum Backend {
    /// kubepkg's own Helm releases.
    Helm(helm::Helm),
    /// Flux's helm-controller releases one HelmRelease per component.
    Flux(flux::Flux),
    /// Argo CD syncs one Application per component.
    ArgoCd(argocd::ArgoCd),
}

impl Default for Backend {
    fn default() -> Self {
        Backend::Helm(helm::Helm)
    }
}

/// Calls `$call` on the implementation `$b` binds, whichever backend `$self` is.
macro_rules! dispatch {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            Backend::Helm($b) => $call,
            Backend::Flux($b) => $call,
            Backend::ArgoCd($b) => $call,
        }
    };
}

/// A backend that hands the components to a GitOps controller ([`flux::Flux`],
/// [`argocd::ArgoCd`]): its settings `S` (none for one that only acts on what its controller
/// already deployed: rollback, uninstall, status) and, once prepared, the run it drives.
#[derive(Debug, Clone)]
pub struct Driven<S> {
    settings: Option<S>,
    run: Option<Run>,
}

impl<S> Default for Driven<S> {
    fn default() -> Self {
        Driven {
            settings: None,
            run: None,
        }
    }
}

impl<S> Driven<S> {
    /// The backend that drives its controller with `settings`.
    pub(crate) fn configured(settings: S) -> Self {
        Driven {
            settings: Some(settings),
            run: None,
        }
    }

    /// The settings and the run an apply drives; a failure naming `backend` when the run was
    /// not prepared.
    fn prepared(&self, backend: &str) -> Result<(&S, &Run), Failure> {
        self.settings.as_ref().zip(self.run.as_ref()).ok_or_else(|| {
            Failure::new(
                FailureKind::Apply,
                format!("backend {backend}: the package to drive was not prepared (Backend::prepare)"),
            )
        })
    }

    /// The component timeout of the prepared run (the operation's otherwise).
    fn timeout(&self, kc: &Ctx<'_>) -> Duration {
        self.run.as_ref().map_or(kc.timeout, |r| r.timeout)
    }
}

/// Where a backend that hands charts to a GitOps controller (flux, argocd) pushes each
/// component's chart, and how that controller's sources pull it.
pub struct ChartRepository {
    /// `oci://HOST/PATH`.
    pub url: String,
    /// The registry speaks plain HTTP.
    pub insecure: bool,
    /// The pull Secret the controller's sources use (Flux's OCIRepository `secretRef`).
    pub secret_ref: Option<String>,
    /// The client the charts are pushed with.
    pub client: kubepkg_oci::Client,
}

/// The settings of an operation's backend, as the CLI's flags and a `Package`'s spec both
/// give them: [`Backend::configure`] is the one place a backend is chosen and built.
pub struct BackendConfig {
    pub kind: Kind,
    /// Required to apply with flux or argocd; without it those backends can still roll back,
    /// uninstall and report what they made, and refuse to apply ([`BackendError`]).
    pub chart_repository: Option<ChartRepository>,
    /// Argo CD: the namespace of its Applications (default: the package's) …
    pub argocd_namespace: Option<String>,
    /// … and their AppProject (default `default`).
    pub argocd_project: Option<String>,
    /// The ServiceAccount of the package's namespace the components are applied as (the
    /// controller's `spec.serviceAccountName`): Flux's helm-controller is told to act as it too.
    pub service_account: Option<String>,
}

impl BackendConfig {
    /// The settings of `kind` with nothing else given.
    pub fn of_kind(kind: Kind) -> BackendConfig {
        BackendConfig {
            kind,
            chart_repository: None,
            argocd_namespace: None,
            argocd_project: None,
            service_account: None,
        }
    }
}

impl Backend {
    /// The backend `config` describes.
    pub fn configure(config: BackendConfig) -> Backend {
        let Some(repo) = config.chart_repository else {
            return Backend::of_kind(config.kind);
        };
        match config.kind {
            Kind::Helm => Backend::helm(),
            Kind::Flux => {
                let mut flux = flux::FluxBackend::new(repo.url, repo.insecure, repo.client);
                flux.secret_ref = repo.secret_ref;
                flux.service_account = config.service_account;
                Backend::flux(flux)
            }
            Kind::Argocd => {
                let mut argocd = argocd::ArgoCdBackend::new(repo.url, repo.insecure, repo.client);
                argocd.namespace = config.argocd_namespace;
                if let Some(p) = config.argocd_project {
                    argocd.project = p;
                }
                Backend::argocd(argocd)
            }
        }
    }

    /// kubepkg's own Helm releases (the default).
    pub fn helm() -> Backend {
        Backend::default()
    }

    /// Flux drives the components, charts pushed as `settings` says.
    pub fn flux(settings: flux::FluxBackend) -> Backend {
        Backend::Flux(flux::Flux::configured(settings))
    }

    /// Argo CD drives the components, charts pushed and Applications placed as `settings` says.
    pub fn argocd(settings: argocd::ArgoCdBackend) -> Backend {
        Backend::ArgoCd(argocd::ArgoCd::configured(settings))
    }

    /// The backend of `kind` without settings: enough for the steps on what it already made
    /// (rollback, uninstall, status), not to apply (which refuses: nothing to push to).
    pub fn of_kind(kind: Kind) -> Backend {
        match kind {
            Kind::Helm => Backend::helm(),
            Kind::Flux => Backend::Flux(flux::Flux::default()),
            Kind::Argocd => Backend::ArgoCd(argocd::ArgoCd::default()),
        }
    }

    /// Which backend this is.
    pub fn kind(&self) -> Kind {
        match self {
            Backend::Helm(_) => Kind::Helm,
            Backend::Flux(_) => Kind::Flux,
            Backend::ArgoCd(_) => Kind::Argocd,
        }
    }

    /// Whether the package's post-renderers merge lists as the cluster's OpenAPI declares: so
    /// when kubepkg renders; Flux's helm-controller post-renders with kustomize's built-in
    /// schema only (and Argo CD takes none), so a plan for them must merge as they will.
    pub(crate) fn post_renders_with_cluster_schema(&self) -> bool {
        matches!(self, Backend::Helm(_))
    }

    /// A backend whose controller renders cannot run a post-renderer it has no form for:
    /// Flux takes kustomize-style ones (as HelmRelease `postRenderers`) but no Helm plugin on
    /// this machine, Argo CD none. Refused before anything is pushed or applied.
    fn check_post_renderers(&self, package: &Package) -> Result<(), BackendError> {
        let check = match self.kind() {
            Kind::Helm => return Ok(()),
            Kind::Flux => |c| kubepkg_gitops::flux_post_renderers(c).map(|_| ()),
            Kind::Argocd => kubepkg_gitops::argocd_post_renderers,
        };
        for c in &package.components {
            if let Err(e) = check(c) {
                return Err(BackendError::PostRenderer {
                    backend: self.kind().to_string(),
                    message: e.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Adds what `plan` shows of this backend: the objects it would apply (against the live
    /// ones when `client` is given) and what the components' gates wait for.
    pub async fn plan(
        &self,
        client: Option<&kube::Client>,
        package: &Package,
        user: &UserValues,
        plan: &mut Plan,
        timeout: Duration,
    ) -> Result<(), BackendError> {
        let input = PlanInput {
            client,
            package,
            user,
            timeout,
        };
        ComponentBackend::plan(self, &input, plan).await
    }
}

/// Each step is the one of the backend this is; a package with a post-renderer the backend's
/// controller cannot run is refused before anything else ([`Backend::check_post_renderers`]).
impl ComponentBackend for Backend {
    async fn prepare(&mut self, client: &kube::Client, run: Run) -> Result<(), BackendError> {
        self.check_post_renderers(&run.package)?;
        dispatch!(self, b => b.prepare(client, run).await)
    }

    async fn apply(&self, kc: &Ctx<'_>, request: &ComponentApply) -> Result<u64, Failure> {
        dispatch!(self, b => b.apply(kc, request).await)
    }

    async fn ready_objects(
        &self,
        kc: &Ctx<'_>,
        request: &ReadyWait,
    ) -> Result<Vec<ObjectRef>, Failure> {
        dispatch!(self, b => b.ready_objects(kc, request).await)
    }

    async fn rollback(&self, kc: &Ctx<'_>, step: &Rollback<'_>) -> Result<u64, Failure> {
        dispatch!(self, b => b.rollback(kc, step).await)
    }

    async fn uninstall(&self, kc: &Ctx<'_>, step: &Uninstall<'_>) -> Result<(), Failure> {
        dispatch!(self, b => b.uninstall(kc, step).await)
    }

    async fn not_ready(&self, kc: &Ctx<'_>, wait: &ReadyWait, why: &str) -> Result<(), Failure> {
        dispatch!(self, b => b.not_ready(kc, wait, why).await)
    }

    async fn objects(&self, kc: &Ctx<'_>, release: &str, namespace: &str) -> Vec<ObjectRef> {
        dispatch!(self, b => b.objects(kc, release, namespace).await)
    }

    async fn live(&self, kc: &Ctx<'_>, record: &ComponentRecord) -> Live {
        dispatch!(self, b => b.live(kc, record).await)
    }

    async fn plan(&self, input: &PlanInput<'_>, plan: &mut Plan) -> Result<(), BackendError> {
        self.check_post_renderers(input.package)?;
        dispatch!(self, b => b.plan(input, plan).await)
    }
}

/// A deployed release that a backend's own controller keeps reconciling (today Flux's
/// helm-controller, for backend flux), read before a plan.
#[derive(Debug, Clone)]
pub(crate) struct Reconciled {
    /// The backend whose controller reconciles it: an apply with another backend would fight it.
    pub by: Kind,
    /// The values the controller applies now: a change of them is a change even when the
    /// objects render the same.
    pub values: serde_json::Map<String, Value>,
}

/// Whether a controller keeps reconciling the deployed release `release` (its stored record
/// `r`) in `namespace`; if so, `chart` and `objects` are rewritten as kubepkg's own render of
/// the package's chart would read them, so that a plan compares like with like.
pub(crate) async fn reconciled(
    client: &kube::Client,
    namespace: &str,
    release: &str,
    r: &kubepkg_release::record::Release,
    chart: &mut String,
    objects: &mut Vec<kubepkg_package::plan::RenderedObject>,
) -> Option<Reconciled> {
    let m = r.chart.as_ref()?.metadata.as_ref()?;
    if !flux::looks_released_by_flux(&m.version) {
        return None;
    }
    let hr = flux::helm_release(client, namespace, release).await?;
    let hr = serde_json::to_value(&hr).unwrap_or_default();
    let mut values = hr["spec"]["values"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    values.remove("kubepkg");
    (*chart, *objects) = flux::as_packaged(&m.name, &m.version, std::mem::take(objects), &hr);
    Some(Reconciled {
        by: Kind::Flux,
        values,
    })
}

/// A new render's object in the form [`reconciled`] gave the deployed objects of a release
/// the controller of `by` reconciles (Flux: one canonical YAML form).
pub(crate) fn comparable(
    by: Kind,
    object: kubepkg_package::plan::RenderedObject,
) -> kubepkg_package::plan::RenderedObject {
    match by {
        Kind::Flux => flux::canonical(object),
        Kind::Helm | Kind::Argocd => object,
    }
}

/// The backend `record` names; for a record written before kubepkg kept it, the one whose
/// object is there ([`legacy_kind`]).
pub(crate) async fn recorded_kind(kc: &Ctx<'_>, record: &ComponentRecord) -> Kind {
    match record.backend {
        Some(kind) => kind,
        None => legacy_kind(kc, &record.release, &record.namespace).await,
    }
}

/// The kind of a component recorded before kubepkg kept the backend in the revision: Flux's
/// when a HelmRelease of its release is in the package's namespace, Argo CD's when a kubepkg
/// Application of it deploys to `namespace`, else kubepkg's own Helm release.
async fn legacy_kind(kc: &Ctx<'_>, release: &str, namespace: &str) -> Kind {
    if flux::helm_release(&kc.kube.client, &kc.kube.namespace, release)
        .await
        .is_some()
    {
        return Kind::Flux;
    }
    if argocd::ArgoCd::default()
        .argocd_application(kc, release, namespace)
        .await
        .is_some()
    {
        return Kind::Argocd;
    }
    Kind::Helm
}

/// A component as its backend sees it now, for `kubepkg status`: the revision deployed and
/// what it still waits for (before the `readyWhen` gates, which the engine checks for all).
pub(crate) struct Live {
    pub(crate) revision: u64,
    pub(crate) waiting_for: Option<String>,
}

/// The steps of one backend, which the orchestrator drives through [`KubeCluster`]. Every
/// step reports progress through `kc` and fails with the orchestrator's [`Failure`].
pub(crate) trait ComponentBackend {
    /// Readies the backend to apply `run`; fails before anything changes.
    async fn prepare(&mut self, client: &kube::Client, run: Run) -> Result<(), BackendError>;
    /// Installs or upgrades the component; the revision it now runs.
    async fn apply(&self, kc: &Ctx<'_>, request: &ComponentApply) -> Result<u64, Failure>;
    /// Waits (within the component's timeout) for what the backend itself reports ready; the
    /// objects the engine then checks.
    async fn ready_objects(
        &self,
        kc: &Ctx<'_>,
        request: &ReadyWait,
    ) -> Result<Vec<ObjectRef>, Failure>;
    /// Rolls the release of `step` back; the new revision.
    async fn rollback(&self, kc: &Ctx<'_>, step: &Rollback<'_>) -> Result<u64, Failure>;
    /// Uninstalls the release of `step` and waits until it is gone.
    async fn uninstall(&self, kc: &Ctx<'_>, step: &Uninstall<'_>) -> Result<(), Failure>;
    /// Records that the component of `wait` did not become ready (`why`) where the
    /// backend keeps such a thing; by default nowhere (a GitOps controller reports it itself).
    async fn not_ready(&self, _kc: &Ctx<'_>, _wait: &ReadyWait, _why: &str) -> Result<(), Failure> {
        Ok(())
    }
    /// The objects `release` deployed (a hook's, for its output); none when it cannot tell.
    /// By default those of its Helm release (kubepkg's own, or the one helm-controller made).
    async fn objects(&self, kc: &Ctx<'_>, release: &str, namespace: &str) -> Vec<ObjectRef> {
        helm::release_objects(kc, release, namespace, release)
            .await
            .unwrap_or_default()
    }
    /// The component of `record` as it is now; by default as its Helm release says.
    async fn live(&self, kc: &Ctx<'_>, record: &ComponentRecord) -> Live {
        helm::release_live(kc, record).await
    }
    /// Adds the backend's objects and gates to `plan`; by default none.
    async fn plan(&self, _input: &PlanInput<'_>, _plan: &mut Plan) -> Result<(), BackendError> {
        Ok(())
    }
}

/// A rollback step: `release` (its objects in `namespace`) back to its revision `to_revision`.
pub(crate) struct Rollback<'a> {
    pub(crate) release: &'a str,
    pub(crate) namespace: &'a str,
    pub(crate) to_revision: u64,
}

/// An uninstall step: `component`'s `release` (its objects in `namespace`), gone within
/// `timeout`.
pub(crate) struct Uninstall<'a> {
    pub(crate) component: &'a str,
    pub(crate) release: &'a str,
    pub(crate) namespace: &'a str,
    pub(crate) timeout: Duration,
}

/// What a backend's plan is made from: the package, the values the user gave, the components'
/// timeout, and the client the live objects are read with (none: all are new).
pub(crate) struct PlanInput<'a> {
    pub(crate) client: Option<&'a kube::Client>,
    pub(crate) package: &'a Package,
    pub(crate) user: &'a UserValues,
    pub(crate) timeout: Duration,
}

/// What a backend's steps use of the operation they are part of (`KubeCluster::ctx`): the
/// cluster connection, where progress goes, the capabilities known, the per-operation timeout
/// of release steps and whether to wait for a held Lease.
pub(crate) struct Ctx<'a> {
    pub(crate) kube: &'a kubepkg_kube::Cluster,
    pub(crate) sink: &'a Sink,
    pub(crate) caps: &'a ClusterCapabilities,
    pub(crate) timeout: Duration,
    pub(crate) wait_lock: bool,
    /// The namespaces this operation made sure of ([`Ctx::ensure_namespace`]).
    pub(crate) ensured: &'a std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// The release histories this operation keeps ([`releases`]).
    pub(crate) releases_known: &'a Remembered,
    /// The API versions the server serves, as last asked in this operation
    /// ([`Ctx::capabilities_now`]).
    pub(crate) apis_now: &'a std::sync::Mutex<Option<Vec<String>>>,
    /// Reads shared with other status reads of the same page ([`crate::reads`]).
    pub(crate) reads: Option<&'a crate::reads::Reads>,
}

impl Ctx<'_> {
    /// [`ensure_namespace`] once per operation and namespace: the package's Lease, each
    /// component and its release would otherwise each ask the API server again.
    pub(crate) async fn ensure_namespace(
        &self,
        namespace: &str,
    ) -> Result<(), kubepkg_kube::KubeError> {
        let done = |set: &std::collections::BTreeSet<String>| set.contains(namespace);
        if self.ensured.lock().is_ok_and(|s| done(&s)) {
            return Ok(());
        }
        ensure_namespace(&self.kube.client, namespace).await?;
        if let Ok(mut set) = self.ensured.lock() {
            set.insert(namespace.to_string());
        }
        Ok(())
    }

    /// [`releases`] of `namespace` over `cluster` (this operation's, in that namespace), their
    /// messages about `component`, their histories kept with this operation's.
    pub(crate) fn releases<'c>(
        &self,
        cluster: &'c kubepkg_kube::Cluster,
        namespace: &str,
        component: &str,
    ) -> Releases<'c, Remembering<SecretDriver>> {
        releases(
            cluster,
            namespace,
            self.releases_known,
            self.sink.clone(),
            component.to_string(),
        )
    }

    /// Reports `event` to the progress sink.
    pub(crate) fn report(&self, event: &Event) {
        (self.sink)(event);
    }

    /// The cluster with `namespace` as the default for objects that name none.
    pub(crate) fn in_namespace(&self, namespace: &str) -> kubepkg_kube::Cluster {
        let mut c = self.kube.clone();
        c.namespace = namespace.to_string();
        c
    }

    /// The release layer's options of a component step.
    pub(crate) fn options(&self) -> Options {
        Options {
            wait: false,
            timeout: self.timeout,
            create_namespace: true,
            wait_lock: self.wait_lock,
            ..Default::default()
        }
    }

    /// `.Capabilities` for a render now: the server's version as connected, and the API
    /// versions it serves at this moment (asked again, as Helm builds them from discovery for
    /// every render; the known ones if the server cannot be asked).
    /// Within one operation the set is asked for once and kept until a step of it may have
    /// changed it ([`Ctx::apis_may_have_changed`]: a component applied, rolled back or
    /// uninstalled can register or remove CRDs and APIServices).
    pub(crate) async fn capabilities_now(&self) -> ClusterCapabilities {
        let mut caps = self.caps.clone();
        let known = self.apis_now.lock().ok().and_then(|k| k.clone());
        if let Some(v) = known {
            caps.api_versions = v;
        } else if let Ok(v) = kubepkg_kube::discovery::api_versions(&self.kube.client).await {
            if let Ok(mut k) = self.apis_now.lock() {
                *k = Some(v.clone());
            }
            caps.api_versions = v;
        }
        caps
    }

    /// The served API versions are asked for again at the next render.
    pub(crate) fn apis_may_have_changed(&self) {
        if let Ok(mut k) = self.apis_now.lock() {
            *k = None;
        }
    }
}

/// Release operations of `namespace` reporting their messages to `sink` as messages about
/// `component`.
/// The releases whose Lease the operation takes are read once and then kept from its own
/// writes, in `known` (one per operation).
pub fn releases<'a>(
    cluster: &'a kubepkg_kube::Cluster,
    namespace: &str,
    known: &Remembered,
    sink: Sink,
    component: String,
) -> Releases<'a, Remembering<SecretDriver>> {
    let driver = SecretDriver::new(cluster.client.clone(), Some(namespace));
    let mut r = Releases::new(
        cluster,
        Remembering::new(driver, namespace, known.clone()),
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

/// The orchestrator's failure of a step `kind`, keeping the error as its source.
pub(crate) fn failure<E: std::error::Error + Send + Sync + 'static>(
    kind: FailureKind,
) -> impl FnOnce(E) -> Failure {
    move |e| {
        // A cluster that stopped answering is no failure of the step: the run stops as a
        // crash would, and the next operation recovers it.
        let kind = if kubepkg_kube::is_unreachable_api(&e) {
            FailureKind::Unreachable
        } else {
            kind
        };
        Failure::caused(kind, e)
    }
}

/// Creates `namespace` when absent (server-side apply of a bare Namespace).
pub async fn ensure_namespace(
    client: &kube::Client,
    namespace: &str,
) -> Result<(), kubepkg_kube::KubeError> {
    use k8s_openapi::api::core::v1::Namespace;
    let api: kube::Api<Namespace> = kube::Api::all(client.clone());
    let ns = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
    api.patch(
        namespace,
        &kube::api::PatchParams::apply(kubepkg_kube::apply::FIELD_MANAGER),
        &kube::api::Patch::Apply(&ns),
    )
    .await
    .map_err(|e| kubepkg_kube::KubeError::refused("create", format!("Namespace {namespace}"), e))?;
    Ok(())
}

/// What a backend's objects are made from during one apply: the package, its instance name,
/// its namespace and the components' timeout.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub(crate) package: Package,
    pub(crate) instance: String,
    pub(crate) namespace: String,
    pub(crate) timeout: Duration,
}

/// Server-side applies `object` (kubepkg's field manager, taking over conflicts).
pub(crate) async fn apply_object(
    api: &Api<DynamicObject>,
    object: &Value,
) -> Result<DynamicObject, Failure> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    api.patch(
        name,
        &PatchParams::apply(kubepkg_kube::apply::FIELD_MANAGER).force(),
        &Patch::Apply(object),
    )
    .await
    .map_err(|e| Failure::new(FailureKind::Apply, format!("applying {kind} {name}: {e}")))
}

/// Pushes the chart of `request`'s component to `repository` (`oci://HOST/PATH`) for the
/// GitOps backend `backend`; the chart pushed, pinned to its digest.
pub(crate) async fn push(
    backend: &str,
    client: &kubepkg_oci::Client,
    repository: &str,
    request: &ComponentApply,
) -> Result<ChartRef, Failure> {
    let component = &request.component;
    let parsed = kubepkg_oci::Reference::parse(repository).map_err(|e| {
        Failure::new(
            FailureKind::Apply,
            format!("backend {backend}: chart repository {repository}: {e}"),
        )
    })?;
    let pushed = kubepkg_source::push::push_chart(client, &parsed, request.chart.path())
        .await
        .map_err(|e| {
            Failure::new(
                FailureKind::Apply,
                format!("component {component}: {}", crate::report::report(&e)),
            )
        })?;
    Ok(ChartRef {
        name: pushed.name,
        version: pushed.version,
        digest: Some(pushed.digest),
    })
}

/// The string at `pointer` in `v` (empty when there is none).
pub(crate) fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// What a GitOps backend's plan compiles `package` from: each component's chart named by its
/// version (the digest is known once it is pushed) and the values kubepkg supplies it with.
pub(crate) fn plan_inputs(
    package: &Package,
    user: &UserValues,
) -> (
    BTreeMap<String, ChartRef>,
    BTreeMap<String, serde_json::Map<String, Value>>,
) {
    let mut charts = BTreeMap::new();
    let mut values = BTreeMap::new();
    for c in &package.components {
        if let Ok(chart) = kubepkg_chart::chart::load(c.chart.path()) {
            charts.insert(
                c.name.clone(),
                ChartRef {
                    name: chart.metadata.name.clone(),
                    version: chart.metadata.version.clone(),
                    digest: None,
                },
            );
        }
        values.insert(
            c.name.clone(),
            kubepkg_model::values::supplied(package, &c.name, user, None),
        );
    }
    (charts, values)
}

/// The rows `plan` shows of a GitOps backend's `objects`, in their order: each marked created,
/// changed (`changed(its live version, it, its component's step)`) or unchanged against the
/// live object read through `api(client, kind, namespace)` when `client` is given, else created.
pub(crate) async fn plan_rows(
    objects: impl IntoIterator<Item = Value>,
    plan: &Plan,
    client: Option<&kube::Client>,
    api: impl Fn(&kube::Client, &str, &str) -> Api<DynamicObject>,
    changed: impl Fn(&Value, &Value, Option<&Step>) -> bool,
) -> Vec<BackendObject> {
    let mut out = Vec::new();
    for o in objects {
        let kind = str_at(&o, "/kind").to_string();
        let name = str_at(&o, "/metadata/name").to_string();
        let namespace = str_at(&o, "/metadata/namespace").to_string();
        let step = plan.steps.iter().find(|s| s.release == name);
        let component = step.map_or_else(|| name.clone(), |s| s.name.clone());
        let live = match client {
            None => None,
            Some(client) => api(client, &kind, &namespace)
                .get_opt(&name)
                .await
                .ok()
                .flatten()
                .map(|l| serde_json::to_value(&l).unwrap_or_default()),
        };
        let change = match &live {
            None => Some(ObjectChange::Added),
            Some(l) if changed(l, &o, step) => Some(ObjectChange::Changed),
            Some(_) => None,
        };
        out.push(BackendObject {
            component,
            kind,
            namespace,
            name,
            change,
            yaml: kubepkg_release::output::yaml(&o).unwrap_or_default(),
        });
    }
    out
}

/// The first of `crds` (as `kubectl get crd` names them: `PLURAL.GROUP`) not served, if any;
/// one whose group cannot be read, with the API's answer. Read from API discovery, which every
/// authenticated identity may read (`system:discovery`), not from the cluster-scoped
/// CustomResourceDefinition objects: a tenant's ServiceAccount bound in its own namespace can
/// check too, and a CRD that exists but is not yet served counts as missing.
pub(crate) async fn missing_crd(
    client: &kube::Client,
    crds: &[&str],
) -> Result<Option<String>, (String, kube::Error)> {
    for crd in crds {
        let (plural, group) = crd.split_once('.').unwrap_or((crd, ""));
        match kube::discovery::oneshot::group(client, group).await {
            Ok(g) => {
                if !g
                    .recommended_resources()
                    .iter()
                    .any(|(r, _)| r.plural == plural)
                {
                    return Ok(Some(crd.to_string()));
                }
            }
            Err(kube::Error::Api(s)) if s.code == 404 => return Ok(Some(crd.to_string())),
            Err(kube::Error::Discovery(_)) => return Ok(Some(crd.to_string())),
            Err(e) => return Err((crd.to_string(), e)),
        }
    }
    Ok(None)
}

/// What a backend makes of one version of the object it watches.
pub(crate) enum Seen<T> {
    /// The wait is over, with this result.
    Done(T),
    /// The wait failed.
    Failed(Failure),
    /// Still waiting, for this reason (a progress event when it changes).
    Waiting(String),
    /// Nothing to judge (the object is not there yet): still waiting, for the same reason.
    Unchanged,
}

/// What a backend reads from its object's status for one wait: ready (with the revision its
/// controller made), failed, or still waiting — with its controller's words.
#[derive(Debug, PartialEq)]
pub(crate) enum State {
    Ready(u64),
    Failed(String),
    Waiting(String),
}

impl State {
    /// As a watch judges it; a failure names `object`.
    pub(crate) fn seen(self, object: &str) -> Seen<u64> {
        match self {
            State::Ready(revision) => Seen::Done(revision),
            State::Failed(message) => Seen::Failed(Failure::new(
                FailureKind::NotReady,
                format!("{object}: {message}"),
            )),
            State::Waiting(message) => Seen::Waiting(message),
        }
    }
}

/// The object a backend watches for a step of `component`: `name` of `api`, called `object`
/// in messages (`HelmRelease shop/shop-db`), until `deadline`.
pub(crate) struct Watch<'a> {
    pub(crate) component: &'a str,
    pub(crate) api: Api<DynamicObject>,
    pub(crate) name: &'a str,
    pub(crate) object: String,
    pub(crate) deadline: Instant,
}

impl<'a> Watch<'a> {
    /// The `kind` named `name` of `api` (of one namespace), for `component` until `deadline`.
    pub(crate) fn new(
        component: &'a str,
        kind: &str,
        api: Api<DynamicObject>,
        name: &'a str,
        deadline: Instant,
    ) -> Watch<'a> {
        let object = format!("{kind} {}/{name}", api.namespace().unwrap_or_default());
        Watch {
            component,
            api,
            name,
            object,
            deadline,
        }
    }
}

impl Ctx<'_> {
    /// Watches `watch`'s object until `judge` (given each version of it, `None` once it is
    /// gone) says the wait is done or failed, reporting each new reason it waits for as a
    /// progress event of its component; at the deadline, fails as not ready: `OBJECT {late}:
    /// the last reason`.
    pub(crate) async fn watch_until<T>(
        &self,
        watch: &Watch<'_>,
        mut judge: impl FnMut(Option<&Value>) -> Seen<T>,
        late: &str,
    ) -> Result<T, Failure> {
        let mut shown = String::new();
        let mut stream =
            kube::runtime::watcher::watch_object(watch.api.clone(), watch.name).boxed();
        loop {
            let seen = match tokio::time::timeout_at(watch.deadline, stream.next()).await {
                Err(_) | Ok(None) => {
                    let message = format!("{} {late}: {shown}", watch.object);
                    return Err(Failure::new(FailureKind::NotReady, message));
                }
                Ok(Some(Err(_))) => continue,
                Ok(Some(Ok(o))) => {
                    let value = o.map(|o| serde_json::to_value(&o).unwrap_or_default());
                    judge(value.as_ref())
                }
            };
            match seen {
                Seen::Done(t) => return Ok(t),
                Seen::Failed(f) => return Err(f),
                Seen::Waiting(reason) if reason != shown => {
                    self.waiting(watch.component, &watch.object, &reason);
                    shown = reason;
                }
                Seen::Waiting(_) | Seen::Unchanged => {}
            }
        }
    }

    /// Deletes `watch`'s object (in the background: its controller's finalizer does the work,
    /// `first`) and waits until it is gone, reporting the `reason` its versions give meanwhile
    /// (`being deleted` when none); an uninstall failure when it cannot be deleted or is still
    /// there at the deadline. One already gone is done.
    pub(crate) async fn delete_until_gone(
        &self,
        watch: &Watch<'_>,
        reason: impl Fn(&Value) -> Option<&str>,
        first: &str,
    ) -> Result<(), Failure> {
        match watch
            .api
            .delete(watch.name, &DeleteParams::background())
            .await
        {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 404 => return Ok(()),
            Err(e) => {
                let message = format!("deleting {}: {e}", watch.object);
                return Err(Failure::new(FailureKind::Uninstall, message));
            }
        }
        let judge = |obj: Option<&Value>| match obj {
            None => Seen::Done(()),
            Some(v) => Seen::Waiting(reason(v).unwrap_or("being deleted").to_string()),
        };
        let late = format!("was not deleted in time ({first})");
        // The judge fails no wait: only the time-out, an uninstall failure.
        self.watch_until(watch, judge, &late)
            .await
            .map_err(|f| Failure {
                kind: FailureKind::Uninstall,
                ..f
            })
    }

    /// Reports that `component` waits for `object` because of `reason`.
    pub(crate) fn waiting(&self, component: &str, object: &str, reason: &str) {
        self.report(&Event::WaitingFor {
            component: component.to_string(),
            object: object.to_string(),
            reason: reason.to_string(),
        });
    }
}
