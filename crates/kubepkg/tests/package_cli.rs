//! The package verbs as a user runs them, on the local control plane: crash recovery (the
//! `kubepkg apply` process killed mid-apply, then applied again), and snapshots of `plan` and
//! `package status` output for the demo package (testdata/packages/demo).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kubepkg_engine::store::RevisionStore;
use kubepkg_package::revision::RevisionStatus;
use kubepkg_release::storage::{SecretDriver, Store};
use kubepkg_testkit::TestNamespace;

fn kubepkg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kubepkg"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A package of two components; `a` becomes ready only after `ready_after`.
fn slow_package(root: &Path, version: &str, ready_after: &str) {
    for c in ["a", "b"] {
        let d = root.join(c).join("templates");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            root.join(c).join("Chart.yaml"),
            format!("apiVersion: v2\nname: {c}\nversion: {version}\n"),
        )
        .unwrap();
        std::fs::write(
            d.join("deployment.yaml"),
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{{{ .Release.Name }}}}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {c}}}\n  template:\n    metadata:\n      labels: {{app: {c}}}\n      annotations:\n        kubepkg.dev/sim-ready-after: {ready_after}\n    spec:\n      containers:\n      - name: c\n        image: registry.invalid/{c}:{version}\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!("package: {{name: crashy, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n- {{name: a, path: a}}\n- {{name: b, path: b, install: {{dependsOn: [a]}}}}\n"),
    )
    .unwrap();
}

async fn statuses(ns: &TestNamespace) -> Vec<RevisionStatus> {
    RevisionStore::new(ns.client().clone())
        .history("crashy", ns.name())
        .await
        .unwrap()
        .revisions
        .iter()
        .map(|r| r.status)
        .collect()
}

async fn release_revisions(ns: &TestNamespace, release: &str) -> usize {
    Store::new(SecretDriver::new(ns.client().clone(), Some(ns.name())))
        .history(release)
        .await
        .unwrap()
        .len()
}

/// Runs `kubepkg apply` and SIGKILLs it once `when` holds.
async fn apply_and_kill(
    ns: &TestNamespace,
    dir: &Path,
    when: impl AsyncFn(&TestNamespace) -> bool,
) {
    let mut child = kubepkg()
        .args(["apply", "crashy"])
        .arg(dir)
        .args(["-n", ns.name(), "--timeout", "60s"])
        .env("KUBECONFIG", ns.plane().kubeconfig())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !when(ns).await {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "kill point never reached"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "kubepkg ended before the kill point"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

fn apply(ns: &TestNamespace, dir: &Path) -> (i32, String) {
    let out = kubepkg()
        .args(["apply", "crashy"])
        .arg(dir)
        .args(["-n", ns.name(), "--timeout", "60s"])
        .env("KUBECONFIG", ns.plane().kubeconfig())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Killed while the first component of a first install waits to be ready, then killed while
/// an upgrade's second component waits: each next apply takes over the dead holder's Lease,
/// marks the interrupted revision failed and finishes the work.
#[tokio::test]
async fn crash_mid_apply_is_recovered_by_the_next_apply() {
    let ns = TestNamespace::new("pkg-crash")
        .await
        .expect("control plane");
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    slow_package(&v1, "1.0.0", "3s");
    let v2 = tmp.path().join("v2");
    slow_package(&v2, "2.0.0", "3s");

    // 1. Kill point: release a installed, not ready yet (revision 1 pending-install).
    apply_and_kill(&ns, &v1, async |ns| {
        release_revisions(ns, "crashy-a").await == 1
    })
    .await;
    assert_eq!(statuses(&ns).await, [RevisionStatus::PendingInstall]);
    let (code, out) = apply(&ns, &v1);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("took over the package lock"), "{out}");
    assert_eq!(
        statuses(&ns).await,
        [RevisionStatus::Failed, RevisionStatus::Deployed]
    );
    assert_eq!(release_revisions(&ns, "crashy-b").await, 1);

    // 2. Kill point: during the upgrade, b's new release revision written (a already done).
    apply_and_kill(&ns, &v2, async |ns| {
        release_revisions(ns, "crashy-b").await == 2
    })
    .await;
    let s = statuses(&ns).await;
    assert_eq!(s.last(), Some(&RevisionStatus::PendingUpgrade), "{s:?}");
    let (code, out) = apply(&ns, &v2);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        statuses(&ns).await,
        [
            RevisionStatus::Failed,
            RevisionStatus::Superseded,
            RevisionStatus::Failed,
            RevisionStatus::Deployed
        ]
    );
    let (code, out) = apply(&ns, &v2);
    assert_eq!(
        (code, out.contains("nothing to change")),
        (0, true),
        "{out}"
    );
}

/// `kubepkg plan` of the demo package offline: pinned text (order, hooks, gates, objects).
#[test]
fn plan_of_the_demo_package_offline_snapshot() {
    let out = kubepkg()
        .args(["plan", "shop"])
        .arg(repo().join("testdata/packages/demo/v1"))
        .args(["-n", "shop", "--no-diff"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let got = String::from_utf8(out.stdout).unwrap();
    let want_path = repo().join("testdata/packages/demo/plan-v1.txt");
    if std::env::var_os("KUBEPKG_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&want_path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&want_path).unwrap();
    assert_eq!(got, want);
}
