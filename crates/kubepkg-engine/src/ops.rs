//! The operations behind the package verbs, on a connected [`KubeCluster`]: plan (offline or
//! against what is installed), apply, status, history, rollback, uninstall, list and values.
//! Each takes the package Lease (`kubepkg.package.<name>`) when it changes something, so two
//! operations on one package never interleave and a crashed one is recovered by the next.

use std::collections::BTreeMap;
use std::time::Duration;

use kubepkg_kube::lease::{LeaseError, LeaseLock};
use kubepkg_model::Package;
use kubepkg_model::chart_adapter::from_chart_value;
use kubepkg_model::values::{Effective, UserValues};
use kubepkg_package::instance::{ComponentState, lease_name};
use kubepkg_package::orchestrator::{self, ApplyInput, Event, Outcome};
use kubepkg_package::plan::{self, Intent, Plan, Previous, RenderedComponent};
use kubepkg_package::render::{RenderInput, render_package};
use kubepkg_package::revision::{History, PackageRevision};
use kubepkg_package::revision_values::effective_recorded;
use kubepkg_progress::Message;
use kubepkg_release::action::ActionError;
use kubepkg_release::storage::{SecretDriver, Store};
use kubepkg_release::{Release, Status};
use serde_json::{Map, Value};

use crate::backend::ComponentBackend;
use crate::chart::ClusterCapabilities;
use crate::cluster::KubeCluster;
use crate::error::EngineError;

/// The package instance an operation is about.
#[derive(Debug, Clone, Copy)]
pub struct Instance<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
}

impl Instance<'_> {
    /// What every plan and apply of the instance checks first: its name fits `package`'s
    /// releases, and the `user`'s values fit its components.
    fn check(self, package: &Package, user: &UserValues) -> Result<(), EngineError> {
        package.check_instance_name(self.name)?;
        user.check(package)?;
        Ok(())
    }
}

/// Everything a plan or an apply is made from.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub history: History,
    pub previous_values: BTreeMap<String, Map<String, Value>>,
    pub previous_rendered: BTreeMap<String, RenderedComponent>,
    pub rendered: BTreeMap<String, RenderedComponent>,
    pub plan: Plan,
    /// The package's `PreRollback` hooks with their charts, as the revision will keep them.
    pub rollback_hooks: Vec<kubepkg_package::revision::RollbackHook>,
    /// The deployed components whose releases a backend's controller keeps reconciling
    /// (Flux's helm-controller, backend flux), in the revision's order.
    pub reconciled: Vec<ReconciledComponent>,
}

/// A deployed component whose release a backend's controller keeps reconciling.
#[derive(Debug, Clone)]
pub struct ReconciledComponent {
    pub component: String,
    pub release: String,
    pub(crate) controller: crate::backend::Reconciled,
}

/// What the API server reports for `.Capabilities` (its version and served API versions,
/// as Helm's `getCapabilities`); Helm's offline defaults when the server cannot be asked.
/// Asked through the cluster's discovery cache, which keeps them between operations when its
/// holder watches what changes them (the controller: [`kubepkg_kube::discovery::Discovery::capabilities`]).
pub async fn capabilities(kube: &kubepkg_kube::Cluster) -> ClusterCapabilities {
    kube.discovery
        .capabilities()
        .await
        .map(ClusterCapabilities::from_server)
        .unwrap_or_default()
}

/// The plan made with no cluster at all (`kubepkg plan` without `--cluster`): a first install,
/// rendered with Helm's offline capabilities (which the plan says).
pub fn plan_offline(
    package: &Package,
    instance: Instance<'_>,
    user: &UserValues,
) -> Result<Plan, EngineError> {
    instance.check(package, user)?;
    let caps = ClusterCapabilities::default();
    let capabilities = caps.to_chart()?;
    let assumed = format!(
        "Kubernetes {} and Helm's default API versions (plus the CRDs earlier components render)",
        capabilities.kube_version.version
    );
    let input = RenderInput {
        user: Some(user),
        ..RenderInput::new(instance.name, instance.namespace, capabilities)
    };
    let rendered = render_package(package, &input)?;
    let mut plan = plan::plan(
        package,
        instance.name,
        instance.namespace,
        Intent::Apply,
        None,
        &rendered,
    );
    plan.capabilities = Some(assumed);
    Ok(plan)
}

/// A release of a component as deployed.
pub(crate) async fn release_at(
    kc: &KubeCluster,
    namespace: &str,
    release: &str,
    revision: u64,
) -> Result<Option<Release>, EngineError> {
    if revision == 0 {
        return Ok(None);
    }
    let store = Store::new(SecretDriver::new(kc.kube.client.clone(), Some(namespace)));
    match store.get(release, revision).await {
        Ok(r) => Ok(Some(r)),
        Err(_) => Ok(None),
    }
}

pub(crate) fn chart_id(r: &Release) -> String {
    r.chart
        .as_ref()
        .and_then(|c| c.metadata.as_ref())
        .map(|m| format!("{}-{}", m.name, m.version))
        .unwrap_or_default()
}

fn chart_values(r: &Release) -> Map<String, Value> {
    r.chart
        .as_ref()
        .and_then(|c| c.values.clone())
        .unwrap_or_default()
}

/// A recorded release whose manifest does not read as objects (written by something else).
pub(crate) fn recorded_err(
    r: &Release,
) -> impl Fn(kubepkg_kube::manifest::ManifestError) -> EngineError {
    let what = format!("release {} revision {}", r.name, r.version);
    move |e| EngineError::Recorded {
        release: what.clone(),
        source: e,
    }
}

/// Every object a recorded release rendered, as a plan lists a render's
/// (`RenderedChart::objects`): its chart's `crds/` (not part of a release's manifest, so read
/// from the recorded chart), its manifest, then its hooks.
pub(crate) fn recorded_objects(r: &Release) -> Result<Vec<plan::RenderedObject>, EngineError> {
    let mut objects = recorded_crds(r)?;
    objects.extend(plan::objects_from_manifest(&r.manifest).map_err(recorded_err(r))?);
    for hook in &r.hooks {
        objects.extend(plan::objects_from_manifest(&hook.manifest).map_err(recorded_err(r))?);
    }
    Ok(objects)
}

/// The `crds/` documents of a release's recorded chart, as the plan renders them.
fn recorded_crds(r: &Release) -> Result<Vec<plan::RenderedObject>, EngineError> {
    let Some(chart) = &r.chart else {
        return Ok(Vec::new());
    };
    let name = chart.metadata.as_ref().map_or("", |m| m.name.as_str());
    let mut out = Vec::new();
    for f in chart.files.iter().flatten() {
        let is_manifest = [".yaml", ".yml", ".json"]
            .iter()
            .any(|e| f.name.ends_with(e));
        if f.name.starts_with("crds/") && is_manifest {
            let text = format!(
                "---\n# Source: {name}/{}\n{}\n",
                f.name,
                String::from_utf8_lossy(&f.data)
            );
            out.extend(plan::objects_from_manifest(&text).map_err(recorded_err(r))?);
        }
    }
    Ok(out)
}

/// A component's effective values in a recorded revision, explained.
async fn recorded_values(
    kc: &KubeCluster,
    rev: &PackageRevision,
    component: &str,
) -> Result<Option<Effective>, EngineError> {
    let Some(c) = rev.component(component) else {
        return Ok(None);
    };
    let Some(r) = release_at(kc, &c.namespace, &c.release, c.revision).await? else {
        return Ok(None);
    };
    Ok(Some(effective_recorded(
        &chart_values(&r),
        &r.config,
        rev,
        component,
    )))
}

/// Reads the deployed state, renders the package against it and plans.
pub async fn prepare(
    kc: &KubeCluster,
    package: &Package,
    instance: Instance<'_>,
    user: &UserValues,
) -> Result<Prepared, EngineError> {
    let package = with_cluster_merge_keys(kc, package).await;
    prepare_merged(kc, &package, instance, user).await
}

/// `package` with its post-renderers merging lists as the cluster's OpenAPI declares
/// ([`crate::post_render`]).
async fn with_cluster_merge_keys<'p>(
    kc: &KubeCluster,
    package: &'p Package,
) -> std::borrow::Cow<'p, Package> {
    let aimed = if kc.backend.post_renders_with_cluster_schema() {
        crate::post_render::aimed_unknown_kinds(package)
    } else {
        Vec::new()
    };
    if aimed.is_empty() {
        return std::borrow::Cow::Borrowed(package);
    }
    let caps = kc.capabilities_now().await;
    crate::post_render::with_cluster_merge_keys(&kc.kube.client, &caps, package, &aimed).await
}

/// [`prepare`] of a package whose post-renderers already know the cluster's merge keys.
async fn prepare_merged(
    kc: &KubeCluster,
    package: &Package,
    instance: Instance<'_>,
    user: &UserValues,
) -> Result<Prepared, EngineError> {
    instance.check(package, user)?;
    let history = kc.store.history(instance.name, instance.namespace).await?;
    let deployed = history.deployed().cloned();
    let mut previous_values = BTreeMap::new();
    let mut previous_rendered = BTreeMap::new();
    let mut drift = Vec::new();
    // Deployed components whose releases a backend's controller reconciles.
    let mut reconciled = Vec::new();
    if let Some(d) = &deployed {
        for c in &d.components {
            let Some(r) = release_at(kc, &c.namespace, &c.release, c.revision).await? else {
                continue;
            };
            // A release no longer at the recorded revision (an interrupted apply, a rollback
            // cut short, a change made with helm) is applied again, whatever it renders: left
            // alone, the new revision would record a release revision that does not hold
            // what the package says.
            let live = Store::new(SecretDriver::new(
                kc.kube.client.clone(),
                Some(&c.namespace),
            ))
            .last(&c.release)
            .await
            .ok()
            .flatten()
            .map(|r| r.version);
            if live != Some(c.revision) {
                drift.push(format!(
                    "component {}: release {} is at revision {} but package revision {} recorded {}; it is applied again",
                    c.name,
                    c.release,
                    live.map_or_else(|| "none (not installed)".to_string(), |v| v.to_string()),
                    d.revision,
                    c.revision
                ));
                if let Some(mut eff) = recorded_values(kc, d, &c.name).await? {
                    eff.values.remove("kubepkg");
                    previous_values.insert(c.name.clone(), eff.values);
                }
                continue;
            }
            let mut objects = recorded_objects(&r)?;
            let mut chart = chart_id(&r);
            // A release a backend's controller keeps reconciling (helm-controller, backend
            // flux) is compared as kubepkg's render of the package's chart would read.
            if let Some(by) = crate::backend::reconciled(
                &kc.kube.client,
                instance.namespace,
                &c.release,
                &r,
                &mut chart,
                &mut objects,
            )
            .await
            {
                reconciled.push(ReconciledComponent {
                    component: c.name.clone(),
                    release: c.release.clone(),
                    controller: by,
                });
            }
            previous_rendered.insert(c.name.clone(), RenderedComponent { chart, objects });
            if let Some(mut eff) = recorded_values(kc, d, &c.name).await? {
                eff.values.remove("kubepkg");
                previous_values.insert(c.name.clone(), eff.values);
            }
        }
    }
    let from_version = deployed.as_ref().and_then(|d| d.semver());
    let capabilities = kc.capabilities_now().await.to_chart()?;
    // Each release's latest revision, as apply reads it: `.Release.Revision` is the next.
    let mut last_revisions = BTreeMap::new();
    for c in package.components.iter().filter(|c| !c.is_hook()) {
        let release = package.release_name(instance.name, &c.name);
        let store = Store::new(SecretDriver::new(
            kc.kube.client.clone(),
            Some(c.namespace_or(instance.namespace)),
        ));
        if let Some(r) = store.last(&release).await.map_err(ActionError::from)? {
            last_revisions.insert(c.name.clone(), r.version);
        }
    }
    let input = RenderInput {
        user: Some(user),
        from_version: from_version.as_ref(),
        previous_values: Some(&previous_values),
        last_revisions,
        ..RenderInput::new(instance.name, instance.namespace, capabilities)
    };
    let rendered = render_package(package, &input)?;
    let previous = deployed.as_ref().map(|revision| Previous {
        revision,
        history: &history,
        rendered: &previous_rendered,
    });
    // Reconciled releases were compared in their controller's form: so is what they would become.
    let mut compared = std::borrow::Cow::Borrowed(&rendered);
    for r in &reconciled {
        if let Some(c) = compared.to_mut().get_mut(&r.component) {
            let objects = std::mem::take(&mut c.objects);
            c.objects = objects
                .into_iter()
                .map(|o| crate::backend::comparable(r.controller.by, o))
                .collect();
        }
    }
    let mut plan = plan::plan(
        package,
        instance.name,
        instance.namespace,
        Intent::Apply,
        previous,
        &compared,
    );
    plan.warnings.extend(drift);
    // A reconciled component whose values change is applied even when its objects render the
    // same: its controller's object (Flux's HelmRelease) is what keeps reconciling it.
    let mut values_changed = false;
    for step in &mut plan.steps {
        let live = reconciled
            .iter()
            .find(|r| r.component == step.name)
            .map(|r| &r.controller.values);
        if let (Some(live), plan::Change::Unchanged { chart, revision }) = (live, &step.change) {
            let mut wanted = kubepkg_model::values::supplied(package, &step.name, user, None);
            wanted.remove("kubepkg");
            if &wanted != live {
                step.change = plan::Change::Upgrade {
                    from_chart: chart.clone(),
                    to_chart: chart.clone(),
                    from_revision: *revision,
                    to_revision: revision + 1,
                };
                values_changed = true;
            }
        }
    }
    if let (true, plan::Action::NoChange, Some(d)) = (values_changed, plan.action, &deployed) {
        plan.action = plan::Action::Reconfigure;
        plan.revision = Some(d.revision + 1);
    }
    // Changed CRDs: would the objects in the cluster still validate under the new schemas?
    for change in invalid_existing_objects(kc, &rendered, &plan).await {
        plan.crd_changes.push(change);
    }
    // The PreRollback hooks a revision keeps are part of it: new hook values or charts are a
    // change to record even when no component changes.
    let rollback_hooks =
        kubepkg_package::rollback_hooks::records(package, instance.name, instance.namespace, user)?;
    if let (plan::Action::NoChange, Some(d)) = (plan.action, &deployed)
        && rollback_hooks != d.rollback_hooks
    {
        plan.action = plan::Action::Reconfigure;
        plan.revision = Some(d.revision + 1);
    }
    Ok(Prepared {
        history,
        previous_values,
        previous_rendered,
        rendered,
        plan,
        rollback_hooks,
        reconciled,
    })
}

/// For each CRD the plan changes, the objects of it in the cluster that its new schema would
/// not accept (read through each version both definitions serve); what cannot be read is not
/// judged.
async fn invalid_existing_objects(
    kc: &KubeCluster,
    rendered: &BTreeMap<String, RenderedComponent>,
    plan: &Plan,
) -> Vec<plan::PlannedCrdChange> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in &plan.crd_changes {
        if !seen.insert((c.component.clone(), c.change.crd.clone())) {
            continue;
        }
        let Some(new) = rendered.get(&c.component).and_then(|r| {
            r.objects
                .iter()
                .filter(|o| o.kind == "CustomResourceDefinition" && o.name == c.change.crd)
                .find_map(|o| {
                    kubepkg_kube::manifest::parse(&o.yaml)
                        .ok()?
                        .into_iter()
                        .next()
                })
                .map(|m| m.object)
        }) else {
            continue;
        };
        let crds: kube::Api<CustomResourceDefinition> = kube::Api::all(kc.kube.client.clone());
        let Ok(Some(live)) = crds.get_opt(&c.change.crd).await else {
            continue;
        };
        let group = live.spec.group.clone();
        let (kind, plural) = (live.spec.names.kind.clone(), live.spec.names.plural.clone());
        for v in live.spec.versions.iter().filter(|v| v.served) {
            let gvk = kube::core::GroupVersionKind::gvk(&group, &v.name, &kind);
            let ar = kube::core::ApiResource::from_gvk_with_plural(&gvk, &plural);
            let api: kube::Api<kube::core::DynamicObject> =
                kube::Api::all_with(kc.kube.client.clone(), &ar);
            let Ok(list) = api.list(&Default::default()).await else {
                continue;
            };
            let objects: Vec<Value> = list
                .items
                .iter()
                .filter_map(|o| {
                    let mut v = serde_json::to_value(o).ok()?;
                    v["apiVersion"] = Value::String(format!("{group}/{}", gvk.version));
                    v["kind"] = Value::String(kind.clone());
                    Some(v)
                })
                .collect();
            if let Some(change) = kubepkg_crd::validate_existing(&new, &objects) {
                out.push(plan::PlannedCrdChange {
                    component: c.component.clone(),
                    change,
                });
                break;
            }
        }
    }
    out
}

/// The latest record's revision and status (`None`: no record).
type SeenLatest = Option<(u64, kubepkg_package::revision::RevisionStatus)>;

/// [`lock`], noting the latest record (revision and status) before waiting when another
/// operation holds the Lease, so that a change while waiting is said (`Replanned`). A free
/// Lease is taken at once and nothing is read (`None`: nothing could change meanwhile; also
/// when the history could not be read).
async fn lock_noting_latest(
    kc: &mut KubeCluster,
    instance: Instance<'_>,
    timeout: Duration,
) -> Result<(Option<SeenLatest>, LeaseLock), EngineError> {
    match lock_waiting(kc, instance, timeout, false).await {
        Ok(lock) => Ok((None, lock)),
        Err(EngineError::Locked { .. }) if kc.wait_lock => {
            let seen = kc
                .store
                .history(instance.name, instance.namespace)
                .await
                .ok()
                .map(|h| h.latest().map(|l| (l.revision, l.status)));
            Ok((seen, lock(kc, instance, timeout).await?))
        }
        Err(e) => Err(e),
    }
}

/// Takes the package's Lease (waiting up to `timeout` for a live holder, unless
/// [`KubeCluster::wait_lock`] is off: then a live holder fails it at once).
pub async fn lock(
    kc: &mut KubeCluster,
    instance: Instance<'_>,
    timeout: Duration,
) -> Result<LeaseLock, EngineError> {
    let wait = kc.wait_lock;
    lock_waiting(kc, instance, timeout, wait).await
}

/// [`lock`], waiting for a live holder (up to `timeout`) only when `wait` says so.
async fn lock_waiting(
    kc: &mut KubeCluster,
    instance: Instance<'_>,
    timeout: Duration,
    wait: bool,
) -> Result<LeaseLock, EngineError> {
    kc.ctx().ensure_namespace(instance.namespace).await?;
    kc.recorded_pending.clear();
    let sink = kc.sink.clone();
    let lease = lease_name(instance.name);
    let lock = LeaseLock::acquire(
        kc.kube.client.clone(),
        instance.namespace,
        &lease,
        wait,
        timeout,
        |holder| {
            sink(&Event::message(
                None,
                Message::PackageLeaseWait {
                    holder: holder.to_string(),
                },
            ))
        },
    )
    .await
    .map_err(|e| match e {
        LeaseError::Held { holder, .. } => EngineError::Locked {
            name: instance.name.to_string(),
            lease: lease.clone(),
            holder,
        },
        LeaseError::Kube(e) => EngineError::Release(ActionError::Cluster(e)),
    })?;
    // Another writer may have recorded a revision before the Lease was ours.
    kc.operation_starts(instance.name, instance.namespace);
    if let Some(previous) = &lock.took_over_from {
        sink(&Event::message(
            None,
            Message::PackageLeaseTakenOver {
                previous: previous.clone(),
                holder_gone: lock.holder_process_gone,
            },
        ));
    }
    Ok(lock)
}

fn now() -> String {
    jiff::Timestamp::now().to_string()
}

/// How an apply goes about its work, beyond the package and values.
#[derive(Debug, Clone, Copy)]
pub struct ApplyOptions {
    /// Per-component readiness timeout (also the wait for the package's lock).
    pub timeout: Duration,
    /// Apply a lower version even when the rollback policy forbids it.
    pub allow_downgrade: bool,
    /// Apply CRD changes that are unsafe for existing objects.
    pub allow_unsafe_crd_changes: bool,
}

impl ApplyOptions {
    /// The defaults of `kubepkg apply` with this `--timeout`.
    pub fn new(timeout: Duration) -> ApplyOptions {
        ApplyOptions {
            timeout,
            allow_downgrade: false,
            allow_unsafe_crd_changes: false,
        }
    }
}

/// `kubepkg apply`: install or upgrade under the package Lease. The plan is made once the
/// Lease is held, from what is recorded then: an apply that waited for another operation
/// plans against what that one left (and says so), so the rollback policy judges a downgrade
/// that a concurrent upgrade made.
pub async fn apply(
    kc: &mut KubeCluster,
    package: &Package,
    instance: Instance<'_>,
    user: &UserValues,
    options: ApplyOptions,
) -> Result<(Outcome, Plan), EngineError> {
    let timeout = options.timeout;
    instance.check(package, user)?;
    let package = &*with_cluster_merge_keys(kc, package).await;
    // The backend's own checks (Flux or Argo CD installed, the package expressible), before
    // anything changes.
    let run = crate::backend::Run {
        package: package.clone(),
        instance: instance.name.to_string(),
        namespace: instance.namespace.to_string(),
        timeout,
    };
    let client = kc.kube.client.clone();
    kc.backend.prepare(&client, run).await?;
    kc.reset_requirements_deadline();
    let (seen, lock) = lock_noting_latest(kc, instance, timeout).await?;
    let result = async {
        let p = prepare_merged(kc, package, instance, user).await?;
        // No backend takes over a release another backend's controller keeps reconciling
        // (today: helm-controller's, backend flux).
        if let Some(r) = p
            .reconciled
            .iter()
            .find(|r| r.controller.by != kc.backend.kind())
        {
            return Err(EngineError::ReleasedByFlux {
                name: instance.name.to_string(),
                component: r.component.clone(),
                namespace: instance.namespace.to_string(),
                release: r.release.clone(),
            });
        }
        // A component the package no longer has, or one rolled back before this operation's
        // backend applied it, is acted on through the backend that applied it.
        if let Some(latest) = p.history.latest() {
            kc.remember_backends(&latest.components).await;
        }
        if let Some(latest) = p.history.latest()
            && seen.is_some_and(|s| s != Some((latest.revision, latest.status)))
        {
            kc.report(&Event::message(
                None,
                Message::Replanned {
                    revision: latest.revision,
                    version: latest.version.clone(),
                    status: latest.status.as_str().to_string(),
                },
            ));
        }
        let now = now();
        let input = ApplyInput {
            name: instance.name,
            namespace: instance.namespace,
            package,
            user,
            history: &p.history,
            previous_values: &p.previous_values,
            plan: &p.plan,
            timeout,
            now: &now,
            allow_downgrade: options.allow_downgrade,
            allow_unsafe_crd_changes: options.allow_unsafe_crd_changes,
            rollback_hooks: &p.rollback_hooks,
        };
        // Boxed: the orchestrator's state machine is large, and controller tasks run on small stacks.
        let outcome = Box::pin(orchestrator::apply(kc, input)).await?;
        Ok((outcome, p.plan))
    }
    .await;
    if matches!(
        result,
        Err(EngineError::Stopped(orchestrator::Stopped::Interrupted(_)))
    ) {
        // The cluster stopped answering: the pending revision and the Lease stay for the next
        // operation (this process takes its own Lease over at once), with no more requests to
        // a cluster known not to answer.
        kc.recorded_pending.clear();
        kc.operation_over();
        drop(lock);
    } else {
        unlock(kc, instance, lock).await;
    }
    result
}

/// Ends an operation under the package Lease, on every exit path: a revision it left pending
/// (its last record write failed even after the client's retries) is made final — removed if
/// it only waited for requirements (nothing changed), else marked failed — then the Lease is
/// freed. No `pending-*` revision and no Lease outlive a process that ends normally; a cluster
/// that stopped answering leaves both to the next operation (which takes them over at once
/// from this process, or after the Lease expires from another).
async fn unlock(kc: &mut KubeCluster, instance: Instance<'_>, lock: LeaseLock) {
    use kubepkg_package::revision::Reason;
    use kubepkg_package::revision::RevisionStatus;
    // Only what this operation left pending: one a crashed holder left is the next apply's to
    // recover (and a rollback refuses over it).
    let mut ours = std::mem::take(&mut kc.recorded_pending);
    let mut rounds = kubepkg_kube::retry::Settle::default();
    while !ours.is_empty() && rounds.next().await {
        let h = match kc.store.history(instance.name, instance.namespace).await {
            Ok(h) => h,
            // The cluster does not answer at all (twice: one round of a flaky network is not
            // an outage): what is pending stays so, for the next operation to recover as
            // after a crash.
            Err(e) if kubepkg_kube::is_unreachable_api(&e) => {
                if rounds.unanswered() {
                    break;
                }
                continue;
            }
            Err(_) => continue,
        };
        let now = now();
        ours.retain(|n| h.get(*n).is_some_and(|r| r.status.is_pending()));
        for n in ours.clone() {
            let Some(pending) = h.get(n) else { continue };
            let settled = if pending.reason == Some(Reason::RequirementsNotMet) {
                kc.store.delete(pending).await
            } else {
                let mut last = pending.clone();
                last.reason = Some(match last.status {
                    RevisionStatus::PendingInstall => Reason::InstallFailed,
                    _ => Reason::UpgradeFailed,
                });
                last.status = RevisionStatus::Failed;
                last.description = format!(
                    "{} did not finish: its outcome could not be recorded; marked failed by kubepkg",
                    pending.status.as_str()
                );
                last.conditions =
                    kubepkg_package::conditions::compute(&last, &pending.conditions, &now);
                kc.store.record(&last).await
            };
            if settled.is_ok() {
                ours.remove(&n);
            }
        }
    }
    kc.operation_over();
    lock.release().await;
}

/// `kubepkg rollback NAME [REVISION]` under the package Lease.
pub async fn rollback(
    kc: &mut KubeCluster,
    instance: Instance<'_>,
    target: Option<u64>,
    force: bool,
    timeout: Duration,
) -> Result<Outcome, EngineError> {
    let lock = lock(kc, instance, timeout).await?;
    let result = async {
        let history = kc.store.history(instance.name, instance.namespace).await?;
        if history.revisions.is_empty() {
            return Err(not_installed(instance));
        }
        let now = now();
        // The hooks of the version being left, written back to disk from its revision.
        let scratch = tempfile::tempdir().map_err(|source| {
            kubepkg_package::rollback_hooks::RollbackHookError::Io {
                hook: String::new(),
                what: "making a scratch directory".into(),
                source,
            }
        })?;
        // Each component is rolled back through the backend that applied it.
        if let Some(latest) = history.latest() {
            kc.remember_backends(&latest.components).await;
        }
        let hooks = match history.deployed().or(history.latest()) {
            Some(current) => {
                kubepkg_package::rollback_hooks::prepare(&current.rollback_hooks, scratch.path())?
            }
            None => Vec::new(),
        };
        Ok(Box::pin(orchestrator::rollback(
            kc,
            &history,
            instance.name,
            target,
            force,
            timeout,
            &now,
            &hooks,
        ))
        .await?)
    }
    .await;
    unlock(kc, instance, lock).await;
    result
}

fn not_installed(instance: Instance<'_>) -> EngineError {
    EngineError::NotInstalled {
        name: instance.name.to_string(),
        namespace: instance.namespace.to_string(),
    }
}

/// The history of an installed package (an error when none).
pub async fn history(kc: &KubeCluster, instance: Instance<'_>) -> Result<History, EngineError> {
    let h = kc.store.history(instance.name, instance.namespace).await?;
    if h.revisions.is_empty() {
        return Err(not_installed(instance));
    }
    Ok(h)
}

/// `kubepkg status NAME`: the latest revision and each component's live state.
pub async fn status(
    kc: &KubeCluster,
    instance: Instance<'_>,
) -> Result<(PackageRevision, Vec<ComponentState>), EngineError> {
    let h = history(kc, instance).await?;
    let Some(latest) = h.latest().cloned() else {
        return Err(not_installed(instance));
    };
    let mut states = Vec::new();
    // A run under way: what it has yet to apply too (the component it applies now among them).
    let to_apply = latest
        .to_apply
        .iter()
        .filter(|_| latest.status.is_pending());
    for c in latest.components.iter().chain(to_apply) {
        let live = kc.backend_for_record(c).await.live(&kc.ctx(), c).await;
        let mut waiting_for = live.waiting_for;
        if waiting_for.is_none() {
            let ns_cluster = kc.in_namespace(&c.namespace);
            let gates = crate::ready::check(&ns_cluster, &c.ready_when, &c.namespace).await;
            if let Some(g) = gates.iter().find(|g| g.waiting.is_some()) {
                waiting_for = Some(format!(
                    "{}: {}",
                    g.object,
                    g.waiting.clone().unwrap_or_default()
                ));
            }
        }
        states.push(ComponentState {
            name: c.name.clone(),
            release: c.release.clone(),
            namespace: c.namespace.clone(),
            revision: live.revision,
            ready: waiting_for.is_none(),
            waiting_for,
        });
    }
    Ok((latest, states))
}

/// `kubepkg uninstall NAME`: every component's release in reverse apply order, then the
/// revision records (kept, marked uninstalled, with `keep_history`).
pub async fn uninstall(
    kc: &mut KubeCluster,
    instance: Instance<'_>,
    keep_history: bool,
    timeout: Duration,
) -> Result<Vec<String>, EngineError> {
    let lock = lock(kc, instance, timeout).await?;
    let result = async {
        let h = history(kc, instance).await?;
        let Some(latest) = h.latest().cloned() else {
            return Err(not_installed(instance));
        };
        let mut done = Vec::new();
        let mut records: Vec<_> = latest.components.clone();
        records.reverse();
        for c in &records {
            kc.report(&Event::Uninstalling {
                component: c.name.clone(),
            });
            // Through the backend that applied it: a HelmRelease goes with helm-controller's
            // uninstall, an Application with Argo CD's deletion of its objects.
            let step = crate::backend::Uninstall {
                component: &c.name,
                release: &c.release,
                namespace: &c.namespace,
                timeout,
            };
            kc.backend_for_record(c)
                .await
                .uninstall(&kc.ctx(), &step)
                .await
                .map_err(EngineError::Step)?;
            kc.report(&Event::Uninstalled {
                component: c.name.clone(),
            });
            done.push(c.name.clone());
        }
        let mut last = latest.clone();
        last.status = kubepkg_package::revision::RevisionStatus::Uninstalled;
        last.description = "Uninstallation complete".into();
        last.conditions = kubepkg_package::conditions::compute(&last, &latest.conditions, &now());
        // A Package object of this name shows the package gone (Ready=False, Uninstalled).
        kc.publish_status(&last).await;
        if keep_history {
            kc.store.record(&last).await?;
        } else {
            kc.store
                .delete_all(instance.name, instance.namespace)
                .await?;
        }
        Ok(done)
    }
    .await;
    unlock(kc, instance, lock).await;
    result
}

/// `kubepkg values NAME [--revision N]`: each component's effective values in a revision.
pub async fn values(
    kc: &KubeCluster,
    instance: Instance<'_>,
    revision: Option<u64>,
) -> Result<(PackageRevision, Vec<(String, Effective)>), EngineError> {
    let h = history(kc, instance).await?;
    let rev = match revision {
        Some(n) => h.get(n).cloned().ok_or_else(|| {
            EngineError::Refused(orchestrator::RollbackRefused::NoSuchRevision {
                name: instance.name.to_string(),
                revision: n,
            })
        })?,
        None => h
            .deployed()
            .or(h.latest())
            .cloned()
            .ok_or_else(|| not_installed(instance))?,
    };
    let mut out = Vec::new();
    for c in &rev.components {
        if let Some(eff) = recorded_values(kc, &rev, &c.name).await? {
            out.push((c.name.clone(), eff));
        }
    }
    Ok((rev, out))
}

/// Converts chart values for callers that hold `kubepkg_value` values.
pub fn json_of(v: &kubepkg_value::Value) -> Value {
    from_chart_value(v)
}

/// The `Package` object that the controller reconciles for this instance, if there is one:
/// same name and namespace, a source the controller reads (not `path`), not suspended. A CLI
/// apply over it would be undone by the controller; [`suspend_object`] hands it to the CLI.
pub async fn managing_object(
    kc: &KubeCluster,
    instance: Instance<'_>,
) -> Result<Option<String>, EngineError> {
    let api = package_objects(kc, instance.namespace);
    let obj = match api.get_opt(instance.name).await {
        Ok(o) => o,
        // No Package CRD installed: nothing manages anything.
        Err(kube::Error::Api(s)) if s.code == 404 => None,
        Err(e) => {
            return Err(EngineError::api(
                "get",
                format!("Package {}/{}", instance.namespace, instance.name),
                e,
            ));
        }
    };
    let Some(obj) = obj else { return Ok(None) };
    let spec = obj.data.get("spec");
    let path = spec.and_then(|s| s.pointer("/source/path")).is_some();
    let suspended = spec
        .and_then(|s| s.get("suspend"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok((!path && !suspended).then(|| format!("Package {}/{}", instance.namespace, instance.name)))
}

/// Sets `spec.suspend: true` on the instance's `Package` object.
pub async fn suspend_object(kc: &KubeCluster, instance: Instance<'_>) -> Result<(), EngineError> {
    let patch = serde_json::json!({"spec": {"suspend": true}});
    package_objects(kc, instance.namespace)
        .patch(
            instance.name,
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&patch),
        )
        .await
        .map(|_| ())
        .map_err(|e| {
            EngineError::api(
                "suspend",
                format!("Package {}/{}", instance.namespace, instance.name),
                e,
            )
        })
}

fn package_objects(kc: &KubeCluster, namespace: &str) -> kube::Api<kube::api::DynamicObject> {
    kube::Api::namespaced_with(
        kc.kube.client.clone(),
        namespace,
        &kubepkg_package_object::api_resource(),
    )
}

/// One live object that differs from what its release applied (the plan's type).
pub use kubepkg_package::plan::Drift;

/// Drift of an installed package (docs/controller.md#drift): each object of each component's
/// deployed release is server-side applied as a dry run with kubepkg's field manager and
/// forced conflicts — what a real apply would make of it — and compared with the live object;
/// an object that differs, or is gone, has drifted. Nothing is written.
pub async fn drift(kc: &KubeCluster, instance: Instance<'_>) -> Result<Vec<Drift>, EngineError> {
    let h = history(kc, instance).await?;
    let Some(deployed) = h.deployed().cloned() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for c in &deployed.components {
        for (object, live, applied) in release_objects(kc, &c.namespace, &c.release, true).await? {
            let what = match (live, applied) {
                (None, _) => Some("missing".to_string()),
                (Some(live), Some(applied)) => {
                    let fields = differing_fields(&live, &applied);
                    (!fields.is_empty()).then(|| format!("changed: {}", fields.join("; ")))
                }
                (Some(_), None) => None,
            };
            if let Some(what) = what {
                out.push(Drift {
                    component: c.name.clone(),
                    object,
                    what,
                });
            }
        }
    }
    Ok(out)
}

/// Puts drifted objects back: every object of each release named in `drifts` applied again
/// (server-side, forced), as the release recorded it.
pub async fn correct_drift(
    kc: &KubeCluster,
    instance: Instance<'_>,
    drifts: &[Drift],
) -> Result<(), EngineError> {
    let h = history(kc, instance).await?;
    let Some(deployed) = h.deployed().cloned() else {
        return Ok(());
    };
    for c in deployed
        .components
        .iter()
        .filter(|c| drifts.iter().any(|d| d.component == c.name))
    {
        release_objects(kc, &c.namespace, &c.release, false).await?;
    }
    Ok(())
}

/// Each object of release `release`'s last record: its name, the live object and what an
/// apply returns (a server-side dry run when `dry_run`; a real apply otherwise).
async fn release_objects(
    kc: &KubeCluster,
    namespace: &str,
    release: &str,
    dry_run: bool,
) -> Result<Vec<(String, Option<Value>, Option<Value>)>, EngineError> {
    let store = Store::new(SecretDriver::new(kc.kube.client.clone(), Some(namespace)));
    let Some(record) = store.last(release).await.map_err(ActionError::from)? else {
        return Ok(Vec::new());
    };
    if record.status() != Status::Deployed {
        return Ok(Vec::new());
    }
    let objects = kubepkg_kube::manifest::parse(&record.manifest).map_err(|source| {
        EngineError::Recorded {
            release: release.to_string(),
            source,
        }
    })?;
    let cluster = kc.in_namespace(namespace);
    let applier = kubepkg_kube::Applier::new(
        &cluster,
        kubepkg_kube::ownership::Owner {
            release: release.to_string(),
            namespace: namespace.to_string(),
        },
        kubepkg_kube::ApplyOptions {
            dry_run,
            ..Default::default()
        },
    );
    let mut out = Vec::new();
    for o in &objects {
        let live = applier.get(&o.id).await?;
        let applied = if live.is_some() || !dry_run {
            Some(applier.apply_one(o).await?)
        } else {
            None
        };
        let (_, id) = applier.locate(&o.id).await?;
        let name = if id.namespace.is_empty() {
            format!("{} {}", id.kind, id.name)
        } else {
            format!("{} {}/{}", id.kind, id.namespace, id.name)
        };
        out.push((name, live, applied));
    }
    Ok(out)
}

/// The fields (top level, and `metadata.labels`/`metadata.annotations`) in which `live` and
/// `applied` differ, leaving out what the server keeps for itself (status, resourceVersion,
/// generation, managedFields, timestamps, uid).
/// What differs between the live object and what an apply makes of it, as leaf paths with
/// both values (`spec.replicas: live 5, applied 2`), at most [`MAX_DRIFT_PATHS`] (then `…`);
/// `status` and the metadata the server keeps (`resourceVersion`, `managedFields`, …) are not
/// drift.
fn differing_fields(live: &Value, applied: &Value) -> Vec<String> {
    let (Some(l), Some(a)) = (live.as_object(), applied.as_object()) else {
        return vec!["object".into()];
    };
    let mut out = Vec::new();
    diff_paths("", l, a, &mut out);
    if out.len() > MAX_DRIFT_PATHS {
        out.truncate(MAX_DRIFT_PATHS);
        out.push("…".into());
    }
    out
}

/// Paths shown per drifted object.
const MAX_DRIFT_PATHS: usize = 8;

fn diff_paths(prefix: &str, l: &Map<String, Value>, a: &Map<String, Value>, out: &mut Vec<String>) {
    const SERVER_META: [&str; 6] = [
        "resourceVersion",
        "generation",
        "managedFields",
        "creationTimestamp",
        "uid",
        "selfLink",
    ];
    let mut keys: Vec<&String> = l.keys().chain(a.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        if (prefix.is_empty() && k == "status")
            || (prefix == "metadata" && SERVER_META.contains(&k.as_str()))
        {
            continue;
        }
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match (l.get(k), a.get(k)) {
            (Some(Value::Object(lo)), Some(Value::Object(ao))) => diff_paths(&path, lo, ao, out),
            (lv, av) if lv != av => {
                out.push(format!("{path}: live {}, applied {}", short(lv), short(av)))
            }
            _ => {}
        }
        if out.len() > MAX_DRIFT_PATHS {
            return;
        }
    }
}

/// A value in a few characters (`absent` for none).
fn short(v: Option<&Value>) -> String {
    let Some(v) = v else {
        return "absent".into();
    };
    let text = v.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        format!("{}…", text.chars().take(60).collect::<String>())
    }
}

/// The cluster a `Package` object `name` of the cluster's namespace applies its components in
/// when it is another one (its `status.target`, written by the controller for
/// `spec.kubeConfig`); nothing when there is no such object, no Package CRD, or no target.
pub async fn remote_target(
    kube: &kubepkg_kube::Cluster,
    name: &str,
) -> Option<kubepkg_package_object::Target> {
    use kube::api::{Api, DynamicObject};
    let resource = kubepkg_package_object::api_resource();
    let api: Api<DynamicObject> =
        Api::namespaced_with(kube.client.clone(), &kube.namespace, &resource);
    let o = api.get_opt(name).await.ok()??;
    serde_json::from_value(o.data.pointer("/status/target")?.clone()).ok()
}

#[cfg(test)]
mod drift_tests {
    use super::differing_fields;
    use serde_json::json;

    #[test]
    fn server_kept_fields_are_not_drift() {
        let live = json!({"metadata": {"name": "a", "resourceVersion": "2", "managedFields": [1]},
                          "spec": {"replicas": 1}, "status": {"x": 1}});
        let applied = json!({"metadata": {"name": "a", "resourceVersion": "3", "managedFields": [2]},
                             "spec": {"replicas": 1}, "status": {"x": 2}});
        assert!(differing_fields(&live, &applied).is_empty());
        let edited =
            json!({"metadata": {"name": "a", "labels": {"x": "y"}}, "spec": {"replicas": 5}});
        assert_eq!(
            differing_fields(&edited, &applied),
            vec![
                r#"metadata.labels: live {"x":"y"}, applied absent"#.to_string(),
                "spec.replicas: live 5, applied 1".to_string()
            ]
        );
    }
}
