//! What a fleet rollout reads from and writes to the Package it gives each cluster
//! (docs/fleet.md#how-a-rollout-proceeds): how the Package stands for the spec it was given, what
//! it ran before (kept for `onFailure: Rollback`), and the Package object applied.

use kube::ResourceExt;
use kube::api::DynamicObject;
use kubepkg_fleet::decide::Outcome;
use kubepkg_fleet::rollback::Previous;
use kubepkg_package::conditions::reason;
use serde_json::{Value, json};

use crate::status::conditions_of;

/// What a rollout's Package kept of its spec before the rollout's digest (its
/// `kubepkg.dev/rollout-previous` annotation), if it reads.
pub fn previous(package: &DynamicObject) -> Option<Previous> {
    package
        .annotations()
        .get(kubepkg_fleet::PREVIOUS_ANNOTATION)
        .and_then(|a| serde_json::from_str(a).ok())
}

/// How a cluster's Package stands for the spec it was last given (kstatus over its
/// conditions, once it has reconciled that generation).
pub fn outcome(package: &DynamicObject) -> Outcome {
    let status = package.data.get("status");
    let observed = status
        .and_then(|s| s.get("observedGeneration"))
        .and_then(Value::as_i64);
    let conditions = conditions_of(package);
    let find = |t: &str| conditions.iter().find(|c| c.type_ == t);
    let ready = find("Ready");
    // A target that does not answer is named whatever the generation reconciled: the cluster
    // waits for it, and says so.
    if let Some(r) = ready.filter(|r| r.reason == reason::TARGET_UNREACHABLE) {
        return Outcome::InProgress(format!("{}: {}", r.reason, r.message));
    }
    if observed.is_none() || observed != package.metadata.generation {
        return Outcome::InProgress("not reconciled yet".into());
    }
    if ready.is_some_and(|c| c.is_true()) {
        return Outcome::Ready;
    }
    let message = ready.map(|c| c.message.clone()).unwrap_or_default();
    let reason = ready.map(|c| c.reason.as_str()).unwrap_or_default();
    let stalled = find("Stalled").is_some_and(|c| c.is_true());
    if stalled || matches!(reason, "UpgradeFailed" | "InstallFailed" | "RolledBack") {
        return Outcome::Failed(format!("{reason}: {message}"));
    }
    Outcome::InProgress(if reason.is_empty() {
        "starting".into()
    } else {
        reason.to_string()
    })
}

/// How a Package the rollout rolled back stands: [`outcome`], except that one left
/// `RolledBack` by its own automatic rollback counts as back (Ready) once it has reconciled
/// the previous spec and runs the version that spec gives — an apply of the version already
/// running changes nothing and records no new revision, so its conditions stay the rollback's.
pub fn rolled_back_outcome(package: &DynamicObject) -> Outcome {
    let o = outcome(package);
    let status = package.data.get("status");
    let field = |k: &str| status.and_then(|s| s.get(k)).and_then(Value::as_str);
    let reconciled = status
        .and_then(|s| s.get("observedGeneration"))
        .and_then(Value::as_i64)
        == package.metadata.generation;
    let auto_rolled_back = conditions_of(package)
        .iter()
        .any(|c| c.type_ == "Ready" && c.reason == reason::ROLLED_BACK);
    match o {
        Outcome::Failed(_)
            if reconciled
                && auto_rolled_back
                && field("version").is_some()
                && field("version") == field("lastAttemptedVersion") =>
        {
            Outcome::Ready
        }
        o => o,
    }
}

/// What `package` runs now, to keep when the rollout gives it a new digest: its spec, the
/// digest it was given and the version it reports (`None`: no Package yet, or one that never
/// ran a version — there is nothing to go back to).
pub fn previous_of(package: &DynamicObject) -> Option<Previous> {
    let version = package
        .data
        .pointer("/status/version")?
        .as_str()?
        .to_string();
    Some(Previous {
        digest: package
            .annotations()
            .get(kubepkg_fleet::DIGEST_ANNOTATION)
            .cloned()
            .unwrap_or_default(),
        version,
        spec: package.data.get("spec")?.as_object()?.clone(),
    })
}

/// The package version the Packages given `digest` report (the one they last attempted).
pub fn version_of(packages: &[DynamicObject], digest: &str) -> Option<String> {
    packages
        .iter()
        .filter(|p| {
            p.annotations()
                .get(kubepkg_fleet::DIGEST_ANNOTATION)
                .map(String::as_str)
                == Some(digest)
        })
        .find_map(|p| {
            let s = p.data.get("status")?;
            s.get("lastAttemptedVersion")
                .or_else(|| s.get("version"))?
                .as_str()
                .map(str::to_string)
        })
}

/// The Package a rollout applies for `cluster`: owned by the rollout, labelled with both
/// names, with `annotations` and `spec`.
pub fn package_body(
    package: &str,
    namespace: &str,
    rollout: &str,
    cluster: &str,
    owner: &Value,
    annotations: Value,
    spec: &Value,
) -> Value {
    json!({
        "apiVersion": format!("{}/{}", kubepkg_package_object::GROUP, kubepkg_package_object::VERSION),
        "kind": kubepkg_package_object::KIND,
        "metadata": {
            "name": package,
            "namespace": namespace,
            "labels": {kubepkg_fleet::ROLLOUT_LABEL: rollout, kubepkg_fleet::CLUSTER_NAME_LABEL: cluster},
            "annotations": annotations,
            "ownerReferences": [owner],
        },
        "spec": spec,
    })
}
