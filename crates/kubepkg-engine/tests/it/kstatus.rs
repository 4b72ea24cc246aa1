//! The package conditions (`kubepkg_package::conditions`) read by kstatus: for every state a
//! package revision can be in, a `Package` object carrying the recorded conditions is judged by
//! the kstatus port of `kubepkg-kube` (the rules of sigs.k8s.io/cli-utils' kstatus, as Flux,
//! Argo CD and `kubectl wait` tools read custom resources) exactly as `kubepkg status` says.
//!
//! [`the_go_kstatus_library_reads_every_package_state_as_we_say`] then asks the real Go library
//! (`status.Compute` of sigs.k8s.io/cli-utils/pkg/kstatus, run by the test tooling's
//! `kpk-cluster kstatus`, see `kubepkg_testkit::kstatus`) about the same states, and about the
//! controller's, at equal and newer generations and while deleting: its status must be the one
//! docs/package-object.md#conditions documents, and our port must say the same status, reason
//! and message. No cluster is needed; the Go binary must be built (`testenv/build.sh`).

use kubepkg_kube::readiness::{self, Status};
use kubepkg_package::conditions::{self, Summary, reason};
use kubepkg_package::revision::{Condition, PackageRevision, RevisionStatus};
use kubepkg_testkit::kstatus as oracle;
use serde_json::{Value, json};

/// Revision 7 of kubevirt 1.4.0 (instance `kubevirt` in kubepkg-system) with `status`,
/// `reason` (by its name, as revisions store it; "" for none) and `description`, read as a
/// stored revision is: every other field at its default.
fn revision(status: RevisionStatus, reason: &str, description: &str) -> PackageRevision {
    let mut stored = json!({
        "name": "kubevirt",
        "namespace": "kubepkg-system",
        "revision": 7,
        "package": "kubevirt",
        "version": "1.4.0",
        "manifestDigest": "",
        "valuesDigest": "",
        "rollbackSafe": false,
        "components": [],
        "status": status,
        "description": description,
    });
    if !reason.is_empty() {
        stored["reason"] = reason.into();
    }
    serde_json::from_value(stored).expect("a stored revision")
}

/// What kstatus says about a `Package` whose status carries `conditions`.
fn kstatus(conditions: &[Condition]) -> readiness::Readiness {
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

/// One state a `Package` object's conditions can be in, and its kstatus category as documented
/// (docs/package-object.md#conditions; the controller's states: `conditions::stopped` is
/// Failed, `conditions::reconciling` InProgress).
struct State {
    name: &'static str,
    conditions: Vec<Condition>,
    documented: Status,
}

fn states() -> Vec<State> {
    use RevisionStatus::*;
    let now = "2026-11-30T00:00:00Z";
    let recorded = |status, reason: &str, description: &str| {
        conditions::compute(&revision(status, reason, description), &[], now)
    };
    let mut deployed = revision(Deployed, "Succeeded", "Install complete");
    deployed.conditions = conditions::compute(&deployed, &[], now);
    let state = |name, conditions, documented| State {
        name,
        conditions,
        documented,
    };
    vec![
        state(
            "waiting for requirements",
            recorded(
                PendingInstall,
                "RequirementsNotMet",
                "waiting for package cert-manager (not installed)",
            ),
            Status::InProgress,
        ),
        state(
            "progressing",
            recorded(
                PendingUpgrade,
                "",
                "Upgrade in progress: applying component kubevirt (2 of 3)",
            ),
            Status::InProgress,
        ),
        state(
            "rolling back",
            recorded(PendingRollback, "", "Rollback to 5"),
            Status::InProgress,
        ),
        state(
            "deployed",
            recorded(Deployed, "Succeeded", "Upgrade complete"),
            Status::Current,
        ),
        state(
            "rolled back",
            recorded(
                Deployed,
                "RolledBack",
                "component kubevirt failed: timed out; rolled back to revision 5",
            ),
            Status::Failed,
        ),
        state(
            "upgrade failed",
            recorded(
                Failed,
                "UpgradeFailed",
                "component kubevirt failed: timed out; fix forward",
            ),
            Status::Failed,
        ),
        state(
            "install failed",
            recorded(
                Failed,
                "InstallFailed",
                "component operator failed: timed out",
            ),
            Status::Failed,
        ),
        state(
            "uninstalling",
            recorded(Uninstalling, "", "Deletion in progress"),
            Status::InProgress,
        ),
        state(
            "uninstalled",
            // docs/package-object.md#conditions: Ready=False is InProgress for kstatus.
            recorded(Uninstalled, "", "Uninstallation complete"),
            Status::InProgress,
        ),
        state(
            "invalid package",
            conditions::invalid_package("kubepkg.yaml:3: bad SemVer", now),
            Status::Failed,
        ),
        state(
            "deployed, a component not ready",
            conditions::live(
                &deployed,
                Some("component kubevirt: KubeVirt kubevirt/kubevirt: Available is False"),
            ),
            Status::InProgress,
        ),
        state(
            "controller: source unavailable",
            conditions::stopped(
                reason::SOURCE_UNAVAILABLE,
                "ConfigMap kubepkg-system/kubevirt-archive not found: create it or fix spec.source",
                now,
            ),
            Status::Failed,
        ),
        state(
            "controller: requirements not met",
            conditions::reconciling(
                reason::REQUIREMENTS_NOT_MET,
                "waiting for package cert-manager (Ready is False)",
                now,
            ),
            Status::InProgress,
        ),
        state(
            "controller: applying",
            conditions::reconciling(
                reason::PROGRESSING,
                "applying kubevirt 1.4.0 from ConfigMap kubepkg-system/kubevirt-archive",
                now,
            ),
            Status::InProgress,
        ),
    ]
}

/// How the object around a state's conditions looks.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `status.observedGeneration` = `metadata.generation`: kstatus follows the conditions.
    Observed,
    /// No `status.observedGeneration` (a status written by the CLI): the conditions decide.
    NoObservedGeneration,
    /// `metadata.generation` > `status.observedGeneration`: an edit not acted on yet.
    NewerGeneration,
    /// `metadata.deletionTimestamp` set: the finalizer is uninstalling.
    Deleting,
}

fn package_object(conditions: &[Condition], shape: Shape) -> Value {
    let mut obj = json!({
        "apiVersion": "kubepkg.dev/v1alpha1",
        "kind": "Package",
        "metadata": {"name": "kubevirt", "namespace": "kubepkg-system", "generation": 3,
                     "finalizers": ["kubepkg.dev/uninstall"]},
        "spec": {"source": {"configMapRef": {"name": "kubevirt-archive"}}},
        "status": {"observedGeneration": 3, "revision": 7, "version": "1.4.0",
                   "conditions": serde_json::to_value(conditions).unwrap()},
    });
    match shape {
        Shape::Observed => {}
        Shape::NoObservedGeneration => {
            obj["status"]
                .as_object_mut()
                .unwrap()
                .remove("observedGeneration");
        }
        Shape::NewerGeneration => obj["metadata"]["generation"] = json!(4),
        Shape::Deleting => obj["metadata"]["deletionTimestamp"] = json!("2026-11-30T00:00:00Z"),
    }
    obj
}

/// Where kubepkg and the Go library disagree today, as the test below words each difference.
/// The test fails when this list is not exactly what it finds: a new difference is a bug to
/// fix, and fixing a listed one means removing its lines here.
const KNOWN_DIFFERENCES: &[&str] = &[];

#[test]
fn the_go_kstatus_library_reads_every_package_state_as_we_say() {
    let shapes = [
        Shape::Observed,
        Shape::NoObservedGeneration,
        Shape::NewerGeneration,
        Shape::Deleting,
    ];
    let states = states();
    let mut cases = Vec::new();
    for state in &states {
        for shape in shapes {
            cases.push((state, shape, package_object(&state.conditions, shape)));
        }
    }
    let objects: Vec<Value> = cases.iter().map(|(_, _, obj)| obj.clone()).collect();
    let go = oracle::classify(&objects).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(go.len(), cases.len());

    let mut differences = Vec::new();
    let mut differ = |what: String| {
        eprintln!("difference: {what}");
        differences.push(what);
    };
    for ((state, shape, obj), go) in cases.iter().zip(&go) {
        let name = format!("{} ({shape:?})", state.name);
        let expected = match shape {
            Shape::Observed | Shape::NoObservedGeneration => state.documented,
            Shape::NewerGeneration => Status::InProgress,
            Shape::Deleting => Status::Terminating,
        };
        if go.status.as_str() != expected.to_string() {
            differ(format!(
                "{name}: documented {expected}, Go kstatus says {} ({}: {})",
                go.status, go.reason, go.message
            ));
        }
        if let Shape::NewerGeneration = shape {
            assert_eq!(
                (go.reason.as_str(), go.message.as_str()),
                (
                    "LatestGenerationNotObserved",
                    "Package generation is 4, but latest observed generation is 3"
                ),
                "{name}"
            );
        }
        // Our port of kstatus.
        let port = readiness::compute(obj, jiff::Timestamp::now());
        let ours = (port.status.to_string(), &port.reason, &port.message);
        let theirs = (go.status.to_string(), &go.reason, &go.message);
        if ours != theirs {
            differ(format!(
                "{name}: kubepkg-kube's readiness says {ours:?}, Go kstatus {theirs:?}"
            ));
        }
        // `kubepkg status`'s summary of the conditions alone (it knows no generations).
        if let Shape::Observed | Shape::NoObservedGeneration = shape {
            let summary = conditions::summary(&state.conditions);
            if summary.as_str() != go.status.as_str() {
                differ(format!(
                    "{name}: conditions::summary says {}, Go kstatus {}",
                    summary.as_str(),
                    go.status
                ));
            }
        }
    }
    let known: Vec<&str> = KNOWN_DIFFERENCES.to_vec();
    assert_eq!(
        differences, known,
        "kubepkg and the Go kstatus library differ otherwise than KNOWN_DIFFERENCES says"
    );
}
