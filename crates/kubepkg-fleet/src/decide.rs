//! What a rollout does next, decided from what the clusters show — nothing else is
//! remembered between reconciles but each stage's `readyAt` (for its bake time), so a
//! controller that stops anywhere resumes exactly: a cluster is started by giving its Package
//! the rollout's digest, and a cluster whose Package has it is never started again.
//!
//! The rules (docs/fleet.md#how-a-rollout-proceeds):
//! 1. each selected cluster belongs to the first stage whose selector matches it;
//! 2. a failed cluster (its Package, given this digest, failed) halts the rollout: no cluster
//!    starts any more;
//! 3. stages run in order; a stage is done when all its clusters are Ready with this digest,
//!    and the next starts only after its bake time has passed since it was done;
//! 4. a `Manual` stage starts only once approved for this digest (or once any of its clusters
//!    has it, approved before a restart);
//! 5. within a stage, clusters start in name order while fewer than `maxConcurrent` are in
//!    progress; a paused rollout starts none; with `supersede: Wait`, none starts while a
//!    cluster is in progress with an earlier digest;
//! 6. with `onFailure: Rollback`, a failure rolls back every cluster given this digest
//!    ([`crate::rollback`]); a cluster rolled back from this digest is never started again;
//! 7. an aborted rollout changes no cluster any more.

use std::collections::{BTreeMap, BTreeSet};

use crate::rollback::{self, Verdict};
use crate::spec::{Approval, OnFailure, StagePlan, Supersede};
pub use crate::view::{ClusterView, Outcome, Phase, StageState};

/// One stage as decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageDecision {
    pub name: String,
    pub state: StageState,
    /// Its clusters, by name.
    pub clusters: Vec<String>,
    /// When all its clusters were first seen Ready with this digest (Unix seconds).
    pub ready_at: Option<i64>,
}

/// What to do now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Clusters whose Package gets the digest now.
    pub start: Vec<String>,
    /// Clusters whose Package gets its previous spec back now (`onFailure: Rollback`).
    pub roll_back: Vec<String>,
    pub stages: Vec<StageDecision>,
    pub phase: Phase,
    /// What the rollout waits for, for a person.
    pub message: String,
    /// Selected clusters no stage takes (they are not rolled).
    pub unstaged: Vec<String>,
    /// When to look again without any change (a bake ending), in seconds from now.
    pub requeue_after: Option<u64>,
}

/// The inputs of [`decide`].
pub struct Inputs<'a> {
    pub stages: &'a [StagePlan],
    pub digest: &'a str,
    /// The selected clusters.
    pub clusters: &'a [ClusterView],
    /// Each stage's recorded `readyAt` (Unix seconds), by name.
    pub ready_at: &'a BTreeMap<String, i64>,
    /// Stages approved for this digest.
    pub approved: &'a BTreeSet<String>,
    pub paused: bool,
    pub on_failure: OnFailure,
    pub supersede: Supersede,
    /// Whether each cluster may go back to its previous version, for those
    /// [`rollback::needs_verdict`] names.
    pub verdicts: &'a BTreeMap<String, Verdict>,
    /// Aborted for this digest.
    pub aborted: bool,
    /// Unix seconds.
    pub now: i64,
}

/// The stage a cluster with `labels` belongs to: the first whose selector matches them (a stage
/// without one takes every cluster); `None`: no stage takes it (rule 1).
pub fn stage_of(
    stages: &[crate::spec::StagePlan],
    labels: &std::collections::BTreeMap<String, String>,
) -> Option<usize> {
    stages
        .iter()
        .position(|s| s.selector.as_ref().is_none_or(|sel| sel.matches(labels)))
}

/// Decides what the rollout does next (the module's rules).
pub fn decide(i: &Inputs<'_>) -> Decision {
    let mut members: Vec<Vec<&ClusterView>> = vec![Vec::new(); i.stages.len()];
    let mut unstaged = Vec::new();
    let mut sorted: Vec<&ClusterView> = i.clusters.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for c in sorted {
        match stage_of(i.stages, &c.labels) {
            Some(at) => members[at].push(c),
            None => unstaged.push(c.name.clone()),
        }
    }
    let has = |c: &ClusterView| c.given.as_deref() == Some(i.digest);
    let back = |c: &ClusterView| c.rolled_back_from.as_deref() == Some(i.digest);
    // Why a cluster counts as failed with this digest.
    let failure = |c: &ClusterView| -> Option<String> {
        match &c.outcome {
            Outcome::Failed(m) if has(c) => Some(m.clone()),
            _ if back(c) => Some("rolled back from this version".into()),
            _ => None,
        }
    };
    let failed: Vec<(&str, String)> = i
        .clusters
        .iter()
        .filter_map(|c| failure(c).map(|m| (c.name.as_str(), m)))
        .collect();
    let mut stages: Vec<StageDecision> = i
        .stages
        .iter()
        .zip(&members)
        .map(|(s, m)| StageDecision {
            name: s.name.clone(),
            state: StageState::Waiting,
            clusters: m.iter().map(|c| c.name.clone()).collect(),
            ready_at: None,
        })
        .collect();
    let mut start = Vec::new();
    let mut requeue_after = None;
    let mut outcome: Option<(Phase, String)> = None;
    for (at, (plan, m)) in i.stages.iter().zip(&members).enumerate() {
        if m.is_empty() {
            stages[at].state = StageState::Done;
            continue;
        }
        let all_ready = m.iter().all(|c| has(c) && c.outcome == Outcome::Ready);
        let unmet: Vec<String> = plan
            .gates
            .iter()
            .filter(|_| all_ready)
            .flat_map(|g| {
                m.iter()
                    .filter(|c| c.conditions.get(&g.condition) != Some(&g.status))
                    .map(move |c| format!("{}={} in {}", g.condition, g.status, c.name))
            })
            .collect();
        if all_ready && !unmet.is_empty() {
            stages[at].state = StageState::Progressing;
            outcome = Some((
                Phase::Progressing,
                format!(
                    "stage {} is Ready; waiting for its gates: {}",
                    plan.name,
                    unmet.join(", ")
                ),
            ));
            break;
        }
        if all_ready {
            let since = i.ready_at.get(&plan.name).copied().unwrap_or(i.now);
            stages[at].ready_at = Some(since);
            let until =
                since.saturating_add(i64::try_from(plan.bake.as_secs()).unwrap_or(i64::MAX));
            if i.now < until {
                stages[at].state = StageState::Baking;
                let left = u64::try_from(until - i.now).unwrap_or(0);
                requeue_after = Some(left);
                outcome = Some((
                    Phase::Baking,
                    format!("stage {} is Ready; baking for {left}s more", plan.name),
                ));
                break;
            }
            stages[at].state = StageState::Done;
            continue;
        }
        if let Some((f, why)) = m.iter().find_map(|c| failure(c).map(|w| (c, w))) {
            stages[at].state = StageState::Failed;
            outcome = Some((
                Phase::Halted,
                format!(
                    "cluster {} of stage {} failed: {why}; no further cluster starts",
                    f.name, plan.name
                ),
            ));
            break;
        }
        let begun = m.iter().any(|c| has(c));
        if plan.approval == Approval::Manual && !begun && !i.approved.contains(&plan.name) {
            stages[at].state = StageState::AwaitingApproval;
            outcome = Some((
                Phase::AwaitingApproval,
                format!(
                    "stage {} waits for approval (kubepkg rollout promote)",
                    plan.name
                ),
            ));
            break;
        }
        stages[at].state = StageState::Progressing;
        let in_progress: Vec<&&ClusterView> = m
            .iter()
            .filter(|c| has(c) && matches!(c.outcome, Outcome::InProgress(_)))
            .collect();
        if !failed.is_empty() {
            // A failure elsewhere (a cluster moved to another stage since) halts too.
            let (name, why) = &failed[0];
            outcome = Some((
                Phase::Halted,
                format!("cluster {name} failed: {why}; no further cluster starts"),
            ));
            break;
        }
        if i.paused {
            outcome = Some((Phase::Paused, format!("paused in stage {}", plan.name)));
            break;
        }
        let earlier: Vec<String> = i
            .clusters
            .iter()
            .filter(|c| c.given.is_some() && !has(c))
            .filter_map(|c| match &c.outcome {
                Outcome::InProgress(_) => Some(c.name.clone()),
                _ => None,
            })
            .collect();
        if i.supersede == Supersede::Wait && !earlier.is_empty() {
            outcome = Some((
                Phase::Progressing,
                format!(
                    "stage {}: waiting for clusters in progress with an earlier version to finish first (supersede: Wait): {}",
                    plan.name,
                    earlier.join(", ")
                ),
            ));
            break;
        }
        let slots = plan
            .max_concurrent
            .of(m.len())
            .saturating_sub(in_progress.len());
        start.extend(
            m.iter()
                .filter(|c| !has(c))
                .take(slots)
                .map(|c| c.name.clone()),
        );
        let waiting: Vec<String> = in_progress
            .iter()
            .map(|c| match &c.outcome {
                Outcome::InProgress(w) if !w.is_empty() => format!("{} ({w})", c.name),
                _ => c.name.clone(),
            })
            .chain(start.iter().map(|n| format!("{n} (starting)")))
            .collect();
        outcome = Some((
            Phase::Progressing,
            format!("stage {}: waiting for {}", plan.name, waiting.join(", ")),
        ));
        break;
    }
    let (mut phase, mut message) = outcome.unwrap_or_else(|| {
        (
            Phase::Succeeded,
            format!(
                "every stage is done ({} clusters)",
                i.clusters.len() - unstaged.len()
            ),
        )
    });
    let mut roll_back = Vec::new();
    if i.on_failure == OnFailure::Rollback
        && let Some(r) = rollback::decide(i.digest, i.clusters, i.verdicts)
    {
        start.clear();
        requeue_after = None;
        (phase, message, roll_back) = (r.phase, r.message, r.roll_back);
    }
    if i.aborted && !matches!(phase, Phase::Succeeded | Phase::RolledBack) {
        let busy: Vec<&str> = i
            .clusters
            .iter()
            .filter(|c| has(c) && matches!(c.outcome, Outcome::InProgress(_)))
            .map(|c| c.name.as_str())
            .collect();
        message = if busy.is_empty() {
            "aborted: no cluster changes any more".to_string()
        } else {
            format!(
                "aborted: no cluster changes any more; in progress, finishing on their own: {}",
                busy.join(", ")
            )
        };
        phase = Phase::Aborted;
        start.clear();
        roll_back.clear();
        requeue_after = None;
    }
    Decision {
        start,
        roll_back,
        stages,
        phase,
        message,
        unstaged,
        requeue_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::RolloutSpec;
    use crate::test_support::{assert_halted_without_rollback, assert_mentions};
    use serde_json::json;

    /// Stages: canary (label stage=canary, 1 at a time, manual approval of the next),
    /// second (stage=second, 1 at a time, baked 60s), rest (all at once).
    fn plans() -> Vec<StagePlan> {
        let s: RolloutSpec = serde_json::from_value(json!({
            "package": {"source": {"path": "."}},
            "stages": [
                {"name": "canary", "selector": {"matchLabels": {"stage": "canary"}}, "maxConcurrent": 1, "bake": "60s"},
                {"name": "second", "selector": {"matchLabels": {"stage": "second"}}, "maxConcurrent": 1, "approval": "Manual"},
                {"name": "rest"}]
        }))
        .unwrap();
        s.check().unwrap()
    }

    fn cluster(name: &str, stage: &str, given: Option<&str>, outcome: Outcome) -> ClusterView {
        ClusterView {
            name: name.into(),
            labels: [("stage".to_string(), stage.to_string())]
                .into_iter()
                .collect(),
            given: given.map(Into::into),
            outcome,
            previous: given.is_some(),
            rolled_back_from: None,
            conditions: BTreeMap::new(),
        }
    }

    static NOTHING_READY: BTreeMap<String, i64> = BTreeMap::new();
    static NOTHING_APPROVED: BTreeSet<String> = BTreeSet::new();
    static NO_VERDICTS: BTreeMap<String, Verdict> = BTreeMap::new();

    /// The inputs of a decision on `clusters` in `stages` for digest d2 at `now`: no stage ready
    /// or approved yet, not paused, halting on a failure, replacing older digests, no verdicts.
    fn inputs<'a>(stages: &'a [StagePlan], clusters: &'a [ClusterView], now: i64) -> Inputs<'a> {
        Inputs {
            stages,
            digest: "d2",
            clusters,
            ready_at: &NOTHING_READY,
            approved: &NOTHING_APPROVED,
            paused: false,
            on_failure: OnFailure::Halt,
            supersede: Supersede::Replace,
            verdicts: &NO_VERDICTS,
            aborted: false,
            now,
        }
    }

    fn run(
        clusters: &[ClusterView],
        ready_at: &[(&str, i64)],
        approved: &[&str],
        now: i64,
    ) -> Decision {
        let plans = plans();
        let ready_at = ready_at.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let approved = approved.iter().map(|s| s.to_string()).collect();
        decide(&Inputs {
            ready_at: &ready_at,
            approved: &approved,
            ..inputs(&plans, clusters, now)
        })
    }

    fn fleet(
        c1: (Option<&str>, Outcome),
        s: [(Option<&str>, Outcome); 2],
        r: [(Option<&str>, Outcome); 2],
    ) -> Vec<ClusterView> {
        vec![
            cluster("c1", "canary", c1.0, c1.1),
            cluster("s1", "second", s[0].0, s[0].1.clone()),
            cluster("s2", "second", s[1].0, s[1].1.clone()),
            cluster("r1", "rest", r[0].0, r[0].1.clone()),
            cluster("r2", "rest", r[1].0, r[1].1.clone()),
        ]
    }

    const OLD: (Option<&str>, Outcome) = (Some("d1"), Outcome::Ready);

    /// The fleet with the canary `c1` as given and every other cluster at the old digest.
    fn canary(c1: (Option<&str>, Outcome)) -> Vec<ClusterView> {
        fleet(c1, [OLD, OLD], [OLD, OLD])
    }

    #[test]
    fn the_canary_starts_first_and_alone() {
        let d = run(&canary(OLD), &[], &[], 1000);
        assert_eq!(d.start, vec!["c1"]);
        assert_eq!(d.phase, Phase::Progressing);
        assert_eq!(d.stages[1].state, StageState::Waiting);
        // Started (given the digest) but not Ready yet: nothing more starts.
        let busy = (Some("d2"), Outcome::InProgress("app".into()));
        let d = run(&canary(busy), &[], &[], 1000);
        assert!(d.start.is_empty());
        assert_mentions(&d.message, "c1 (app)");
    }

    #[test]
    fn the_next_stage_waits_for_the_bake_then_for_approval() {
        let ready = (Some("d2"), Outcome::Ready);
        let d = run(&canary(ready.clone()), &[("canary", 1000)], &[], 1030);
        assert_eq!(d.phase, Phase::Baking);
        assert_eq!(d.requeue_after, Some(30));
        assert!(d.start.is_empty());
        // First seen Ready now: the bake counts from now (never shorter after a restart).
        let d = run(&canary(ready.clone()), &[], &[], 1030);
        assert_eq!(d.stages[0].ready_at, Some(1030));
        assert_eq!(d.phase, Phase::Baking);
        let d = run(&canary(ready.clone()), &[("canary", 1000)], &[], 1060);
        assert_eq!(d.phase, Phase::AwaitingApproval);
        assert!(d.start.is_empty());
        let d = run(&canary(ready), &[("canary", 1000)], &["second"], 1060);
        assert_eq!(d.start, vec!["s1"]);
    }

    #[test]
    fn max_concurrent_and_the_last_stage_all_at_once() {
        let ready = (Some("d2"), Outcome::Ready);
        let busy = (Some("d2"), Outcome::InProgress(String::new()));
        let d = run(
            &fleet(ready.clone(), [ready.clone(), busy], [OLD, OLD]),
            &[("canary", 0)],
            &["second"],
            1000,
        );
        assert!(d.start.is_empty(), "{:?}", d.start);
        let d = run(
            &fleet(ready.clone(), [ready.clone(), ready.clone()], [OLD, OLD]),
            &[("canary", 0)],
            &["second"],
            1000,
        );
        assert_eq!(d.start, vec!["r1", "r2"]);
        let d = run(
            &fleet(
                ready.clone(),
                [ready.clone(), ready.clone()],
                [ready.clone(), ready],
            ),
            &[("canary", 0)],
            &[],
            1000,
        );
        assert_eq!(d.phase, Phase::Succeeded);
        assert!(d.stages.iter().all(|s| s.state == StageState::Done));
    }

    #[test]
    fn a_failure_halts_everything_after_it() {
        let failed = (Some("d2"), Outcome::Failed("component app: refused".into()));
        let d = run(&canary(failed), &[], &["second"], 1000);
        assert_eq!(d.phase, Phase::Halted);
        assert!(d.start.is_empty());
        assert_eq!(d.stages[0].state, StageState::Failed);
        assert_mentions(
            &d.message,
            "cluster c1 of stage canary failed: component app: refused",
        );
        // An old failure (another digest) does not halt the new rollout.
        let old_failure = (Some("d1"), Outcome::Failed("old".into()));
        let d = run(&canary(old_failure), &[], &[], 1000);
        assert_eq!(d.start, vec!["c1"]);
    }

    #[test]
    fn a_cluster_in_no_stage_is_reported_and_paused_starts_nothing() {
        let plans = vec![plans().remove(0)];
        let clusters = canary(OLD);
        let d = decide(&Inputs {
            paused: true,
            ..inputs(&plans, &clusters, 0)
        });
        assert_eq!(d.unstaged, vec!["r1", "r2", "s1", "s2"]);
        assert_eq!(d.phase, Phase::Paused);
        assert!(d.start.is_empty());
    }

    /// `run` with the policies given.
    fn run_with(
        clusters: &[ClusterView],
        approved: &[&str],
        on_failure: OnFailure,
        supersede: Supersede,
        verdicts: &[(&str, Verdict)],
        aborted: bool,
    ) -> Decision {
        let plans = plans();
        let approved = approved.iter().map(|s| s.to_string()).collect();
        let verdicts = verdicts
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        decide(&Inputs {
            ready_at: &[("canary".to_string(), 0)].into_iter().collect(),
            approved: &approved,
            on_failure,
            supersede,
            verdicts: &verdicts,
            aborted,
            ..inputs(&plans, clusters, 1000)
        })
    }

    #[test]
    fn supersede_wait_lets_clusters_in_progress_with_an_earlier_digest_finish_first() {
        let ready = (Some("d2"), Outcome::Ready);
        let old_busy = (Some("d1"), Outcome::InProgress("app".into()));
        let cs = fleet(ready.clone(), [old_busy.clone(), OLD], [OLD, OLD]);
        let rollout =
            |supersede| run_with(&cs, &["second"], OnFailure::Halt, supersede, &[], false);
        // Replace (the default): s1 is given the new digest at once.
        let d = rollout(Supersede::Replace);
        assert_eq!(d.start, vec!["s1"]);
        // Wait: nothing starts until s1 has finished with d1.
        let d = rollout(Supersede::Wait);
        assert!(d.start.is_empty(), "{:?}", d.start);
        assert_eq!(d.phase, Phase::Progressing);
        assert!(d.message.contains("supersede: Wait): s1"), "{}", d.message);
        // Even a cluster of a later stage in progress with d1 holds the canary back.
        let cs = fleet(OLD, [OLD, OLD], [old_busy, OLD]);
        let d = run_with(&cs, &[], OnFailure::Halt, Supersede::Wait, &[], false);
        assert!(d.start.is_empty());
        // Finished (Ready or failed with d1): the new digest starts.
        let cs = fleet(
            OLD,
            [OLD, OLD],
            [(Some("d1"), Outcome::Failed("x".into())), OLD],
        );
        let d = run_with(&cs, &[], OnFailure::Halt, Supersede::Wait, &[], false);
        assert_eq!(d.start, vec!["c1"]);
    }

    #[test]
    fn on_failure_rollback_rolls_back_every_cluster_given_the_digest_when_all_may() {
        let ready = (Some("d2"), Outcome::Ready);
        let failed = (Some("d2"), Outcome::Failed("UpgradeFailed: refused".into()));
        let cs = fleet(ready, [failed, OLD], [OLD, OLD]);
        let allowed = [("c1", Verdict::Allowed), ("s1", Verdict::Allowed)];
        let rollout = |on_failure, verdicts: &[(&str, Verdict)]| {
            run_with(
                &cs,
                &["second"],
                on_failure,
                Supersede::Replace,
                verdicts,
                false,
            )
        };
        // Halt: nothing rolled back.
        let d = rollout(OnFailure::Halt, &allowed);
        assert_eq!(d.phase, Phase::Halted);
        assert!(d.roll_back.is_empty());
        let d = rollout(OnFailure::Rollback, &allowed);
        assert_eq!(d.phase, Phase::RollingBack);
        assert_eq!(d.roll_back, vec!["c1", "s1"]);
        assert!(d.start.is_empty());
        let forbidden = [
            (
                "c1",
                Verdict::Forbidden("2.0.0 (revision 2) declares rollback.safe: false".into()),
            ),
            ("s1", Verdict::Allowed),
        ];
        let d = rollout(OnFailure::Rollback, &forbidden);
        assert_halted_without_rollback(
            d.phase,
            &d.roll_back,
            &d.message,
            "cluster c1: 2.0.0 (revision 2) declares rollback.safe: false",
        );
    }

    #[test]
    fn a_cluster_rolled_back_from_the_digest_is_never_started_again() {
        let mut cs = canary(OLD);
        cs[0].rolled_back_from = Some("d2".into());
        let rollout = |on_failure| run_with(&cs, &[], on_failure, Supersede::Replace, &[], false);
        // Even under Halt (the policy changed after the rollback): halted, c1 not restarted.
        let d = rollout(OnFailure::Halt);
        assert_eq!(d.phase, Phase::Halted);
        assert!(d.start.is_empty());
        assert_mentions(&d.message, "rolled back from this version");
        let d = rollout(OnFailure::Rollback);
        assert_eq!(d.phase, Phase::RolledBack);
        assert!(d.start.is_empty());
    }

    #[test]
    fn an_aborted_rollout_changes_no_cluster() {
        let busy = (Some("d2"), Outcome::InProgress("app".into()));
        let ready = (Some("d2"), Outcome::Ready);
        let cs = fleet(ready.clone(), [busy, OLD], [OLD, OLD]);
        let d = run_with(
            &cs,
            &["second"],
            OnFailure::Halt,
            Supersede::Replace,
            &[],
            true,
        );
        assert_eq!(d.phase, Phase::Aborted);
        assert!(d.start.is_empty());
        assert_mentions(&d.message, "finishing on their own: s1");
        // A rollback under way stops too.
        let failed = (Some("d2"), Outcome::Failed("x".into()));
        let cs = canary(failed);
        let d = run_with(
            &cs,
            &[],
            OnFailure::Rollback,
            Supersede::Replace,
            &[("c1", Verdict::Allowed)],
            true,
        );
        assert_eq!(d.phase, Phase::Aborted);
        assert!(d.roll_back.is_empty());
        // Done is done: aborting a finished rollout changes nothing.
        let cs = fleet(
            ready.clone(),
            [ready.clone(), ready.clone()],
            [ready.clone(), ready],
        );
        let d = run_with(&cs, &[], OnFailure::Halt, Supersede::Replace, &[], true);
        assert_eq!(d.phase, Phase::Succeeded);
    }

    #[test]
    fn a_gated_stage_is_done_only_once_every_cluster_shows_its_conditions() {
        let mut s: RolloutSpec = serde_json::from_value(json!({
            "package": {"source": {"path": "."}},
            "stages": [
                {"name": "canary", "selector": {"matchLabels": {"stage": "canary"}},
                 "gates": [{"condition": "Verified"}, {"condition": "Drifted", "status": "False"}]},
                {"name": "rest"}]
        }))
        .unwrap();
        let plans = s.check().unwrap();
        let mut cs = vec![
            cluster("c1", "canary", Some("d2"), Outcome::Ready),
            cluster("r1", "rest", Some("d1"), Outcome::Ready),
        ];
        let run = |cs: &[ClusterView]| decide(&inputs(&plans, cs, 1000));
        let d = run(&cs);
        assert!(d.start.is_empty());
        assert_eq!(d.stages[0].state, StageState::Progressing);
        assert_eq!(d.stages[0].ready_at, None);
        assert_mentions(
            &d.message,
            "waiting for its gates: Verified=True in c1, Drifted=False in c1",
        );
        cs[0].conditions.insert("Verified".into(), "True".into());
        cs[0].conditions.insert("Drifted".into(), "True".into());
        let d = run(&cs);
        assert_mentions(&d.message, "Drifted=False in c1");
        assert!(d.start.is_empty());
        cs[0].conditions.insert("Drifted".into(), "False".into());
        let d = run(&cs);
        assert_eq!(d.start, vec!["r1"]);
        // Gates wait for Ready first: a cluster in progress is named as such.
        cs[0].outcome = Outcome::InProgress("app".into());
        let d = run(&cs);
        assert_mentions(&d.message, "c1 (app)");
        s.stages[0].gates.clear();
        assert!(s.check().unwrap()[0].gates.is_empty());
    }
}
