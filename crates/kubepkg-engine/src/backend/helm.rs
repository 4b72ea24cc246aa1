//! The helm backend (the default): components are kubepkg's own Helm releases, rendered by
//! `kubepkg-chart` with the cluster's capabilities and stored as Helm stores them in the
//! component's namespace (`kubepkg-release`), so `helm` sees and changes the same releases.
//! Ready means the release's objects are ready (then the engine's common checks).

use kubepkg_kube::ObjectRef;
use kubepkg_package::orchestrator::{ComponentApply, Failure, FailureKind, ReadyWait};
use kubepkg_package::revision::ComponentRecord;
use kubepkg_release::action::{ActionError, Options, manifest_objects};
use kubepkg_release::storage::{Remembering, SecretDriver, Store};

use super::{BackendError, ComponentBackend, Live, Rollback, Run, Uninstall};
use super::{Ctx, failure};
use crate::chart::component_payload;

/// kubepkg's own Helm releases: nothing to configure.
#[derive(Debug, Clone, Default)]
pub struct Helm;

impl ComponentBackend for Helm {
    async fn prepare(&mut self, _client: &kube::Client, _run: Run) -> Result<(), BackendError> {
        Ok(())
    }

    async fn apply(&self, kc: &Ctx<'_>, request: &ComponentApply) -> Result<u64, Failure> {
        let ns_cluster = kc.in_namespace(&request.namespace);
        // The namespace is made sure of here, once per operation (not again by the install).
        let opts = Options {
            create_namespace: false,
            ..kc.options()
        };
        let rel = kc.releases(&ns_cluster, &request.namespace, &request.component);
        kc.ensure_namespace(&request.namespace)
            .await
            .map_err(failure(FailureKind::Apply))?;
        if request.hook {
            // A hook component runs anew: its release, if any, goes first.
            return hook_again(kc, request, &rel, &opts).await;
        }
        // Rendered under the release's Lease, from the last revision read there.
        let release = rel
            .install_or_upgrade_rendering(&request.release, &opts, async |last| {
                render_installing_crds(kc, request, &ns_cluster, last).await
            })
            .await?
            .map_err(failure(FailureKind::Apply))?;
        Ok(release.version)
    }

    async fn ready_objects(
        &self,
        kc: &Ctx<'_>,
        request: &ReadyWait,
    ) -> Result<Vec<ObjectRef>, Failure> {
        release_objects(kc, &request.release, &request.namespace, &request.component).await
    }

    /// The release's latest revision is recorded `failed` and the one it superseded
    /// `deployed` again, as `helm upgrade --wait` leaves a release that did not become ready:
    /// `helm list` and `helm history` tell the same as the package's revision.
    async fn not_ready(&self, kc: &Ctx<'_>, wait: &ReadyWait, why: &str) -> Result<(), Failure> {
        let ns_cluster = kc.in_namespace(&wait.namespace);
        let rel = kc.releases(&ns_cluster, &wait.namespace, &wait.component);
        rel.fail_unready(&wait.release, why, &kc.options())
            .await
            .map_err(failure(FailureKind::NotReady))
    }

    async fn rollback(&self, kc: &Ctx<'_>, step: &Rollback<'_>) -> Result<u64, Failure> {
        let ns_cluster = kc.in_namespace(step.namespace);
        let rel = kc.releases(&ns_cluster, step.namespace, step.release);
        rel.rollback(step.release, step.to_revision, &kc.options())
            .await
            .map(|r| r.version)
            .map_err(failure(FailureKind::Rollback))
    }

    async fn uninstall(&self, kc: &Ctx<'_>, step: &Uninstall<'_>) -> Result<(), Failure> {
        let ns_cluster = kc.in_namespace(step.namespace);
        let rel = kc.releases(&ns_cluster, step.namespace, step.component);
        let opts = kubepkg_release::action::Options {
            timeout: step.timeout,
            ..kc.options()
        };
        match rel.uninstall(step.release, &opts).await {
            Ok(_) | Err(ActionError::NotFound { .. }) => Ok(()),
            Err(e) => Err(failure(FailureKind::Uninstall)(e)),
        }
    }
}

/// The manifest of `request` rendered after `last` (earlier components may have registered
/// APIs: the served versions are asked for again, as Helm builds `.Capabilities.APIVersions`
/// from discovery for every render), its CRDs installed first.
async fn render_installing_crds(
    kc: &Ctx<'_>,
    request: &ComponentApply,
    ns_cluster: &kubepkg_kube::Cluster,
    last: Option<&kubepkg_release::record::Release>,
) -> Result<kubepkg_release::action::Rendered, Failure> {
    let caps = kc.capabilities_now().await;
    let out = component_payload(request, &caps, last.map(|r| r.version))
        .map_err(failure(FailureKind::Render))?;
    if !out.crds.is_empty() {
        kubepkg_release::action::install_crds(ns_cluster, &out.crds, kc.timeout)
            .await
            .map_err(failure(FailureKind::Apply))?;
    }
    Ok(out.rendered)
}

/// A hook component's apply: its release uninstalled when it exists, then installed anew.
async fn hook_again(
    kc: &Ctx<'_>,
    request: &ComponentApply,
    rel: &kubepkg_release::action::Releases<'_, Remembering<SecretDriver>>,
    opts: &Options,
) -> Result<u64, Failure> {
    let ns_cluster = kc.in_namespace(&request.namespace);
    let last = rel
        .store
        .last(&request.release)
        .await
        .map_err(failure(FailureKind::Apply))?;
    if last.is_some() {
        match rel.uninstall(&request.release, opts).await {
            Ok(_) | Err(ActionError::NotFound { .. }) => {}
            Err(e) => return Err(failure(FailureKind::Apply)(e)),
        }
    }
    let rendered = render_installing_crds(kc, request, &ns_cluster, None).await?;
    rel.install(&request.release, rendered, opts)
        .await
        .map(|r| r.version)
        .map_err(failure(FailureKind::Apply))
}

/// The objects of the last Helm release `release` in `namespace` (a failure naming it when
/// there is none): what kubepkg checks for readiness after a backend's own ready step.
pub(crate) async fn release_objects(
    kc: &Ctx<'_>,
    release: &str,
    namespace: &str,
    component: &str,
) -> Result<Vec<ObjectRef>, Failure> {
    let ns_cluster = kc.in_namespace(namespace);
    let rel = kc.releases(&ns_cluster, namespace, component);
    match rel
        .store
        .last(release)
        .await
        .map_err(failure(FailureKind::NotReady))?
    {
        Some(r) => manifest_objects(&r.manifest).map_err(failure(FailureKind::NotReady)),
        None => Err(Failure::new(
            FailureKind::NotReady,
            format!("release {release} not found"),
        )),
    }
}

/// A component kept as a Helm release, as it is now: the release's revision, and the first of
/// its objects that is not ready (a release not deployed waits for itself).
pub(crate) async fn release_live(kc: &Ctx<'_>, c: &ComponentRecord) -> Live {
    use kubepkg_kube::readiness;
    use kubepkg_release::Status;
    let ns_cluster = kc.in_namespace(&c.namespace);
    let shared = match kc.reads {
        Some(reads) => {
            reads
                .last_release(&kc.kube.client, &c.namespace, &c.release)
                .await
        }
        None => None,
    };
    let release = match shared {
        Some(release) => release,
        None => Store::new(SecretDriver::new(
            kc.kube.client.clone(),
            Some(&c.namespace),
        ))
        .last(&c.release)
        .await
        .ok()
        .flatten(),
    };
    let mut waiting_for = None;
    match &release {
        None => waiting_for = Some("release not installed".to_string()),
        Some(r) if r.status() != Status::Deployed => {
            waiting_for = Some(format!("release {} is {}", r.name, r.status()));
        }
        Some(r) => {
            let ids = manifest_objects(&r.manifest).unwrap_or_default();
            for id in ids {
                let Ok((api, id)) = ns_cluster.locate(&id, &c.namespace).await else {
                    waiting_for = Some(format!("{id}: kind not served"));
                    break;
                };
                let shared = match kc.reads {
                    Some(reads) => {
                        reads
                            .object(&api, &id.namespace, &id.api_version, &id.kind, &id.name)
                            .await
                    }
                    None => None,
                };
                let v = match shared {
                    Some(v) => v,
                    None => api
                        .get_opt(&id.name)
                        .await
                        .ok()
                        .flatten()
                        .map(|o| serde_json::to_value(o).unwrap_or_default()),
                };
                let ready = match &v {
                    None => Err("not found".to_string()),
                    Some(v) => {
                        let r = readiness::compute(v, jiff::Timestamp::now());
                        if r.is_ready() {
                            Ok(())
                        } else {
                            Err(format!("{} {}", r.status, r.message).trim().to_string())
                        }
                    }
                };
                if let Err(why) = ready {
                    waiting_for = Some(format!("{id}: {why}"));
                    break;
                }
            }
        }
    }
    Live {
        revision: release.as_ref().map_or(c.revision, |r| r.version),
        waiting_for,
    }
}
