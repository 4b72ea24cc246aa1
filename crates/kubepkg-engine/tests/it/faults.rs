//! Package applies through the test kit's fault-injection proxy (`kubepkg_testkit::fault`):
//! connections reset and refused, data delayed, answers and watches cut short, at a rate.
//!
//! - At 5% and 30% every install and upgrade converges: the client's retry layer and the
//!   re-established watches absorb the faults.
//! - At 50% with 4 tries per request, where runs do fail, each run, failed or not, leaves
//!   only final states: no `pending-*` package revision or Helm record (ours and `helm
//!   history`'s reading), no Lease; and once the network is healthy again an apply converges.
//!
//! The proxy works at the TCP level (TLS passes through it), so 429/503 answers are not
//! injected here; the retry layer's handling of them is tested in `kubepkg-kube`'s
//! `tests/it/retry.rs`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_kube::ClusterOptions;
use kubepkg_kube::retry::RetryPolicy;
use kubepkg_package::revision::Reason;
use kubepkg_testkit::fault::{FaultProxy, Faults};
use kubepkg_testkit::{TestNamespace, charts};

use crate::support::*;

const TIMEOUT: Duration = Duration::from_secs(90);
const RELEASES: &[&str] = &["pkg-a", "pkg-b", "pkg-migrate"];

/// A cluster side connected through `proxy` (its kubeconfig), as `kubepkg apply` connects.
async fn through(
    proxy: &FaultProxy,
    ns: &TestNamespace,
    retry: Option<RetryPolicy>,
) -> KubeCluster {
    let kube = kubepkg_kube::Cluster::connect(&ClusterOptions {
        kubeconfig: Some(proxy.kubeconfig().to_path_buf()),
        namespace: Some(ns.name().to_string()),
        retry,
        ..Default::default()
    })
    .await
    .expect("connect through the proxy");
    let lines = Arc::new(Mutex::new(Vec::new()));
    KubeCluster::new(
        kube,
        kubepkg_engine::chart::ClusterCapabilities::default(),
        TIMEOUT,
        Arc::new(move |l: &str| lines.lock().unwrap().push(l.to_string())),
    )
}

/// One apply of `dir`; `Err` when the operation itself failed (e.g. its lock or first reads).
async fn apply_once(kc: &mut KubeCluster, ns: &str, dir: &Path) -> Result<Reason, String> {
    let package = kubepkg_model::source::load_dir(dir).expect("valid package");
    ops::apply(
        kc,
        &package,
        Instance {
            name: "pkg",
            namespace: ns,
        },
        &Default::default(),
        ops::ApplyOptions::new(TIMEOUT),
    )
    .await
    .map(|(o, _)| {
        if o.reason != Reason::Succeeded {
            eprintln!("apply: {:?}: {}", o.reason, o.message);
        }
        o.reason
    })
    .map_err(|e| e.to_string())
}

#[tokio::test]
async fn applies_and_upgrades_converge_at_5_and_30_percent_faults() {
    for (rate, tag) in [(0.05, "faults-5"), (0.30, "faults-30")] {
        let ns = TestNamespace::fresh(tag).await;
        let tmp = tempfile::tempdir().unwrap();
        let proxy = FaultProxy::start(ns.plane(), Faults::ALL, rate, tmp.path())
            .await
            .unwrap();
        let mut kc = through(&proxy, &ns, None).await;
        for version in ["1.0.0", "2.0.0", "3.0.0"] {
            let dir = tmp.path().join(version);
            charts::hooked_package(&dir, version);
            let got = apply_once(&mut kc, ns.name(), &dir).await;
            let when = format!("rate {rate}, apply {version}");
            assert_eq!(got, Ok(Reason::Succeeded), "{when}");
            assert_final_states(&ns, "pkg", RELEASES, &when).await;
            eprintln!("{when}: converged; proxy so far: {}", proxy.stats());
        }
        let h = history(&ns, "pkg").await;
        assert_eq!(h.deployed().map(|d| d.version.as_str()), Some("3.0.0"));
        assert!(
            proxy.stats().breaks() > 0,
            "rate {rate}: the proxy injected no fault that breaks a connection: {}",
            proxy.stats()
        );
    }
}

#[tokio::test]
async fn failing_runs_at_a_high_fault_rate_leave_only_final_states() {
    let ns = TestNamespace::fresh("faults-high").await;
    let tmp = tempfile::tempdir().unwrap();
    let proxy = FaultProxy::start(ns.plane(), Faults::ALL, 0.0, tmp.path())
        .await
        .unwrap();
    // Fewer, quicker tries than the default, so that requests do run out of tries.
    let policy = RetryPolicy {
        attempts: 4,
        first_delay: Duration::from_millis(50),
        max_delay: Duration::from_secs(1),
        attempt_timeout: Duration::from_secs(10),
    };
    let mut kc = through(&proxy, &ns, Some(policy)).await;
    let versions = ["1.0.0", "2.0.0", "3.0.0"];
    for v in versions {
        charts::hooked_package(&tmp.path().join(v), v);
    }
    assert_eq!(
        apply_once(&mut kc, ns.name(), &tmp.path().join("1.0.0")).await,
        Ok(Reason::Succeeded)
    );
    proxy.set_rate(0.5);
    let mut outcomes = Vec::new();
    for run in 0..6 {
        let v = versions[1 + run % 2];
        let got = apply_once(&mut kc, ns.name(), &tmp.path().join(v)).await;
        let when = format!("high-rate run {run} ({v}): {got:?}");
        eprintln!("{when}; proxy so far: {}", proxy.stats());
        assert_final_states(&ns, "pkg", RELEASES, &when).await;
        outcomes.push(got);
    }
    let failed = outcomes
        .iter()
        .filter(|o| **o != Ok(Reason::Succeeded))
        .count();
    eprintln!("high-rate runs: {failed} of {} failed", outcomes.len());
    assert!(
        failed > 0,
        "no run failed at this rate, so nothing was shown about failing runs: {outcomes:?}"
    );
    // The network heals: the next apply converges from whatever the failed runs left.
    proxy.set_rate(0.0);
    assert_eq!(
        apply_once(&mut kc, ns.name(), &tmp.path().join("3.0.0")).await,
        Ok(Reason::Succeeded)
    );
    assert_final_states(&ns, "pkg", RELEASES, "after healing").await;
    let h = history(&ns, "pkg").await;
    assert_eq!(h.deployed().map(|d| d.version.as_str()), Some("3.0.0"));
}

/// An API server that stops answering (the test kit's relay taken down: watches dropped,
/// connections refused) ends a readiness wait with that error once the watches have failed for
/// `kubepkg_kube::wait::OUTAGE` — not by its own timeout (a timeout ends it as `NotReady`),
/// and as an error that reads as "unreachable" (what stops an operation as a crash would, for
/// the next to recover).
#[tokio::test(flavor = "multi_thread")]
async fn a_wait_ends_when_the_api_server_stops_answering() {
    let ns = TestNamespace::fresh("outage").await;
    let relay = kubepkg_testkit::relay::Relay::start(ns.plane())
        .await
        .expect("relay");
    let cluster =
        kubepkg_kube::Cluster::from_kubeconfig_text(relay.kubeconfig_text(), "relay", ns.name())
            .await
            .expect("a cluster through the relay");
    let cms: kube::Api<k8s_openapi::api::core::v1::ConfigMap> = ns.api();
    cms.create(
        &Default::default(),
        &serde_json::from_value(serde_json::json!({"metadata": {"name": "x"}})).unwrap(),
    )
    .await
    .unwrap();
    let id = kubepkg_kube::ObjectRef {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        namespace: ns.name().into(),
        name: "x".into(),
    };
    let timeout = Duration::from_secs(240);
    let wait = tokio::spawn(async move {
        // Never ready: only the outage can end it before its timeout.
        let never = |_: &serde_json::Value| kubepkg_kube::readiness::Readiness {
            status: kubepkg_kube::readiness::Status::InProgress,
            reason: "Waiting".into(),
            message: "never ready".into(),
        };
        kubepkg_kube::wait::wait_until(&cluster, &[id], timeout, never, |_| {}).await
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    relay.set_up(false);
    let e = wait
        .await
        .unwrap()
        .expect_err("a wait for what never gets ready ends with an error");
    assert!(
        kubepkg_kube::is_unreachable_api(&e),
        "not an unreachable API server: {e}"
    );
    assert!(
        !matches!(e, kubepkg_kube::KubeError::NotReady(_)),
        "it waited out its timeout instead: {e}"
    );
}
