//! Two operations on one package at once (docs/rules.md#concurrent-runs-and-crashes: concurrent
//! runs wait or refuse cleanly), on the local control plane: the second waits for the package
//! Lease and then runs on what the first recorded (never interleaved); given too little time, it
//! refuses naming the holder and changes nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::*;
use kubepkg_engine::{EngineError, Instance, ops};
use kubepkg_model::values::UserValues;
use kubepkg_package::revision::Reason;
use kubepkg_testkit::TestNamespace;

const SHORT: Duration = Duration::from_secs(60);

/// One component `a`, its pod Ready only after `ready_after`.
fn slow(root: &Path, version: &str, ready_after: &str) {
    package(
        root,
        &format!(
            "package: {{name: p, version: {version}}}\ncomponents:\n- {{name: a, path: a, values: {{readyAfter: {ready_after}, image: \"registry.invalid/a:{version}\"}}}}\n"
        ),
        &["a"],
        &[],
    );
}

/// Starts an apply of `dir` in the background; returns once it holds the Lease (its pending
/// revision `n` is recorded).
async fn start(
    ns: &TestNamespace,
    dir: &Path,
    n: u64,
) -> tokio::task::JoinHandle<kubepkg_package::orchestrator::Outcome> {
    let mut kc = kube_cluster(ns, SHORT, Lines::default());
    let (nsname, dir) = (ns.name().to_string(), dir.to_path_buf());
    let task = tokio::spawn(async move { apply(&mut kc, &nsname, "pkg", &dir, SHORT).await });
    eventually(
        Duration::from_secs(30),
        "the first apply running",
        async || {
            history(ns, "pkg")
                .await
                .get(n)
                .filter(|r| r.status.is_pending())
                .map(|_| ())
        },
    )
    .await;
    task
}

/// In a fresh namespace for `test`: version 1.0.0 of [`slow`] (Ready after `ready_after`)
/// applied in the background until it holds the Lease, and 2.0.0 (Ready after 1s) written
/// beside it under `tmp`: the namespace, the first apply and 2.0.0's directory.
async fn first_holding_the_lease(
    test: &str,
    ready_after: &str,
    tmp: &Path,
) -> (
    TestNamespace,
    tokio::task::JoinHandle<kubepkg_package::orchestrator::Outcome>,
    PathBuf,
) {
    let ns = TestNamespace::fresh(test).await;
    let (v1, v2) = (tmp.join("v1"), tmp.join("v2"));
    slow(&v1, "1.0.0", ready_after);
    slow(&v2, "2.0.0", "1s");
    let first = start(&ns, &v1, 1).await;
    (ns, first, v2)
}

/// Package `pkg` went 1.0.0 → 2.0.0 once: revision 1 superseded by revision 2 (2.0.0),
/// both Succeeded, and component a's release likewise (two records).
async fn assert_upgraded_once_to_2_0_0(ns: &TestNamespace) {
    let h = history(ns, "pkg").await;
    assert_eq!(
        brief(&h),
        [
            ("superseded".to_string(), "Succeeded".to_string()),
            ("deployed".to_string(), "Succeeded".to_string())
        ]
    );
    assert_eq!(h.revisions[1].version, "2.0.0");
    assert_eq!(
        release_history(ns, "pkg-a").await,
        [(1, "superseded".to_string()), (2, "deployed".to_string())]
    );
}

#[tokio::test]
async fn a_second_apply_waits_for_the_first_then_runs_on_its_result() {
    let tmp = tempfile::tempdir().unwrap();
    let (ns, first, v2) = first_holding_the_lease("concurrent-wait", "4s", tmp.path()).await;

    let (mut second, lines) = logged_cluster(&ns, SHORT);
    let o = apply(&mut second, ns.name(), "pkg", &v2, SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    let first = first.await.unwrap();
    assert_eq!(first.reason, Reason::Succeeded, "{}", first.message);
    assert_eq!(first.deployed_revision, Some(1));
    // The second waited, then upgraded what the first had installed.
    let lines = lines.lock().unwrap().clone();
    assert!(
        lines[0].starts_with("waiting for another operation on package (held by "),
        "{lines:#?}"
    );
    // What it planned from (revision 1 pending, read once it found the Lease held) changed.
    assert!(
        lines.iter().any(|l| l.starts_with(
            "the package changed while this apply waited for its lock: revision 1 (1.0.0, deployed)"
        )),
        "{lines:#?}"
    );
    assert_eq!(o.deployed_revision, Some(2));
    assert_upgraded_once_to_2_0_0(&ns).await;
}

#[tokio::test]
async fn a_second_apply_refuses_cleanly_when_the_lease_stays_held() {
    let tmp = tempfile::tempdir().unwrap();
    let (ns, first, v2) = first_holding_the_lease("concurrent-refuse", "8s", tmp.path()).await;

    let mut second = kube_cluster(&ns, SHORT, Lines::default());
    let package = kubepkg_model::source::load_dir(&v2).unwrap();
    let e = ops::apply(
        &mut second,
        &package,
        Instance {
            name: "pkg",
            namespace: ns.name(),
        },
        &UserValues::new(),
        ops::ApplyOptions::new(Duration::from_secs(2)),
    )
    .await
    .expect_err("the Lease is held for longer than the second waits");
    assert!(matches!(e, EngineError::Locked { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("another kubepkg operation on package \"pkg\" is in progress (Lease kubepkg.package.pkg held by "),
        "{text}"
    );
    // Nothing of the second was recorded or applied.
    let o = first.await.unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    let h = history(&ns, "pkg").await;
    assert_eq!(h.revisions.len(), 1);
    assert_eq!(h.revisions[0].version, "1.0.0");
    assert_eq!(
        release_history(&ns, "pkg-a").await,
        [(1, "deployed".to_string())]
    );
}

/// Point 2 of the robustness issue: two applies of one package with different versions at
/// once. 2.0.0 (`rollback.safe: false`) holds the Lease; 1.1.0 waits for it, then plans again
/// against what 2.0.0 left (and says so): applying 1.1.0 now is a downgrade that 2.0.0
/// forbids, so it is refused, naming 2.0.0, and changes nothing. `--allow-downgrade` then
/// applies it.
#[tokio::test]
async fn a_waiting_apply_of_a_lower_version_is_refused_as_a_downgrade() {
    let ns = TestNamespace::fresh("concurrent-downgrade").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = |n: &str| tmp.path().join(n);
    let write = |root: &Path, version: &str, safe: bool, ready_after: &str| {
        package(
            root,
            &format!(
                "package: {{name: p, version: {version}, rollback: {{safe: {safe}}}}}\ncomponents:\n- {{name: a, path: a, values: {{readyAfter: {ready_after}, image: \"registry.invalid/a:{version}\"}}}}\n"
            ),
            &["a"],
            &[],
        )
    };
    write(&dir("v1"), "1.0.0", true, "1s");
    write(&dir("v2"), "2.0.0", false, "4s");
    write(&dir("v11"), "1.1.0", true, "1s");
    let mut kc = kube_cluster(&ns, SHORT, Lines::default());
    let o = apply(&mut kc, ns.name(), "pkg", &dir("v1"), SHORT).await;
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);

    let upgrade = start(&ns, &dir("v2"), 2).await;
    let (mut second, lines) = logged_cluster(&ns, SHORT);
    let lines_after = lines.clone();
    let package_v11 = kubepkg_model::source::load_dir(&dir("v11")).unwrap();
    let instance = Instance {
        name: "pkg",
        namespace: ns.name(),
    };
    let e = ops::apply(
        &mut second,
        &package_v11,
        instance,
        &UserValues::new(),
        ops::ApplyOptions::new(SHORT),
    )
    .await
    .expect_err("1.1.0 after 2.0.0 is a downgrade 2.0.0 forbids");
    let won = upgrade.await.unwrap();
    assert_eq!(won.reason, Reason::Succeeded, "{}", won.message);
    assert!(
        matches!(
            &e,
            EngineError::Stopped(kubepkg_package::orchestrator::Stopped::Downgrade(d))
                if d.downgrade.forbidden_by.iter().map(|f| f.version.as_str()).collect::<Vec<_>>() == ["2.0.0"]
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().starts_with(
            "refusing to downgrade package pkg from 2.0.0 to 1.1.0: 2.0.0 (revision 2) declares rollback.safe: false"
        ),
        "{e}"
    );
    let lines = lines.lock().unwrap().clone();
    assert!(
        lines[0].starts_with("waiting for another operation on package (held by "),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l
            == "the package changed while this apply waited for its lock: revision 2 (2.0.0, deployed) is the latest now; planning again against it"),
        "{lines:#?}"
    );
    // Nothing of 1.1.0 was recorded or applied.
    assert_upgraded_once_to_2_0_0(&ns).await;

    // Forced, it runs (and says what it overrode).
    lines_after.lock().unwrap().clear();
    let (o, _) = ops::apply(
        &mut second,
        &package_v11,
        instance,
        &UserValues::new(),
        ops::ApplyOptions {
            timeout: SHORT,
            allow_downgrade: true,
            allow_unsafe_crd_changes: false,
        },
    )
    .await
    .unwrap();
    assert_eq!(o.reason, Reason::Succeeded, "{}", o.message);
    assert_eq!(
        history(&ns, "pkg").await.deployed().unwrap().version,
        "1.1.0"
    );
    let lines = lines_after.lock().unwrap().clone();
    assert!(
        lines.iter().any(|l| l
            == "downgrade from 2.0.0 to 1.1.0: allowed by --allow-downgrade although 2.0.0 (revision 2) declares rollback.safe: false"),
        "{lines:#?}"
    );
}
