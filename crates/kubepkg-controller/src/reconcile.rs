//! One reconcile of one `Package` (docs/controller.md#reconcile):
//!
//! 1. the finalizer is added first, so a deletion always uninstalls (reverse order) before the
//!    object goes; a suspended Package is left alone;
//! 2. the spec is decoded, the source fetched and loaded with the CLI's loader, the values
//!    resolved — any problem there is `Ready=False`/`Stalled=True` with a message naming the
//!    object, key or file, an Event, and nothing applied;
//! 3. if nothing changed since the last attempt (same generation, same archive and values, the
//!    latest revision final), nothing is applied: the Package is looked at again after its
//!    `interval`;
//! 4. `requires` not met: `RequirementsNotMet` (waiting, not an error); the Package is woken by
//!    the watch of package revisions when a required package changes;
//! 5. otherwise `kubepkg_engine::ops::apply`, exactly what `kubepkg apply` runs, under the same
//!    package Lease, recording the same revisions (and, through them, the status).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ObjectReference, Secret};
use kube::api::{Api, DynamicObject, PartialObjectMeta, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Event as KubeEvent, EventType, Recorder};
use kube::runtime::finalizer::{Event as Finalizer, finalizer};
use kube::runtime::reflector::ObjectRef;
use kube::{Resource, ResourceExt};
use kubepkg_engine::error::report;
use kubepkg_engine::{EngineError, Instance, KubeCluster, ops};
use kubepkg_model::Backend;
use kubepkg_model::Package;
use kubepkg_package::conditions::{self, reason};
use kubepkg_package::orchestrator::{Outcome, Stopped};
use kubepkg_package::revision::Reason;
use kubepkg_package::revision::RevisionStatus;
use kubepkg_package_object::{DriftMode, PackageSpec, Target};
use sha2::{Digest, Sha256};

use crate::loaded::Loaded;
use crate::metrics::Metrics;
use crate::problem::PackageProblem;
use crate::resource::{self, FINALIZER};
use crate::source::{self, HttpClient};
use crate::status::{StatusPatch, carry_transition_times, conditions_of};
use crate::target;
use crate::values;

/// Package names → the Packages waiting for them (`RequirementsNotMet`).
pub type Waiting = Arc<Mutex<HashMap<String, HashSet<ObjectRef<DynamicObject>>>>>;

/// What every reconcile shares.
pub struct Context {
    /// The connected cluster (one client, one discovery cache for all Packages).
    pub cluster: kubepkg_kube::Cluster,
    pub recorder: Recorder,
    pub metrics: Arc<Metrics>,
    pub waiting: Waiting,
    /// Consecutive failed reconciles per Package (`namespace/name`), for [`error_policy`].
    pub failures: Mutex<HashMap<String, u32>>,
    pub http: Option<HttpClient>,
    pub scratch: std::path::PathBuf,
    pub default_timeout: Duration,
    pub default_interval: Duration,
    /// `--default-service-account`.
    pub default_service_account: Option<String>,
    /// `--no-cross-namespace-refs`.
    pub no_cross_namespace_refs: bool,
    /// `--watch-label-selector`: the shard this controller is (PackageRollouts too).
    pub label_selector: Option<String>,
    /// The clients of each target cluster and identity Packages are applied as.
    pub(crate) clients: target::Clients,
}

impl Context {
    pub fn new(
        cluster: kubepkg_kube::Cluster,
        recorder: Recorder,
        metrics: Arc<Metrics>,
        config: &crate::Config,
    ) -> Context {
        Context {
            cluster,
            recorder,
            metrics,
            waiting: Waiting::default(),
            failures: Mutex::new(HashMap::new()),
            http: HttpClient::new().ok(),
            scratch: config.scratch.clone(),
            default_timeout: config.default_timeout,
            default_interval: config.default_interval,
            default_service_account: config.default_service_account.clone(),
            no_cross_namespace_refs: config.no_cross_namespace_refs,
            label_selector: config.label_selector.clone(),
            clients: target::Clients::default(),
        }
    }

    /// Whom the components of a Package of `namespace` are applied as: its
    /// `serviceAccountName`, else `--default-service-account` (a ServiceAccount of the
    /// Package's namespace), else the controller itself (no impersonation).
    pub fn identity(
        &self,
        namespace: &str,
        spec: Option<&PackageSpec>,
    ) -> kubepkg_kube::Impersonation {
        self.service_account(spec)
            .map(|sa| kubepkg_kube::Impersonation::service_account(namespace, &sa))
            .unwrap_or_default()
    }

    /// The ServiceAccount of [`Context::identity`], by name (`None`: the controller itself).
    pub fn service_account(&self, spec: Option<&PackageSpec>) -> Option<String> {
        spec.and_then(|s| s.service_account_name.clone())
            .filter(|n| !n.is_empty())
            .or_else(|| self.default_service_account.clone())
    }

    /// Where and as whom a Package's components are applied ([`target::acting_for`]).
    pub async fn acting_for(
        &self,
        namespace: &str,
        spec: Option<&PackageSpec>,
    ) -> Result<target::Acting, target::TargetError> {
        let who = self.identity(namespace, spec);
        target::acting_for(&self.cluster, &self.clients, namespace, spec, &who).await
    }
}

/// Why a reconcile must be retried (with backoff, by [`error_policy`]). Problems of the
/// Package itself are not errors: they are its status.
#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("Package {object}: {source}")]
    Engine {
        object: String,
        #[source]
        source: EngineError,
    },
    #[error("Package {object}: writing its status")]
    Status {
        object: String,
        #[source]
        source: Box<kubepkg_kube::KubeError>,
    },
    #[error("Package {object}: the finalizer")]
    Finalizer {
        object: String,
        #[source]
        source: Box<kube::runtime::finalizer::Error<ReconcileError>>,
    },
    #[error("Package {object}: {message}")]
    Transient { object: String, message: String },
}

/// The reconcile function the runtime calls.
pub async fn reconcile(
    obj: Arc<DynamicObject>,
    ctx: Arc<Context>,
) -> Result<Action, ReconcileError> {
    let started = Instant::now();
    let key = resource::key(&obj);
    ctx.metrics.reconcile_started(&key);
    let result = reconcile_inner(obj, &ctx).await;
    if result.is_ok()
        && let Ok(mut f) = ctx.failures.lock()
    {
        f.remove(&key);
    }
    ctx.metrics.reconcile_finished(
        match &result {
            Ok(a) if *a == Action::await_change() => "success",
            Ok(_) => "requeue_after",
            Err(_) => "error",
        },
        started.elapsed(),
    );
    if let Err(e) = &result {
        tracing::warn!(package = %key, error = %report(e), "reconcile failed; retrying with backoff");
    }
    result
}

/// Backoff after an error, per object: 5 s, doubling with each consecutive failure of the same
/// Package, at most 5 minutes; a reconcile that succeeds starts it again from 5 s.
pub fn error_policy(obj: Arc<DynamicObject>, _e: &ReconcileError, ctx: Arc<Context>) -> Action {
    ctx.metrics.retried();
    let failures = ctx
        .failures
        .lock()
        .map(|mut f| {
            let n = f.entry(resource::key(&obj)).or_insert(0);
            *n += 1;
            *n
        })
        .unwrap_or(1);
    Action::requeue(backoff(failures))
}

/// The retry delay after `failures` consecutive failures.
pub fn backoff(failures: u32) -> Duration {
    let secs = 5u64.saturating_mul(1 << failures.saturating_sub(1).min(6));
    Duration::from_secs(secs.min(300))
}

async fn reconcile_inner(obj: Arc<DynamicObject>, ctx: &Context) -> Result<Action, ReconcileError> {
    let namespace = obj.namespace().unwrap_or_default();
    let api: Api<DynamicObject> = Api::namespaced_with(
        ctx.cluster.client.clone(),
        &namespace,
        &resource::api_resource(),
    );
    // A CLI-applied package's mirror (source.path) is the CLI's: no finalizer, no status.
    if let Ok(spec) = resource::spec_of(&obj)
        && spec.source.path.is_some()
    {
        return path_source(&obj, ctx, &api).await;
    }
    let object = resource::key(&obj);
    finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            Finalizer::Apply(o) => apply(o, ctx, &api).await,
            Finalizer::Cleanup(o) => cleanup(o, ctx).await,
        }
    })
    .await
    .map_err(|e| ReconcileError::Finalizer {
        object,
        source: Box::new(e),
    })
}

/// `source.path`: refused with a condition, unless the CLI has applied the package (then the
/// status is the CLI's mirror and the controller leaves it alone).
async fn path_source(
    obj: &DynamicObject,
    ctx: &Context,
    api: &Api<DynamicObject>,
) -> Result<Action, ReconcileError> {
    let namespace = obj.namespace().unwrap_or_default();
    let spec = resource::spec_of(obj).ok();
    let (kc, _) = engine_cluster(ctx, &namespace, spec.as_ref(), ctx.default_timeout)
        .await
        .map_err(|e| transient(obj, &e))?;
    let applied = kc
        .store
        .history(&obj.name_any(), &obj.namespace().unwrap_or_default())
        .await
        .map(|h| !h.revisions.is_empty())
        .unwrap_or(true);
    if !applied {
        stop(
            obj,
            ctx,
            api,
            reason::INVALID_PACKAGE,
            &source::SourceError::PathIsCliOnly.to_string(),
        )
        .await?;
    }
    Ok(Action::await_change())
}

/// The engine's cluster for a Package of `namespace` (where and as whom
/// [`Context::acting_for`] says), and its remote target if it has one.
pub(crate) async fn engine_cluster(
    ctx: &Context,
    namespace: &str,
    spec: Option<&PackageSpec>,
    timeout: Duration,
) -> Result<(KubeCluster, Option<Target>), target::TargetError> {
    engine_cluster_reporting(ctx, namespace, spec, timeout, None).await
}

/// [`engine_cluster`] whose progress is also sent to `waits` (what each component waits for).
async fn engine_cluster_reporting(
    ctx: &Context,
    namespace: &str,
    spec: Option<&PackageSpec>,
    timeout: Duration,
    waits: Option<tokio::sync::mpsc::UnboundedSender<kubepkg_progress::Event>>,
) -> Result<(KubeCluster, Option<Target>), target::TargetError> {
    let acting = ctx.acting_for(namespace, spec).await?;
    let mut kube = acting.cluster;
    kube.namespace = namespace.to_string();
    let caps = kubepkg_engine::chart::ClusterCapabilities::default();
    let object = namespace.to_string();
    let metrics = ctx.metrics.clone();
    let applying: Mutex<HashMap<String, Instant>> = Mutex::new(HashMap::new());
    let sink: kubepkg_progress::Sink = Arc::new(move |e: &kubepkg_progress::Event| {
        use kubepkg_progress::Event;
        tracing::info!(namespace = %object, "{e}");
        // kubepkg_component_wait_seconds: from applying a component to ready or failed.
        if let Ok(mut applying) = applying.lock() {
            match e {
                Event::Applying { component } => {
                    applying.insert(component.clone(), Instant::now());
                }
                Event::Ready { component } | Event::Failed { component, .. } => {
                    if let Some(t) = applying.remove(component) {
                        let result = if matches!(e, Event::Ready { .. }) {
                            "ready"
                        } else {
                            "failed"
                        };
                        metrics.component_waited(result, t.elapsed());
                    }
                }
                _ => {}
            }
        }
        if let Some(w) = &waits {
            let _ = w.send(e.clone());
        }
    });
    let mut kc = KubeCluster::with_sink(kube, caps, timeout, sink);
    // The Package object is the controller's, in its cluster: its status is written there, as
    // the controller.
    kc.package_objects = Some(ctx.cluster.client.clone());
    Ok((kc, acting.target))
}

/// Writes `status.components[].waitingFor` while an apply runs, from the progress events: at
/// most once a second, and only when it changed. The engine's next record of the revision
/// writes the components again without it (cleared once the component is ready). `wrote` is
/// set before the first write of a `waitingFor` (only then is there one to clear).
async fn report_waits(
    api: Api<DynamicObject>,
    name: String,
    mut events: tokio::sync::mpsc::UnboundedReceiver<kubepkg_progress::Event>,
    wrote: Arc<std::sync::atomic::AtomicBool>,
) {
    use kubepkg_progress::Event;
    let mut waiting: HashMap<String, String> = HashMap::new();
    let mut written: HashMap<String, String> = HashMap::new();
    loop {
        let first = events.recv().await;
        let Some(first) = first else { return };
        let mut batch = vec![first];
        tokio::time::sleep(Duration::from_secs(1)).await;
        while let Ok(e) = events.try_recv() {
            batch.push(e);
        }
        for e in batch {
            match e {
                Event::WaitingFor {
                    component,
                    object,
                    reason,
                } => {
                    waiting.insert(component, format!("{object}: {reason}"));
                }
                Event::Ready { component }
                | Event::Failed { component, .. }
                | Event::Unchanged { component } => {
                    waiting.remove(&component);
                }
                _ => {}
            }
        }
        if waiting == written {
            continue;
        }
        let Ok(obj) = api.get(&name).await else {
            continue;
        };
        let mut components = obj
            .data
            .pointer("/status/components")
            .and_then(|c| c.as_array())
            .cloned()
            .unwrap_or_default();
        // A first install lists a component only once it is recorded: until then, by name.
        for component in waiting.keys() {
            if !components.iter().any(|c| c["name"] == component.as_str()) {
                components.push(serde_json::json!({ "name": component }));
            }
        }
        for c in &mut components {
            let Some(entry) = c.as_object_mut() else {
                continue;
            };
            let component = entry
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or_default();
            match waiting.get(component) {
                Some(w) => entry.insert("waitingFor".into(), w.clone().into()),
                None => entry.remove("waitingFor"),
            };
        }
        if !waiting.is_empty() {
            wrote.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        let patch = serde_json::json!({"status": {"components": components}});
        if api
            .patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .is_ok()
        {
            written = waiting.clone();
        }
    }
}

/// The registry client a GitOps backend pushes charts with: `chart_repository` (the
/// `FIELD.chartRepository` of the spec) reached with the credentials of the pull Secret
/// `secret_ref` (which the backend's sources pull with too); errors name `field`.
async fn push_client(
    ctx: &Context,
    namespace: &str,
    field: &'static str,
    chart_repository: &str,
    secret_ref: Option<&str>,
    insecure: bool,
) -> Result<kubepkg_oci::Client, PackageProblem> {
    let repo = kubepkg_oci::Reference::parse(chart_repository).map_err(|source| {
        PackageProblem::ChartRepository {
            field,
            repository: chart_repository.to_string(),
            source: Box::new(source),
        }
    })?;
    let secret = secret_ref.map(|name| kubepkg_package_object::ArchiveRef {
        name: name.to_string(),
        namespace: None,
        key: None,
    });
    source::registry_client(
        &ctx.cluster.client,
        namespace,
        secret.as_ref(),
        &repo,
        insecure,
        &ctx.scratch.join("oci-cache"),
    )
    .await
    .map_err(|source| PackageProblem::Registry {
        field,
        source: Box::new(source),
    })
}

/// The engine's backend of a Package: the backend configuration its spec gives
/// (`spec.backend` with `spec.flux` or `spec.argocd`), built by
/// [`kubepkg_engine::Backend::configure`]; the problem to stop with when its chart repository
/// cannot be used.
async fn engine_backend(
    ctx: &Context,
    namespace: &str,
    spec: &PackageSpec,
) -> Result<kubepkg_engine::Backend, PackageProblem> {
    // Where the spec keeps the backend's chart repository: its field, URL, pull Secret and
    // whether it speaks plain HTTP.
    let push = match spec.backend {
        Backend::Flux => spec.flux.as_ref().map(|f| {
            let secret = f.secret_ref.as_ref().map(|s| s.name.clone());
            ("spec.flux", &f.chart_repository, secret, f.insecure)
        }),
        Backend::Argocd => spec.argocd.as_ref().map(|a| {
            let secret = a.secret_ref.as_ref().map(|s| s.name.clone());
            ("spec.argocd", &a.chart_repository, secret, a.insecure)
        }),
        Backend::Helm => None,
    };
    let mut config = kubepkg_engine::BackendConfig::of_kind(spec.backend);
    if let Some((field, url, secret_ref, insecure)) = push {
        let client =
            push_client(ctx, namespace, field, url, secret_ref.as_deref(), insecure).await?;
        config.chart_repository = Some(kubepkg_engine::ChartRepository {
            url: url.clone(),
            insecure,
            secret_ref,
            client,
        });
    }
    if let Some(a) = &spec.argocd {
        config.argocd_namespace = a.namespace.clone();
        config.argocd_project = a.project.clone();
    }
    config.service_account = ctx.service_account(Some(spec));
    Ok(kubepkg_engine::Backend::configure(config))
}

fn duration(text: Option<&str>, default: Duration) -> Duration {
    text.and_then(|t| kubepkg_gostd::time::parse_duration(t).ok())
        .map(|d| d.to_std())
        .filter(|d| !d.is_zero())
        .unwrap_or(default)
}

async fn apply(
    obj: Arc<DynamicObject>,
    ctx: &Context,
    api: &Api<DynamicObject>,
) -> Result<Action, ReconcileError> {
    let namespace = obj.namespace().unwrap_or_default();
    let name = obj.name_any();
    let object = resource::key(&obj);
    let spec: PackageSpec = match resource::spec_of(&obj) {
        Ok(s) => s,
        Err(e) => {
            let message = format!("spec: {e}; fix the Package (kubectl edit package {name})");
            stop(&obj, ctx, api, reason::INVALID_PACKAGE, &message).await?;
            return Ok(Action::await_change());
        }
    };
    if spec.suspend {
        return Ok(Action::await_change());
    }
    if ctx.no_cross_namespace_refs {
        let refs = spec.cross_namespace_refs(&namespace);
        if !refs.is_empty() {
            let message = format!(
                "cross-namespace references are not allowed (--no-cross-namespace-refs): {}; keep the ConfigMaps and Secrets in namespace {namespace}",
                refs.join(", ")
            );
            stop(&obj, ctx, api, reason::ACCESS_DENIED, &message).await?;
            return Ok(Action::await_change());
        }
    }
    if spec.backend == Backend::Argocd
        && let Some(sa) = ctx.service_account(Some(&spec))
    {
        // Argo CD's application controller applies an Application's objects with its own
        // rights: the components would not be bounded by the ServiceAccount.
        let message = format!(
            "backend argocd cannot act as ServiceAccount {namespace}/{sa}: Argo CD's application controller applies the components with its own rights; use backend helm or flux for a Package acting as a ServiceAccount"
        );
        stop(&obj, ctx, api, reason::ACCESS_DENIED, &message).await?;
        return Ok(Action::await_change());
    }
    let repository_missing = match spec.backend {
        Backend::Helm => false,
        Backend::Flux => spec.flux.is_none(),
        Backend::Argocd => spec.argocd.is_none(),
    };
    if repository_missing && let Some(puller) = spec.backend.chart_puller() {
        let message = format!(
            "backend {b} needs spec.{b}.chartRepository (oci://HOST/PATH): the registry each component's chart is pushed to and {puller} pulls it from; add it (kubectl edit package NAME)",
            b = spec.backend
        );
        stop(&obj, ctx, api, reason::INVALID_PACKAGE, &message).await?;
        return Ok(Action::await_change());
    }
    let mut interval = duration(spec.interval.as_deref(), ctx.default_interval);
    if let Some(every) = spec.source.git.as_ref().and_then(|g| g.interval.as_deref()) {
        interval = interval.min(duration(Some(every), interval));
    }
    // A Git source may change without the spec changing (a push to its branch): what waits
    // for a change of the spec elsewhere looks at the repository again at the interval.
    let until_changed = if spec.source.git.is_some() || spec.source.source_ref.is_some() {
        Action::requeue(interval)
    } else {
        Action::await_change()
    };
    let timeout = duration(
        spec.upgrade.as_ref().and_then(|u| u.timeout.as_deref()),
        ctx.default_timeout,
    );
    let http = match &ctx.http {
        Some(h) => h,
        None => {
            let message = "no TLS configuration could be built for fetching sources";
            stop(&obj, ctx, api, reason::SOURCE_UNAVAILABLE, message).await?;
            return Ok(Action::requeue(interval));
        }
    };
    let fetched = match &spec.source.source_ref {
        Some(r) => crate::flux_source::fetch(&ctx.cluster.client, &namespace, r, http).await,
        None => {
            source::fetch(
                &ctx.cluster.client,
                &namespace,
                &spec.source,
                http,
                &ctx.scratch.join("oci-cache"),
                &source_paths(ctx),
            )
            .await
        }
    };
    let fetched = match fetched {
        Ok(f) => f,
        Err(e) => {
            let transient = e.reason() == reason::SOURCE_UNAVAILABLE;
            stop(&obj, ctx, api, e.reason(), &report(&e)).await?;
            // An unreachable source is tried again; a refused signature at the interval (it
            // may be signed later, as Flux re-checks); a wrong spec waits for an edit (a Git
            // source's content is looked at again at the interval).
            return Ok(if transient {
                Action::requeue(Duration::from_secs(30).min(interval))
            } else if e.reason() == reason::VERIFICATION_FAILED {
                Action::requeue(interval)
            } else {
                until_changed
            });
        }
    };
    let source_revision = match (&fetched.git, &fetched.subdir, &fetched.record) {
        (Some((_, c)), _, _) => Some(git_revision(c)),
        (None, Some(_), Some(record)) => Some(record.tag.clone()),
        _ => None,
    };
    let observed = resource::observed(&obj);
    let resolved = match values::resolve(
        &ctx.cluster.client,
        &namespace,
        &spec,
        observed.values_once_digest.as_deref(),
    )
    .await
    {
        Ok(v) => v,
        Err(e) => {
            stop(&obj, ctx, api, reason::INVALID_PACKAGE, &report(&e)).await?;
            return Ok(Action::requeue(interval));
        }
    };
    let digest = {
        let mut h = Sha256::new();
        h.update(fetched.sha256.as_bytes());
        h.update(b"\n");
        h.update(resolved.fingerprint.as_bytes());
        source::hex(&h.finalize())
    };
    let mut loaded = match load(ctx, &obj, &fetched).await {
        Ok(l) => l,
        Err(problem) => {
            stop(&obj, ctx, api, reason::INVALID_PACKAGE, &report(&problem)).await?;
            return Ok(until_changed);
        }
    };
    if let Err(e) = spec.add_post_renderers(&mut loaded.package) {
        stop(&obj, ctx, api, reason::INVALID_PACKAGE, &e.to_string()).await?;
        return Ok(Action::await_change());
    }
    let package = &loaded.package;
    let (waits, wait_events) = tokio::sync::mpsc::unbounded_channel();
    let (mut kc, target) =
        match engine_cluster_reporting(ctx, &namespace, Some(&spec), timeout, Some(waits)).await {
            Ok(acting) => acting,
            Err(e @ target::TargetError::Read { .. }) => return Err(transient(&obj, &e)),
            Err(e) => {
                stop(&obj, ctx, api, reason::KUBE_CONFIG_INVALID, &report(&e)).await?;
                let again = Duration::from_secs(30).min(interval);
                return Ok(if e.is_transient() {
                    Action::requeue(again)
                } else {
                    Action::requeue(interval)
                });
            }
        };
    if target.is_none() {
        // The Package lives there: it exists, nothing to make sure of.
        kc.namespace_exists(&namespace);
    }
    match engine_backend(ctx, &namespace, &spec).await {
        Ok(b) => kc.backend = b,
        Err(problem) => {
            stop(&obj, ctx, api, reason::INVALID_PACKAGE, &report(&problem)).await?;
            return Ok(Action::requeue(interval));
        }
    }
    let wrote_waits = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reporter = tokio::spawn(report_waits(
        api.clone(),
        name.clone(),
        wait_events,
        wrote_waits.clone(),
    ));
    let stop_reporting = AbortOnDrop(reporter);
    kc.set_capabilities(ops::capabilities(&kc.kube).await);
    // Requirements are waited for by watch here (the reconcile does not block on them).
    kc.requirements_timeout = Duration::ZERO;
    let instance = Instance {
        name: &name,
        namespace: &namespace,
    };
    // Only the latest revision is decoded here (bounded work per reconcile); an apply reads
    // the history it needs itself, under the package's Lease. Read only when the status says
    // this spec and these inputs were applied already (else there is something to apply,
    // whatever the latest revision is).
    let applied_already = observed.generation == obj.meta().generation
        && observed.digest.as_deref() == Some(digest.as_str());
    let latest = match read_latest(&kc, &name, &namespace, applied_already).await {
        Ok(latest) => latest,
        Err(e) if kubepkg_kube::is_forbidden(&e) => {
            return denied(&obj, ctx, api, &e, interval).await;
        }
        Err(e) if target.is_some() && kubepkg_kube::is_unreachable_api(&e) => {
            return unreachable(&obj, ctx, api, target.as_ref(), &e).await;
        }
        Err(source) => {
            return Err(ReconcileError::Engine {
                object: object.clone(),
                source,
            });
        }
    };
    let latest_final = latest.as_ref().is_some_and(|l| {
        !l.status.is_pending()
            && !matches!(
                l.status,
                RevisionStatus::Uninstalled | RevisionStatus::Uninstalling
            )
    });
    let unchanged = latest_final && applied_already;
    if unchanged {
        forget_waiting(ctx, &obj);
        // A reconcile cut short after its apply was over (a controller killed between the
        // apply and its last status write) left `Progressing` over a finished revision, and
        // nothing would write over it: show the latest revision as it is.
        if observed.ready_reason.as_deref() == Some(reason::PROGRESSING)
            && let Some(latest) = &latest
        {
            kc.publish_status(latest).await;
        }
        // A new commit that changed nothing under the path: no revision, only what was read.
        if source_revision.is_some() && observed.source_revision != source_revision {
            let patch = StatusPatch {
                source_revision: source_revision.clone(),
                ..Default::default()
            };
            write_status(&obj, ctx, api, patch).await?;
        }
        let mode = spec.drift_detection.map(|d| d.mode).unwrap_or_default();
        if mode != DriftMode::Disabled
            && latest
                .as_ref()
                .is_some_and(|l| l.status == RevisionStatus::Deployed)
        {
            check_drift(&obj, ctx, api, &kc, instance, mode).await?;
        }
        return Ok(Action::requeue(interval));
    }
    if let Err(unmet) =
        kubepkg_package::orchestrator::check_requirements(&mut kc, &package.meta.requires).await
    {
        let waiting_for = unmet.to_string();
        remember_waiting(ctx, &obj, package);
        let patch = StatusPatch {
            last_attempted_version: Some(package.meta.version.to_string()),
            conditions: Some(conditions::reconciling(
                reason::REQUIREMENTS_NOT_MET,
                &waiting_for,
                &now(),
            )),
            ..Default::default()
        };
        write_status(&obj, ctx, api, patch).await?;
        if observed.ready_reason.as_deref() != Some(reason::REQUIREMENTS_NOT_MET) {
            event(
                ctx,
                &obj,
                EventType::Normal,
                reason::REQUIREMENTS_NOT_MET,
                &waiting_for,
            )
            .await;
        }
        return Ok(Action::requeue(interval));
    }
    forget_waiting(ctx, &obj);
    // What is attempted rides on the status the engine writes next (the pending revision's,
    // Progressing), or on the status of how the apply ended.
    let begin = StatusPatch {
        target: target.clone(),
        last_attempted_version: Some(package.meta.version.to_string()),
        ..Default::default()
    };
    kc.status_also(&namespace, &name, begin.fields());
    event(
        ctx,
        &obj,
        EventType::Normal,
        reason::PROGRESSING,
        &format!(
            "applying {} {} from {}",
            package.meta.name, package.meta.version, fetched.origin
        ),
    )
    .await;
    // The last status is written below with this reconcile's own fields, in one request.
    kc.defer_final_status = true;
    // Boxed: the engine's apply future is large, and a reconcile future that holds it inline
    // overflowed the worker's stack in debug builds once the registry source was added.
    let result = Box::pin(ops::apply(
        &mut kc,
        package,
        instance,
        &resolved.user,
        ops::ApplyOptions::new(timeout),
    ))
    .await;
    // No stale "waiting for" after the apply: the reporter stops, what it wrote goes.
    drop(stop_reporting);
    if wrote_waits.load(std::sync::atomic::Ordering::SeqCst) {
        clear_waits(api, &name).await;
    }
    if result.is_err() {
        kc.flush_status().await;
    }
    let outcome = match result {
        Ok((outcome, _plan)) => outcome,
        Err(e)
            if e.is_invalid_package()
                || matches!(
                    e,
                    EngineError::Values(_)
                        | EngineError::Refused(_)
                        | EngineError::Stopped(Stopped::Downgrade(_))
                        | EngineError::Stopped(Stopped::UnsafeCrdChanges { .. })
                ) =>
        {
            // A refused downgrade stops like an invalid package: nothing applied, shown until
            // the Package is changed.
            let why = if e.is_invalid_package() || matches!(e, EngineError::Values(_)) {
                reason::INVALID_PACKAGE
            } else {
                reason::UPGRADE_FAILED
            };
            stop(&obj, ctx, api, why, &report(&e)).await?;
            // Invalid for this generation and inputs: recorded, so it is not retried until
            // something changes.
            let patch = StatusPatch {
                observed_generation: obj.meta().generation,
                last_attempted_digest: Some(digest),
                source_revision,
                ..Default::default()
            };
            write_status(&obj, ctx, api, patch).await?;
            return Ok(until_changed);
        }
        Err(e @ EngineError::Backend(_)) => {
            // Flux or Argo CD not installed, or a readyWhen Flux cannot evaluate: nothing
            // applied; tried again (the backend may be installed meanwhile).
            stop(&obj, ctx, api, reason::INVALID_PACKAGE, &report(&e)).await?;
            return Ok(Action::requeue(Duration::from_secs(30).min(interval)));
        }
        Err(e @ EngineError::Locked { .. }) => {
            let patch = StatusPatch {
                conditions: Some(conditions::reconciling(
                    reason::PROGRESSING,
                    &e.to_string(),
                    &now(),
                )),
                ..Default::default()
            };
            write_status(&obj, ctx, api, patch).await?;
            return Ok(Action::requeue(Duration::from_secs(10)));
        }
        Err(e) if kubepkg_kube::is_forbidden(&e) => {
            return denied(&obj, ctx, api, &e, interval).await;
        }
        Err(e) if target.is_some() && kubepkg_kube::is_unreachable_api(&e) => {
            return unreachable(&obj, ctx, api, target.as_ref(), &e).await;
        }
        Err(source) => return Err(ReconcileError::Engine { object, source }),
    };
    if outcome.reason == Reason::RequirementsNotMet {
        // Became unmet between the check and the apply: wait for the watch.
        kc.flush_status().await;
        remember_waiting(ctx, &obj, package);
        let patch = StatusPatch {
            conditions: Some(conditions::reconciling(
                reason::REQUIREMENTS_NOT_MET,
                &outcome.message,
                &now(),
            )),
            ..Default::default()
        };
        write_status(&obj, ctx, api, patch).await?;
        return Ok(Action::requeue(interval));
    }
    // Written once the apply is over (or, above, once it is known that nothing is to apply),
    // with the latest revision's status in the same request: a reader that sees a commit here
    // sees what it led to. The latest revision is written even when this apply recorded none
    // (it changed nothing): a status left Progressing by an earlier reconcile would otherwise
    // stay (a reconcile that starts from a cache older than the previous reconcile's last
    // status write re-applies; that found 52 of 1000 Packages stuck in the scale benchmark).
    let done = StatusPatch {
        observed_generation: obj.meta().generation,
        last_attempted_digest: Some(digest),
        source_revision,
        // Once values count as used only by an apply that went through.
        values_once_digest: resolved
            .once_digest
            .clone()
            .filter(|_| outcome.reason == Reason::Succeeded),
        ..Default::default()
    };
    match kc.store.latest(&name, &namespace).await {
        Ok(Some(latest)) => kc
            .publish_status_with(&latest, done.fields())
            .await
            .map_err(|e| status_error(&obj, e))?,
        _ => {
            kc.flush_status().await;
            write_status(&obj, ctx, api, done).await?;
        }
    }
    publish(&obj, ctx, &outcome).await;
    ctx.metrics.package_state(&object, outcome.reason.as_str());
    Ok(Action::requeue(interval))
}

/// The latest revision of the package instance when `wanted`, else `None` (no request).
async fn read_latest(
    kc: &KubeCluster,
    name: &str,
    namespace: &str,
    wanted: bool,
) -> Result<Option<kubepkg_package::revision::PackageRevision>, EngineError> {
    if !wanted {
        return Ok(None);
    }
    kc.store.latest(name, namespace).await
}

/// Compares the live objects with their releases (`ops::drift`); `enabled` puts drifted
/// objects back, `warn` reports them as the `Drifted` condition; both say so in an Event. The
/// condition goes back to False once nothing differs.
async fn check_drift(
    obj: &DynamicObject,
    ctx: &Context,
    api: &Api<DynamicObject>,
    kc: &KubeCluster,
    instance: Instance<'_>,
    mode: DriftMode,
) -> Result<(), ReconcileError> {
    let object = resource::key(obj);
    let drifts = ops::drift(kc, instance)
        .await
        .map_err(|source| ReconcileError::Engine {
            object: object.clone(),
            source,
        })?;
    let before = conditions_of(obj);
    let was_drifted = before
        .iter()
        .any(|c| c.type_ == conditions::DRIFTED && c.is_true());
    let summary = drifts
        .iter()
        .map(|d| format!("{} ({}): {}", d.object, d.component, d.what))
        .collect::<Vec<_>>()
        .join("; ");
    let drifted_now = !drifts.is_empty() && mode == DriftMode::Warn;
    if !drifts.is_empty() && mode == DriftMode::Enabled {
        ops::correct_drift(kc, instance, &drifts)
            .await
            .map_err(|source| ReconcileError::Engine {
                object: object.clone(),
                source,
            })?;
        event(
            ctx,
            obj,
            EventType::Warning,
            "DriftCorrected",
            &format!("put back {summary}"),
        )
        .await;
    }
    if drifted_now != was_drifted || (drifted_now && !summary.is_empty()) {
        let message = if drifted_now {
            summary.clone()
        } else {
            "live objects match their releases".to_string()
        };
        let mut conditions: Vec<_> = before
            .iter()
            .filter(|c| c.type_ != conditions::DRIFTED)
            .cloned()
            .collect();
        conditions.push(conditions::drifted(drifted_now, &message, &now()));
        let conditions = carry_transition_times(conditions, &before);
        if conditions != before {
            write_status(
                obj,
                ctx,
                api,
                StatusPatch {
                    conditions: Some(conditions),
                    ..Default::default()
                },
            )
            .await?;
            if drifted_now {
                event(
                    ctx,
                    obj,
                    EventType::Warning,
                    reason::DRIFT_DETECTED,
                    &summary,
                )
                .await;
            }
        }
    }
    Ok(())
}

/// Removes every `waitingFor` from `status.components`.
async fn clear_waits(api: &Api<DynamicObject>, name: &str) {
    let Ok(obj) = api.get(name).await else { return };
    let Some(mut components) = obj
        .data
        .pointer("/status/components")
        .and_then(|c| c.as_array())
        .cloned()
    else {
        return;
    };
    let mut changed = false;
    for c in &mut components {
        if let Some(entry) = c.as_object_mut() {
            changed |= entry.remove("waitingFor").is_some();
        }
    }
    if changed {
        let patch = serde_json::json!({"status": {"components": components}});
        let _ = api
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await;
    }
}

/// Aborts a background task when dropped (the end of the reconcile that started it).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Helm's paths for the controller's loads and Git fetches: a home under the scratch
/// directory (no Helm configuration of the controller's environment is read), so the content
/// cache (charts, Git checkouts) is `<scratch>/charts/.cache/kubepkg`.
pub(crate) fn source_paths(ctx: &Context) -> kubepkg_source::HelmPaths {
    let home = ctx.scratch.join("charts");
    kubepkg_source::HelmPaths::resolve(|name| {
        (name == "HOME").then(|| home.to_string_lossy().into_owned())
    })
}

/// Flux's revision of a Git checkout: `main@sha1:…` (`sha1:…` for a commit).
fn git_revision(checkout: &kubepkg_git::Checkout) -> String {
    if checkout.reference.is_empty() {
        format!("sha1:{}", checkout.commit)
    } else {
        format!("{}@sha1:{}", checkout.reference, checkout.commit)
    }
}

/// Loads a fetched source in this Package's scratch directory ([`crate::loaded::load`]).
async fn load(
    ctx: &Context,
    obj: &DynamicObject,
    fetched: &source::Fetched,
) -> Result<Loaded, PackageProblem> {
    let uid = obj.uid().unwrap_or_else(|| obj.name_any());
    let dir = ctx.scratch.join(format!("{uid}-{}", &fetched.sha256[..12]));
    crate::loaded::load(fetched, dir, &source_paths(ctx)).await
}

/// Deletion: every component uninstalled in reverse order (the CLI's `kubepkg uninstall`),
/// then the runtime removes the finalizer.
async fn cleanup(obj: Arc<DynamicObject>, ctx: &Context) -> Result<Action, ReconcileError> {
    let namespace = obj.namespace().unwrap_or_default();
    let name = obj.name_any();
    forget_waiting(ctx, &obj);
    ctx.metrics.package_gone(&resource::key(&obj));
    let suspended = resource::spec_of(&obj).is_ok_and(|s| s.suspend);
    if suspended {
        return Ok(Action::await_change());
    }
    let timeout = resource::spec_of(&obj)
        .ok()
        .map(|s| {
            duration(
                s.upgrade.as_ref().and_then(|u| u.timeout.as_deref()),
                ctx.default_timeout,
            )
        })
        .unwrap_or(ctx.default_timeout);
    let spec = resource::spec_of(&obj).ok();
    // A target that cannot be used holds the deletion (retried): its components may still run
    // there. Removing the finalizer deletes the Package without uninstalling them.
    let (mut kc, _) = engine_cluster(ctx, &namespace, spec.as_ref(), timeout)
        .await
        .map_err(|e| transient(&obj, &e))?;
    // The Package's backend: an argocd one's Applications may live in another namespace
    // (spec.argocd.namespace).
    if let Ok(spec) = resource::spec_of(&obj)
        && let Ok(b) = engine_backend(ctx, &namespace, &spec).await
    {
        kc.backend = b;
    }
    let instance = Instance {
        name: &name,
        namespace: &namespace,
    };
    match ops::uninstall(&mut kc, instance, false, timeout).await {
        Ok(done) => {
            event(
                ctx,
                &obj,
                EventType::Normal,
                reason::UNINSTALLED,
                &format!("uninstalled components {}", done.join(", ")),
            )
            .await;
            Ok(Action::await_change())
        }
        Err(EngineError::NotInstalled { .. }) => Ok(Action::await_change()),
        // Refused as the Package's identity and nothing was ever recorded for it (no revision
        // in its status): there is nothing of it to uninstall, so the Package may go.
        Err(e) if kubepkg_kube::is_forbidden(&e) && recorded_revision(&obj).is_none() => {
            event(
                ctx,
                &obj,
                EventType::Warning,
                reason::UNINSTALLED,
                &format!(
                    "nothing was ever installed; deleted without uninstalling: {}",
                    report(&e)
                ),
            )
            .await;
            Ok(Action::await_change())
        }
        Err(source) => Err(ReconcileError::Engine {
            object: resource::key(&obj),
            source,
        }),
    }
}

/// The target cluster of `spec.kubeConfig` did not answer: `Ready=False`/`Reconciling=True`
/// `TargetUnreachable` naming it (an Event once), tried again in 10 s. What an apply cut short
/// there left (a pending revision, its Lease) is recovered by the apply that follows once it
/// answers, as after a crash.
async fn unreachable(
    obj: &DynamicObject,
    ctx: &Context,
    api: &Api<DynamicObject>,
    target: Option<&Target>,
    e: &EngineError,
) -> Result<Action, ReconcileError> {
    let server = target.map(|t| t.server.as_str()).unwrap_or_default();
    let message = format!(
        "the target cluster {server} does not answer: {}; retrying",
        report(e)
    );
    let before = resource::observed(obj).ready_reason;
    let patch = StatusPatch {
        target: target.cloned(),
        conditions: Some(carry_transition_times(
            conditions::reconciling(reason::TARGET_UNREACHABLE, &message, &now()),
            &conditions_of(obj),
        )),
        ..Default::default()
    };
    write_status(obj, ctx, api, patch).await?;
    if before.as_deref() != Some(reason::TARGET_UNREACHABLE) {
        event(
            ctx,
            obj,
            EventType::Warning,
            reason::TARGET_UNREACHABLE,
            &message,
        )
        .await;
    }
    ctx.metrics
        .package_state(&resource::key(obj), reason::TARGET_UNREACHABLE);
    Ok(Action::requeue(Duration::from_secs(10)))
}

/// The revision the Package's status shows, if any was ever recorded.
fn recorded_revision(obj: &DynamicObject) -> Option<u64> {
    obj.data
        .pointer("/status/revision")
        .and_then(serde_json::Value::as_u64)
        .filter(|r| *r > 0)
}

/// A reconcile to retry with backoff for `e`.
fn transient(obj: &DynamicObject, e: &(dyn std::error::Error + 'static)) -> ReconcileError {
    ReconcileError::Transient {
        object: resource::key(obj),
        message: report(e),
    }
}

/// The API server refused a request made for the Package outside a recorded revision (the
/// identity it is applied as may not read its records, take its Lease, …): `AccessDenied` with
/// the server's message, which names the user, verb, resource and namespace; looked at again
/// after the interval (the permission may be granted meanwhile).
async fn denied(
    obj: &DynamicObject,
    ctx: &Context,
    api: &Api<DynamicObject>,
    e: &EngineError,
    interval: Duration,
) -> Result<Action, ReconcileError> {
    stop(obj, ctx, api, reason::ACCESS_DENIED, &report(e)).await?;
    Ok(Action::requeue(interval))
}

/// Writes `Ready=False`/`Stalled=True` with `reason` and `message` (and an Event when the
/// state changes).
async fn stop(
    obj: &DynamicObject,
    ctx: &Context,
    api: &Api<DynamicObject>,
    why: &str,
    message: &str,
) -> Result<(), ReconcileError> {
    let before = resource::observed(obj).ready_reason;
    let conditions = carry_transition_times(
        conditions::stopped(why, message, &now()),
        &conditions_of(obj),
    );
    // The generation was looked at and refused: observed (kstatus reads Stalled, not
    // "latest generation not observed").
    let observed_now = resource::observed(obj).generation == obj.meta().generation;
    let same = conditions_of(obj) == conditions && observed_now;
    if !same {
        write_status(
            obj,
            ctx,
            api,
            StatusPatch {
                observed_generation: obj.meta().generation,
                conditions: Some(conditions),
                ..Default::default()
            },
        )
        .await?;
    }
    if before.as_deref() != Some(why) || !same {
        event(ctx, obj, EventType::Warning, why, message).await;
    }
    ctx.metrics.package_state(&resource::key(obj), why);
    Ok(())
}

async fn write_status(
    obj: &DynamicObject,
    _ctx: &Context,
    api: &Api<DynamicObject>,
    patch: StatusPatch,
) -> Result<(), ReconcileError> {
    let name = obj.name_any();
    match api
        .patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(&patch.to_json()),
        )
        .await
    {
        Ok(_) => Ok(()),
        // Deleted meanwhile: nothing to write to.
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(status_error(obj, e)),
    }
}

/// Writing the status of `obj` failed with `e`: the reconcile is tried again.
fn status_error(obj: &DynamicObject, e: kube::Error) -> ReconcileError {
    ReconcileError::Status {
        object: resource::key(obj),
        source: Box::new(kubepkg_kube::KubeError::refused(
            "patch status of",
            format!("Package {}", resource::key(obj)),
            e,
        )),
    }
}

/// The Event of how an apply ended.
async fn publish(obj: &DynamicObject, ctx: &Context, outcome: &Outcome) {
    let type_ = match outcome.reason {
        Reason::Succeeded => EventType::Normal,
        _ => EventType::Warning,
    };
    event(ctx, obj, type_, outcome.reason.as_str(), &outcome.message).await;
}

pub(crate) async fn event(
    ctx: &Context,
    obj: &DynamicObject,
    type_: EventType,
    why: &str,
    note: &str,
) {
    // A Package, or a PackageRollout (whose watch keeps each object's kind).
    let kind = obj
        .types
        .as_ref()
        .map_or(kubepkg_package_object::KIND.to_string(), |t| t.kind.clone());
    let reference = ObjectReference {
        api_version: Some(format!(
            "{}/{}",
            kubepkg_package_object::GROUP,
            kubepkg_package_object::VERSION
        )),
        kind: Some(kind),
        name: Some(obj.name_any()),
        namespace: obj.namespace(),
        uid: obj.uid(),
        resource_version: obj.resource_version(),
        ..Default::default()
    };
    let mut note = note.to_string();
    if note.len() > 1000 {
        let mut cut = 1000;
        while !note.is_char_boundary(cut) {
            cut -= 1;
        }
        note.truncate(cut);
        note.push('…');
    }
    let ev = KubeEvent {
        type_,
        reason: why.to_string(),
        note: Some(note),
        action: "Reconcile".into(),
        secondary: None,
    };
    if let Err(e) = ctx.recorder.publish(&ev, &reference).await {
        tracing::warn!(package = %resource::key(obj), error = %e, "cannot record an Event");
    }
}

pub(crate) fn now() -> String {
    jiff::Timestamp::now().to_string()
}

fn remember_waiting(ctx: &Context, obj: &DynamicObject, package: &Package) {
    let me = ObjectRef::from_obj_with(obj, resource::api_resource());
    if let Ok(mut w) = ctx.waiting.lock() {
        for r in &package.meta.requires {
            w.entry(r.name.clone()).or_default().insert(me.clone());
        }
    }
}

fn forget_waiting(ctx: &Context, obj: &DynamicObject) {
    let me = ObjectRef::from_obj_with(obj, resource::api_resource());
    if let Ok(mut w) = ctx.waiting.lock() {
        w.retain(|_, set| {
            set.remove(&me);
            !set.is_empty()
        });
    }
}

/// The Packages to wake when a package revision Secret changes: those waiting for the package
/// it records.
pub fn dependents_of(
    waiting: &Waiting,
    secret: &PartialObjectMeta<Secret>,
) -> Vec<ObjectRef<DynamicObject>> {
    let Some(name) = secret.labels().get("name") else {
        return Vec::new();
    };
    waiting
        .lock()
        .ok()
        .and_then(|w| w.get(name).map(|s| s.iter().cloned().collect()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::backoff;
    use std::time::Duration;

    #[test]
    fn backoff_doubles_per_failure_up_to_five_minutes() {
        let secs: Vec<u64> = (1..=9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
        assert_eq!(backoff(0), Duration::from_secs(5));
    }
}
