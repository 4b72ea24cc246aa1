//! The Argo CD backend (`backend: argocd`, docs/backends.md#argo-cd): the orchestrator's
//! component steps carried out through Argo CD's application controller instead of kubepkg's
//! own release layer. The orchestrator and its rules are the same; only these steps differ:
//!
//! - **apply**: the component's chart is pushed to the chart repository by digest
//!   (`kubepkg_source::push`), then (with a plain-HTTP registry) the repository Secret and the
//!   component's `Application` — exactly as `kubepkg_gitops::argocd::component_application`
//!   makes it: no automated sync, its source pinned to the pushed digest (Argo CD's native OCI
//!   source) — are server-side applied in Argo CD's namespace; then the
//!   sync operation of `kubepkg_gitops::argocd::sync` (with prune, as Helm's upgrade deletes what
//!   a chart no longer renders) is set on it, and the step waits until the operation
//!   `Succeeded`, the Application is `Synced` to that digest and `Healthy` (its health
//!   computed after the sync finished: `status.reconciledAt`), and Argo CD recorded the sync in
//!   `status.history`.
//! - **what is recorded**: Argo CD renders with `helm template` and applies the objects
//!   itself; there is no Helm release. The component's revision in the package revision is the
//!   Application's sync history entry that deployed it, **`status.history[].id + 1`** (Argo CD
//!   counts from 0; kubepkg's 0 means "never applied"); that entry holds the exact source
//!   synced (chart digest, `helm.valuesObject`). Status is read from the Application.
//! - **ready**: the Application still `Synced` and `Healthy` (Argo CD's own health, its Lua
//!   checks included), then — as for the helm backend — kubepkg's readiness of the objects Argo
//!   CD lists in `status.resources`, their Jobs, and every `readyWhen`: both must hold.
//! - **rollback**: the Application's `spec.source` is put back on the source of the history
//!   entry of the revision rolled back to (its chart version and values), an operation still
//!   running is terminated first, and that source is synced and waited for as above; the
//!   component's revision is the new history entry.
//! - **uninstall**: the Application is deleted; its `resources-finalizer.argocd.argoproj.io`
//!   makes Argo CD delete the objects it applied (keeping those marked
//!   `helm.sh/resource-policy: keep`) before it is gone, which is waited for.
//!
//! Failures are the component's failure with Argo CD's message and the Application's name: the
//! operation `Failed` or `Error`, the Application `Degraded`, or not `Synced`+`Healthy` within
//! the component's timeout.

use std::time::Duration;

use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use kubepkg_gitops::argocd::Options;
use kubepkg_gitops::argocd::sync::{self, Verdict};
use kubepkg_kube::ObjectRef;
use kubepkg_package::orchestrator::{ComponentApply, Failure, FailureKind};
use serde_json::{Value, json};
use tokio::time::Instant;

use kubepkg_package::orchestrator::ReadyWait;
use kubepkg_package::plan::{Plan, Step};
use kubepkg_package::revision::ComponentRecord;

pub use super::error::ArgoCdError;
use super::{
    BackendError, ComponentBackend, Ctx, Live, PlanInput, Rollback, Run, Seen, State, Uninstall,
    Watch, apply_object, str_at,
};

/// The CRD the backend needs, as `kubectl get crd` names it.
pub const CRDS: [&str; 1] = ["applications.argoproj.io"];

/// Where the Argo CD backend pushes charts and where its Applications live.
#[derive(Clone, Debug)]
pub struct ArgoCdBackend {
    /// `oci://HOST/PATH`: each chart is pushed to `<repository>/<chart name>`, which Argo CD's
    /// repo server pulls.
    pub repository: String,
    /// The registry speaks plain HTTP (a repository Secret with `insecureOCIForceHttp`).
    pub insecure: bool,
    /// Argo CD's namespace (or one of its `--application-namespaces`) for the Applications and
    /// the repository Secret; `None`: the package's namespace.
    pub namespace: Option<String>,
    /// The AppProject of the Applications.
    pub project: String,
    /// The registry client the charts are pushed with.
    pub client: kubepkg_oci::Client,
}

impl ArgoCdBackend {
    /// A backend pushing to `repository` with `client`, Applications in the package's
    /// namespace, project `default`.
    pub fn new(repository: String, insecure: bool, client: kubepkg_oci::Client) -> ArgoCdBackend {
        ArgoCdBackend {
            repository,
            insecure,
            namespace: None,
            project: "default".to_string(),
            client,
        }
    }

    fn options(&self, instance: &str, namespace: &str) -> Options {
        Options {
            instance: instance.to_string(),
            namespace: namespace.to_string(),
            argocd_namespace: self
                .namespace
                .clone()
                .unwrap_or_else(|| namespace.to_string()),
            project: self.project.clone(),
            repository: self.repository.clone(),
            insecure: self.insecure,
        }
    }
}

fn applications(client: &kube::Client, namespace: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("argoproj.io", "v1alpha1", "Application");
    Api::namespaced_with(client.clone(), namespace, &ApiResource::from_gvk(&gvk))
}

/// The watch of Application `name` in `namespace` for `component` until `deadline`.
fn application_watch<'a>(
    kc: &Ctx<'_>,
    component: &'a str,
    namespace: &str,
    name: &'a str,
    deadline: Instant,
) -> Watch<'a> {
    let api = applications(&kc.kube.client, namespace);
    Watch::new(component, "Application", api, name, deadline)
}

fn secrets(client: &kube::Client, namespace: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("", "v1", "Secret");
    Api::namespaced_with(client.clone(), namespace, &ApiResource::from_gvk(&gvk))
}

/// Creates the repository Secret, or replaces its labels and data (create and update only:
/// the verbs on Secrets the release store needs anyway, docs/controller.md#rbac).
async fn write_secret(
    client: &kube::Client,
    namespace: &str,
    secret: Value,
) -> Result<(), Failure> {
    use k8s_openapi::api::core::v1::Secret;
    let name = str_at(&secret, "/metadata/name").to_string();
    let failed = |e: kube::Error| {
        Failure::new(
            FailureKind::Apply,
            format!("writing the repository Secret {namespace}/{name}: {e}"),
        )
    };
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let wanted: Secret = serde_json::from_value(secret).map_err(|e| {
        Failure::new(
            FailureKind::Apply,
            format!("the repository Secret {name}: {e}"),
        )
    })?;
    loop {
        let result = match api.get_opt(&name).await.map_err(failed)? {
            None => api.create(&kube::api::PostParams::default(), &wanted).await,
            Some(mut live) => {
                live.metadata.labels = wanted.metadata.labels.clone();
                live.data = None;
                live.string_data = wanted.string_data.clone();
                api.replace(&name, &kube::api::PostParams::default(), &live)
                    .await
            }
        };
        match result {
            Ok(_) => return Ok(()),
            Err(kube::Error::Api(s)) if s.code == 409 => continue,
            Err(e) => return Err(failed(e)),
        }
    }
}

/// Argo CD's Application CRD is installed (one clear error naming it when not).
pub async fn check_crds(client: &kube::Client) -> Result<(), ArgoCdError> {
    match super::missing_crd(client, &CRDS).await {
        Ok(None) => Ok(()),
        Ok(Some(crd)) => Err(ArgoCdError::CrdMissing { crd }),
        Err((crd, source)) => Err(ArgoCdError::CrdUnreadable { crd, source }),
    }
}

/// The Application named `release` in `namespace`, as JSON, when there is one (and Argo CD's
/// CRD is installed): such a component is Argo CD's to change.
pub async fn application(client: &kube::Client, namespace: &str, release: &str) -> Option<Value> {
    applications(client, namespace)
        .get_opt(release)
        .await
        .ok()
        .flatten()
        .map(|a| serde_json::to_value(a).unwrap_or_default())
}

/// An Application's state for the sync to `revision`: [`sync::verdict`], and once that says
/// Ready, Argo CD's health computed after the operation finished and its history entry.
fn sync_state(app: &Value, revision: &str) -> State {
    match sync::verdict(app, revision) {
        Verdict::Ready => {
            let started = str_at(app, "/status/operationState/startedAt");
            let finished = str_at(app, "/status/operationState/finishedAt");
            let reconciled = str_at(app, "/status/reconciledAt");
            let fresh = match (
                reconciled.parse::<jiff::Timestamp>(),
                finished.parse::<jiff::Timestamp>(),
            ) {
                (Ok(r), Ok(f)) => r >= f,
                _ => false,
            };
            let entry = app
                .pointer("/status/history")
                .and_then(Value::as_array)
                .and_then(|h| {
                    h.iter()
                        .rev()
                        .find(|e| str_at(e, "/deployStartedAt") == started)
                });
            match (fresh, entry.and_then(|e| e["id"].as_u64())) {
                (true, Some(id)) => State::Ready(id),
                _ => State::Waiting("synced; waiting for Argo CD's health after the sync".into()),
            }
        }
        Verdict::Failed { .. } => State::Failed(sync::verdict(app, revision).message()),
        v @ Verdict::Unready { .. } if matches!(&v, Verdict::Unready { health, .. } if health == "Degraded") => {
            State::Failed(v.message())
        }
        v => State::Waiting(v.message()),
    }
}

/// The message of the Application's condition of type `kind`, if it has one.
fn condition_message<'a>(app: &'a Value, kind: &str) -> Option<&'a str> {
    app.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)?["message"]
        .as_str()
}

/// The objects Argo CD applied for an Application (`status.resources`).
fn resources(app: &Value) -> Vec<ObjectRef> {
    app.pointer("/status/resources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| {
            let group = str_at(r, "/group");
            let version = str_at(r, "/version");
            ObjectRef {
                api_version: if group.is_empty() {
                    version.to_string()
                } else {
                    format!("{group}/{version}")
                },
                kind: str_at(r, "/kind").to_string(),
                namespace: str_at(r, "/namespace").to_string(),
                name: str_at(r, "/name").to_string(),
            }
        })
        .collect()
}

/// What `kubepkg status` says about a component Argo CD deploys: its revision (the latest sync
/// history entry, `id + 1`) and, when it is not Synced and Healthy, why (Argo CD's words).
pub fn application_state(app: &Value) -> (u64, Option<String>) {
    let revision = app
        .pointer("/status/history")
        .and_then(Value::as_array)
        .and_then(|h| h.last())
        .and_then(|e| e["id"].as_u64())
        .map_or(0, |id| id + 1);
    let name = format!(
        "Application {}/{}",
        str_at(app, "/metadata/namespace"),
        str_at(app, "/metadata/name")
    );
    let sync_status = str_at(app, "/status/sync/status");
    let health = str_at(app, "/status/health/status");
    if sync_status == "Synced" && health == "Healthy" {
        return (revision, None);
    }
    let target = str_at(app, "/spec/source/targetRevision");
    let verdict = sync::verdict(app, str_at(app, "/status/sync/revision"));
    let detail = match verdict {
        Verdict::Unready { message, .. } if !message.is_empty() => format!(": {message}"),
        Verdict::Failed { message, .. } => format!(": {message}"),
        _ => String::new(),
    };
    (
        revision,
        Some(format!(
            "{name} is {}, {} (target {target}){detail}",
            if sync_status.is_empty() {
                "Unknown"
            } else {
                sync_status
            },
            if health.is_empty() { "Unknown" } else { health }
        )),
    )
}

/// The Argo CD backend: its settings and the package it drives.
pub type ArgoCd = super::Driven<ArgoCdBackend>;

impl ArgoCd {
    /// The namespace of the Application of `release`: the configured one, else where it is
    /// found.
    async fn application_namespace(
        &self,
        kc: &Ctx<'_>,
        release: &str,
        release_namespace: &str,
    ) -> Option<String> {
        if self.settings.is_some() {
            return Some(self.argocd_namespace(kc));
        }
        let app = self
            .argocd_application(kc, release, release_namespace)
            .await?;
        Some(str_at(&app, "/metadata/namespace").to_string())
    }
}

impl ComponentBackend for ArgoCd {
    async fn prepare(&mut self, client: &kube::Client, run: Run) -> Result<(), BackendError> {
        let Some(settings) = &self.settings else {
            return Err(ArgoCdError::NotConfigured.into());
        };
        kubepkg_gitops::argocd::repo_url(&settings.repository).map_err(ArgoCdError::from)?;
        self.run = Some(run);
        Ok(check_crds(client).await?)
    }

    /// The apply step: push, apply the repository Secret and the Application, sync it and wait
    /// until it is Synced and Healthy; the component revision (history entry id + 1).
    async fn apply(&self, kc: &Ctx<'_>, request: &ComponentApply) -> Result<u64, Failure> {
        let (backend, run) = self.prepared("argocd")?;
        let client = kc.kube.client.clone();
        kc.ensure_namespace(&request.namespace)
            .await
            .map_err(|e| Failure::caused(FailureKind::Apply, e))?;
        let opts = backend.options(&run.instance, &run.namespace);
        if request.hook
            && self
                .argocd_application(kc, &request.release, &request.namespace)
                .await
                .is_some()
        {
            // A hook runs afresh: its earlier Application (kept for its logs) goes first.
            let deadline = Instant::now() + run.timeout;
            let (component, at) = (&request.component, &opts.argocd_namespace);
            let app = application_watch(kc, component, at, &request.release, deadline);
            self.argocd_delete(kc, &app).await?;
        }
        let chart = super::push("argocd", &backend.client, &backend.repository, request).await?;
        let compile = |e: kubepkg_gitops::CompileError| Failure::caused(FailureKind::Apply, e);
        if let Some(secret) =
            kubepkg_gitops::argocd::repository_secret_object(&run.package, &opts, true)
                .map_err(compile)?
        {
            write_secret(&client, &opts.argocd_namespace, secret).await?;
        }
        let application = kubepkg_gitops::argocd::component_application(
            &run.package,
            &request.component,
            request.values.clone(),
            &chart,
            &opts,
        )
        .map_err(compile)?;
        apply_object(&applications(&client, &opts.argocd_namespace), &application).await?;
        let deadline = Instant::now() + run.timeout;
        let (component, at) = (&request.component, &opts.argocd_namespace);
        let app = application_watch(kc, component, at, &request.release, deadline);
        let revision = kubepkg_gitops::argocd::target_revision(&chart);
        self.argocd_sync(kc, &app, revision).await
    }

    async fn ready_objects(
        &self,
        kc: &Ctx<'_>,
        request: &ReadyWait,
    ) -> Result<Vec<ObjectRef>, Failure> {
        let deadline = Instant::now() + request.timeout;
        // Argo CD keeps no Helm release: its Application lists the objects it applied.
        let Some(at) = self
            .application_namespace(kc, &request.release, &request.namespace)
            .await
        else {
            return Err(Failure::new(
                FailureKind::NotReady,
                format!("release {} not found", request.release),
            ));
        };
        let app = application_watch(kc, &request.component, &at, &request.release, deadline);
        self.argocd_wait_ready(kc, &app).await
    }

    /// The rollback step: the Application back on the source of its sync history entry
    /// `to_revision - 1` (chart version and values), synced and waited for; the new revision.
    async fn rollback(&self, kc: &Ctx<'_>, step: &Rollback<'_>) -> Result<u64, Failure> {
        let (release, release_namespace, to_revision) =
            (step.release, step.namespace, step.to_revision);
        let Some(live) = self
            .argocd_application(kc, release, release_namespace)
            .await
        else {
            return Err(Failure::new(
                FailureKind::Rollback,
                format!(
                    "no Application of release {release} (deploying to namespace {release_namespace}) to roll back"
                ),
            ));
        };
        let namespace = str_at(&live, "/metadata/namespace");
        let deadline = Instant::now() + self.timeout(kc);
        let app = application_watch(kc, release, namespace, release, deadline);
        let (api, object) = (&app.api, &app.object);
        let failed = |m: String| Failure::new(FailureKind::Rollback, format!("{object}: {m}"));
        let id = to_revision.saturating_sub(1);
        let entry = live
            .pointer("/status/history")
            .and_then(Value::as_array)
            .and_then(|h| h.iter().find(|e| e["id"].as_u64() == Some(id)))
            .ok_or_else(|| {
                failed(format!(
                    "its sync history has no entry {id} (revision {to_revision}) to roll back to; Argo CD keeps spec.revisionHistoryLimit entries (10 by default)"
                ))
            })?;
        let source = entry["source"].clone();
        let revision = match str_at(entry, "/revision") {
            "" => str_at(&source, "/targetRevision").to_string(),
            r => r.to_string(),
        };
        if sync::operation_in_progress(&live) {
            // What `argocd app terminate-op` does: the controller stops the running operation.
            api.patch(
                release,
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"operationState": {"phase": "Terminating"}}})),
            )
            .await
            .map_err(|e| failed(format!("terminating its running operation: {e}")))?;
        }
        // The whole object replaced on the resourceVersion read (the Application has no status
        // subresource): `spec.source` exactly the earlier one, no field of the failed one kept.
        loop {
            let current = api
                .get(release)
                .await
                .map_err(|e| failed(format!("reading it: {e}")))?;
            let mut value = serde_json::to_value(&current).unwrap_or_default();
            value["spec"]["source"] = source.clone();
            let replaced: DynamicObject = serde_json::from_value(value)
                .map_err(|e| failed(format!("the source to roll back to: {e}")))?;
            match api
                .replace(release, &kube::api::PostParams::default(), &replaced)
                .await
            {
                Ok(_) => break,
                Err(kube::Error::Api(s)) if s.code == 409 => continue,
                Err(e) => return Err(failed(format!("putting the earlier source back: {e}"))),
            }
        }
        self.argocd_sync(kc, &app, &revision)
            .await
            .map_err(|f| Failure::new(FailureKind::Rollback, f.message))
    }

    async fn uninstall(&self, kc: &Ctx<'_>, step: &Uninstall<'_>) -> Result<(), Failure> {
        // Argo CD deletes the Application's objects through its resources finalizer.
        match self
            .application_namespace(kc, step.release, step.namespace)
            .await
        {
            Some(at) => {
                let deadline = Instant::now() + step.timeout;
                let app = application_watch(kc, step.component, &at, step.release, deadline);
                self.argocd_delete(kc, &app).await
            }
            None => Ok(()),
        }
    }

    /// The objects Argo CD applied for `release`'s Application (none when there is none).
    async fn objects(&self, kc: &Ctx<'_>, release: &str, namespace: &str) -> Vec<ObjectRef> {
        self.argocd_application(kc, release, namespace)
            .await
            .map(|a| resources(&a))
            .unwrap_or_default()
    }

    async fn live(&self, kc: &Ctx<'_>, record: &ComponentRecord) -> Live {
        match self
            .argocd_application(kc, &record.release, &record.namespace)
            .await
        {
            Some(app) => {
                let (revision, waiting_for) = application_state(&app);
                Live {
                    revision,
                    waiting_for,
                }
            }
            None => Live {
                revision: record.revision,
                waiting_for: Some(format!("Application {} not found", record.release)),
            },
        }
    }

    /// The objects `plan` shows for an argocd package, in the order they are applied: the
    /// repository Secret (plain-HTTP registry) and each component's Application (charts named
    /// by their versions), each marked created, changed (an Application whose spec differs) or
    /// unchanged against the live object when there is a client, else created.
    async fn plan(&self, input: &PlanInput<'_>, plan: &mut Plan) -> Result<(), BackendError> {
        let Some(argocd) = &self.settings else {
            return Err(ArgoCdError::NotConfigured.into());
        };
        let package = input.package;
        let opts = argocd.options(&plan.name, &plan.namespace);
        let (charts, values) = super::plan_inputs(package, input.user);
        let compiled = kubepkg_gitops::argocd::compile(package, &values, &charts, &opts)
            .map_err(ArgoCdError::from)?;
        // The Applications by version (the digest is known once the chart is pushed), the
        // repository Secret as apply writes it: the credential template of pinned sources.
        let pinned_secret = kubepkg_gitops::argocd::repository_secret_object(package, &opts, true)
            .map_err(ArgoCdError::from)?;
        let objects = compiled.objects.into_iter().map(|o| match &pinned_secret {
            Some(secret) if o["kind"] == "Secret" => secret.clone(),
            _ => o,
        });
        let api = |client: &kube::Client, kind: &str, namespace: &str| match kind {
            "Application" => applications(client, namespace),
            _ => secrets(client, namespace),
        };
        let changed = |live: &Value, planned: &Value, step: Option<&Step>| {
            planned["kind"] == "Application" && source_changed(live, planned, step)
        };
        let rows = super::plan_rows(objects, plan, input.client, api, changed);
        plan.backend_objects = rows.await;
        // Argo CD makes no Helm release: its verdict and kubepkg's readiness of what it synced.
        plan.gate_on_backend(
            "Application",
            "Synced and Healthy, and the objects it deployed ready",
            true,
        );
        plan.reveal_secrets();
        Ok(())
    }
}

impl ArgoCd {
    /// The namespace of the Applications: the backend's, else the package's.
    fn argocd_namespace(&self, kc: &Ctx<'_>) -> String {
        self.settings
            .as_ref()
            .and_then(|a| a.namespace.clone())
            .unwrap_or_else(|| kc.kube.namespace.clone())
    }

    /// The Application of `release` (whose objects are in `release_namespace`), when Argo CD
    /// deploys it: in the backend's namespace when one is configured; else (the bare verbs
    /// `status`, `rollback`, `uninstall`, which take no `--argocd-namespace`) in the package's
    /// namespace, or anywhere: the Application of that name kubepkg made
    /// (`app.kubernetes.io/managed-by: kubepkg`) whose destination is `release_namespace`; as
    /// JSON.
    pub(crate) async fn argocd_application(
        &self,
        kc: &Ctx<'_>,
        release: &str,
        release_namespace: &str,
    ) -> Option<Value> {
        if self.settings.is_some() {
            return application(&kc.kube.client, &self.argocd_namespace(kc), release).await;
        }
        if let Some(app) = application(&kc.kube.client, &kc.kube.namespace, release).await {
            return Some(app);
        }
        let gvk = GroupVersionKind::gvk("argoproj.io", "v1alpha1", "Application");
        let all: Api<DynamicObject> =
            Api::all_with(kc.kube.client.clone(), &ApiResource::from_gvk(&gvk));
        let params = kube::api::ListParams::default()
            .fields(&format!("metadata.name={release}"))
            .labels("app.kubernetes.io/managed-by=kubepkg");
        let found = all.list(&params).await.ok()?;
        found
            .items
            .into_iter()
            .map(|a| serde_json::to_value(a).unwrap_or_default())
            .find(|a| str_at(a, "/spec/destination/namespace") == release_namespace)
    }

    /// Sets the sync operation to `revision` on the Application `app` (once no other operation
    /// runs) and waits until it is Synced and Healthy by its deadline; the history entry id + 1.
    async fn argocd_sync(
        &self,
        kc: &Ctx<'_>,
        app: &Watch<'_>,
        revision: &str,
    ) -> Result<u64, Failure> {
        let (api, name, object) = (&app.api, app.name, &app.object);
        let failed = |m: String| Failure::new(FailureKind::Apply, format!("{object}: {m}"));
        // Argo CD's API server refuses a second operation; kubepkg waits for the running one
        // (on the same resourceVersion, so none starts in between).
        loop {
            let live = api
                .get(name)
                .await
                .map_err(|e| failed(format!("reading it: {e}")))?;
            let value = serde_json::to_value(&live).unwrap_or_default();
            if sync::operation_in_progress(&value) {
                if Instant::now() > app.deadline {
                    return Err(failed(
                        "another operation is still in progress (argocd app terminate-op stops it)"
                            .into(),
                    ));
                }
                kc.waiting(app.component, object, "another operation is in progress");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            let mut patch = sync::sync_patch(revision, true);
            patch["metadata"] = json!({ "resourceVersion": live.metadata.resource_version });
            match api
                .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
            {
                Ok(_) => break,
                Err(kube::Error::Api(s)) if s.code == 409 => continue,
                Err(e) => return Err(failed(format!("setting the sync operation: {e}"))),
            }
        }
        // Synced to `revision` and Healthy after the sync.
        let judge = |app: Option<&Value>| match app {
            None => Seen::Failed(Failure::new(
                FailureKind::Apply,
                format!("{object} was deleted while kubepkg waited for its sync"),
            )),
            Some(a) => sync_state(a, revision).seen(object),
        };
        let late =
            "not Synced and Healthy within the component's timeout (upgrade.timeout, --timeout)";
        let id = kc.watch_until(app, judge, late).await?;
        Ok(id + 1)
    }

    /// The ready step's Argo CD part: the Application `app` still Synced and Healthy with no
    /// operation running; the objects it applied (for kubepkg's own readiness).
    async fn argocd_wait_ready(
        &self,
        kc: &Ctx<'_>,
        app: &Watch<'_>,
    ) -> Result<Vec<ObjectRef>, Failure> {
        let object = &app.object;
        let judge = |app: Option<&Value>| {
            let Some(app) = app else {
                return Seen::Failed(Failure::new(
                    FailureKind::NotReady,
                    format!("{object} not found"),
                ));
            };
            match application_state(app).1 {
                None if !sync::operation_in_progress(app) => Seen::Done(resources(app)),
                Some(message) => Seen::Waiting(message),
                None => Seen::Unchanged,
            }
        };
        let late = "not Synced and Healthy in time";
        kc.watch_until(app, judge, late).await
    }

    /// The uninstall step: deletes the Application `app` (Argo CD deletes its objects through
    /// the resources finalizer) and waits until it is gone.
    async fn argocd_delete(&self, kc: &Ctx<'_>, app: &Watch<'_>) -> Result<(), Failure> {
        let first = "Argo CD deletes its objects first";
        kc.delete_until_gone(app, |v| condition_message(v, "DeletionError"), first)
            .await
    }
}

/// Whether the `planned` Application (its source by version) changes the `live` one's
/// source. A live source pinned to a digest (what apply writes) is the same chart unless the
/// plan's `step` moves the component to another chart; its values are compared as they are.
fn source_changed(
    live: &Value,
    planned: &Value,
    step: Option<&kubepkg_package::plan::Step>,
) -> bool {
    use kubepkg_package::plan::Change;
    let (l, p) = (&live["spec"]["source"], &planned["spec"]["source"]);
    let live_url = str_at(l, "/repoURL");
    if !live_url.starts_with("oci://") {
        return l != p;
    }
    let chart_moves = match step.map(|s| &s.change) {
        Some(Change::Upgrade {
            from_chart,
            to_chart,
            ..
        }) => from_chart != to_chart,
        Some(Change::Install { .. }) | None => true,
        Some(Change::Unchanged { .. }) => false,
    };
    let planned_url = format!("oci://{}/{}", str_at(p, "/repoURL"), str_at(p, "/chart"));
    chart_moves || live_url != planned_url || l["helm"] != p["helm"]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(status: Value) -> Value {
        json!({"metadata": {"name": "shop-db", "namespace": "argocd"}, "status": status})
    }

    fn succeeded(reconciled: &str, history: Value, health: &str) -> Value {
        app(json!({
            "operationState": {
                "phase": "Succeeded",
                "startedAt": "2026-12-02T01:00:00Z",
                "finishedAt": "2026-12-02T01:00:05Z",
                "operation": {"sync": {"revision": "1.0.0"}},
            },
            "sync": {"status": "Synced", "revision": "1.0.0"},
            "health": {"status": health},
            "reconciledAt": reconciled,
            "history": history,
        }))
    }

    #[test]
    fn an_application_is_ready_after_its_sync_only_with_fresh_health_and_its_history_entry() {
        let entry = json!([
            {"id": 0, "revision": "0.9.0", "deployStartedAt": "2026-12-01T00:00:00Z"},
            {"id": 1, "revision": "1.0.0", "deployStartedAt": "2026-12-02T01:00:00Z"},
        ]);
        assert_eq!(
            sync_state(
                &succeeded("2026-12-02T01:00:06Z", entry.clone(), "Healthy"),
                "1.0.0"
            ),
            State::Ready(1)
        );
        // Health last computed before the sync finished: not trusted yet.
        assert!(matches!(
            sync_state(
                &succeeded("2026-12-02T01:00:04Z", entry.clone(), "Healthy"),
                "1.0.0"
            ),
            State::Waiting(_)
        ));
        // No history entry of this operation yet.
        assert!(matches!(
            sync_state(
                &succeeded("2026-12-02T01:00:06Z", json!([]), "Healthy"),
                "1.0.0"
            ),
            State::Waiting(_)
        ));
        // Degraded after the sync: failed at once, with Argo CD's words.
        assert!(matches!(
            sync_state(&succeeded("2026-12-02T01:00:06Z", entry, "Degraded"), "1.0.0"),
            State::Failed(m) if m.contains("Degraded")
        ));
    }

    #[test]
    fn status_reads_the_revision_and_what_argo_cd_reports() {
        let healthy = succeeded(
            "2026-12-02T01:00:06Z",
            json!([{"id": 4, "revision": "1.0.0"}]),
            "Healthy",
        );
        assert_eq!(application_state(&healthy), (5, None));
        let mut progressing = healthy.clone();
        progressing["status"]["health"]["status"] = "Progressing".into();
        let (rev, why) = application_state(&progressing);
        assert_eq!(rev, 5);
        let why = why.unwrap();
        assert!(
            why.starts_with("Application argocd/shop-db is Synced, Progressing"),
            "{why}"
        );
    }

    #[test]
    fn a_pinned_live_source_changes_only_with_its_chart_or_values() {
        use kubepkg_package::plan::{Change, Step};
        let helm = json!({"releaseName": "shop-db", "valuesObject": {"size": 1}});
        let live = json!({"spec": {"source": {
            "repoURL": "oci://reg.example/charts/db", "path": ".",
            "targetRevision": "sha256:0a1b", "helm": helm,
        }}});
        let planned = |helm: Value| {
            json!({"spec": {"source": {
                "repoURL": "reg.example/charts", "chart": "db",
                "targetRevision": "1.0.0", "helm": helm,
            }}})
        };
        let step = |change: Change| Step {
            name: "db".into(),
            release: "shop-db".into(),
            namespace: "shop".into(),
            depends_on: vec![],
            change,
            upgrade_context: false,
            gates: vec![],
            diff: None,
        };
        let same = step(Change::Unchanged {
            chart: "db-1.0.0".into(),
            revision: 1,
        });
        assert!(!source_changed(&live, &planned(helm.clone()), Some(&same)));
        let values = json!({"releaseName": "shop-db", "valuesObject": {"size": 2}});
        assert!(source_changed(&live, &planned(values), Some(&same)));
        let moved = step(Change::Upgrade {
            from_chart: "db-1.0.0".into(),
            to_chart: "db-1.1.0".into(),
            from_revision: 1,
            to_revision: 2,
        });
        assert!(source_changed(&live, &planned(helm.clone()), Some(&moved)));
        // A live source by version (as render writes it) is compared as it is.
        let by_version = planned(helm.clone());
        assert!(!source_changed(&by_version, &planned(helm), Some(&moved)));
    }
}
