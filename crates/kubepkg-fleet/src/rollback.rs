//! `onFailure: Rollback` (docs/fleet.md#on-failure): once a cluster failed with the rollout's
//! digest, every cluster given that digest goes back to the Package spec it had before
//! ([`Previous`], kept on its Package) — all of them or none: each cluster's [`Verdict`] is the
//! package's own rollback policy in that cluster (`kubepkg_package::rollback_policy`, judged by
//! the controller from the cluster's revisions), and one cluster that may not go back stops
//! the whole rollback, naming the version that forbids it. A fleet half rolled back would run
//! a mix of versions nobody declared; halted at the new version, it is fixed forward.
//!
//! What is remembered is on the Packages themselves (the previous spec, and the digest a
//! cluster was rolled back from), so a controller that stops anywhere resumes the rollback
//! where it was, and a rolled-back cluster is never started again with that digest.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::view::{ClusterView, Outcome, Phase};

/// What a Package ran before the rollout gave it its digest (its
/// [`PREVIOUS_ANNOTATION`](crate::PREVIOUS_ANNOTATION)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Previous {
    /// The digest it was given then.
    pub digest: String,
    /// The package version it ran then (its status).
    pub version: String,
    /// Its spec then.
    pub spec: Map<String, Value>,
}

/// Whether a cluster may go back to its previous version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No version that ran since forbids it.
    Allowed,
    /// Forbidden, and by what ("2.0.0 (revision 2) declares rollback.safe: false").
    Forbidden(String),
    /// Not known yet (its revisions could not be read), and why.
    Unknown(String),
}

/// What the rollback does now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollbackDecision {
    /// Clusters whose Package gets its previous spec back now.
    pub roll_back: Vec<String>,
    pub phase: Phase,
    pub message: String,
}

impl RollbackDecision {
    /// No cluster rolled back now: the rollout is in `phase`, for the reason `message` says.
    fn hold(phase: Phase, message: String) -> RollbackDecision {
        RollbackDecision {
            roll_back: Vec::new(),
            phase,
            message,
        }
    }
}

fn has(c: &ClusterView, digest: &str) -> bool {
    c.given.as_deref() == Some(digest)
}

fn rolled_back(c: &ClusterView, digest: &str) -> bool {
    c.rolled_back_from.as_deref() == Some(digest)
}

/// Whether a cluster failed with `digest`, or a rollback from it is under way: the rollout
/// stops starting clusters either way.
pub fn triggered(digest: &str, clusters: &[ClusterView]) -> bool {
    clusters.iter().any(|c| {
        rolled_back(c, digest) || (has(c, digest) && matches!(c.outcome, Outcome::Failed(_)))
    })
}

/// The clusters whose [`Verdict`] the rollback needs: none unless [`triggered`]; then every
/// cluster given `digest` that has a previous spec.
pub fn needs_verdict<'a>(digest: &str, clusters: &'a [ClusterView]) -> Vec<&'a str> {
    if !triggered(digest, clusters) {
        return Vec::new();
    }
    clusters
        .iter()
        .filter(|c| has(c, digest) && c.previous)
        .map(|c| c.name.as_str())
        .collect()
}

/// The rollback's part of the decision (`None`: not [`triggered`]).
pub fn decide(
    digest: &str,
    clusters: &[ClusterView],
    verdicts: &BTreeMap<String, Verdict>,
) -> Option<RollbackDecision> {
    if !triggered(digest, clusters) {
        return None;
    }
    let mut sorted: Vec<&ClusterView> = clusters.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let cause = sorted
        .iter()
        .find_map(|c| match &c.outcome {
            Outcome::Failed(why) if has(c, digest) => {
                Some(format!("cluster {} failed: {why}", c.name))
            }
            _ => None,
        })
        .unwrap_or_else(|| "rolling back this version".to_string());
    let targets: Vec<&ClusterView> = sorted
        .iter()
        .copied()
        .filter(|c| has(c, digest) && c.previous)
        .collect();
    let kept: Vec<&str> = sorted
        .iter()
        .filter(|c| has(c, digest) && !c.previous)
        .map(|c| c.name.as_str())
        .collect();
    let kept_note = if kept.is_empty() {
        String::new()
    } else {
        format!(
            "; kept: {} (no version before this rollout)",
            kept.join(", ")
        )
    };
    let (mut forbidden, mut unknown) = (Vec::new(), Vec::new());
    for c in &targets {
        match verdicts.get(&c.name) {
            Some(Verdict::Allowed) => {}
            Some(Verdict::Forbidden(why)) => forbidden.push(format!("cluster {}: {why}", c.name)),
            Some(Verdict::Unknown(why)) => unknown.push(format!("{} ({why})", c.name)),
            None => unknown.push(c.name.clone()),
        }
    }
    if !forbidden.is_empty() {
        let forbidden = forbidden.join("; ");
        let message = format!(
            "{cause}; no cluster is rolled back, because not every one may go back ({forbidden}); fix forward with a new version"
        );
        return Some(RollbackDecision::hold(Phase::Halted, message));
    }
    if !unknown.is_empty() {
        let unknown = unknown.join(", ");
        let message = format!("{cause}; judging whether every cluster may go back: {unknown}");
        return Some(RollbackDecision::hold(Phase::RollingBack, message));
    }
    let back: Vec<&ClusterView> = sorted
        .iter()
        .copied()
        .filter(|c| rolled_back(c, digest))
        .collect();
    if let Some(c) = back
        .iter()
        .find(|c| matches!(c.outcome, Outcome::Failed(_)))
    {
        let why = match &c.outcome {
            Outcome::Failed(w) => w.as_str(),
            _ => "",
        };
        let message = format!("rolling cluster {} back failed: {why}", c.name);
        return Some(RollbackDecision::hold(Phase::Halted, message));
    }
    let roll_back: Vec<String> = targets.iter().map(|c| c.name.clone()).collect();
    let waiting: Vec<String> = back
        .iter()
        .filter(|c| c.outcome != Outcome::Ready)
        .map(|c| c.name.clone())
        .chain(roll_back.iter().map(|n| format!("{n} (starting)")))
        .collect();
    let done: Vec<&str> = back.iter().map(|c| c.name.as_str()).collect();
    let (phase, message) = if waiting.is_empty() {
        (
            Phase::RolledBack,
            format!(
                "rolled back to the version each ran before: {}{kept_note}",
                done.join(", ")
            ),
        )
    } else {
        (
            Phase::RollingBack,
            format!("{cause}; rolling back: {}{kept_note}", waiting.join(", ")),
        )
    };
    Some(RollbackDecision {
        roll_back,
        phase,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_halted_without_rollback, assert_mentions};

    fn view(name: &str, given: &str, outcome: Outcome, previous: bool) -> ClusterView {
        ClusterView {
            name: name.into(),
            labels: BTreeMap::new(),
            given: Some(given.into()),
            outcome,
            previous,
            rolled_back_from: None,
            conditions: BTreeMap::new(),
        }
    }

    fn verdicts(v: &[(&str, Verdict)]) -> BTreeMap<String, Verdict> {
        v.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    fn failed() -> Outcome {
        Outcome::Failed("UpgradeFailed: boom".into())
    }

    #[test]
    fn nothing_to_do_without_a_failure() {
        let cs = [
            view("a", "d2", Outcome::Ready, true),
            view("b", "d1", failed(), true),
        ];
        assert!(!triggered("d2", &cs));
        assert!(needs_verdict("d2", &cs).is_empty());
        assert_eq!(decide("d2", &cs, &BTreeMap::new()), None);
    }

    #[test]
    fn every_cluster_given_the_digest_goes_back_once_all_may() {
        let cs = [
            view("a", "d2", Outcome::Ready, true),
            view("b", "d2", failed(), true),
            view("c", "d1", Outcome::Ready, true),
            view("n", "d2", Outcome::Ready, false),
        ];
        assert_eq!(needs_verdict("d2", &cs), vec!["a", "b"]);
        // Not judged yet: nothing moves.
        let d = decide("d2", &cs, &verdicts(&[("a", Verdict::Allowed)])).unwrap();
        assert_eq!(d.phase, Phase::RollingBack);
        assert!(d.roll_back.is_empty());
        assert_mentions(&d.message, "judging");
        let d = decide(
            "d2",
            &cs,
            &verdicts(&[("a", Verdict::Allowed), ("b", Verdict::Allowed)]),
        )
        .unwrap();
        assert_eq!(d.roll_back, vec!["a", "b"]);
        assert_eq!(d.phase, Phase::RollingBack);
        assert!(d.message.contains("cluster b failed: UpgradeFailed: boom"));
        assert_mentions(&d.message, "kept: n");
    }

    #[test]
    fn one_cluster_that_may_not_go_back_stops_all_naming_the_version() {
        let cs = [
            view("a", "d2", Outcome::Ready, true),
            view("b", "d2", failed(), true),
        ];
        let d = decide(
            "d2",
            &cs,
            &verdicts(&[
                (
                    "a",
                    Verdict::Forbidden("2.0.0 (revision 3) declares rollback.safe: false".into()),
                ),
                ("b", Verdict::Allowed),
            ]),
        )
        .unwrap();
        assert_halted_without_rollback(
            d.phase,
            &d.roll_back,
            &d.message,
            "cluster a: 2.0.0 (revision 3) declares rollback.safe: false",
        );
    }

    #[test]
    fn a_rollback_under_way_resumes_and_ends_rolled_back() {
        let mut back = view("b", "d1", Outcome::InProgress("applying".into()), true);
        back.rolled_back_from = Some("d2".into());
        let cs = [view("a", "d2", Outcome::Ready, true), back.clone()];
        // Resumed after a restart: the one not rolled back yet is, once judged.
        let d = decide("d2", &cs, &verdicts(&[("a", Verdict::Allowed)])).unwrap();
        assert_eq!(d.roll_back, vec!["a"]);
        let mut a = view("a", "d1", Outcome::Ready, true);
        a.rolled_back_from = Some("d2".into());
        let d = decide("d2", &[a.clone(), back.clone()], &BTreeMap::new()).unwrap();
        assert_eq!(d.phase, Phase::RollingBack);
        assert!(d.roll_back.is_empty());
        back.outcome = Outcome::Ready;
        let d = decide("d2", &[a.clone(), back.clone()], &BTreeMap::new()).unwrap();
        assert_eq!(d.phase, Phase::RolledBack);
        assert_mentions(&d.message, "a, b");
        back.outcome = failed();
        let d = decide("d2", &[a, back], &BTreeMap::new()).unwrap();
        assert_eq!(d.phase, Phase::Halted);
        assert!(d.message.contains("rolling cluster b back failed"));
    }
}
