//! What the GitOps backends ([`crate::flux`], [`crate::argocd`]) share: the server-side apply
//! of the objects they hand to their controller, the progress line of a wait on one, and
//! what one apply of a package gives them to make their objects from ([`Run`]).

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use std::time::Duration;

use kubepkg_package::Package;
use kubepkg_package::orchestrator::{Event, Failure, FailureKind};
use serde_json::Value;

use crate::cluster::KubeCluster;

/// What a backend's objects are made from during one apply: the package, its instance name,
/// its namespace and the components' timeout.
#[derive(Clone)]
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

impl KubeCluster {
    /// Reports that `component` waits for `object` because of `reason`.
    pub(crate) fn waiting(&self, component: &str, object: &str, reason: &str) {
        self.report(&Event::WaitingFor {
            component: component.to_string(),
            object: object.to_string(),
            reason: reason.to_string(),
        });
    }
}
