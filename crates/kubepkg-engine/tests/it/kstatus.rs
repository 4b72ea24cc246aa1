//! The package conditions (`kubepkg_package::conditions`) read by kstatus: for every state a
//! package revision can be in, a `Package` object carrying the recorded conditions is judged by
//! the kstatus port of `kubepkg-kube` (the rules of sigs.k8s.io/cli-utils' kstatus, as Flux,
//! Argo CD and `kubectl wait` tools read custom resources) exactly as `kubepkg status` says.
//! No cluster is needed.

use kubepkg_kube::readiness::{self, Status};
use kubepkg_package::conditions::{self, Summary};
use kubepkg_package::revision::{PackageRevision, RevisionStatus};
use serde_json::json;

fn revision(status: RevisionStatus, reason: &str, description: &str) -> PackageRevision {
    PackageRevision {
        name: "kubevirt".into(),
        namespace: "kubepkg-system".into(),
        revision: 7,
        package: "kubevirt".into(),
        version: "1.4.0".into(),
        manifest_digest: String::new(),
        values: Default::default(),
        values_digest: String::new(),
        value_sources: Vec::new(),
        rollback_safe: Some(false),
        components: vec![],
        status,
        description: description.into(),
        // Revisions store a reason by its name ("" for none).
        reason: serde_json::from_value(serde_json::Value::String(reason.into())).ok(),
        first_deployed: String::new(),
        last_deployed: String::new(),
        conditions: vec![],
        hooks_completed: Vec::new(),
    }
}

/// What kstatus says about a `Package` whose status carries `conditions`.
fn kstatus(conditions: &[conditions::Condition]) -> readiness::Readiness {
    let obj = json!({
        "apiVersion": "kubepkg.dev/v1alpha1",
        "kind": "Package",
        "metadata": {"name": "kubevirt", "namespace": "kubepkg-system", "generation": 3},
        "status": {"observedGeneration": 3, "revision": 7, "version": "1.4.0",
                   "conditions": serde_json::to_value(conditions).unwrap()},
    });
    readiness::compute(&obj, jiff::Timestamp::now())
}

#[test]
fn every_package_state_reads_the_same_in_kstatus() {
    use RevisionStatus::*;
    let cases = [
        (
            PendingInstall,
            "RequirementsNotMet",
            "waiting for package cert-manager (not installed)",
            Status::InProgress,
        ),
        (
            PendingUpgrade,
            "",
            "Upgrade in progress: applying component kubevirt (2 of 3)",
            Status::InProgress,
        ),
        (PendingRollback, "", "Rollback to 5", Status::InProgress),
        (Deployed, "Succeeded", "Upgrade complete", Status::Current),
        (
            Deployed,
            "RolledBack",
            "component kubevirt failed: timed out; rolled back to revision 5",
            Status::Failed,
        ),
        (
            Failed,
            "UpgradeFailed",
            "component kubevirt failed: timed out; fix forward",
            Status::Failed,
        ),
        (
            Failed,
            "InstallFailed",
            "component operator failed: timed out",
            Status::Failed,
        ),
        (Uninstalling, "", "Deletion in progress", Status::InProgress),
    ];
    for (status, reason, description, want) in cases {
        let rev = revision(status, reason, description);
        let recorded = conditions::compute(&rev, &[], "2026-11-30T00:00:00Z");
        let k = kstatus(&recorded);
        assert_eq!(k.status, want, "{status:?} {reason}: {k:?}");
        let ours = conditions::summary(&recorded);
        assert_eq!(
            ours.as_str(),
            format!("{:?}", k.status),
            "{status:?} {reason}"
        );
        if want != Status::Current {
            // kstatus reports our reason and message as its own.
            let expected = if reason.is_empty() {
                match status {
                    Uninstalling => "Uninstalling",
                    _ => "Progressing",
                }
            } else {
                reason
            };
            assert_eq!(k.reason, expected, "{status:?}");
            assert_eq!(k.message, description, "{status:?}");
        }
    }
    // A package that could not be read or validated.
    let k = kstatus(&conditions::invalid_package(
        "kubepkg.yaml:3: bad SemVer",
        "now",
    ));
    assert_eq!(
        (k.status, k.reason.as_str()),
        (Status::Failed, "InvalidPackage")
    );
    // Deployed, but a component is not ready now: status shows it InProgress, kstatus agrees.
    let mut rev = revision(Deployed, "Succeeded", "Install complete");
    rev.conditions = conditions::compute(&rev, &[], "t");
    let live = conditions::live(
        &rev,
        Some("component kubevirt: KubeVirt kubevirt/kubevirt: Available is False"),
    );
    assert_eq!(kstatus(&live).status, Status::InProgress);
    assert_eq!(conditions::summary(&live), Summary::InProgress);
}
