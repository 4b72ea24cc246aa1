//! Package status conditions (docs/package-object.md#conditions), kstatus-compatible.
//!
//! Every recorded package revision carries the conditions its state implies, in the shape of
//! Kubernetes' `metav1.Condition`, so `kubepkg status`, the `Package` object's status and any
//! kstatus reader (Flux, Argo CD, `kubectl wait`, cli-utils) agree on one summary:
//!
//! | revision | `Ready` | `Reconciling` | `Stalled` | kstatus |
//! |---|---|---|---|---|
//! | `pending-*` waiting for `requires` | False, `RequirementsNotMet` | True | – | InProgress |
//! | `pending-*` applying | False, `Progressing` | True | – | InProgress |
//! | `deployed`, `Succeeded` | True, `Succeeded` | – | – | Current |
//! | `deployed` after an automatic rollback | False, `RolledBack` | – | True | Failed |
//! | `failed` | False, `UpgradeFailed` / `InstallFailed` / `RolledBack` | – | True | Failed |
//! | `uninstalling` | False, `Uninstalling` | True | – | InProgress |
//!
//! kstatus reads abnormal-true conditions: `Reconciling` (kstatus' name for "Progressing")
//! means work is under way, `Stalled` that it stopped and needs a change (fix forward) to go
//! on. A condition's `lastTransitionTime` moves only when its status changes.

use serde::Serialize;

use crate::revision::{Condition, PackageRevision, Reason, RevisionStatus};

/// The reasons of docs/package-object.md#reasons.
pub mod reason {
    pub const SUCCEEDED: &str = "Succeeded";
    pub const PROGRESSING: &str = "Progressing";
    pub const REQUIREMENTS_NOT_MET: &str = "RequirementsNotMet";
    pub const UPGRADE_FAILED: &str = "UpgradeFailed";
    pub const ROLLED_BACK: &str = "RolledBack";
    pub const INSTALL_FAILED: &str = "InstallFailed";
    pub const INVALID_PACKAGE: &str = "InvalidPackage";
    /// The controller could not fetch the package's source (a URL, ConfigMap or Secret).
    pub const SOURCE_UNAVAILABLE: &str = "SourceUnavailable";
    /// `source.verify`: the artifact's cosign signature is missing or refused, or the keys are
    /// unusable; nothing was applied.
    pub const VERIFICATION_FAILED: &str = "VerificationFailed";
    /// Refused for lack of rights: the controller's tenancy rules (`--no-cross-namespace-refs`:
    /// a reference to another namespace), or the API server forbidding a request made for the
    /// Package outside a revision (reading its records, its Lease); nothing was applied.
    pub const ACCESS_DENIED: &str = "AccessDenied";
    /// `spec.kubeConfig` cannot be used: its Secret or key is missing, or the kubeconfig is
    /// not one kubepkg accepts; nothing was applied.
    pub const KUBE_CONFIG_INVALID: &str = "KubeConfigInvalid";
    /// The target cluster of `spec.kubeConfig` does not answer; retried.
    pub const TARGET_UNREACHABLE: &str = "TargetUnreachable";
    /// Live objects differ from what their release applied (`driftDetection.mode: warn`).
    pub const DRIFT_DETECTED: &str = "DriftDetected";
    /// Live objects match their releases again.
    pub const NO_DRIFT: &str = "NoDrift";
    pub const UNINSTALLING: &str = "Uninstalling";
    pub const UNINSTALLED: &str = "Uninstalled";
}

/// Condition types.
pub const READY: &str = "Ready";
/// kstatus' name for "Progressing".
pub const RECONCILING: &str = "Reconciling";
pub const STALLED: &str = "Stalled";
/// Live objects differ from their releases (the controller's drift detection).
pub const DRIFTED: &str = "Drifted";

/// kstatus' summary of a set of conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Summary {
    Current,
    InProgress,
    Failed,
    Unknown,
}

impl Summary {
    pub fn as_str(self) -> &'static str {
        match self {
            Summary::Current => "Current",
            Summary::InProgress => "InProgress",
            Summary::Failed => "Failed",
            Summary::Unknown => "Unknown",
        }
    }
}

/// kstatus' reading of a custom resource's conditions (sigs.k8s.io/cli-utils v0.37
/// `status.Compute`, checked against the Go library in the engine's kstatus test): an
/// abnormal-true `Stalled` is Failed, `Reconciling` is InProgress, then a `Ready` condition
/// decides (False or Unknown: InProgress, so an uninstalled package is InProgress), anything
/// else is Current. No conditions at all (a record written before conditions existed) is
/// Unknown here.
pub fn summary(conditions: &[Condition]) -> Summary {
    let is = |t: &str| conditions.iter().any(|c| c.type_ == t && c.is_true());
    let ready = conditions
        .iter()
        .find(|c| c.type_ == READY && matches!(c.status.as_str(), "True" | "False" | "Unknown"));
    if is(STALLED) {
        Summary::Failed
    } else if is(RECONCILING) {
        Summary::InProgress
    } else if conditions.is_empty() {
        Summary::Unknown
    } else if ready.is_some_and(|c| c.status != "True") {
        Summary::InProgress
    } else {
        Summary::Current
    }
}

/// Not ready for `reason`: `Ready=False` and the abnormal condition `abnormal` (`Reconciling`:
/// work under way, `Stalled`: stopped) True, both with `reason` and `message`, without times.
fn unready(abnormal: &str, reason: &str, message: &str) -> Vec<Condition> {
    vec![
        Condition::new(READY, false, reason, message),
        Condition::new(abnormal, true, reason, message),
    ]
}

/// What a revision's status and reason imply, without times.
pub fn implied(rev: &PackageRevision) -> Vec<Condition> {
    let message = rev.description.as_str();
    let reason_or = |fallback: &'static str| -> String {
        rev.reason.map_or(fallback, Reason::as_str).to_string()
    };
    match rev.status {
        RevisionStatus::PendingInstall
        | RevisionStatus::PendingUpgrade
        | RevisionStatus::PendingRollback => {
            let r = if rev.reason == Some(Reason::RequirementsNotMet) {
                reason::REQUIREMENTS_NOT_MET
            } else {
                reason::PROGRESSING
            };
            unready(RECONCILING, r, message)
        }
        RevisionStatus::Uninstalling => unready(RECONCILING, reason::UNINSTALLING, message),
        RevisionStatus::Deployed if rev.reason == Some(Reason::RolledBack) => {
            unready(STALLED, reason::ROLLED_BACK, message)
        }
        RevisionStatus::Deployed => vec![Condition::new(
            READY,
            true,
            reason::SUCCEEDED,
            if message.is_empty() {
                "deployed"
            } else {
                message
            },
        )],
        RevisionStatus::Failed => unready(STALLED, &reason_or(reason::UPGRADE_FAILED), message),
        RevisionStatus::Uninstalled => {
            vec![Condition::new(READY, false, reason::UNINSTALLED, message)]
        }
        // A superseded revision keeps the conditions it had; unknown says nothing.
        RevisionStatus::Superseded | RevisionStatus::Unknown => rev.conditions.clone(),
    }
}

/// The conditions to record for `rev` at `now`: [`implied`], each keeping the
/// `lastTransitionTime` of `before` when its status did not change.
pub fn compute(rev: &PackageRevision, before: &[Condition], now: &str) -> Vec<Condition> {
    if matches!(
        rev.status,
        RevisionStatus::Superseded | RevisionStatus::Unknown
    ) {
        return rev.conditions.clone();
    }
    implied(rev)
        .into_iter()
        .map(|mut c| {
            c.last_transition_time = before
                .iter()
                .find(|b| b.type_ == c.type_ && b.status == c.status)
                .map_or_else(|| now.to_string(), |b| b.last_transition_time.clone());
            c
        })
        .collect()
}

/// The conditions of a package that could not be read or validated (no revision is recorded
/// for it; the controller puts these on the `Package` object).
pub fn invalid_package(message: &str, now: &str) -> Vec<Condition> {
    stopped(reason::INVALID_PACKAGE, message, now)
}

/// A package stopped before anything was applied (its spec, source, values or archive need a
/// change): `Ready=False` and `Stalled=True` with `reason` (kstatus: Failed).
pub fn stopped(reason: &str, message: &str, now: &str) -> Vec<Condition> {
    stamped(unready(STALLED, reason, message), now)
}

/// Done and ready: `Ready=True` with `reason` (kstatus: Current), for objects whose state
/// is not a package revision's (a fleet rollout whose every stage is done).
pub fn ready(reason: &str, message: &str, now: &str) -> Vec<Condition> {
    stamped(vec![Condition::new(READY, true, reason, message)], now)
}

/// Work under way, or waiting for something that will come by itself (requirements, the
/// package lease): `Ready=False` and `Reconciling=True` with `reason` (kstatus: InProgress).
pub fn reconciling(reason: &str, message: &str, now: &str) -> Vec<Condition> {
    stamped(unready(RECONCILING, reason, message), now)
}

/// The controller's `Drifted` condition (`driftDetection.mode: warn`; kstatus does not read
/// it): True with reason `DriftDetected` naming the objects, False with `NoDrift`.
pub fn drifted(drifted: bool, message: &str, now: &str) -> Condition {
    let why = if drifted {
        reason::DRIFT_DETECTED
    } else {
        reason::NO_DRIFT
    };
    let mut c = Condition::new(DRIFTED, drifted, why, message);
    c.last_transition_time = now.to_string();
    c
}

fn stamped(mut conditions: Vec<Condition>, now: &str) -> Vec<Condition> {
    for c in &mut conditions {
        c.last_transition_time = now.to_string();
    }
    conditions
}

/// A revision's conditions as `kubepkg status` shows them: the recorded ones (or, for a
/// revision recorded before conditions existed, the implied ones), and, when the record says
/// Ready but a component is not ready now, `Ready=False`/`Reconciling=True` naming what it
/// waits for (kstatus looks at the live state, not only at what was recorded).
pub fn live(rev: &PackageRevision, not_ready: Option<&str>) -> Vec<Condition> {
    let mut out = if rev.conditions.is_empty() {
        implied(rev)
    } else {
        rev.conditions.clone()
    };
    let ready_now = out.iter().any(|c| c.type_ == READY && c.is_true());
    if let (true, Some(what)) = (ready_now, not_ready) {
        out = unready(RECONCILING, reason::PROGRESSING, what);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(status: RevisionStatus, reason: Option<Reason>) -> PackageRevision {
        PackageRevision {
            name: "p".into(),
            namespace: "ns".into(),
            revision: 2,
            package: "p".into(),
            version: "1.0.0".into(),
            status,
            description: "d".into(),
            reason,
            ..Default::default()
        }
    }

    fn brief(cs: &[Condition]) -> Vec<(String, String, String)> {
        cs.iter()
            .map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone()))
            .collect()
    }

    fn t(a: &str, b: &str, c: &str) -> (String, String, String) {
        (a.into(), b.into(), c.into())
    }

    /// `Ready=False` and `abnormal=True`, both for `reason`, as [`brief`] shows them.
    fn not_ready_brief(abnormal: &str, reason: &str) -> Vec<(String, String, String)> {
        vec![t("Ready", "False", reason), t(abnormal, "True", reason)]
    }

    #[test]
    fn each_state_maps_to_the_kstatus_conditions() {
        use RevisionStatus::*;
        let cases = [
            (
                PendingUpgrade,
                "RequirementsNotMet",
                not_ready_brief("Reconciling", "RequirementsNotMet"),
                Summary::InProgress,
            ),
            (
                PendingInstall,
                "",
                not_ready_brief("Reconciling", "Progressing"),
                Summary::InProgress,
            ),
            (
                Deployed,
                "Succeeded",
                vec![t("Ready", "True", "Succeeded")],
                Summary::Current,
            ),
            (
                Deployed,
                "RolledBack",
                not_ready_brief("Stalled", "RolledBack"),
                Summary::Failed,
            ),
            (
                Failed,
                "UpgradeFailed",
                not_ready_brief("Stalled", "UpgradeFailed"),
                Summary::Failed,
            ),
            (
                Failed,
                "InstallFailed",
                not_ready_brief("Stalled", "InstallFailed"),
                Summary::Failed,
            ),
        ];
        for (status, reason, want, sum) in cases {
            // Revisions store a reason by its name.
            let reason = serde_json::from_value(serde_json::Value::String(reason.into())).ok();
            let got = compute(&rev(status, reason), &[], "2026-01-01T00:00:00Z");
            assert_eq!(brief(&got), want, "{status:?} {reason:?}");
            assert_eq!(summary(&got), sum, "{status:?} {reason:?}");
            assert!(
                got.iter()
                    .all(|c| c.message == "d" && c.last_transition_time == "2026-01-01T00:00:00Z")
            );
        }
        let invalid = invalid_package("bad", "now");
        assert_eq!(
            brief(&invalid),
            not_ready_brief("Stalled", "InvalidPackage")
        );
    }

    #[test]
    fn transition_time_moves_only_when_the_status_changes() {
        let waiting = compute(
            &rev(
                RevisionStatus::PendingUpgrade,
                Some(Reason::RequirementsNotMet),
            ),
            &[],
            "t1",
        );
        // Still not ready (now applying): Ready stays False since t1.
        let applying = compute(&rev(RevisionStatus::PendingUpgrade, None), &waiting, "t2");
        assert_eq!(applying[0].last_transition_time, "t1");
        assert_eq!(applying[0].reason, "Progressing");
        let done = compute(
            &rev(RevisionStatus::Deployed, Some(Reason::Succeeded)),
            &applying,
            "t3",
        );
        assert_eq!(done[0].last_transition_time, "t3");
        assert_eq!(done.len(), 1, "Reconciling is dropped once done");
    }

    #[test]
    fn live_view_reports_a_deployed_package_whose_component_is_not_ready() {
        let mut r = rev(RevisionStatus::Deployed, Some(Reason::Succeeded));
        r.conditions = compute(&r, &[], "t");
        let c = live(&r, Some("component a: Deployment ns/a: InProgress"));
        assert_eq!(summary(&c), Summary::InProgress);
        assert_eq!(c[0].message, "component a: Deployment ns/a: InProgress");
        assert_eq!(summary(&live(&r, None)), Summary::Current);
        // A failed revision stays failed whatever its components do.
        let f = rev(RevisionStatus::Failed, Some(Reason::UpgradeFailed));
        assert_eq!(summary(&live(&f, Some("x"))), Summary::Failed);
    }
}
