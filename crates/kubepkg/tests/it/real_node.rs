//! What kubepkg reads from containers, proven on the real node (`testenv/up.sh --real-node`: a
//! real kubelet, containerd and runc; `kubepkg_testkit::real_node`) where the simulator could
//! lie: a check hook's verdict read from the real kubelet's log endpoint and from a termination
//! message a container wrote; a readiness probe that really fails, waited on, diagnosed and rolled
//! back; a container that really crashes (CrashLoopBackOff and restarts counted by the kubelet);
//! Helm's chart hooks and `kubepkg test` with real pods; a Service answering through the real
//! kube-proxy; and `testenv/down.sh` leaving no mount,
//! cgroup, link or process of the node behind.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{run, run_command, run_ok};
use kubepkg_testkit::real_node::{self, BUSYBOX, NODE};
use kubepkg_testkit::{TestNamespace, charts, real_node_plane};

/// Held by the tests whose iptables rules another real node would disturb: a second plane's
/// kube-proxy programs the same chains until `down` removes them (the first resyncs after).
static IPTABLES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A fresh namespace on the plane with its real node.
async fn namespace(test: &str) -> TestNamespace {
    real_node_plane().expect("the local plane with its real node (testenv/up.sh --real-node)");
    TestNamespace::fresh(test).await
}

/// `kubectl ARGS -n NS` on the plane: (exit code, stdout, stderr).
fn kubectl(ns: &TestNamespace, args: &[&str]) -> (i32, String, String) {
    run_command(ns.plane().kubectl().args(args).args(["-n", ns.name()]))
}

/// `kubectl get OBJECT… -o jsonpath=PATH` in the namespace, which must succeed: its output.
fn get_jsonpath(ns: &TestNamespace, object: &[&str], path: &str) -> String {
    let jsonpath = format!("jsonpath={path}");
    let args: Vec<&str> = ["get"]
        .into_iter()
        .chain(object.iter().copied())
        .chain(["-o", jsonpath.as_str()])
        .collect();
    let (code, out, err) = kubectl(ns, &args);
    assert_eq!(code, 0, "kubectl {args:?}: {err}");
    out
}

/// Writes chart `name` under `dir` with `template` as its only template and `values`.
fn chart(dir: &Path, name: &str, values: &str, template: &str) {
    charts::write_chart(
        dir,
        name,
        "1.0.0",
        &[("values.yaml", values), ("templates/main.yaml", template)],
    );
}

/// The check hook: a Job on the real node whose busybox script reads the versions from its
/// environment, logs them, and answers `verdict` (value) as a verdict object: `proceed` and
/// `refused` on the last log line (refused exits 2, as werft's check does), `check_failed` in its
/// termination message only (exit 1).
const CHECK_TEMPLATE: &str = include_str!("real_node/check.yaml");

/// A long-running Deployment on the real node: busybox `httpd` whose CGI `/cgi-bin/ready`
/// answers 500 until `/tmp/ready` exists, probed for readiness; value `ready` makes the
/// container create that file, `crash` makes it write a termination message and exit 1. A
/// Service (port 80) in front of it.
const WEB_TEMPLATE: &str = include_str!("real_node/web.yaml");

/// `template` with `PLACEMENT6`/`PLACEMENT2` replaced by the real node's placement at that
/// indentation and `BUSYBOX` by its image.
fn real(template: &str) -> String {
    template
        .replace("PLACEMENT6", &real_node::placement_yaml(6))
        .replace("PLACEMENT2", &real_node::placement_yaml(2))
        .replace("BUSYBOX", BUSYBOX)
}

/// Package `guarded` `version`: the check hook (PreUpgrade) then `web` (simulated).
fn guarded_package(root: &Path, version: &str) {
    chart(
        &root.join("check"),
        "check",
        "verdict: proceed\n",
        &real(CHECK_TEMPLATE),
    );
    charts::package(
        root,
        &format!(
            "package: {{name: guarded, version: {version}}}\ncomponents:\n- {{name: check, path: check, install: {{phase: PreUpgrade}}}}\n- {{name: web, path: web, values: {{image: \"registry.invalid/web:{version}\"}}}}\n"
        ),
        &["web"],
        &[],
    );
}

/// `kubepkg apply NAME DIR ARGS…` in the test namespace: (exit code, stdout and stderr).
fn apply(ns: &TestNamespace, name: &str, dir: &Path, args: &[&str]) -> (i32, String) {
    let mut all_args = vec!["apply", name, dir.to_str().unwrap()];
    all_args.extend_from_slice(args);
    let (code, out, err) = run(ns, &all_args);
    (code, format!("{out}{err}"))
}

/// The pod of Job `job`: (node it ran on, its log through the API server and the real kubelet).
fn job_pod(ns: &TestNamespace, job: &str) -> (String, String) {
    let node = get_jsonpath(
        ns,
        &["pods", "-l", &format!("job-name={job}")],
        "{.items[0].spec.nodeName}",
    );
    let (code, log, err) = kubectl(ns, &["logs", &format!("job/{job}")]);
    assert_eq!(code, 0, "{err}");
    (node, log)
}

/// A PreUpgrade check really runs: it reads the versions from its environment, and its verdict
/// comes from the real kubelet's log (refused: exit 8, nothing changed) or from the termination
/// message its container wrote (check_failed: exit 4); proceed lets the upgrade through.
#[tokio::test]
async fn a_check_hook_really_runs_and_its_verdict_comes_from_the_kubelet() {
    let ns = namespace("real-verdicts").await;
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    guarded_package(&v1, "1.0.0");
    guarded_package(&v2, "2.0.0");
    let (code, all) = apply(&ns, "guarded", &v1, &["--timeout", "120s"]);
    assert_eq!(code, 0, "{all}");

    let web_revisions = |ns: &TestNamespace| {
        let (_, out, _) = kubectl(
            ns,
            &[
                "get",
                "secrets",
                "-l",
                "owner=helm,name=guarded-web",
                "-o",
                "name",
            ],
        );
        out.lines().count()
    };
    assert_eq!(web_revisions(&ns), 1);
    // The upgrade to 2.0.0 with the check answering `verdict`: exit `code`, output saying `says`.
    let upgrade = |verdict: &str, code: i32, says: &str| {
        let set = format!("check.verdict={verdict}");
        let (got, all) = apply(&ns, "guarded", &v2, &["--set", &set, "--timeout", "120s"]);
        assert_eq!(got, code, "{all}");
        assert!(all.contains(says), "{all}");
    };

    // refused, on the last log line of a container that exited 2.
    upgrade(
        "refused",
        8,
        "check: verdict refused: 1 session cannot resume on 2.0.0 (affected: s-17)",
    );
    let (node, log) = job_pod(&ns, "check-2-0-0-refused");
    assert_eq!(node, NODE, "the check ran on the real node");
    assert!(
        log.starts_with("checking the upgrade from 1.0.0 to 2.0.0 in pod check-2-0-0-refused-"),
        "the container's own log, written by the real container: {log}"
    );
    assert_eq!(web_revisions(&ns), 1, "a refused upgrade changes nothing");

    // check_failed, in the termination message only (the last log line is no verdict): what the
    // container wrote to /dev/termination-log, with its real hostname.
    upgrade(
        "check_failed",
        4,
        "could not check the upgrade (verdict check_failed): database unreachable from check-2-0-0-check-failed-",
    );
    assert_eq!(web_revisions(&ns), 1, "a failed check changes nothing else");

    // proceed (the chart's default): the upgrade goes on and the verdict is recorded.
    upgrade(
        "proceed",
        0,
        "check: verdict proceed: no session affected by 1.0.0 -> 2.0.0",
    );
    assert_eq!(web_revisions(&ns), 2);
}

/// Package `site` `version` of one component `web` on the real node ([`WEB_TEMPLATE`]).
fn site_package(root: &Path, version: &str, values: &str) {
    chart(&root.join("web"), "web", values, &real(WEB_TEMPLATE));
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!(
            "package: {{name: site, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n- {{name: web, path: web, values: {{version: \"{version}\"}}}}\n"
        ),
    )
    .unwrap();
}

/// A fresh namespace (`test`) where package `site` 1.0.0 is applied and ready; the temporary
/// directory of its versions.
async fn site_applied(test: &str) -> (TestNamespace, tempfile::TempDir) {
    let ns = namespace(test).await;
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    site_package(&v1, "1.0.0", "ready: true\n");
    let (code, all) = apply(&ns, "site", &v1, &["--timeout", "120s"]);
    assert_eq!(code, 0, "the probe succeeds once the file exists: {all}");
    (ns, tmp)
}

/// [`site_applied`], then `site` 1.1.0 with `values`, which is rolled back (exit 3) within
/// `timeout`: the namespace and that upgrade's output.
async fn site_upgrade_rolled_back(
    test: &str,
    values: &str,
    timeout: &str,
) -> (TestNamespace, String) {
    let (ns, tmp) = site_applied(test).await;
    let v2 = tmp.path().join("v2");
    site_package(&v2, "1.1.0", values);
    let (code, all) = apply(&ns, "site", &v2, &["--timeout", timeout]);
    assert_eq!(code, 3, "RolledBack: {all}");
    (ns, all)
}

/// A readiness probe that really fails (the container's HTTP server answers 500): kubepkg waits,
/// names the probe failure the kubelet reported, rolls back to the version that was ready, and
/// the failed revision keeps the real container state and events.
#[tokio::test]
async fn a_readiness_probe_that_really_fails_is_waited_on_diagnosed_and_rolled_back() {
    let (ns, all) = site_upgrade_rolled_back("real-probe", "ready: false\n", "25s").await;
    // What the kubelet itself reported about the probe, read from the pod and its events.
    assert!(all.contains("container web: running, not ready"), "{all}");
    assert!(
        all.contains("Readiness probe failed: HTTP probe failed with statuscode: 500"),
        "{all}"
    );
    // The failed revision keeps it.
    let out = run_ok(&ns, &["status", "site", "--revision", "2"]);
    assert!(
        out.contains("HTTP probe failed with statuscode: 500"),
        "{out}"
    );
    // The rollback brought the ready version back: its pod is the one Ready.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = get_jsonpath(
            &ns,
            &["deploy", "site-web"],
            "{.spec.template.metadata.annotations.version} {.status.readyReplicas} {.status.updatedReplicas}",
        );
        if ready.trim() == "1.0.0 1 1" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the rolled-back Deployment never became ready: {ready}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// A Service in front of a pod on the real node answers from the machine: the real kube-proxy
/// programmed its ClusterIP, the bridge carries the connection to the pod's busybox `httpd`.
#[tokio::test]
async fn a_service_in_front_of_a_real_pod_answers_from_the_node() {
    let _iptables = IPTABLES.lock().await;
    let (ns, _tmp) = site_applied("real-service").await;
    let ip = get_jsonpath(&ns, &["service", "site-web"], "{.spec.clusterIP}");
    let addr: SocketAddr = format!("{ip}:80").parse().expect("a ClusterIP");
    let get = || -> std::io::Result<String> {
        let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        stream.write_all(b"GET /cgi-bin/ready HTTP/1.0\r\n\r\n")?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        Ok(answer)
    };
    // kube-proxy programs the Service once its EndpointSlice names the ready pod.
    let deadline = Instant::now() + Duration::from_secs(60);
    let answer = loop {
        match get() {
            Ok(answer) if answer.starts_with("HTTP/1.1 200 OK") => break answer,
            other if Instant::now() > deadline => {
                panic!("service {addr} never answered 200: {other:?}")
            }
            _ => tokio::time::sleep(Duration::from_millis(500)).await,
        }
    };
    assert!(
        answer.ends_with("probe\n"),
        "the container's CGI answered: {answer:?}"
    );
}

/// A container that really crashes: the kubelet's CrashLoopBackOff, its restart count and the
/// termination message the container wrote are what the failed revision says.
#[tokio::test]
async fn a_container_that_really_crashes_is_diagnosed_from_the_kubelet() {
    let (_ns, all) =
        site_upgrade_rolled_back("real-crash", "ready: true\ncrash: true\n", "30s").await;
    // The kubelet's own view at the moment kubepkg gave up: backing off, or just exited again.
    assert!(
        all.contains("container web: waiting CrashLoopBackOff")
            || all.contains("container web: terminated Error (exit 1): config key db.url missing"),
        "{all}"
    );
    assert!(
        all.contains("last terminated Error (exit 1): config key db.url missing"),
        "the termination message the container wrote: {all}"
    );
    let restarts = all
        .split("(restarts ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no restart count in: {all}"));
    assert!(restarts >= 1, "the kubelet restarted it: {all}");
}

/// A chart of Helm hooks run for real: a `pre-install` Job deleted once it succeeded
/// (`hook-succeeded`), one kept until the next run (`before-hook-creation`) whose log the real
/// kubelet serves, and a `test` Pod that `kubepkg test` runs, succeeding or failing for real.
const HOOKS_TEMPLATE: &str = include_str!("real_node/hooks.yaml");

#[tokio::test]
async fn helm_chart_hooks_and_kubepkg_test_run_real_pods() {
    let ns = namespace("real-hooks").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hooks");
    chart(&dir, "hooks", "schema: v2\n", &real(HOOKS_TEMPLATE));
    let chart_dir = dir.to_str().unwrap();
    let (code, out, err) = run(
        &ns,
        &["install", "db", chart_dir, "--wait", "--timeout", "120s"],
    );
    assert_eq!(code, 0, "{out}{err}");
    // hook-succeeded: the setup Job is gone because it really succeeded.
    let (code, _, err) = kubectl(&ns, &["get", "job", "db-setup"]);
    assert_ne!(code, 0, "db-setup deleted after it succeeded");
    assert!(err.contains("NotFound"), "{err}");
    // before-hook-creation: the migrate Job is kept, its log served by the real kubelet.
    let (node, log) = job_pod(&ns, "db-migrate");
    assert_eq!(node, NODE);
    assert_eq!(log.trim(), "migrated schema to v2");

    // kubepkg test: the test Pod really runs and passes...
    let (code, out, err) = run(&ns, &["test", "db", "--timeout", "120s"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("TEST SUITE:     db-test"), "{out}");
    assert!(out.contains("Phase:          Succeeded"), "{out}");
    let (_, log, _) = kubectl(&ns, &["logs", "db-test"]);
    assert_eq!(log.trim(), "testing schema v2");
    // ...and really fails when its check does not hold.
    let (code, out, err) = run(
        &ns,
        &[
            "upgrade",
            "db",
            chart_dir,
            "--set",
            "schema=v3",
            "--wait",
            "--timeout",
            "120s",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (_, log) = job_pod(&ns, "db-migrate");
    assert_eq!(
        log.trim(),
        "migrated schema to v3",
        "the pre-upgrade hook ran again, for real"
    );
    let (code, out, err) = run(&ns, &["test", "db", "--timeout", "120s"]);
    assert_ne!(
        code, 0,
        "a failing test pod fails `kubepkg test`: {out}{err}"
    );
    let phase = get_jsonpath(
        &ns,
        &["pod", "db-test"],
        "{.status.phase} {.status.containerStatuses[0].state.terminated.exitCode}",
    );
    assert_eq!(phase.trim(), "Failed 1");
}

/// `testenv/down.sh` stops a plane's real node and leaves nothing of it on the machine: no
/// mount (container roots, secret volumes, network namespaces), no cgroup, no process, no link,
/// no iptables rule (kube-proxy's) —
/// checked from the kernel's own tables, on a plane of its own with a pod running there.
#[tokio::test]
async fn down_leaves_no_mount_cgroup_process_or_link_of_the_real_node() {
    let _iptables = IPTABLES.lock().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("plane");
    let plane = kubepkg_testkit::start_plane_in(&dir, &["--real-node".to_string()])
        .expect("a plane of its own with a real node");
    let node = real_node::node_state(&dir).expect("state.json records the real node");
    let pod = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: busy, namespace: default}}\nspec:\n{}  containers:\n  - name: c\n    image: {BUSYBOX}\n    command: [sh, -c, \"sleep 3600\"]\n    volumeMounts: [{{name: scratch, mountPath: /scratch}}]\n  volumes: [{{name: scratch, emptyDir: {{medium: Memory}}}}]\n",
        real_node::placement_yaml(2)
    );
    let pod_file = tmp.path().join("pod.yaml");
    std::fs::write(&pod_file, pod).unwrap();
    let (code, out, err) = run_command(plane.kubectl().args(["apply", "-f"]).arg(&pod_file));
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run_command(plane.kubectl().args([
        "wait",
        "pod/busy",
        "--for=condition=Ready",
        "--timeout=120s",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    // The check sees a running node: it can fail.
    let running = real_node::leftovers(&dir, &node);
    for kind in ["mount ", "cgroup ", "process ", "network link "] {
        assert!(
            running.iter().any(|l| l.starts_with(kind)),
            "no {kind}: {running:#?}"
        );
    }

    let down = crate::support::repo().join("testenv/down.sh");
    let out = std::process::Command::new("bash")
        .arg(&down)
        .env("KUBEPKG_TESTENV_DIR", &dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(real_node::leftovers(&dir, &node), Vec::<String>::new());
}
