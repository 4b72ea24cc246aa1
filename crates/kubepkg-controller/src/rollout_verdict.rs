//! Whether a cluster of a fleet rollout may go back to the version it ran before
//! (`onFailure: Rollback`, docs/fleet.md#on-failure): the package's own rollback policy in that
//! cluster — `kubepkg_package::rollback_policy::forbidders` over its revisions there, the one
//! judgement `kubepkg rollback` and a downgrading apply make — so the rollout never asks a
//! Package for a rollback its reconciler would refuse.

use kube::ResourceExt;
use kube::api::DynamicObject;
use kubepkg_fleet::rollback::Verdict;
use kubepkg_package::rollback_policy;

use crate::reconcile::{Context, engine_cluster};
use crate::resource;
use crate::rollout_package::previous;

/// Whether `package` (a rollout's Package in `namespace`) may go back to its [`previous`]
/// version: its revisions are read in its cluster, as its identity (the Package reconciler's
/// view of them).
pub async fn verdict(ctx: &Context, namespace: &str, package: &DynamicObject) -> Verdict {
    let Some(previous) = previous(package) else {
        return Verdict::Unknown("it keeps no previous spec".into());
    };
    let spec = resource::spec_of(package).ok();
    let kc = match engine_cluster(ctx, namespace, spec.as_ref(), ctx.default_timeout).await {
        Ok((kc, _)) => kc,
        Err(e) => return Verdict::Unknown(kubepkg_engine::error::report(&e)),
    };
    let history = match kc.store.history(&package.name_any(), namespace).await {
        Ok(h) => h,
        Err(e) => return Verdict::Unknown(kubepkg_engine::error::report(&e)),
    };
    let forbidden_by = rollback_policy::forbidders(&history, &previous.version);
    if forbidden_by.is_empty() {
        Verdict::Allowed
    } else {
        Verdict::Forbidden(format!(
            "back to {}: {}",
            previous.version,
            rollback_policy::join(&forbidden_by)
        ))
    }
}
