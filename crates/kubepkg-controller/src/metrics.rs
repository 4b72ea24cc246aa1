//! Prometheus metrics, in controller-runtime's names so existing dashboards and alerts work
//! (`controller_runtime_reconcile_total{controller,result}`,
//! `controller_runtime_reconcile_errors_total`, `controller_runtime_reconcile_time_seconds`,
//! `controller_runtime_active_workers`, `controller_runtime_max_concurrent_reconciles`, and
//! client-go's workqueue metrics as controller-runtime labels them: `workqueue_depth`,
//! `workqueue_adds_total`, `workqueue_queue_duration_seconds`, `workqueue_retries_total`, each
//! `{controller="package",name="package"}`), plus
//! kubepkg's own: `kubepkg_packages{reason}` (Packages by the reason of their last state),
//! `kubepkg_component_wait_seconds{result}` (how long components took from being applied to
//! ready or failed), and the fleet rollouts' ([`crate::rollout_metrics`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicI64;
use std::time::{Duration, Instant};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

const CONTROLLER: &str = "package";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabels {
    controller: String,
    name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultOnly {
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: String,
}

/// The controller's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    reconcile_total: Family<ResultLabels, Counter>,
    reconcile_errors: Family<ControllerLabels, Counter>,
    reconcile_time: Family<ControllerLabels, Histogram>,
    active_workers: Family<ControllerLabels, Gauge<i64, AtomicI64>>,
    packages: Family<ReasonLabels, Gauge<i64, AtomicI64>>,
    component_wait: Family<ResultOnly, Histogram>,
    queue_depth: Family<QueueLabels, Gauge<i64, AtomicI64>>,
    queue_adds: Family<QueueLabels, Counter>,
    queue_duration: Family<QueueLabels, Histogram>,
    queue_retries: Family<QueueLabels, Counter>,
    /// The fleet rollouts' metrics.
    pub rollouts: crate::rollout_metrics::RolloutMetrics,
    /// Each Package's last reason, so `kubepkg_packages` counts every Package once.
    states: Mutex<HashMap<String, String>>,
    /// The queue: Packages with a reconcile asked for and not started yet (a key once, however
    /// often it was asked, as client-go's workqueue), with when it was first asked.
    queued: Mutex<HashMap<String, Instant>>,
}

impl Metrics {
    pub fn new(max_concurrent: u16) -> Metrics {
        let mut registry = Registry::default();
        let reconcile_total = Family::<ResultLabels, Counter>::default();
        let reconcile_errors = Family::<ControllerLabels, Counter>::default();
        let reconcile_time = Family::<ControllerLabels, Histogram>::new_with_constructor(|| {
            // controller-runtime's buckets.
            Histogram::new([
                0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
                0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0,
                8.0, 9.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0,
            ])
        });
        let active_workers = Family::<ControllerLabels, Gauge<i64, AtomicI64>>::default();
        let max_concurrent_g = Family::<ControllerLabels, Gauge<i64, AtomicI64>>::default();
        let packages = Family::<ReasonLabels, Gauge<i64, AtomicI64>>::default();
        let component_wait = Family::<ResultOnly, Histogram>::new_with_constructor(|| {
            Histogram::new([
                1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 3600.0,
            ])
        });
        let queue_depth = Family::<QueueLabels, Gauge<i64, AtomicI64>>::default();
        let queue_adds = Family::<QueueLabels, Counter>::default();
        let queue_retries = Family::<QueueLabels, Counter>::default();
        let queue_duration = Family::<QueueLabels, Histogram>::new_with_constructor(|| {
            // controller-runtime's buckets: 10 ns to 1000 s, ten times apart.
            Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
                1e-8, 10.0, 12,
            ))
        });
        registry.register(
            "workqueue_depth",
            "Current depth of workqueue",
            queue_depth.clone(),
        );
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            queue_adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            queue_duration.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            queue_retries.clone(),
        );
        registry.register(
            "kubepkg_component_wait_seconds",
            "Time from applying a component to it being ready (result=ready) or failed",
            component_wait.clone(),
        );
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            reconcile_total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            reconcile_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            reconcile_time.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            active_workers.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            max_concurrent_g.clone(),
        );
        registry.register(
            "kubepkg_packages",
            "Packages by the reason of their Ready condition as the controller last set it",
            packages.clone(),
        );
        let rollouts = crate::rollout_metrics::RolloutMetrics::register(&mut registry);
        max_concurrent_g
            .get_or_create(&labels())
            .set(i64::from(max_concurrent));
        Metrics {
            registry,
            reconcile_total,
            reconcile_errors,
            reconcile_time,
            active_workers,
            packages,
            component_wait,
            queue_depth,
            queue_adds,
            queue_duration,
            queue_retries,
            rollouts,
            states: Mutex::new(HashMap::new()),
            queued: Mutex::new(HashMap::new()),
        }
    }

    /// A reconcile of the Package `key` was asked for (a watch event of it, or of a Package
    /// or revision it waits for). Asked again before it started, it stays one item.
    pub fn queued(&self, key: &str) {
        let Ok(mut queued) = self.queued.lock() else {
            return;
        };
        if !queued.contains_key(key) {
            queued.insert(key.to_string(), Instant::now());
            self.queue_adds.get_or_create(&queue_labels()).inc();
        }
        self.queue_depth
            .get_or_create(&queue_labels())
            .set(i64::try_from(queued.len()).unwrap_or(i64::MAX));
    }

    /// A reconcile of `key` starts: it leaves the queue. One that was not queued by an event
    /// was due after a requeue (`requeue_after` or an error's backoff): an add that waited no time.
    pub fn reconcile_started(&self, key: &str) {
        self.active_workers.get_or_create(&labels()).inc();
        let Ok(mut queued) = self.queued.lock() else {
            return;
        };
        let waited = match queued.remove(key) {
            Some(since) => since.elapsed(),
            None => {
                self.queue_adds.get_or_create(&queue_labels()).inc();
                Duration::ZERO
            }
        };
        self.queue_duration
            .get_or_create(&queue_labels())
            .observe(waited.as_secs_f64());
        self.queue_depth
            .get_or_create(&queue_labels())
            .set(i64::try_from(queued.len()).unwrap_or(i64::MAX));
    }

    /// A failed reconcile is retried after its backoff.
    pub fn retried(&self) {
        self.queue_retries.get_or_create(&queue_labels()).inc();
    }

    /// `result` is controller-runtime's: `success`, `requeue_after` or `error`.
    pub fn reconcile_finished(&self, result: &str, took: Duration) {
        self.active_workers.get_or_create(&labels()).dec();
        self.reconcile_total
            .get_or_create(&ResultLabels {
                controller: CONTROLLER.into(),
                result: result.into(),
            })
            .inc();
        if result == "error" {
            self.reconcile_errors.get_or_create(&labels()).inc();
        }
        self.reconcile_time
            .get_or_create(&labels())
            .observe(took.as_secs_f64());
    }

    /// Records the reason the Package `key` now shows.
    pub fn package_state(&self, key: &str, reason: &str) {
        let Ok(mut states) = self.states.lock() else {
            return;
        };
        if let Some(old) = states.insert(key.to_string(), reason.to_string()) {
            self.packages
                .get_or_create(&ReasonLabels { reason: old })
                .dec();
        }
        self.packages
            .get_or_create(&ReasonLabels {
                reason: reason.into(),
            })
            .inc();
    }

    /// A component became ready (`ready`) or failed (`failed`) `took` after it was applied.
    pub fn component_waited(&self, result: &str, took: Duration) {
        self.component_wait
            .get_or_create(&ResultOnly {
                result: result.into(),
            })
            .observe(took.as_secs_f64());
    }

    /// The Package `key` is gone.
    pub fn package_gone(&self, key: &str) {
        if let Ok(mut states) = self.states.lock()
            && let Some(old) = states.remove(key)
        {
            self.packages
                .get_or_create(&ReasonLabels { reason: old })
                .dec();
        }
    }

    /// The text exposition format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

fn queue_labels() -> QueueLabels {
    QueueLabels {
        controller: CONTROLLER.into(),
        name: CONTROLLER.into(),
    }
}

fn labels() -> ControllerLabels {
    ControllerLabels {
        controller: CONTROLLER.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconcile_counters_use_controller_runtimes_names_and_labels() {
        let m = Metrics::new(4);
        m.reconcile_started("ns/a");
        m.reconcile_finished("error", Duration::from_millis(30));
        let text = m.encode();
        for line in [
            "controller_runtime_reconcile_total{controller=\"package\",result=\"error\"} 1",
            "controller_runtime_reconcile_errors_total{controller=\"package\"} 1",
            "controller_runtime_active_workers{controller=\"package\"} 0",
            "controller_runtime_max_concurrent_reconciles{controller=\"package\"} 4",
            "controller_runtime_reconcile_time_seconds_count{controller=\"package\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing in:\n{text}");
        }
    }

    #[test]
    fn the_queue_counts_each_waiting_package_once_as_client_gos_workqueue() {
        let m = Metrics::new(1);
        m.queued("ns/a");
        m.queued("ns/a");
        m.queued("ns/b");
        let q = "{controller=\"package\",name=\"package\"}";
        let text = m.encode();
        assert!(text.contains(&format!("workqueue_depth{q} 2")), "{text}");
        assert!(
            text.contains(&format!("workqueue_adds_total{q} 2")),
            "{text}"
        );
        m.reconcile_started("ns/a");
        m.reconcile_finished("error", Duration::from_millis(1));
        m.retried();
        // Due after the backoff: not queued by an event, still an add.
        m.reconcile_started("ns/a");
        m.reconcile_started("ns/b");
        let text = m.encode();
        for line in [
            format!("workqueue_depth{q} 0"),
            format!("workqueue_adds_total{q} 3"),
            format!("workqueue_retries_total{q} 1"),
            format!("workqueue_queue_duration_seconds_count{q} 3"),
        ] {
            assert!(text.contains(&line), "{line} missing in:\n{text}");
        }
    }

    #[test]
    fn each_package_counts_once_under_its_latest_reason() {
        let m = Metrics::new(1);
        m.package_state("a/x", "Progressing");
        m.package_state("a/x", "Succeeded");
        m.package_state("a/y", "Succeeded");
        let text = m.encode();
        assert!(
            text.contains("kubepkg_packages{reason=\"Succeeded\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("kubepkg_packages{reason=\"Progressing\"} 0"),
            "{text}"
        );
        m.package_gone("a/y");
        m.component_waited("ready", Duration::from_secs(3));
        assert!(
            m.encode()
                .contains("kubepkg_component_wait_seconds_count{result=\"ready\"} 1")
        );
        assert!(
            m.encode()
                .contains("kubepkg_packages{reason=\"Succeeded\"} 1")
        );
    }
}
