//! The Flux backend (`backend: flux`, docs/backends.md#drive-mode): the orchestrator's
//! component steps carried out through Flux's helm-controller instead of kubepkg's own release
//! layer. The orchestrator and its rules are the same; only these steps differ:
//!
//! - **apply**: the component's chart is pushed to the chart repository by digest
//!   (`kubepkg_source::push`), then its `OCIRepository` and `HelmRelease` — exactly as
//!   `kubepkg_gitops::flux::component_objects` makes them, in its driven form (no Flux
//!   remediation: kubepkg decides rollbacks) — are server-side applied, the source first
//!   (an existing HelmRelease suspended meanwhile, so the new chart is never released with
//!   the old values); the step waits until the source holds that digest and the HelmRelease is Ready for its
//!   generation with that chart. The component's release revision is the Helm release
//!   revision helm-controller made (`status.history[0].version`).
//! - **ready**: the HelmRelease is Ready (above), then the release's objects, Jobs and every
//!   `readyWhen` as for the helm backend (helm-controller stores the release where kubepkg
//!   reads it).
//! - **rollback**: the HelmRelease is put back on the earlier revision's chart (its digest, from
//!   the HelmRelease's history) and values (the Helm release record's config), the
//!   release itself rolled back as Helm rolls back (Helm's upgrade would leave a failed
//!   upgrade's objects as they are) while the HelmRelease is suspended; then it is resumed and
//!   Flux is waited for until it converged.
//! - **uninstall**: the HelmRelease is deleted (helm-controller uninstalls the release through
//!   its finalizer) and waited for until it is gone, then its source.
//!
//! A HelmRelease is Ready for kubepkg when `status.observedGeneration` and its `Ready`
//! condition's `observedGeneration` are its `metadata.generation`, `Ready` is `True`, and the
//! latest history entry is the chart pushed; it has failed when `Stalled` is `True` for that
//! generation (helm-controller's "retries exhausted" and invalid-chart states), or when it is
//! not Ready within the component's timeout: the failure is the `Ready` condition's message.
//! While it waits, each new `Ready` message is a progress event (`waiting for HelmRelease …`).

use std::time::Duration;

use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams,
};
use kubepkg_gitops::flux::{ComponentObjects, Options};
use kubepkg_package::orchestrator::{ComponentApply, Failure, FailureKind};
use kubepkg_release::storage::{SecretDriver, Store};
use serde_json::{Value, json};
use tokio::time::Instant;

use kubepkg_kube::ObjectRef;
use kubepkg_package::orchestrator::ReadyWait;
use kubepkg_package::plan::{Change, Plan, Step};

pub use super::error::FluxError;
use super::{
    BackendError, ComponentBackend, Ctx, PlanInput, Rollback, Run, Seen, State, Uninstall, Watch,
    apply_object, helm,
};

/// The CRDs the backend needs, as `kubectl get crd` names them.
pub const CRDS: [&str; 2] = [
    "helmreleases.helm.toolkit.fluxcd.io",
    "ocirepositories.source.toolkit.fluxcd.io",
];

/// How long Flux is given beyond a component's timeout to report its own failure (its
/// message is better than ours).
const REPORT_GRACE: Duration = Duration::from_secs(30);

/// Where the Flux backend pushes charts and how its sources pull them.
#[derive(Clone, Debug)]
pub struct FluxBackend {
    /// `oci://HOST/PATH`: each chart is pushed to and pulled from `<repository>/<chart name>`.
    pub repository: String,
    /// The registry speaks plain HTTP (the sources' `spec.insecure`).
    pub insecure: bool,
    /// The pull Secret of the sources (`spec.secretRef`), in the package's namespace.
    pub secret_ref: Option<String>,
    /// The registry client the charts are pushed with.
    pub client: kubepkg_oci::Client,
    /// How often Flux re-checks the sources and releases (`spec.interval`).
    pub interval: Duration,
    /// The ServiceAccount helm-controller applies the releases as (the package's identity).
    pub service_account: Option<String>,
}

impl FluxBackend {
    /// A backend pushing to `repository` with `client`.
    pub fn new(repository: String, insecure: bool, client: kubepkg_oci::Client) -> FluxBackend {
        FluxBackend {
            repository,
            insecure,
            secret_ref: None,
            client,
            interval: Duration::from_secs(600),
            service_account: None,
        }
    }

    /// The compile options of the objects kubepkg drives for `run`.
    fn options(&self, run: &Run) -> Options {
        Options {
            instance: run.instance.clone(),
            namespace: run.namespace.clone(),
            repository: self.repository.clone(),
            insecure: self.insecure,
            secret_ref: self.secret_ref.clone(),
            interval: self.interval,
            timeout: run.timeout,
            driven: true,
            service_account: self.service_account.clone(),
        }
    }
}

fn resource(group: &str, version: &str, kind: &str) -> ApiResource {
    ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind))
}

fn helm_releases(client: &kube::Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(
        client.clone(),
        namespace,
        &resource("helm.toolkit.fluxcd.io", "v2", "HelmRelease"),
    )
}

fn oci_repositories(client: &kube::Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(
        client.clone(),
        namespace,
        &resource("source.toolkit.fluxcd.io", "v1", "OCIRepository"),
    )
}

/// Flux's CRDs are installed (one clear error naming the first missing one).
pub async fn check_crds(client: &kube::Client) -> Result<(), FluxError> {
    match super::missing_crd(client, &CRDS).await {
        Ok(None) => Ok(()),
        Ok(Some(crd)) => Err(FluxError::CrdMissing { crd }),
        Err((crd, source)) => Err(FluxError::CrdUnreadable { crd, source }),
    }
}

/// The HelmRelease named `release` of the package namespace, when there is one (and Flux's
/// CRD is installed): such a component is Flux's to change.
pub async fn helm_release(
    client: &kube::Client,
    namespace: &str,
    release: &str,
) -> Option<DynamicObject> {
    helm_releases(client, namespace)
        .get_opt(release)
        .await
        .ok()
        .flatten()
}

/// What a HelmRelease is waited for besides Ready for its generation: the chart (manifest
/// digest) its latest history entry must hold, when known.
struct Expect {
    digest: Option<String>,
}

fn condition<'a>(obj: &'a Value, kind: &str) -> Option<&'a Value> {
    obj["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

/// A HelmRelease's state against `expect`, read as helm-controller writes its status.
fn release_state(obj: &Value, expect: &Expect) -> State {
    let generation = obj["metadata"]["generation"].as_i64().unwrap_or(0);
    let ready = condition(obj, "Ready");
    let message = ready
        .and_then(|c| c["message"].as_str())
        .unwrap_or("not reconciled yet")
        .to_string();
    let current =
        |c: Option<&Value>| c.is_some_and(|c| c["observedGeneration"].as_i64() == Some(generation));
    if let Some(stalled) = condition(obj, "Stalled")
        && stalled["status"] == "True"
        && current(Some(stalled))
    {
        let why = stalled["message"].as_str().unwrap_or_default();
        return State::Failed(if why.is_empty() || message.contains(why) {
            message
        } else {
            format!("{message} ({why})")
        });
    }
    let observed = obj["status"]["observedGeneration"].as_i64() == Some(generation);
    let latest = &obj["status"]["history"][0];
    let chart_ok = match &expect.digest {
        Some(d) => latest["ociDigest"].as_str() == Some(d.as_str()),
        None => true,
    };
    match ready {
        Some(r) if r["status"] == "True" && current(ready) && observed && chart_ok => {
            State::Ready(latest["version"].as_u64().unwrap_or(0))
        }
        _ => State::Waiting(message),
    }
}

/// The Flux backend: its settings and the package it drives.
pub type Flux = super::Driven<FluxBackend>;

impl ComponentBackend for Flux {
    async fn prepare(&mut self, client: &kube::Client, run: Run) -> Result<(), BackendError> {
        let Some(settings) = &self.settings else {
            return Err(FluxError::NotConfigured.into());
        };
        kubepkg_gitops::flux::check(&run.package, &settings.options(&run))
            .map_err(FluxError::from)?;
        self.run = Some(run);
        Ok(check_crds(client).await?)
    }

    /// The apply step: push, apply the source and the HelmRelease, wait until Flux released
    /// it; the Helm release revision it made.
    async fn apply(&self, kc: &Ctx<'_>, request: &ComponentApply) -> Result<u64, Failure> {
        let (flux, run) = self.prepared("flux")?;
        let (flux, run) = (flux.clone(), run.clone());
        let client = kc.kube.client.clone();
        kc.ensure_namespace(&request.namespace)
            .await
            .map_err(|e| Failure::caused(FailureKind::Apply, e))?;
        let releases = helm_releases(&client, &run.namespace);
        if request.hook
            && releases
                .get_opt(&request.release)
                .await
                .ok()
                .flatten()
                .is_some()
        {
            // A hook runs afresh: its earlier HelmRelease (kept for its logs) goes first.
            let earlier = Uninstall {
                component: &request.component,
                release: &request.release,
                namespace: &request.namespace,
                timeout: run.timeout,
            };
            self.uninstall(kc, &earlier).await?;
        }
        let chart = super::push("flux", &flux.client, &flux.repository, request).await?;
        let depends_on = if request.hook {
            None
        } else {
            let order = kubepkg_model::graph::order(&run.package.components);
            order
                .components
                .iter()
                .position(|c| *c == request.component)
                .and_then(|i| i.checked_sub(1))
                .map(|i| {
                    run.package
                        .release_name(&run.instance, &order.components[i])
                })
        };
        let objects = kubepkg_gitops::flux::component_objects(
            &run.package,
            &request.component,
            request.values.clone(),
            &chart,
            depends_on.as_deref(),
            &flux.options(&run),
        )
        .map_err(|e| Failure::caused(FailureKind::Apply, e))?;
        converge(
            kc,
            &request.component,
            &objects,
            chart.digest.clone(),
            run.timeout,
        )
        .await
    }

    async fn ready_objects(
        &self,
        kc: &Ctx<'_>,
        request: &ReadyWait,
    ) -> Result<Vec<ObjectRef>, Failure> {
        // The HelmRelease still Ready for its generation.
        let namespace = &kc.kube.namespace;
        let expect = Expect { digest: None };
        let deadline = Instant::now() + request.timeout;
        wait_helm_release(
            kc,
            &request.component,
            namespace,
            &request.release,
            &expect,
            deadline,
        )
        .await?;
        // helm-controller stores the release where kubepkg reads it.
        helm::release_objects(kc, &request.release, &request.namespace, &request.component).await
    }

    /// The rollback step: the HelmRelease back on release revision `to_revision`'s chart and
    /// values, converged by Flux; the Helm release revision that made.
    async fn rollback(&self, kc: &Ctx<'_>, step: &Rollback<'_>) -> Result<u64, Failure> {
        let (release, release_namespace, to_revision) =
            (step.release, step.namespace, step.to_revision);
        let failed = |m: String| Failure::new(FailureKind::Rollback, m);
        let namespace = kc.kube.namespace.clone();
        let live = helm_releases(&kc.kube.client, &namespace)
            .get(release)
            .await
            .map_err(|e| failed(format!("HelmRelease {namespace}/{release}: {e}")))?;
        let store = Store::new(SecretDriver::new(
            kc.kube.client.clone(),
            Some(release_namespace),
        ));
        let record = store.get(release, to_revision).await.map_err(|e| {
            failed(format!(
                "release {release} revision {to_revision} to roll back to: {e}"
            ))
        })?;
        let live = serde_json::to_value(&live).unwrap_or_default();
        let snapshot = live["status"]["history"].as_array().and_then(|h| {
            h.iter()
                .find(|s| s["version"].as_u64() == Some(to_revision))
        });
        let digest = snapshot
            .and_then(|s| s["ociDigest"].as_str())
            .map(str::to_string);
        let version = record
            .chart
            .as_ref()
            .and_then(|c| c.metadata.as_ref())
            .map(|m| m.version.split('+').next().unwrap_or_default().to_string())
            .unwrap_or_default();
        let sources = oci_repositories(&kc.kube.client, &namespace);
        let source = sources
            .get(release)
            .await
            .map_err(|e| failed(format!("OCIRepository {namespace}/{release}: {e}")))?;
        let mut source = serde_json::to_value(&source).unwrap_or_default();
        source["spec"]["ref"] = match &digest {
            Some(d) => json!({ "digest": d }),
            None => json!({ "tag": version }),
        };
        let mut hr = json!({
            "apiVersion": kubepkg_gitops::flux::HELM_RELEASE_API,
            "kind": "HelmRelease",
            "metadata": {
                "name": release,
                "namespace": namespace,
                "labels": live["metadata"]["labels"],
            },
            "spec": live["spec"],
        });
        // Helm's upgrade patches from the last *deployed* release to the target, which are the
        // same here: a failed upgrade's objects would stay as they are. So the release is rolled
        // back as Helm rolls back (kubepkg's release layer, on the records helm-controller
        // keeps) while the HelmRelease is suspended, then the HelmRelease is put back on that
        // chart and values (resumed), and helm-controller takes it over from there.
        let releases = helm_releases(&kc.kube.client, &namespace);
        suspend(&releases, release)
            .await
            .map_err(|f| failed(f.message))?;
        {
            let ns_cluster = kc.in_namespace(release_namespace);
            let opts = kc.options();
            let rel = kc.releases(&ns_cluster, release_namespace, release);
            rel.rollback(release, to_revision, &opts)
                .await
                .map_err(|e| failed(crate::report::report(&e)))?;
        }
        hr["spec"]["suspend"] = Value::Bool(false);
        match record.config.is_empty() {
            true => {
                if let Some(spec) = hr["spec"].as_object_mut() {
                    spec.remove("values");
                }
            }
            false => hr["spec"]["values"] = Value::Object(record.config.clone()),
        }
        let objects = ComponentObjects {
            source: json!({
                "apiVersion": kubepkg_gitops::flux::OCI_REPOSITORY_API,
                "kind": "OCIRepository",
                "metadata": { "name": release, "namespace": namespace },
                "spec": source["spec"],
            }),
            release: hr,
        };
        converge(kc, release, &objects, digest, self.timeout(kc))
            .await
            .map_err(|f| failed(f.message))
    }

    /// The uninstall step: deletes the HelmRelease (helm-controller uninstalls the release)
    /// and waits until it is gone, then deletes its source.
    async fn uninstall(&self, kc: &Ctx<'_>, step: &Uninstall<'_>) -> Result<(), Failure> {
        let (namespace, release) = (kc.kube.namespace.clone(), step.release);
        let releases = helm_releases(&kc.kube.client, &namespace);
        let deadline = Instant::now() + step.timeout;
        let watch = Watch::new(step.component, "HelmRelease", releases, release, deadline);
        let first = "helm-controller uninstalls its release first";
        kc.delete_until_gone(
            &watch,
            |v| condition(v, "Ready")?["message"].as_str(),
            first,
        )
        .await?;
        let sources = oci_repositories(&kc.kube.client, &namespace);
        match sources.delete(release, &DeleteParams::background()).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(Failure::new(
                FailureKind::Uninstall,
                format!("deleting OCIRepository {namespace}/{release}: {e}"),
            )),
        }
    }

    /// The objects `plan` shows for a flux package, in the order they are applied: each
    /// component's compiled `OCIRepository` and `HelmRelease` (the charts named by their
    /// versions: the digests are known once they are pushed), each marked created, changed or
    /// unchanged against the live object when there is a client (a source changes with its
    /// component's chart; a HelmRelease when its spec differs), else created.
    async fn plan(&self, input: &PlanInput<'_>, plan: &mut Plan) -> Result<(), BackendError> {
        let Some(flux) = &self.settings else {
            return Err(FluxError::NotConfigured.into());
        };
        let package = input.package;
        let run = Run {
            package: package.clone(),
            instance: plan.name.clone(),
            namespace: plan.namespace.clone(),
            timeout: input.timeout,
        };
        let opts = flux.options(&run);
        kubepkg_gitops::flux::check(package, &opts).map_err(FluxError::from)?;
        let (charts, values) = super::plan_inputs(package, input.user);
        let compiled = kubepkg_gitops::flux::compile(package, &values, &charts, &opts)
            .map_err(FluxError::from)?;
        let api = |client: &kube::Client, kind: &str, namespace: &str| match kind {
            "HelmRelease" => helm_releases(client, namespace),
            _ => oci_repositories(client, namespace),
        };
        // A source changes with its component's chart, a HelmRelease when its spec differs.
        let changed = |live: &Value, planned: &Value, step: Option<&Step>| {
            let change = step.map(|s| &s.change);
            match planned["kind"].as_str() {
                _ if matches!(change, Some(Change::Install { .. })) => true,
                Some("HelmRelease") => live["spec"] != planned["spec"],
                Some("OCIRepository") => matches!(
                    change,
                    Some(Change::Upgrade { from_chart, to_chart, .. }) if from_chart != to_chart
                ),
                _ => false,
            }
        };
        let rows = super::plan_rows(compiled.objects, plan, input.client, api, changed);
        plan.backend_objects = rows.await;
        // helm-controller makes the Helm release, whose readiness kubepkg checks as well.
        plan.gate_on_backend("HelmRelease", "Ready for its generation", false);
        Ok(())
    }
}

/// Applies a component's source and HelmRelease and waits until Flux released them.
async fn converge(
    kc: &Ctx<'_>,
    component: &str,
    objects: &ComponentObjects,
    digest: Option<String>,
    timeout: Duration,
) -> Result<u64, Failure> {
    let namespace = objects.release["metadata"]["namespace"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let name = objects.release_name().to_string();
    let client = kc.kube.client.clone();
    let deadline = Instant::now() + timeout;
    let releases = helm_releases(&client, &namespace);
    let mut release = objects.release.clone();
    // An upgrade moves the source and then the HelmRelease: helm-controller would release
    // the new artifact with the old values (a Helm revision of its own) before the new
    // values arrive. So a HelmRelease that exists is held while its source moves, and
    // resumed by the apply that brings its new spec: one Helm revision per upgrade.
    let exists = releases
        .get_opt(&name)
        .await
        .map_err(|e| {
            Failure::new(
                FailureKind::Apply,
                format!("reading HelmRelease {namespace}/{name}: {e}"),
            )
        })?
        .is_some();
    if exists {
        suspend(&releases, &name).await?;
        release["spec"]["suspend"] = Value::Bool(false);
    }
    let sources = oci_repositories(&client, &namespace);
    apply_object(&sources, &objects.source).await?;
    wait_source(kc, component, &sources, &name, digest.as_deref(), deadline).await?;
    apply_object(&releases, &release).await?;
    wait_helm_release(
        kc,
        component,
        &namespace,
        &name,
        &Expect { digest },
        deadline,
    )
    .await
}

/// Waits until the `OCIRepository` holds the artifact of `digest` for its generation.
async fn wait_source(
    kc: &Ctx<'_>,
    component: &str,
    api: &Api<DynamicObject>,
    name: &str,
    digest: Option<&str>,
    deadline: Instant,
) -> Result<(), Failure> {
    let watch = Watch::new(component, "OCIRepository", api.clone(), name, deadline);
    let judge = |obj: Option<&Value>| {
        let Some(obj) = obj else {
            return Seen::Unchanged;
        };
        let generation = obj["metadata"]["generation"].as_i64().unwrap_or(0);
        let ready = condition(obj, "Ready");
        let revision = obj["status"]["artifact"]["revision"].as_str().unwrap_or("");
        let done = ready.is_some_and(|r| {
            r["status"] == "True" && r["observedGeneration"].as_i64() == Some(generation)
        }) && obj["status"]["observedGeneration"].as_i64() == Some(generation)
            && digest.is_none_or(|d| revision.ends_with(d));
        match done {
            true => Seen::Done(()),
            false => Seen::Waiting(
                ready
                    .and_then(|c| c["message"].as_str())
                    .unwrap_or("not reconciled yet")
                    .to_string(),
            ),
        }
    };
    let late = "did not fetch the chart in time";
    kc.watch_until(&watch, judge, late).await
}

/// Waits until the HelmRelease is Ready for its generation with the expected chart;
/// fails with Flux's message when it stalls or the deadline (plus Flux's own time to
/// report) passes.
async fn wait_helm_release(
    kc: &Ctx<'_>,
    component: &str,
    namespace: &str,
    name: &str,
    expect: &Expect,
    deadline: Instant,
) -> Result<u64, Failure> {
    let api = helm_releases(&kc.kube.client, namespace);
    let watch = Watch::new(component, "HelmRelease", api, name, deadline + REPORT_GRACE);
    let object = &watch.object;
    let judge = |obj: Option<&Value>| {
        obj.map_or(Seen::Unchanged, |o| release_state(o, expect).seen(object))
    };
    let late = "not Ready within the component's timeout (upgrade.timeout, --timeout)";
    kc.watch_until(&watch, judge, late).await
}

/// Suspends the HelmRelease `name` (`spec.suspend: true`): helm-controller leaves it alone
/// until an apply sets `suspend: false`.
async fn suspend(releases: &Api<DynamicObject>, name: &str) -> Result<(), Failure> {
    releases
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"suspend": true}})),
        )
        .await
        .map(|_| ())
        .map_err(|e| {
            Failure::new(
                FailureKind::Apply,
                format!(
                    "suspending HelmRelease {}/{name}: {e}",
                    api_namespace(releases)
                ),
            )
        })
}

fn api_namespace(api: &Api<DynamicObject>) -> String {
    api.namespace().unwrap_or_default().to_string()
}

/// The labels helm-controller's post-renderer puts on every object it releases
/// (`postrender.OriginLabels`): the HelmRelease's name and namespace.
const ORIGIN_LABELS: [&str; 2] = [
    "helm.toolkit.fluxcd.io/name",
    "helm.toolkit.fluxcd.io/namespace",
];

/// The build metadata helm-controller appended to the version of a chart it released from an
/// OCI artifact (`1.0.0+1cd755309f5e`: the first 12 hex digits of the manifest digest, so
/// that a moved tag shows as another version), when `version` carries the mark of a digest in
/// the HelmRelease's history.
fn digest_mark<'a>(version: &'a str, helm_release: &Value) -> Option<&'a str> {
    let (_, mark) = version.split_once('+')?;
    if mark.len() != 12 || !mark.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let history = helm_release["status"]["history"].as_array()?;
    history
        .iter()
        .filter_map(|s| s["ociDigest"].as_str()?.split_once(':'))
        .any(|(_, hex)| hex.starts_with(mark))
        .then_some(mark)
}

/// Whether a recorded chart version looks like one helm-controller released from an OCI
/// artifact (so that its HelmRelease is worth reading).
pub(crate) fn looks_released_by_flux(version: &str) -> bool {
    version
        .split_once('+')
        .is_some_and(|(_, m)| m.len() == 12 && m.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A release helm-controller made, as kubepkg's own render of the package's chart reads, so
/// that a plan compares like with like: the chart id without the digest mark helm-controller
/// appended to the version (also where templates printed `.Chart.Version`, `+` or Helm's `_`
/// for it), and each object without helm-controller's origin labels, in the one canonical
/// YAML form ([`canonical`]: its post-renderer rewrites every document). Unchanged when the
/// version carries no mark of this HelmRelease's history.
pub(crate) fn as_packaged(
    chart_name: &str,
    version: &str,
    objects: Vec<kubepkg_package::plan::RenderedObject>,
    helm_release: &Value,
) -> (String, Vec<kubepkg_package::plan::RenderedObject>) {
    let Some(mark) = digest_mark(version, helm_release) else {
        return (format!("{chart_name}-{version}"), objects);
    };
    let packaged = &version[..version.len() - mark.len() - 1];
    let objects = objects
        .into_iter()
        .map(|mut o| {
            o.yaml = o
                .yaml
                .replace(&format!("+{mark}"), "")
                .replace(&format!("_{mark}"), "");
            canonical(o)
        })
        .collect();
    (format!("{chart_name}-{packaged}"), objects)
}

/// An object in one YAML form whoever wrote it (parsed and written again by kubepkg's
/// emitter), without helm-controller's origin labels; unchanged when it does not parse.
pub(crate) fn canonical(
    mut o: kubepkg_package::plan::RenderedObject,
) -> kubepkg_package::plan::RenderedObject {
    let Ok(mut parsed) = kubepkg_kube::manifest::parse(&o.yaml) else {
        return o;
    };
    let [one] = parsed.as_mut_slice() else {
        return o;
    };
    let object = &mut one.object;
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut)
        && let Some(labels) = metadata.get_mut("labels").and_then(Value::as_object_mut)
    {
        for l in ORIGIN_LABELS {
            labels.remove(l);
        }
        if labels.is_empty() {
            metadata.remove("labels");
        }
    }
    if let Ok(yaml) = kubepkg_release::output::yaml(object) {
        o.yaml = yaml;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What helm-controller records of a chart it released from an OCI artifact (its
    /// version marked with the digest, also where a template printed it, its origin labels,
    /// its post-renderer's key order) reads as kubepkg's render of the package's chart; a mark
    /// of a digest the HelmRelease never released is the chart's own and stays.
    #[test]
    fn a_release_helm_controller_made_reads_as_the_packaged_chart() {
        use kubepkg_package::plan::objects_from_manifest;
        let hr = json!({"status": {"history": [
            {"version": 1, "ociDigest": "sha256:1cd755309f5e00112233445566778899aabbccddeeff00112233445566778899"},
        ]}});
        let recorded = objects_from_manifest(concat!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n",
            "    helm.sh/chart: db-1.0.0_1cd755309f5e\n",
            "    helm.toolkit.fluxcd.io/name: shop-db\n",
            "    helm.toolkit.fluxcd.io/namespace: shop\n",
            "  name: shop-db-greeting\ndata:\n  greeting: one\n  version: 1.0.0+1cd755309f5e\n",
        ))
        .unwrap();
        let ours = objects_from_manifest(concat!(
            "# Source: db/templates/configmap.yaml\n",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-db-greeting\n",
            "  labels:\n    helm.sh/chart: db-1.0.0\n",
            "data:\n  version: 1.0.0\n  greeting: one\n",
        ))
        .unwrap();
        let (chart, objects) = as_packaged("db", "1.0.0+1cd755309f5e", recorded.clone(), &hr);
        assert_eq!(chart, "db-1.0.0");
        let ours: Vec<_> = ours.into_iter().map(canonical).collect();
        assert_eq!(objects, ours);
        assert!(!objects[0].yaml.contains("fluxcd"), "{}", objects[0].yaml);

        let (chart, objects) = as_packaged("db", "1.0.0+ffffffffffff", recorded.clone(), &hr);
        assert_eq!(chart, "db-1.0.0+ffffffffffff");
        assert_eq!(objects, recorded);
        assert!(looks_released_by_flux("1.0.0+1cd755309f5e"));
        assert!(!looks_released_by_flux("1.0.0"));
        assert!(!looks_released_by_flux("1.0.0+build.7"));
    }

    fn hr(generation: i64, status: Value) -> Value {
        json!({"metadata": {"generation": generation}, "status": status})
    }

    #[test]
    fn a_helm_release_is_ready_only_for_its_generation_and_chart() {
        let expect = Expect {
            digest: Some("sha256:aa".into()),
        };
        let ready = |g: i64, digest: &str| {
            json!({
                "observedGeneration": g,
                "conditions": [{"type": "Ready", "status": "True", "observedGeneration": g, "message": "Helm install succeeded"}],
                "history": [{"version": 3, "ociDigest": digest}],
            })
        };
        assert_eq!(
            release_state(&hr(2, ready(2, "sha256:aa")), &expect),
            State::Ready(3)
        );
        // Ready for the generation before: still waiting.
        assert!(matches!(
            release_state(&hr(3, ready(2, "sha256:aa")), &expect),
            State::Waiting(_)
        ));
        // Ready, but on another chart (the source's new artifact not released yet).
        assert!(matches!(
            release_state(&hr(2, ready(2, "sha256:bb")), &expect),
            State::Waiting(m) if m == "Helm install succeeded"
        ));
        // Stalled for this generation: failed, with Flux's message.
        let stalled = json!({
            "observedGeneration": 2,
            "conditions": [
                {"type": "Ready", "status": "False", "observedGeneration": 2, "message": "Helm upgrade failed: timeout"},
                {"type": "Stalled", "status": "True", "observedGeneration": 2, "reason": "RetriesExceeded", "message": "Failed to upgrade after 1 attempt(s)"},
            ],
        });
        assert_eq!(
            release_state(&hr(2, stalled.clone()), &expect),
            State::Failed(
                "Helm upgrade failed: timeout (Failed to upgrade after 1 attempt(s))".into()
            )
        );
        // Stalled for an older generation: the new spec is being worked on.
        assert!(matches!(
            release_state(&hr(3, stalled), &expect),
            State::Waiting(_)
        ));
        assert_eq!(
            release_state(&json!({"metadata": {"generation": 1}}), &expect),
            State::Waiting("not reconciled yet".into())
        );
    }
}
