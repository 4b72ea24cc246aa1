//! Crash tests of the package engine on the local control plane: an apply is stopped dead at a
//! precise point — after the pending package revision is written, between two components,
//! while a `PreUpgrade` hook runs, in the middle of an automatic rollback — then applied again,
//! and the revisions, the Helm releases and the cluster objects are checked.
//!
//! The apply that crashes runs in a child process: this test binary again (it has its own
//! `main`, `harness = false`), told what to apply by `KUBEPKG_CRASH_CHILD` and where to stop by
//! the engine's test-only `KUBEPKG_FAILPOINT`. The child pauses at the failpoint; the test
//! SIGKILLs it there. Its package Lease is then still fresh, but the holder process is gone, so
//! the next apply (in this process) takes the Lease over at once and recovers.
//!
//! `kill_trials_at_random_points_of_upgrades` is the kill-trial harness: it SIGKILLs an upgrade
//! (a child process, as `kubepkg apply` runs it) after a random delay into its apply (drawn
//! within the time one whole upgrade took just before, so the kills land wherever the apply
//! is), applies again, and checks every package revision, Helm record (also as the real `helm
//! history` reads it) and Lease; `KUBEPKG_KILL_TRIALS` trials (default 10, as CI runs it;
//! hundreds by hand with `testenv/kill-trials.sh`). It fails unless most trials really killed
//! an apply in its middle, and a child that ended before its kill must have exited 0.
//!
//! Run with `cargo test -p kubepkg-engine --test crash [NAME-SUBSTRING]`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::Api;
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_package::revision::{History, Reason};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::charts::*;
use kubepkg_testkit::engine::*;

/// `<namespace>\t<instance>\t<package dir>\t<timeout seconds>`: run one apply and exit.
const CHILD: &str = "KUBEPKG_CRASH_CHILD";
const SHORT: Duration = Duration::from_secs(60);

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        child(&spec);
        return;
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let tests: [(&str, fn()); 6] = [
        ("crash_after_pending_revision_then_apply_again", || {
            run(after_pending_revision())
        }),
        ("crash_between_components_then_apply_again", || {
            run(between_components())
        }),
        ("crash_during_pre_upgrade_hook_then_apply_again", || {
            run(during_pre_upgrade_hook())
        }),
        (
            "crash_after_pre_upgrade_hook_completed_then_apply_again",
            || run(after_pre_upgrade_hook()),
        ),
        ("crash_during_automatic_rollback_then_apply_again", || {
            run(during_automatic_rollback())
        }),
        ("kill_trials_at_random_points_of_upgrades", || {
            run(kill_trials())
        }),
    ];
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        eprintln!("test {name} ...");
        match std::panic::catch_unwind(test) {
            Ok(()) => eprintln!("test {name} ... ok"),
            Err(_) => {
                eprintln!("test {name} ... FAILED");
                failed.push(name);
            }
        }
    }
    eprintln!(
        "crash tests: {} passed; {} failed",
        ran - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        eprintln!("failed: {failed:?}");
        std::process::exit(1);
    }
}

fn run(f: impl std::future::Future<Output = ()>) {
    tokio::runtime::Runtime::new().unwrap().block_on(f)
}

/// The child: one apply, as `kubepkg apply` would make it.
fn child(spec: &str) {
    let parts: Vec<&str> = spec.split('\t').collect();
    let [ns, name, dir, secs] = parts[..] else {
        panic!("bad {CHILD}: {spec:?}");
    };
    let timeout = Duration::from_secs(secs.parse().unwrap());
    run(async move {
        let plane = kubepkg_testkit::control_plane().expect("control plane");
        // Connected as `kubepkg apply` connects (the retry layer included).
        let kube = kubepkg_kube::Cluster::connect(&kubepkg_kube::ClusterOptions {
            kubeconfig: Some(plane.kubeconfig().to_path_buf()),
            namespace: Some(ns.to_string()),
            ..Default::default()
        })
        .await
        .expect("connect");
        let mut kc = KubeCluster::new(
            kube,
            kubepkg_engine::chart::ClusterCapabilities::default(),
            timeout,
            Arc::new(|l: &str| eprintln!("{l}")),
        );
        let package = kubepkg_model::source::load_dir(Path::new(dir)).unwrap();
        eprintln!("{APPLYING}");
        let (o, _) = ops::apply(
            &mut kc,
            &package,
            Instance {
                name,
                namespace: ns,
            },
            &Default::default(),
            ops::ApplyOptions::new(timeout),
        )
        .await
        .unwrap();
        eprintln!("{FINISHED}{:?}: {}", o.reason, o.message);
        // A child that ends by itself ends cleanly only when its apply succeeded.
        if o.reason != Reason::Succeeded {
            std::process::exit(3);
        }
    });
}

/// What the child prints just before its apply begins, and (then the outcome) when it ended.
const APPLYING: &str = "child: applying";
const FINISHED: &str = "child finished: ";

/// This test binary as a child process ([`CHILD`]) applying `dir` as instance `name` of `ns`,
/// its standard error piped.
fn child_command(ns: &TestNamespace, name: &str, dir: &Path, timeout: Duration) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.env(
        CHILD,
        format!(
            "{}\t{name}\t{}\t{}",
            ns.name(),
            dir.display(),
            timeout.as_secs()
        ),
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    c
}

/// Applies `dir` in a child process stopped at `failpoint`, then SIGKILLs it there.
fn crash_at(ns: &TestNamespace, name: &str, dir: &Path, failpoint: &str, timeout: Duration) {
    let mut child = child_command(ns, name, dir, timeout)
        .env("KUBEPKG_FAILPOINT", failpoint)
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let want = format!("kubepkg: failpoint {failpoint} reached");
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let hit = line.starts_with(&want);
            seen.push(line);
            if hit {
                let _ = tx.send(Ok(()));
                return;
            }
        }
        let _ = tx.send(Err(seen));
    });
    match rx.recv_timeout(Duration::from_secs(180)) {
        Ok(Ok(())) => {}
        Ok(Err(seen)) => panic!("the child ended before failpoint {failpoint}: {seen:#?}"),
        Err(_) => {
            let _ = child.kill();
            panic!("failpoint {failpoint} not reached within 180s")
        }
    }
    child.kill().expect("SIGKILL the child");
    child.wait().unwrap();
}

/// What became of one child apply of [`kill_after`].
struct ChildRun {
    /// SIGKILLed (it had not exited by itself).
    killed: bool,
    /// Killed while its apply ran: after the engine reported a step of it and before it
    /// finished.
    mid_apply: bool,
    /// From the start of its apply to its kill or exit (how long an apply takes, when not
    /// killed: the span later kills are drawn from; never asserted).
    applying_for: Duration,
    /// What it printed (the engine's progress lines among them).
    lines: Vec<String>,
}

/// Applies `dir` in a child process and, once its apply has begun, SIGKILLs it after `delay`
/// (never, with `None`: it runs to its end). A child that exits by itself must exit 0 (its
/// apply succeeded).
fn kill_after(
    ns: &TestNamespace,
    name: &str,
    dir: &Path,
    delay: Option<Duration>,
    timeout: Duration,
) -> ChildRun {
    let mut child = child_command(ns, name, dir, timeout)
        .env_remove("KUBEPKG_FAILPOINT")
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (tx, begun) = std::sync::mpsc::channel();
    let reader = {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line == APPLYING {
                    let _ = tx.send(());
                }
                lines.lock().unwrap().push(line);
            }
        })
    };
    let printed = |lines: &Arc<Mutex<Vec<String>>>| lines.lock().unwrap().clone();
    match begun.recv_timeout(Duration::from_secs(180)) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            let status = child.wait().unwrap();
            reader.join().unwrap();
            panic!(
                "the child ended ({status}) before its apply began: {:#?}",
                printed(&lines)
            );
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            let _ = child.kill();
            panic!("the child's apply did not begin within 180s");
        }
    }
    let begun_at = Instant::now();
    let kill_at = begun_at + delay.unwrap_or(Duration::from_secs(180));
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() >= kill_at {
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let applying_for = begun_at.elapsed();
    if exited.is_none() {
        child.kill().expect("SIGKILL the child");
        child.wait().unwrap();
    }
    reader.join().unwrap();
    let lines = printed(&lines);
    if let Some(status) = exited {
        assert!(
            status.success(),
            "a child that exits before the kill must have applied cleanly ({status}): {lines:#?}"
        );
    } else {
        assert!(
            delay.is_some(),
            "the child's apply did not end within 180s: {lines:#?}"
        );
    }
    let finished = lines.iter().any(|l| l.starts_with(FINISHED));
    // The engine had reported a step of the apply (taking the lock, a hook, a component).
    let stepped = lines.iter().skip_while(|l| *l != APPLYING).nth(1).is_some();
    ChildRun {
        killed: exited.is_none(),
        mid_apply: exited.is_none() && stepped && !finished,
        applying_for,
        lines,
    }
}

/// The kill-trial harness (see the module docs).
async fn kill_trials() {
    let trials: usize = std::env::var("KUBEPKG_KILL_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let mut e = env("kill-trials").await;
    let versions = ["1.0.0", "2.0.0", "3.0.0"];
    for v in versions {
        hooked_package(&e.dir(v), v);
    }
    assert_eq!(e.apply(&e.dir("1.0.0"), SHORT).await, Reason::Succeeded);
    let releases = ["pkg-a", "pkg-b", "pkg-migrate"];
    // How long an upgrade's apply takes here and now (this machine, its load): one upgrade to
    // 3.0.0 in a child, run to its end. The kills are drawn within that span, so most land in
    // the middle of an apply however fast or slow the machine is.
    let full = kill_after(&e.ns, "pkg", &e.dir("3.0.0"), None, SHORT);
    assert!(!full.killed && !full.mid_apply, "{:#?}", full.lines);
    let span = full.applying_for;
    assert_eq!(e.apply(&e.dir("3.0.0"), SHORT).await, Reason::Succeeded);
    let (mut mid_apply, mut killed_outside, mut finished) = (0, 0, 0);
    let mut recoveries = Vec::new();
    for trial in 0..trials {
        // 2.0.0, 3.0.0, 2.0.0, …: every trial changes the version, so its hook runs.
        let target = versions[1 + trial % 2];
        let delay = Duration::from_millis(fastrand::u64(0..=span.as_millis() as u64));
        let dir = e.dir(target);
        let run = kill_after(&e.ns, "pkg", &dir, Some(delay), SHORT);
        let how = if run.mid_apply {
            mid_apply += 1;
            let last = run.lines.last().map_or("", String::as_str);
            format!("killed mid-apply (its last line: {last:?})")
        } else if run.killed {
            killed_outside += 1;
            "killed before its apply's first step or after its end".to_string()
        } else {
            finished += 1;
            "finished (exit 0) before the kill".to_string()
        };
        let started = Instant::now();
        let reason = e.apply(&dir, SHORT).await;
        recoveries.push(started.elapsed());
        let when = format!("trial {trial}: upgrade to {target}, {how} at {delay:?} into its apply");
        assert_eq!(reason, Reason::Succeeded, "{when}");
        assert_final_states(&e.ns, "pkg", &releases, &when).await;
        let h = history(&e.ns, "pkg").await;
        assert_eq!(
            h.deployed().map(|d| d.version.as_str()),
            Some(target),
            "{when}"
        );
        let tag = format!("registry.invalid/a:{target}");
        assert_eq!(e.image("pkg-a").await, tag, "{when}");
        eprintln!(
            "{when}: re-applied in {:?}",
            recoveries.last().copied().unwrap_or_default()
        );
    }
    recoveries.sort();
    eprintln!(
        "kill trials: {trials} ({mid_apply} killed mid-apply, {killed_outside} killed before its first step or after its end, {finished} finished before the kill; an apply took {span:?}), 0 failures; re-apply median {:?}, max {:?}",
        recoveries
            .get(recoveries.len() / 2)
            .copied()
            .unwrap_or_default(),
        recoveries.last().copied().unwrap_or_default()
    );
    // A harness whose kills all came too late would pass while testing no recovery at all.
    assert!(
        mid_apply * 2 > trials,
        "most trials must kill an apply in its middle: {mid_apply} of {trials} did"
    );
}

/// A package of components `a` then `b` (b depends on a), images tagged `tag`.
fn two_components(root: &Path, version: &str, tag: &str, b_sim: &str) {
    package(
        root,
        &format!(
            "package: {{name: p, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n- {{name: a, path: a, values: {{image: \"registry.invalid/a:{tag}\"}}}}\n- {{name: b, path: b, values: {{image: \"registry.invalid/b:{tag}\", sim: {b_sim}}}, install: {{dependsOn: [a]}}}}\n"
        ),
        &["a", "b"],
        &[],
    );
}

struct Env {
    ns: TestNamespace,
    lines: Arc<Mutex<Vec<String>>>,
    kc: KubeCluster,
    tmp: tempfile::TempDir,
}

async fn env(test: &str) -> Env {
    let ns = TestNamespace::fresh(test).await;
    let (kc, lines) = logged_cluster(&ns, SHORT);
    Env {
        ns,
        lines,
        kc,
        tmp: tempfile::tempdir().unwrap(),
    }
}

impl Env {
    fn dir(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    async fn apply(&mut self, dir: &Path, timeout: Duration) -> Reason {
        let ns = self.ns.name().to_string();
        let o = apply(&mut self.kc, &ns, "pkg", dir, timeout).await;
        eprintln!("apply: {:?}: {}", o.reason, o.message);
        o.reason
    }

    /// Applies again after a crash: the dead holder's Lease is taken over at once.
    async fn recover(&mut self, dir: &Path) -> Reason {
        self.lines.lock().unwrap().clear();
        let started = Instant::now();
        let reason = self.apply(dir, SHORT).await;
        eprintln!("recovering apply took {:?}", started.elapsed());
        self.assert_took_over();
        reason
    }

    /// The last operation took the dead holder's Lease over without waiting for its expiry.
    fn assert_took_over(&self) {
        assert_line(
            &self.lines.lock().unwrap(),
            "took over the package lock from ",
            "whose process is gone",
            "the dead holder's Lease must be taken over without waiting for it to expire",
        );
    }

    /// The package's revisions, asserted to be `want` (`(status, reason)` each, oldest first).
    async fn assert_history(&self, want: &[(&str, &str)]) -> History {
        let h = history(&self.ns, "pkg").await;
        let want: Vec<(String, String)> = want.iter().map(|&(st, r)| s(st, r)).collect();
        assert_eq!(brief(&h), want);
        h
    }

    /// The data of the ConfigMap the `migrate` hook of 2.0.0 writes, if it is there.
    async fn migrated(&self) -> Option<std::collections::BTreeMap<String, String>> {
        let cms: Api<ConfigMap> = self.ns.api();
        cms.get_opt("migrated-2-0-0")
            .await
            .unwrap()
            .map(|cm| cm.data.unwrap_or_default())
    }

    async fn image(&self, deployment: &str) -> String {
        let d: Api<Deployment> = self.ns.api();
        let v = serde_json::to_value(d.get(deployment).await.unwrap()).unwrap();
        v.pointer("/spec/template/spec/containers/0/image")
            .and_then(|i| i.as_str())
            .unwrap_or_default()
            .to_string()
    }
}

/// The revisions after an upgrade interrupted and applied again: the one it replaced, the
/// interrupted one (failed), the one that applied it.
const RECOVERED_UPGRADE: [(&str, &str); 3] = [
    ("superseded", "Succeeded"),
    ("failed", "UpgradeFailed"),
    ("deployed", "Succeeded"),
];

fn s(status: &str, reason: &str) -> (String, String) {
    (status.into(), reason.into())
}

fn r(n: u64, status: &str) -> (u64, String) {
    (n, status.into())
}

/// Stopped right after the upgrade's pending revision is written: nothing else changed. The
/// next apply marks it failed (interrupted) and performs the upgrade.
async fn after_pending_revision() {
    let mut e = env("crash-pending").await;
    let (_, v2) = two_versions_applied(&mut e, "ok").await;

    crash_at(&e.ns, "pkg", &v2, "package-pending", SHORT);
    let h = e
        .assert_history(&[("deployed", "Succeeded"), ("pending-upgrade", "")])
        .await;
    assert_eq!(
        conditions(&h.revisions[1]),
        [
            ("Ready".into(), "False".into(), "Progressing".into()),
            ("Reconciling".into(), "True".into(), "Progressing".into())
        ]
    );
    assert_eq!(release_history(&e.ns, "pkg-a").await, [r(1, "deployed")]);
    assert_eq!(release_history(&e.ns, "pkg-b").await, [r(1, "deployed")]);

    assert_eq!(e.recover(&v2).await, Reason::Succeeded);
    let h = e.assert_history(&RECOVERED_UPGRADE).await;
    assert!(h.revisions[1].description.starts_with("interrupted"));
    assert_eq!(h.revisions[2].version, "2.0.0");
    for rel in ["pkg-a", "pkg-b"] {
        assert_eq!(
            release_history(&e.ns, rel).await,
            [r(1, "superseded"), r(2, "deployed")]
        );
    }
    assert_eq!(e.image("pkg-a").await, "registry.invalid/a:2");
    assert_eq!(e.image("pkg-b").await, "registry.invalid/b:2");
}

/// Stopped between two components of a first install (a ready, b not started). The next
/// apply marks the revision failed (InstallFailed, interrupted) and installs the package.
async fn between_components() {
    let mut e = env("crash-between").await;
    let v1 = e.dir("v1");
    two_components(&v1, "1.0.0", "1", "ok");
    crash_at(&e.ns, "pkg", &v1, "package-ready:a", SHORT);
    e.assert_history(&[("pending-install", "")]).await;
    assert_eq!(release_history(&e.ns, "pkg-a").await, [r(1, "deployed")]);
    assert!(release_history(&e.ns, "pkg-b").await.is_empty());

    assert_eq!(e.recover(&v1).await, Reason::Succeeded);
    let h = e
        .assert_history(&[("failed", "InstallFailed"), ("deployed", "Succeeded")])
        .await;
    // a is applied again (its release moves on), b installed; the record holds both.
    let got = &revision_rows(&h)[1].2;
    assert_eq!(got, &[("a".to_string(), 2), ("b".to_string(), 1)]);
    assert_eq!(
        release_history(&e.ns, "pkg-a").await,
        [r(1, "superseded"), r(2, "deployed")]
    );
    assert_eq!(release_history(&e.ns, "pkg-b").await, [r(1, "deployed")]);
    assert_eq!(e.image("pkg-b").await, "registry.invalid/b:1");
}

/// Versions 1.0.0 and 2.0.0 of [`two_components`] (2.0.0's `b` simulated as `b_sim`), written
/// into `e`'s directory; 1.0.0 applied. Returns both directories.
async fn two_versions_applied(e: &mut Env, b_sim: &str) -> (PathBuf, PathBuf) {
    let (v1, v2) = (e.dir("v1"), e.dir("v2"));
    two_components(&v1, "1.0.0", "1", "ok");
    two_components(&v2, "2.0.0", "2", b_sim);
    assert_eq!(e.apply(&v1, SHORT).await, Reason::Succeeded);
    (v1, v2)
}

/// Versions 1.0.0 and 2.0.0 of package `p`: a `PreUpgrade` hook `migrate` before component `a`
/// (whose image names the version), written into `e`'s directory; 1.0.0 applied. Returns
/// 2.0.0's directory.
async fn hooked_package_applied(e: &mut Env) -> PathBuf {
    let write = |root: &Path, version: &str| {
        package(
            root,
            &format!(
                "package: {{name: p, version: {version}}}\ncomponents:\n- {{name: migrate, path: migrate, install: {{phase: PreUpgrade}}}}\n- {{name: a, path: a, values: {{image: \"registry.invalid/a:{version}\"}}}}\n"
            ),
            &["a"],
            &["migrate"],
        )
    };
    let (v1, v2) = (e.dir("v1"), e.dir("v2"));
    write(&v1, "1.0.0");
    write(&v2, "2.0.0");
    assert_eq!(e.apply(&v1, SHORT).await, Reason::Succeeded);
    v2
}

/// Stopped while the upgrade's `PreUpgrade` hook runs (its release installed, its Job
/// started): nothing else changed. The next apply runs the hook afresh (with the versions),
/// upgrades, and uninstalls the hook.
async fn during_pre_upgrade_hook() {
    let mut e = env("crash-hook").await;
    let v2 = hooked_package_applied(&mut e).await;

    crash_at(&e.ns, "pkg", &v2, "package-applied:migrate", SHORT);
    e.assert_history(&[("deployed", "Succeeded"), ("pending-upgrade", "")])
        .await;
    assert_eq!(
        release_history(&e.ns, "pkg-migrate").await,
        [r(1, "deployed")]
    );
    assert_eq!(
        release_history(&e.ns, "pkg-a").await,
        [r(1, "deployed")],
        "nothing but the hook changed"
    );

    assert_eq!(e.recover(&v2).await, Reason::Succeeded);
    let h = e.assert_history(&RECOVERED_UPGRADE).await;
    // Hooks are never recorded; the hook's release is gone after the successful upgrade.
    assert!(h.revisions[2].component("migrate").is_none());
    assert!(release_history(&e.ns, "pkg-migrate").await.is_empty());
    let data = e.migrated().await.expect("the hook's ConfigMap");
    assert_eq!(
        (data["from"].as_str(), data["to"].as_str()),
        ("1.0.0", "2.0.0")
    );
    assert_eq!(
        release_history(&e.ns, "pkg-a").await,
        [r(1, "superseded"), r(2, "deployed")]
    );
    assert_eq!(e.image("pkg-a").await, "registry.invalid/a:2.0.0");
}

/// Stopped after the upgrade's `PreUpgrade` hook completed, while the first component is
/// applied: the hook's completion is in the pending revision. The next apply recovers without
/// running the hook again (its ConfigMap, deleted after the crash, is not made again; a
/// migration that already ran must not run twice), upgrades, and uninstalls the hook.
async fn after_pre_upgrade_hook() {
    let mut e = env("crash-after-hook").await;
    let v2 = hooked_package_applied(&mut e).await;

    crash_at(&e.ns, "pkg", &v2, "package-applied:a", SHORT);
    let h = e
        .assert_history(&[("deployed", "Succeeded"), ("pending-upgrade", "")])
        .await;
    let done: Vec<(String, String, String)> = h.revisions[1]
        .hooks_completed
        .iter()
        .map(|r| (r.name.clone(), r.from_version.clone(), r.to_version.clone()))
        .collect();
    assert_eq!(done, [("migrate".into(), "1.0.0".into(), "2.0.0".into())]);
    let data = e.migrated().await.expect("the hook's ConfigMap");
    assert_eq!(data["to"].as_str(), "2.0.0", "the hook ran once");
    let cms: Api<ConfigMap> = e.ns.api();
    cms.delete("migrated-2-0-0", &Default::default())
        .await
        .unwrap();

    assert_eq!(e.recover(&v2).await, Reason::Succeeded);
    let lines = e.lines.lock().unwrap().clone();
    assert!(
        lines.iter().any(|l| l
            == "migrate: already completed for 1.0.0 -> 2.0.0 by interrupted revision 2; not run again"),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l == "migrate: hook running"),
        "{lines:#?}"
    );
    assert!(e.migrated().await.is_none(), "the hook ran again");
    let h = e.assert_history(&RECOVERED_UPGRADE).await;
    assert_eq!(h.revisions[2].hooks_completed.len(), 1);
    assert!(release_history(&e.ns, "pkg-migrate").await.is_empty());
    assert_eq!(
        release_history(&e.ns, "pkg-a").await.last(),
        Some(&r(3, "deployed"))
    );
    assert_eq!(e.image("pkg-a").await, "registry.invalid/a:2.0.0");
}

/// Stopped in the middle of the automatic rollback of a failed safe upgrade (b rolled back,
/// a not yet). `rollback` refuses while the rollback is pending; applying the deployed version
/// again recovers: every release the crashed run left elsewhere is applied again.
async fn during_automatic_rollback() {
    let mut e = env("crash-rollback").await;
    let (v1, v2) = two_versions_applied(&mut e, "unready").await;

    crash_at(
        &e.ns,
        "pkg",
        &v2,
        "package-rolled-back:pkg-b",
        Duration::from_secs(6),
    );
    e.assert_history(&[
        ("deployed", "Succeeded"),
        ("failed", "RolledBack"),
        ("pending-rollback", ""),
    ])
    .await;
    // b is back on its first revision's content (a Helm rollback: revision 3, the one it
    // left superseded; revision 2, which never became ready, failed as `helm upgrade --wait`
    // records it), a still runs version 2.
    assert_eq!(
        release_history(&e.ns, "pkg-b").await,
        [r(1, "superseded"), r(2, "failed"), r(3, "deployed")]
    );
    assert_eq!(
        release_history(&e.ns, "pkg-a").await,
        [r(1, "superseded"), r(2, "deployed")]
    );
    assert_eq!(e.image("pkg-a").await, "registry.invalid/a:2");

    let ns = e.ns.name().to_string();
    e.lines.lock().unwrap().clear();
    let refused = rollback(&mut e.kc, &ns, "pkg", SHORT)
        .await
        .expect_err("a pending rollback is not rolled back over");
    assert!(
        refused.to_string().contains("apply again to recover"),
        "{refused}"
    );
    e.assert_took_over();

    assert_eq!(e.apply(&v1, SHORT).await, Reason::Succeeded);
    let h = e
        .assert_history(&[
            ("superseded", "Succeeded"),
            ("failed", "RolledBack"),
            ("failed", "UpgradeFailed"),
            ("deployed", "Succeeded"),
        ])
        .await;
    assert_eq!(h.revisions[3].version, "1.0.0");
    assert_eq!(e.image("pkg-a").await, "registry.invalid/a:1");
    assert_eq!(e.image("pkg-b").await, "registry.invalid/b:1");
    let a = release_history(&e.ns, "pkg-a").await;
    assert_eq!(a.last(), Some(&r(3, "deployed")), "{a:?}");
    let b = release_history(&e.ns, "pkg-b").await;
    assert_eq!(b.last(), Some(&r(4, "deployed")), "{b:?}");
    let recorded = &revision_rows(&h)[3].2;
    assert_eq!(recorded, &[("a".to_string(), 3), ("b".to_string(), 4)]);
}
