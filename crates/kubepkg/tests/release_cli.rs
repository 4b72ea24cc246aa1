//! The release verbs end to end on the local control plane: kubepkg's `list` agrees with
//! real Helm's on the same releases, and killing kubepkg in the middle of an upgrade (in a
//! hook, in the readiness wait) never leaves the release stuck: the next command waits for
//! the dead holder's lease to lapse, marks the interrupted revision failed and proceeds.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use kubepkg_testkit::TestNamespace;

fn chart() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/charts/crashy")
        .display()
        .to_string()
}

fn kubepkg(ns: &TestNamespace, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    c.args(args)
        .args(["-n", ns.name(), "--kubeconfig"])
        .arg(ns.plane().kubeconfig())
        .env_remove("KUBECONFIG")
        .env_remove("HELM_DRIVER");
    c
}

#[track_caller]
fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn helm() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("bash")
        .arg(repo.join("tools/helm-ref/install-helm.sh"))
        .arg("v3.22.0")
        .output()
        .expect("install-helm.sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn history(ns: &TestNamespace, name: &str) -> Vec<(u64, String, String)> {
    let out = ok(kubepkg(ns, &["history", name, "-o", "json"])
        .output()
        .unwrap());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["revision"].as_u64().unwrap(),
                h["status"].as_str().unwrap().to_string(),
                h["description"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn list_agrees_with_helm_list() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ns = rt
        .block_on(TestNamespace::new("cli-list"))
        .expect("namespace");
    ok(kubepkg(
        &ns,
        &["install", "one", &chart(), "--wait", "--set", "message=hi"],
    )
    .output()
    .unwrap());
    ok(kubepkg(
        &ns,
        &[
            "upgrade",
            "one",
            &chart(),
            "--wait",
            "--reuse-values",
            "--set",
            "web=ok",
        ],
    )
    .output()
    .unwrap());
    let values: serde_json::Value =
        serde_json::from_str(&ok(kubepkg(&ns, &["get", "values", "one", "-o", "json"])
            .output()
            .unwrap()))
        .unwrap();
    assert_eq!(
        values,
        serde_json::json!({"message": "hi", "web": "ok"}),
        "--reuse-values keeps message"
    );
    let ours: serde_json::Value =
        serde_json::from_str(&ok(kubepkg(&ns, &["list", "-o", "json"]).output().unwrap())).unwrap();
    let theirs = Command::new(helm())
        .args(["list", "-o", "json", "-n", ns.name()])
        .env("KUBECONFIG", ns.plane().kubeconfig())
        .output()
        .unwrap();
    let theirs: serde_json::Value = serde_json::from_str(&ok(theirs)).unwrap();
    assert_eq!(ours, theirs, "kubepkg list -o json is helm list -o json");
}

fn wait_for_status(ns: &TestNamespace, name: &str, revision: u64, status: &str) {
    let start = Instant::now();
    loop {
        if history(ns, name)
            .iter()
            .any(|(r, s, _)| *r == revision && s == status)
        {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "revision {revision} never became {status}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn kill(mut child: Child) {
    child.kill().expect("kill kubepkg");
    let _ = child.wait();
}

fn crash_and_recover(point: &str, bad: &[&str]) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ns = rt
        .block_on(TestNamespace::new(&format!("cli-crash-{point}")))
        .expect("namespace");
    ok(kubepkg(&ns, &["install", "app", &chart(), "--wait"])
        .output()
        .unwrap());
    let mut args = vec![
        "upgrade",
        "app",
        chart().leak(),
        "--wait",
        "--timeout",
        "10m",
    ];
    args.extend_from_slice(bad);
    let child = kubepkg(&ns, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_status(&ns, "app", 2, "pending-upgrade");
    std::thread::sleep(Duration::from_secs(2));
    kill(child);

    // Right after the crash the dead process's lease is still fresh: --no-wait-lock refuses.
    let refused = kubepkg(&ns, &["upgrade", "app", &chart(), "--no-wait-lock"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("another operation on release \"app\" is in progress"),
        "{err}"
    );

    // The next operation waits for the lease to lapse, recovers revision 2, upgrades.
    ok(kubepkg(
        &ns,
        &[
            "upgrade",
            "app",
            &chart(),
            "--wait",
            "--set",
            "message=after",
        ],
    )
    .output()
    .unwrap());
    let h = history(&ns, "app");
    assert_eq!(h.len(), 3, "{h:?}");
    assert_eq!((h[0].0, h[0].1.as_str()), (1, "superseded"));
    assert_eq!((h[1].0, h[1].1.as_str()), (2, "failed"));
    assert!(h[1].2.contains("interrupted"), "{h:?}");
    assert_eq!((h[2].0, h[2].1.as_str()), (3, "deployed"));
}

#[test]
fn killed_in_a_hook_then_recovered() {
    crash_and_recover("hook", &["--set", "hookExitAfter=1h"]);
}

#[test]
fn killed_while_waiting_for_readiness_then_recovered() {
    crash_and_recover("wait", &["--set", "web=unready"]);
}
