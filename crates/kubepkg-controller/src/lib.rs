//! The kubepkg controller (docs/controller.md): `Package` objects (`kubepkg.dev/v1alpha1`)
//! reconciled to their spec by the same engine as `kubepkg apply`, recording the same revision
//! Secrets, so the CLI and the controller are interchangeable.
//!
//! Built on kube-rs's runtime: a [`kube::runtime::Controller`] over `Package` objects (read as
//! dynamic objects, so one malformed spec is a condition on that object, never a failed watch),
//! the finalizer helper for uninstalls, the event recorder, and a metadata-only watch of the
//! package revision Secrets that wakes a Package waiting for its `requires`.
//!
//! - [`source`]: fetching the package archive (`url` + `sha256`, `configMapRef`, `secretRef`);
//! - [`values`]: `spec.values` and `spec.valuesFrom` as the engine's user values;
//! - [`reconcile`]: what one reconcile does, and the status it writes ([`status`]);
//! - [`metrics`], [`http`]: Prometheus metrics in controller-runtime's names, `/healthz`,
//!   `/readyz`;
//! - [`leader`]: leader election over the same Lease lock the engine uses;
//! - [`api_changes`]: the watch of CRDs and APIServices that lets `.Capabilities` be kept
//!   between reconciles;
//! - [`rollout`]: fleet rollouts (`PackageRollout`), with [`rollout_verdict`] (whether a
//!   cluster may go back), [`rollout_package`] (each cluster's Package) and [`rollout_metrics`].
//!
//! More detail:
//! - [`source`]: ConfigMap, Secret and `url` + `sha256` archives (fetched through
//!   `kubepkg-fetch`, body capped, digest checked); `oci` + `version` pulled through
//!   `kubepkg-oci` with a `kubernetes.io/dockerconfigjson` pull Secret, the resolved tag and
//!   digest recorded in the revision; `verify: {provider: cosign, secretRef}` checked with the
//!   Secret's `*.pub` keys before the pull (a refusal is `VerificationFailed`).
//! - [`values`]: `valuesFrom` first, then `spec.values`.
//! - tenancy ([`reconcile::Context::acting_for`]): every request for a Package's components
//!   (apply, prune, readiness, hooks, release and revision records, leases, uninstall) is made
//!   as its ServiceAccount by Kubernetes impersonation (`spec.serviceAccountName`, else
//!   `--default-service-account`); the Package object, its status and Events, and the
//!   ConfigMaps/Secrets it references are read and written with the controller's own identity
//!   (`--no-cross-namespace-refs` keeps those to the Package's namespace).
//! - [`reconcile`]: builds the engine's one backend configuration from the spec
//!   (`engine_backend`: `backend: flux` with `spec.flux`, `backend: argocd` with
//!   `spec.argocd`, pushing with the credentials of their `secretRef`); decides from
//!   `observedGeneration` and a digest of archive and values whether to apply; calls
//!   `kubepkg_engine::ops::apply`, `drift` and `uninstall`, as the CLI does.
//! - [`status`]: merge patches of what only the controller writes; [`http`]: `/metrics`,
//!   `/healthz`, `/readyz` on hyper; [`metrics`]: prometheus-client.

pub mod api_changes;
pub mod flux_source;
pub mod http;
pub mod leader;
pub mod loaded;
pub mod metrics;
pub mod problem;
pub mod reconcile;
pub mod resource;
pub mod rollout;
pub mod rollout_metrics;
pub mod rollout_package;
pub mod rollout_verdict;
pub mod source;
pub mod status;
pub mod target;
pub mod values;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DynamicObject, PartialObjectMeta};
use kube::runtime::WatchStreamExt;
use kube::runtime::controller::Controller;
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::{reflector, watcher};

pub use reconcile::Context;

/// How the controller runs (`kubepkg controller`'s flags).
#[derive(Debug, Clone)]
pub struct Config {
    /// Namespaces whose Packages are reconciled; empty: all namespaces.
    pub namespaces: Vec<String>,
    /// Packages reconciled at once (per namespace watched).
    pub concurrency: u16,
    /// Where `/metrics` is served (`None`: not served).
    pub metrics_address: Option<SocketAddr>,
    /// Where `/healthz` and `/readyz` are served (`None`: not served).
    pub probe_address: Option<SocketAddr>,
    /// Take the leader Lease before reconciling (for more than one replica).
    pub leader_elect: bool,
    /// Namespace of the leader Lease.
    pub leader_election_namespace: String,
    /// Directory for fetched archives while a Package is applied.
    pub scratch: PathBuf,
    /// Per-component timeout when a Package sets no `upgrade.timeout`.
    pub default_timeout: Duration,
    /// How often an applied Package is re-checked when it sets no `interval`.
    pub default_interval: Duration,
    /// The name events are reported under (`reportingController`).
    pub reporter: String,
    /// The ServiceAccount (of the Package's namespace) a Package naming no
    /// `serviceAccountName` is applied as (`None`: the controller's own identity).
    pub default_service_account: Option<String>,
    /// Refuse references to ConfigMaps and Secrets of other namespaces.
    pub no_cross_namespace_refs: bool,
    /// Reconcile only the Packages (and PackageRollouts) this label selector picks: one shard
    /// of several controllers (`--watch-label-selector`, docs/controller.md#sharding).
    pub label_selector: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            namespaces: Vec::new(),
            concurrency: 4,
            metrics_address: None,
            probe_address: None,
            leader_elect: false,
            leader_election_namespace: "kubepkg-system".into(),
            scratch: std::env::temp_dir().join("kubepkg-controller"),
            default_timeout: Duration::from_secs(600),
            default_interval: Duration::from_secs(600),
            reporter: "kubepkg-controller".into(),
            default_service_account: None,
            no_cross_namespace_refs: false,
            label_selector: None,
        }
    }
}

/// Why the controller could not run.
#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    /// The metrics or probe address could not be bound.
    #[error("cannot serve {what} on {address}")]
    Bind {
        what: &'static str,
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// The scratch directory could not be created.
    #[error("cannot create the scratch directory {}", path.display())]
    Scratch {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Leader election failed.
    #[error(transparent)]
    Leader(#[from] leader::LeaderError),
    /// The cluster serves a Package schema older than this controller: the API server would
    /// prune the fields it lacks from every Package (a pruned `spec.kubeConfig` would apply
    /// to the managing cluster instead of the target).
    #[error(
        "the Package CRD the cluster serves lacks {}: it is older than this controller, and the API server would drop those fields from every Package; apply the CRD of this version (charts/kubepkg-controller/crds/) and start again",
        missing.join(", ")
    )]
    CrdOutdated { missing: Vec<String> },
    /// `--watch-label-selector` is not a label selector the API server accepts.
    #[error(
        "--watch-label-selector {selector:?}: the API server refuses it ({reason}); write a Kubernetes label selector, e.g. kubepkg.dev/shard=a or !kubepkg.dev/shard"
    )]
    Selector { selector: String, reason: String },
    /// The cluster does not serve Packages at all.
    #[error(
        "the cluster does not serve packages.kubepkg.dev: install the CRD (charts/kubepkg-controller/crds/, or the kubepkg-controller chart) and start again"
    )]
    CrdMissing,
}

/// Checks that the cluster serves Package with every field of this build's CRD
/// ([`kubepkg_package_object::served`]), asking again for up to 15 seconds while it does not:
/// the API server publishes a CRD created or changed a moment ago a little later. An answer
/// that cannot be read (an API server that does not publish OpenAPI v3) is logged and the
/// controller goes on.
async fn check_crd(client: &kube::Client) -> Result<(), ControllerError> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        match served_crd(client).await {
            Err(e) if tokio::time::Instant::now() < deadline => {
                tracing::debug!("{e}; asking again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            result => return result,
        }
    }
}

/// One check of [`check_crd`].
async fn served_crd(client: &kube::Client) -> Result<(), ControllerError> {
    use kubepkg_package_object::served;
    let request = ::http::Request::get(served::openapi_path()).body(Vec::new());
    let answer = match request {
        Ok(r) => client.request::<serde_json::Value>(r).await,
        Err(e) => {
            tracing::warn!("the Package schema was not checked: {e}");
            return Ok(());
        }
    };
    match answer {
        Ok(doc) => match served::served_spec(&doc) {
            None => Err(ControllerError::CrdMissing),
            Some(spec) => {
                let missing = served::missing_spec_fields(spec);
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(ControllerError::CrdOutdated { missing })
                }
            }
        },
        Err(kube::Error::Api(s)) if s.code == 404 => Err(ControllerError::CrdMissing),
        Err(e) => {
            tracing::warn!("the Package schema was not checked: {e}");
            Ok(())
        }
    }
}

/// Runs the controller until SIGTERM or SIGINT: serves metrics and probes, takes the leader
/// Lease when asked, then reconciles every `Package` of the watched namespaces. On a signal, the
/// reconciles in flight finish (each leaves its package resumable if cut short) and it returns.
pub async fn run(cluster: kubepkg_kube::Cluster, config: Config) -> Result<(), ControllerError> {
    std::fs::create_dir_all(&config.scratch).map_err(|source| ControllerError::Scratch {
        path: config.scratch.clone(),
        source,
    })?;
    check_crd(&cluster.client).await?;
    if let Some(selector) = &config.label_selector {
        check_selector(&cluster.client, selector).await?;
    }
    let metrics = Arc::new(metrics::Metrics::new(config.concurrency));
    let health = http::Health::default();
    if let Some(address) = config.metrics_address {
        http::serve(address, "metrics", metrics.clone(), health.clone()).await?;
    }
    if let Some(address) = config.probe_address {
        http::serve(address, "probes", metrics.clone(), health.clone()).await?;
    }
    let shutdown = shutdown_signal();
    let lease = leader::lease_name(config.label_selector.as_deref());
    let _leader = if config.leader_elect {
        health.set_ready(true);
        tokio::select! {
            lock = leader::acquire(
                &cluster.client,
                &config.leader_election_namespace,
                &lease,
            ) => Some(lock?),
            () = shutdown.clone() => return Ok(()),
        }
    } else {
        None
    };
    health.set_ready(true);
    tracing::info!(namespaces = ?config.namespaces, selector = ?config.label_selector, "kubepkg controller started");
    let recorder = Recorder::new(
        cluster.client.clone(),
        Reporter {
            controller: config.reporter.clone(),
            instance: std::env::var("POD_NAME").ok(),
        },
    );
    let ctx = Arc::new(Context::new(cluster.clone(), recorder, metrics, &config));
    // `.Capabilities` kept between reconciles while the APIs that change them are watched.
    let api_changes = tokio::spawn(api_changes::watch(
        cluster.client.clone(),
        cluster.discovery.clone(),
    ));
    let namespaces: Vec<Option<String>> = if config.namespaces.is_empty() {
        vec![None]
    } else {
        config.namespaces.iter().cloned().map(Some).collect()
    };
    // Fleet rollouts, when their CRD is installed (docs/fleet.md).
    let fleet = rollout::served(&cluster.client).await;
    if !fleet {
        tracing::info!(
            "PackageRollouts are not served (their CRD is not installed): fleet rollouts are off"
        );
    }
    let rollouts = futures::future::join_all(
        namespaces
            .iter()
            .filter(|_| fleet)
            .cloned()
            .map(|ns| rollout::run(ctx.clone(), ns, shutdown.clone())),
    );
    // Flux sources a Package may read (`source.sourceRef`), when Flux's CRDs are installed.
    let flux_kinds = flux_source::served_kinds(&cluster.client).await;
    let runs = namespaces.into_iter().map(|ns| {
        let flux_kinds = flux_kinds.clone();
        let label_selector = config.label_selector.clone();
        let ctx = ctx.clone();
        let client = cluster.client.clone();
        let shutdown = shutdown.clone();
        let concurrency = config.concurrency;
        async move {
            let ar = resource::api_resource();
            let packages: Api<DynamicObject> = match &ns {
                Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
                None => Api::all_with(client.clone(), &ar),
            };
            // Requirements may be installed in any namespace (docs/rules.md#requirements).
            // Metadata only: a revision Secret holds up to 16 MiB that this watch never needs.
            let revisions: Api<PartialObjectMeta<Secret>> = Api::all(client.clone());
            let waiting = ctx.waiting.clone();
            let revision_changes = watcher::watcher(
                revisions,
                watcher::Config::default().labels("owner=kubepkg"),
            )
            .touched_objects();
            // The Packages' own watch, built here (not by `Controller::new_with`) so that each
            // event is counted into the queue metrics as it asks for a reconcile.
            let writer = reflector::store::Writer::new(ar.clone());
            let reader = writer.as_reader();
            let queued = ctx.metrics.clone();
            let watched = match &label_selector {
                Some(selector) => watcher::Config::default().labels(selector),
                None => watcher::Config::default(),
            };
            let triggers = reflector::reflector(writer, watcher::watcher(packages, watched))
                .applied_objects()
                // A change of the status alone (most often this controller's own write) is not a
                // reason to reconcile; the spec, metadata and deletion are.
                .predicate_filter(resource::reconcile_relevant, Default::default())
                .inspect_ok(move |package| queued.queued(&resource::key(package)));
            let queued = ctx.metrics.clone();
            let packages_store = reader.clone();
            let mut controller = Controller::for_stream_with(triggers, reader, ar);
            // A new artifact of a Flux source reconciles the Packages reading it.
            for kind in flux_kinds.iter().copied() {
                let source_ar = flux_source::api_resource(kind);
                let sources: Api<DynamicObject> = match &ns {
                    Some(ns) => Api::namespaced_with(client.clone(), ns, &source_ar),
                    None => Api::all_with(client.clone(), &source_ar),
                };
                let store = packages_store.clone();
                controller = controller.watches_stream_with(
                    watcher::watcher(sources, watcher::Config::default()).touched_objects(),
                    move |source: DynamicObject| {
                        flux_source::referencing(
                            &store,
                            kind,
                            source.metadata.namespace.as_deref().unwrap_or_default(),
                            source.metadata.name.as_deref().unwrap_or_default(),
                        )
                    },
                    source_ar,
                );
            }
            controller
                .with_config(kube::runtime::controller::Config::default().concurrency(concurrency))
                .watches_stream(revision_changes, move |secret| {
                    let dependents = reconcile::dependents_of(&waiting, &secret);
                    for package in &dependents {
                        queued.queued(&format!(
                            "{}/{}",
                            package.namespace.as_deref().unwrap_or_default(),
                            package.name
                        ));
                    }
                    dependents
                })
                .graceful_shutdown_on(shutdown)
                .run(reconcile::reconcile, reconcile::error_policy, ctx)
                .for_each(|result| async move {
                    if let Err(e) = result {
                        tracing::debug!(error = %e, "reconcile request failed");
                    }
                })
                .await;
        }
    });
    futures::future::join(futures::future::join_all(runs), rollouts).await;
    api_changes.abort();
    tracing::info!("kubepkg controller stopped");
    Ok(())
}

/// Lists one Package with `selector`, so that a selector the API server refuses stops the
/// controller at its start with the reason (a watch would retry it for ever).
async fn check_selector(client: &kube::Client, selector: &str) -> Result<(), ControllerError> {
    let packages: Api<DynamicObject> = Api::all_with(client.clone(), &resource::api_resource());
    let params = kube::api::ListParams::default().labels(selector).limit(1);
    match packages.list_metadata(&params).await {
        Err(kube::Error::Api(status)) if status.code == 400 => Err(ControllerError::Selector {
            selector: selector.to_string(),
            reason: status.message,
        }),
        _ => Ok(()),
    }
}

/// Resolves on SIGTERM or SIGINT (shared by every task that stops on it).
fn shutdown_signal() -> futures::future::Shared<futures::future::BoxFuture<'static, ()>> {
    use futures::FutureExt;
    async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        tracing::info!("shutting down: finishing the reconciles in flight");
    }
    .boxed()
    .shared()
}
