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
fn previous_of(package: &DynamicObject) -> Option<Previous> {
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

/// What a Package given a new digest keeps to go back to: what it runs now when it is Ready
/// with its spec (or back at its previous version after a rollback), else what it kept already
/// — a cluster still in progress or failed with an earlier digest did not run that one, so
/// going back means going to the last spec it ran.
pub fn keep_for_next(package: &DynamicObject) -> Option<Previous> {
    let rolled_back = package
        .annotations()
        .contains_key(kubepkg_fleet::ROLLED_BACK_ANNOTATION);
    let ran = if rolled_back {
        rolled_back_outcome(package)
    } else {
        outcome(package)
    };
    if ran == Outcome::Ready {
        previous_of(package)
    } else {
        previous(package)
    }
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
/// names (and the rollout's shard, so that the same controller reconciles it), with
/// `annotations` and `spec`.
pub fn package_body(
    package: &str,
    namespace: &str,
    (rollout, shard): (&str, Option<&str>),
    cluster: &str,
    owner: &Value,
    annotations: Value,
    spec: &Value,
) -> Value {
    let mut labels =
        json!({kubepkg_fleet::ROLLOUT_LABEL: rollout, kubepkg_fleet::CLUSTER_NAME_LABEL: cluster});
    if let Some(shard) = shard {
        labels[kubepkg_package_object::SHARD_LABEL] = json!(shard);
    }
    json!({
        "apiVersion": format!("{}/{}", kubepkg_package_object::GROUP, kubepkg_package_object::VERSION),
        "kind": kubepkg_package_object::KIND,
        "metadata": {
            "name": package,
            "namespace": namespace,
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": [owner],
        },
        "spec": spec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Package at `generation`, reconciled at `observed`, with a Ready condition of `reason`
    /// (`"True"` when it is `Succeeded`) and `version`/`lastAttemptedVersion`.
    fn package(
        generation: i64,
        observed: i64,
        reason: &str,
        versions: (&str, &str),
    ) -> DynamicObject {
        let status = if reason == "Succeeded" {
            "True"
        } else {
            "False"
        };
        serde_json::from_value(json!({
            "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package",
            "metadata": {"name": "shop-f1", "generation": generation,
                         "annotations": {kubepkg_fleet::DIGEST_ANNOTATION: "d1"}},
            "spec": {"source": {"configMapRef": {"name": "shop-1-0-0"}}},
            "status": {"observedGeneration": observed, "version": versions.0,
                       "lastAttemptedVersion": versions.1,
                       "conditions": [{"type": "Ready", "status": status, "reason": reason,
                                       "message": "m", "lastTransitionTime": ""}]},
        }))
        .unwrap()
    }

    #[test]
    fn a_package_stands_by_the_generation_it_reconciled() {
        let v = ("1.0.0", "1.0.0");
        assert_eq!(outcome(&package(2, 2, "Succeeded", v)), Outcome::Ready);
        assert_eq!(
            outcome(&package(3, 2, "Succeeded", v)),
            Outcome::InProgress("not reconciled yet".into())
        );
        assert_eq!(
            outcome(&package(2, 2, "UpgradeFailed", v)),
            Outcome::Failed("UpgradeFailed: m".into())
        );
        // An unreachable target is named, reconciled or not.
        assert_eq!(
            outcome(&package(3, 2, reason::TARGET_UNREACHABLE, v)),
            Outcome::InProgress("TargetUnreachable: m".into())
        );
    }

    #[test]
    fn a_rolled_back_package_is_back_once_it_runs_the_version_its_spec_gives() {
        // Its own automatic rollback left RolledBack at 1.0.0; the spec gives 1.0.0 again.
        let back = package(3, 3, reason::ROLLED_BACK, ("1.0.0", "1.0.0"));
        assert_eq!(rolled_back_outcome(&back), Outcome::Ready);
        assert!(matches!(outcome(&back), Outcome::Failed(_)));
        // Still on the failed attempt (2.0.0), or not reconciled yet: not back.
        let failed = package(3, 3, reason::ROLLED_BACK, ("1.0.0", "2.0.0"));
        assert!(matches!(rolled_back_outcome(&failed), Outcome::Failed(_)));
        let pending = package(4, 3, reason::ROLLED_BACK, ("1.0.0", "1.0.0"));
        assert!(matches!(
            rolled_back_outcome(&pending),
            Outcome::InProgress(_)
        ));
    }

    #[test]
    fn what_a_package_ran_is_kept_only_when_it_ran_a_version() {
        let p = package(2, 2, "Succeeded", ("1.0.0", "1.0.0"));
        let prev = previous_of(&p).unwrap();
        assert_eq!(
            (prev.digest.as_str(), prev.version.as_str()),
            ("d1", "1.0.0")
        );
        assert_eq!(
            prev.spec["source"],
            json!({"configMapRef": {"name": "shop-1-0-0"}})
        );
        let mut never = p.clone();
        never.data["status"]
            .as_object_mut()
            .unwrap()
            .remove("version");
        assert_eq!(previous_of(&never), None);
        // Kept as its annotation, it reads back.
        let mut kept = p;
        kept.metadata.annotations.get_or_insert_default().insert(
            kubepkg_fleet::PREVIOUS_ANNOTATION.into(),
            serde_json::to_string(&prev).unwrap(),
        );
        assert_eq!(previous(&kept), Some(prev.clone()));
        // Ready: what it runs now is kept for the next digest.
        assert_eq!(keep_for_next(&kept), Some(prev.clone()));
        // In progress or failed with its digest: what it kept already, not the spec it did
        // not run.
        let mut busy = kept.clone();
        busy.metadata.generation = Some(3);
        busy.data["spec"]["source"] = json!({"configMapRef": {"name": "shop-2-0-0"}});
        assert_eq!(keep_for_next(&busy), Some(prev.clone()));
        let mut unkept = busy.clone();
        unkept.metadata.annotations = None;
        assert_eq!(keep_for_next(&unkept), None);
        // Rolled back (by its own rollback, then given the previous spec again): what it runs.
        let mut back = package(3, 3, reason::ROLLED_BACK, ("1.0.0", "1.0.0"));
        back.metadata
            .annotations
            .get_or_insert_default()
            .insert(kubepkg_fleet::ROLLED_BACK_ANNOTATION.into(), "d2".into());
        assert_eq!(
            keep_for_next(&back).map(|p| p.version),
            Some("1.0.0".into())
        );
    }
}
