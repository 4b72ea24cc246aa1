//! The fleet rollouts' metrics (docs/fleet.md#metrics), on the controller's one registry:
//! `kubepkg_rollout_clusters{rollout,state}` (each rollout's clusters by their state in its
//! status) and `kubepkg_rollout_stage_duration_seconds{rollout,stage}` (from a stage's first
//! cluster starting to all its clusters Ready, observed once per stage and digest).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::AtomicI64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    rollout: String,
    state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StageLabels {
    rollout: String,
    stage: String,
}

/// The rollout metrics.
pub struct RolloutMetrics {
    clusters: Family<StateLabels, Gauge<i64, AtomicI64>>,
    stage_duration: Family<StageLabels, Histogram>,
    /// Each rollout's states counted last, so a state no cluster is in any more goes to 0.
    last: Mutex<HashMap<String, BTreeMap<String, i64>>>,
}

impl RolloutMetrics {
    /// The metrics, registered in `registry`.
    pub fn register(registry: &mut Registry) -> RolloutMetrics {
        let clusters = Family::<StateLabels, Gauge<i64, AtomicI64>>::default();
        let stage_duration = Family::<StageLabels, Histogram>::new_with_constructor(|| {
            Histogram::new([
                10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0, 14400.0,
                43200.0, 86400.0,
            ])
        });
        registry.register(
            "kubepkg_rollout_clusters",
            "The clusters of each PackageRollout (namespace/name) by their state in its status",
            clusters.clone(),
        );
        registry.register(
            "kubepkg_rollout_stage_duration_seconds",
            "Time from a rollout stage's first cluster starting to all its clusters Ready",
            stage_duration.clone(),
        );
        RolloutMetrics {
            clusters,
            stage_duration,
            last: Mutex::new(HashMap::new()),
        }
    }

    /// `rollout`'s clusters are now in `states` (one entry per cluster).
    pub fn clusters<'a>(&self, rollout: &str, states: impl IntoIterator<Item = &'a str>) {
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for s in states {
            *counts.entry(s.to_string()).or_default() += 1;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        let before = last.remove(rollout).unwrap_or_default();
        for state in before.keys().filter(|s| !counts.contains_key(*s)) {
            self.gauge(rollout, state).set(0);
        }
        for (state, n) in &counts {
            self.gauge(rollout, state).set(*n);
        }
        last.insert(rollout.to_string(), counts);
    }

    fn gauge(&self, rollout: &str, state: &str) -> Gauge<i64, AtomicI64> {
        self.clusters
            .get_or_create(&StateLabels {
                rollout: rollout.into(),
                state: state.into(),
            })
            .clone()
    }

    /// Stage `stage` of `rollout` took `seconds` from its first cluster starting to all Ready.
    pub fn stage_done(&self, rollout: &str, stage: &str, seconds: f64) {
        self.stage_duration
            .get_or_create(&StageLabels {
                rollout: rollout.into(),
                stage: stage.into(),
            })
            .observe(seconds.max(0.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_by_state_and_stage_durations() {
        let mut registry = Registry::default();
        let m = RolloutMetrics::register(&mut registry);
        m.clusters("fleet/shop", ["Ready", "Ready", "InProgress"]);
        m.clusters("fleet/shop", ["Ready", "Ready", "Ready"]);
        m.stage_done("fleet/shop", "canary", 42.0);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "kubepkg_rollout_clusters{rollout=\"fleet/shop\",state=\"Ready\"} 3",
            "kubepkg_rollout_clusters{rollout=\"fleet/shop\",state=\"InProgress\"} 0",
            "kubepkg_rollout_stage_duration_seconds_count{rollout=\"fleet/shop\",stage=\"canary\"} 1",
            "kubepkg_rollout_stage_duration_seconds_sum{rollout=\"fleet/shop\",stage=\"canary\"} 42.0",
        ] {
            assert!(text.contains(line), "{line} missing in:\n{text}");
        }
    }
}
