//! What the GitOps backends ([`crate::flux`], [`crate::argocd`]) share: the server-side apply
//! of the objects they hand to their controller, and the progress line of a wait on one.

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kubepkg_package::orchestrator::{Event, Failure, FailureKind};
use serde_json::Value;

use crate::cluster::KubeCluster;

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
