//! The package verbs as a user runs them, on the local control plane: crash recovery (the
//! `kubepkg apply` process killed mid-apply, then applied again), snapshots of `plan` and
//! `package status` output for the demo package (testdata/packages/demo), and the backend
//! flags' checks (no cluster needed).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{
    kubectl_apply, kubepkg, package_history, repo, run, run_command, run_in, run_ok,
};
use kubepkg_package::revision::RevisionStatus;
use kubepkg_release::storage::{SecretDriver, Store};
use kubepkg_testkit::{TestNamespace, charts, helm_binary};

/// A package of two components; `a` becomes ready only after `ready_after`.
fn slow_package(root: &Path, version: &str, ready_after: &str) {
    for c in ["a", "b"] {
        let sim = format!("kubepkg.dev/sim-ready-after: {ready_after}");
        sim_component(root, c, version, "", &sim);
    }
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!("package: {{name: crashy, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n- {{name: a, path: a}}\n- {{name: b, path: b, install: {{dependsOn: [a]}}}}\n"),
    )
    .unwrap();
}

async fn statuses(ns: &TestNamespace) -> Vec<RevisionStatus> {
    package_history(ns, ns.name(), "crashy")
        .await
        .revisions
        .iter()
        .map(|r| r.status)
        .collect()
}

async fn release_revisions(ns: &TestNamespace, release: &str) -> usize {
    releases_in(ns, ns.name(), release).await
}

/// Runs `kubepkg apply` and SIGKILLs it once `when` holds.
async fn apply_and_kill(
    ns: &TestNamespace,
    dir: &Path,
    when: impl AsyncFn(&TestNamespace) -> bool,
) {
    let mut child = apply_command(ns, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !when(ns).await {
        assert!(Instant::now() < deadline, "kill point never reached");
        assert!(
            child.try_wait().unwrap().is_none(),
            "kubepkg ended before the kill point"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// `kubepkg apply crashy DIR --timeout 60s` in the test namespace.
fn apply_command(ns: &TestNamespace, dir: &Path) -> Command {
    kubepkg(ns, &["apply", "crashy", pkg_path(dir), "--timeout", "60s"])
}

fn apply(ns: &TestNamespace, dir: &Path) -> (i32, String) {
    let (code, out, err) = run_command(&mut apply_command(ns, dir));
    (code, out + &err)
}

/// Killed while the first component of a first install waits to be ready, then killed while
/// an upgrade's second component waits: each next apply takes over the dead holder's Lease,
/// marks the interrupted revision failed and finishes the work.
#[tokio::test]
async fn crash_mid_apply_is_recovered_by_the_next_apply() {
    let ns = TestNamespace::fresh("pkg-crash").await;
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
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["plan", "shop"])
        .arg(repo().join("testdata/packages/demo/v1"))
        .args(["-n", "shop", "--no-diff"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let got = String::from_utf8(out.stdout).unwrap();
    snapshot("plan-demo-v1", &got);
}

/// A `--set-file` of a package verb whose file is not UTF-8 is refused (exit 1, one line naming
/// the file), not recorded with its bytes replaced (regression: the value was silently changed).
#[test]
fn package_set_file_refuses_a_file_that_is_not_utf8() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("blob.bin");
    std::fs::write(&bin, b"ok\xff\xfe").unwrap();
    let text = tmp.path().join("cert.pem");
    std::fs::write(&text, "PEM\n").unwrap();
    let plan = |file: &Path| {
        Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["plan", "shop"])
            .arg(repo().join("testdata/packages/demo/v1"))
            .args(["-n", "shop", "--no-diff", "--set-file"])
            .arg(format!("app.extra={}", file.display()))
            .output()
            .unwrap()
    };
    let out = plan(&bin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{} is not UTF-8 text (invalid byte at offset 2)",
            bin.display()
        )),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let out = plan(&text);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A chart verb given a package directory (what `kubepkg create NAME` makes) says it is a
/// package and which verbs take one, instead of Helm's "Chart.yaml file is missing"; it
/// prints nothing on stdout and exits 1. Before the cluster is asked: no cluster is needed.
#[test]
fn chart_verbs_given_a_package_name_the_package_verbs() {
    let pkg = repo().join("testdata/packages/demo/v1");
    let pkg = pkg.to_str().unwrap();
    for args in [
        vec!["template", "shop", pkg],
        vec!["show", "values", pkg],
        vec!["install", "shop", pkg, "--dry-run"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(&args)
            .env("KUBECONFIG", "/nonexistent")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            err.contains(&format!(
                "{pkg} is a kubepkg package (it has kubepkg.yaml), not a chart"
            )) && err.contains(&format!("`kubepkg plan NAME {pkg}`"))
                && err.contains(&format!("`kubepkg apply NAME {pkg} -n NAMESPACE`")),
            "{args:?}: {err}"
        );
    }
}

/// `plan --cluster` (and `apply --dry-run`) show drift: a hand edit of a live object (here the
/// replicas of component a's Deployment) is listed with both values, and whether the apply
/// would put it back (a changes) or keep it (b unchanged).
#[tokio::test]
async fn plan_against_the_cluster_shows_hand_edits_as_drift() {
    let ns = TestNamespace::fresh("plan-drift").await;
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    package(&v1, "drift", "1.0.0", true, "1s", "");
    let _ = run_ok(&ns, &["apply", "web", pkg_path(&v1)]);
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> = ns.api();
    for (name, replicas) in [("web-a", 3), ("web-b", 2)] {
        deployments
            .patch(
                name,
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(serde_json::json!({"spec": {"replicas": replicas}})),
            )
            .await
            .unwrap();
    }
    // a's chart changes (new appVersion), b's values stay: only a is upgraded.
    let v2 = tmp.path().join("v2");
    package(&v2, "drift", "1.0.1", true, "1s", "");
    std::fs::remove_dir_all(v2.join("b")).unwrap();
    component(&v2, "b", "1.0.0", "1s");
    let (code, plan, err) = run(
        &ns,
        &["plan", "web", pkg_path(&v2), "--cluster", "--no-diff"],
    );
    assert_eq!(code, 0, "{err}");
    let drift: Vec<&str> = plan
        .lines()
        .skip_while(|l| !l.starts_with("Drift "))
        .take_while(|l| !l.is_empty())
        .collect();
    let ns_name = ns.name();
    assert_eq!(
        drift,
        [
            "Drift (live objects differ from what the deployed revision applied):",
            &format!(
                "  a: Deployment {ns_name}/web-a: changed: spec.replicas: live 3, applied 1 (this apply puts it back)"
            ),
            &format!(
                "  b: Deployment {ns_name}/web-b: changed: spec.replicas: live 2, applied 1 (kept: this apply does not change the component)"
            ),
        ],
        "{plan}"
    );
    let (code, json, err) = run(
        &ns,
        &["apply", "web", pkg_path(&v2), "--dry-run", "-o", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["drift"].as_array().map(Vec::len), Some(2), "{json}");
    assert_eq!(v["drift"][0]["component"], "a");
}

/// A package whose component `api` ships CRD `gadgets.<ns>.kubepkg.test` in `crds/` with a
/// `spec.size` of type `size_type`.
fn crd_package(root: &Path, group: &str, version: &str, size_type: &str) {
    charts::write_chart(
        &root.join("api"),
        "api",
        version,
        &[
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata: {v: \"1\"}\n",
            ),
            (
                "crds/gadgets.yaml",
                &format!(
                    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.{group}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {{type: {size_type}}}\n"
                ),
            ),
        ],
    );
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!("package: {{name: gadgets, version: {version}}}\ncomponents:\n- {{name: api, path: api}}\n"),
    )
    .unwrap();
}

/// CRD changes in the plan, checked as OLM checks them: a type change of `spec.size` is listed
/// as unsafe by `plan --cluster`, `apply` refuses it (exit 1, nothing changed), and
/// `--allow-unsafe-crd-changes` applies it.
#[tokio::test]
async fn unsafe_crd_changes_are_shown_in_the_plan_and_refused_by_apply() {
    let ns = TestNamespace::fresh("crd-changes").await;
    let group = format!("{}.kubepkg.test", ns.name());
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    crd_package(&v1, &group, "1.0.0", "integer");
    crd_package(&v2, &group, "1.1.0", "string");
    let _ = run_ok(&ns, &["apply", "g", pkg_path(&v1)]);
    // An existing Gadget that the new schema (size: string) would not accept.
    let gadget = format!(
        "apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n  name: g1\n  namespace: {}\nspec:\n  size: 3\n",
        ns.name()
    );
    kubectl_apply(&ns, &gadget);
    let plan = run_ok(&ns, &["plan", "g", pkg_path(&v2), "--cluster", "--no-diff"]);
    assert!(
        plan.contains(&format!(
            "  api: CustomResourceDefinition gadgets.{group} v1: 1 of 1 existing object(s) would not validate under the new schema (first: {}/g1: at '/spec/size': 3 is not of type \"string\") (unsafe: the API server refuses every later write of them)",
            ns.name()
        )),
        "{plan}"
    );
    let line = format!(
        "  api: CustomResourceDefinition gadgets.{group} v1 spec.size: type changed from integer to string (unsafe: existing values may no longer validate)"
    );
    assert!(
        plan.contains(&format!("\nCRD changes:\n{line}\n")),
        "{plan}"
    );
    let (code, out, err) = run(&ns, &["apply", "g", pkg_path(&v2)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(
            "refusing to apply package g: 2 CRD change(s) are unsafe for existing objects"
        ),
        "{err}"
    );
    assert!(err.contains(&line), "{err}");
    let crds: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        kube::Api::all(ns.client().clone());
    let size_type = |crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition| {
        serde_json::to_value(crd).unwrap()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]["type"]
            .clone()
    };
    let name = format!("gadgets.{group}");
    assert_eq!(
        size_type(&crds.get(&name).await.unwrap()),
        "integer",
        "unchanged"
    );
    let (code, _, err) = run(
        &ns,
        &["apply", "g", pkg_path(&v2), "--allow-unsafe-crd-changes"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(size_type(&crds.get(&name).await.unwrap()), "string");
}

/// `kubepkg status NAME --revision N` shows a failed revision as it was kept, even after the
/// automatic rollback: its reason and what failed, down to the pod that never became ready.
#[tokio::test]
async fn status_of_a_failed_revision_shows_the_unready_pod_after_the_rollback() {
    let ns = TestNamespace::fresh("status-rev").await;
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    package(&v1, "diag", "1.0.0", true, "1s", "");
    package(&v2, "diag", "2.0.0", true, "never", "");
    let _ = run_ok(&ns, &["apply", "web", pkg_path(&v1)]);
    let (code, _, err) = run(&ns, &["apply", "web", pkg_path(&v2), "--timeout", "8s"]);
    assert_eq!(code, 3, "{err}");
    let out = run_ok(&ns, &["status", "web", "--revision", "2"]);
    assert!(out.contains("REVISION: 2\n"), "{out}");
    assert!(
        out.contains("STATUS: failed\nREASON: RolledBack\n"),
        "{out}"
    );
    let pod = out
        .lines()
        .find(|l| l.trim_start().starts_with("pod web-b-"))
        .unwrap_or_else(|| panic!("no pod line in {out}"));
    assert!(pod.contains("Ready=False"), "{pod}");
    let (code, json, err) = run(
        &ns,
        &["package", "status", "web", "--revision", "2", "-o", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["revision"]["revision"], 2);
    assert!(
        v["revision"]["description"]
            .as_str()
            .unwrap()
            .contains("pod web-b-")
    );
    let (code, _, err) = run(&ns, &["status", "web", "--revision", "9"]);
    assert_eq!(code, 1);
    assert!(err.contains("package web has no revision 9"), "{err}");
}

/// One component chart: a Deployment the node simulator makes ready after `ready_after`, or
/// never when `ready_after` is `never`.
fn component(root: &Path, name: &str, version: &str, ready_after: &str) {
    let sim = if ready_after == "never" {
        "kubepkg.dev/sim: unready".to_string()
    } else {
        format!("kubepkg.dev/sim-ready-after: {ready_after}")
    };
    sim_component(
        root,
        name,
        version,
        &format!("appVersion: \"{version}\"\n"),
        &sim,
    );
}

/// Component chart `root/name` at `version` (`chart_extra` appended to its Chart.yaml): a
/// Deployment whose pod carries the node simulator's annotation `sim` (`key: value`).
fn sim_component(root: &Path, name: &str, version: &str, chart_extra: &str, sim: &str) {
    charts::write_files(
        &root.join(name),
        &[
            (
                "Chart.yaml",
                &format!("apiVersion: v2\nname: {name}\nversion: {version}\n{chart_extra}"),
            ),
            (
                "templates/deployment.yaml",
                &format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{{{ .Release.Name }}}}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n      annotations:\n        {sim}\n    spec:\n      containers:\n      - name: c\n        image: registry.invalid/{name}:{version}\n"
                ),
            ),
        ],
    );
}

/// A package `name` at `version` of components `a` then `b` (b depends on a); `b_ready` is
/// b's readiness (`never`: a failing upgrade); `extra` is appended to the `package:` map.
fn package(root: &Path, name: &str, version: &str, safe: bool, b_ready: &str, extra: &str) {
    component(root, "a", version, "1s");
    component(root, "b", version, b_ready);
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!(
            "package:\n  name: {name}\n  version: {version}\n  rollback: {{safe: {safe}}}\n{extra}components:\n- {{name: a, path: a, install: {{}}}}\n- {{name: b, path: b, install: {{dependsOn: [a]}}}}\n"
        ),
    )
    .unwrap();
}

/// How many revisions release `release` of `namespace` has.
async fn releases_in(ns: &TestNamespace, namespace: &str, release: &str) -> usize {
    Store::new(SecretDriver::new(ns.client().clone(), Some(namespace)))
        .history(release)
        .await
        .unwrap()
        .len()
}

async fn delete_namespace(ns: &TestNamespace, name: &str) {
    let namespaces = kube::discovery::ApiResource {
        group: String::new(),
        version: "v1".into(),
        api_version: "v1".into(),
        kind: "Namespace".into(),
        plural: "namespaces".into(),
    };
    let api: kube::Api<kube::api::DynamicObject> =
        kube::Api::all_with(ns.client().clone(), &namespaces);
    let _ = api.delete(name, &Default::default()).await;
}

fn pkg_path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `COMPONENT:STATE` of one `-o json` progress event (`-` for package-level events).
fn component_state(e: &serde_json::Value) -> String {
    format!(
        "{}:{}",
        e["component"].as_str().unwrap_or("-"),
        e["state"].as_str().unwrap()
    )
}

/// `apply -o json`: each progress event is one JSON line on stdout as it happens, in the
/// order of docs/rules.md#order (a applied, waited for, ready; then b), the summary last.
#[tokio::test]
async fn apply_json_prints_one_line_per_progress_event_then_the_summary() {
    let ns = TestNamespace::fresh("pkg-json").await;
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    package(&v1, "jsonpkg", "1.0.0", true, "3s", "");
    let (code, out, err) = run(&ns, &["apply", "jp", pkg_path(&v1), "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect();
    let states: Vec<String> = events.iter().map(component_state).collect();
    // Collapse repeated waitingFor lines: how many the watch reports depends on timing. Only b
    // is made slow (ready after 3s); a may already be ready when its watch first lists it, so
    // whether a reports a waitingFor line depends on timing too.
    let mut seq = states.clone();
    seq.dedup();
    let seq: Vec<&str> = seq
        .iter()
        .map(String::as_str)
        .filter(|s| !s.ends_with(":message") && *s != "a:waitingFor")
        .collect();
    assert_eq!(
        seq,
        [
            "a:applying",
            "a:waiting",
            "a:ready",
            "b:applying",
            "b:waiting",
            "b:waitingFor",
            "b:ready",
            "-:summary",
        ],
        "{out}"
    );
    // b's Deployment is waited for by name, with its kstatus state: not ready before 3s.
    let waiting_b: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["state"] == "waitingFor" && e["component"] == "b")
        .collect();
    let object = format!("Deployment \"jp-b\" in namespace \"{}\"", ns.name());
    assert!(waiting_b.iter().all(|e| e["object"] == object), "{out}");
    assert!(
        waiting_b
            .iter()
            .any(|e| e["reason"].as_str().unwrap().starts_with("InProgress")),
        "{out}"
    );
    let summary = events.last().unwrap();
    assert_eq!(summary["reason"], "Succeeded", "{summary}");
    assert_eq!(summary["exitCode"], 0, "{summary}");
    assert_eq!(summary["deployedRevision"], 1, "{summary}");
    // The cluster agrees: one deployed revision, both releases at revision 1.
    let h = package_history(&ns, ns.name(), "jp").await;
    assert_eq!(
        h.revisions.iter().map(|r| r.status).collect::<Vec<_>>(),
        [RevisionStatus::Deployed]
    );
    assert_eq!(release_revisions(&ns, "jp-a").await, 1);
    assert_eq!(release_revisions(&ns, "jp-b").await, 1);
}

/// The bare verbs take NAME as a package when one has revision records in the namespace,
/// else as a Helm release; `--package`/`--release` force a meaning. `kubepkg status` of a
/// package is pinned by a snapshot (reviewed against the cluster state asserted here).
#[tokio::test]
async fn bare_verbs_resolve_package_or_release_with_status_snapshot() {
    let ns = TestNamespace::fresh("pkg-verbs").await;
    // A namespace whose name has a fixed length, so the snapshot's table columns do not
    // depend on a random suffix (deleted at the end).
    let name = format!(
        "t-verbs-{:08x}",
        ns.name()
            .bytes()
            .fold(7u32, |h, b| h.wrapping_mul(31) ^ u32::from(b))
    );
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1");
    package(&v1, "shop", "1.0.0", true, "1s", "");
    let v2 = tmp.path().join("v2");
    package(&v2, "shop", "2.0.0", true, "1s", "");
    let (code, out, err) = run_in(&ns, &name, &["apply", "web", pkg_path(&v1)]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        out, "Succeeded: shop 1.0.0 is deployed as revision 1\n",
        "{err}"
    );
    // `plan NAME v2 --cluster` against the installed v1: upgrades from→to, the diff of
    // rendered objects (only the images change), the gates; it changes nothing.
    let (code, plan, err) = run_in(&ns, &name, &["plan", "web", pkg_path(&v2), "--cluster"]);
    assert_eq!(code, 0, "{err}");
    snapshot("plan-web-v2", &plan.replace(&name, "t-verbs-00000000"));
    assert_eq!(
        releases_in(&ns, &name, "web-a").await,
        1,
        "plan changed nothing"
    );
    let (code, out, err) = run_in(&ns, &name, &["apply", "web", pkg_path(&v2)]);
    assert_eq!(code, 0, "{out}\n{err}");

    // Cluster state the snapshot must describe: revision 2 deployed (2.0.0), releases at 2.
    let h = package_history(&ns, &name, "web").await;
    assert_eq!(
        h.revisions.iter().map(|r| r.status).collect::<Vec<_>>(),
        [RevisionStatus::Superseded, RevisionStatus::Deployed]
    );
    assert_eq!(releases_in(&ns, &name, "web-a").await, 2);
    assert_eq!(releases_in(&ns, &name, "web-b").await, 2);

    // `status NAME` of a package, normalised only in the namespace name.
    let (code, status, err) = run_in(&ns, &name, &["status", "web"]);
    assert_eq!(code, 0, "{err}");
    let got = status.replace(&name, "t-verbs-00000000");
    snapshot("status-web", &got);
    let (_, forced, _) = run_in(&ns, &name, &["status", "web", "--package"]);
    assert_eq!(forced, status);
    let (_, alias, _) = run_in(&ns, &name, &["package", "status", "web"]);
    assert_eq!(alias, status);

    // `status NAME` of a release (a component's), as helm prints it.
    let (code, rel, err) = run_in(&ns, &name, &["status", "web-a"]);
    assert_eq!(code, 0, "{err}");
    assert!(rel.starts_with("NAME: web-a\nLAST DEPLOYED: "), "{rel}");
    assert!(rel.contains("\nSTATUS: deployed\nREVISION: 2\n"), "{rel}");

    // Forcing the other meaning fails clearly, with exit code 1.
    let (code, _, err) = run_in(&ns, &name, &["status", "web", "--release"]);
    assert_eq!((code, err.as_str()), (1, "Error: release: not found\n"));
    let (code, _, err) = run_in(&ns, &name, &["history", "web-a", "--package"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "package \"web-a\" not found in namespace \"{}\"",
            name
        )),
        "{err}"
    );
    let (code, _, err) = run_in(&ns, &name, &["status", "web", "--release", "--package"]);
    assert_eq!(code, 2, "{err}");

    // `history NAME`: package revisions; of a release: helm's table.
    let (_, hist, _) = run_in(&ns, &name, &["history", "web"]);
    let lines: Vec<&str> = hist.lines().collect();
    assert_eq!(lines.len(), 3, "{hist}");
    assert!(lines[0].starts_with("REVISION\tUPDATED"), "{hist}");
    assert!(lines[0].contains("\tPACKAGE\t"), "{hist}");
    assert!(
        lines[2].contains("\tdeployed  \tshop   \t2.0.0  \tUpgrade complete"),
        "{hist}"
    );
    let (_, rel_hist, _) = run_in(&ns, &name, &["history", "web-b"]);
    assert!(
        rel_hist.contains("\tCHART  \tAPP VERSION\tDESCRIPTION"),
        "{rel_hist}"
    );

    // `list`: Helm's release table; `list --packages` and `package list`: packages.
    let (_, list, _) = run_in(&ns, &name, &["list", "-o", "json"]);
    let names: Vec<String> = serde_json::from_str::<serde_json::Value>(&list)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["web-a", "web-b"]);
    let (_, pkgs, _) = run_in(&ns, &name, &["list", "--packages"]);
    let (_, pkgs_alias, _) = run_in(&ns, &name, &["package", "list"]);
    assert_eq!(pkgs, pkgs_alias);
    assert!(pkgs.starts_with("NAME\tNAMESPACE"), "{pkgs}");
    assert!(pkgs.lines().nth(1).unwrap().starts_with("web \t"), "{pkgs}");

    // `rollback NAME`: the package goes back to revision 1 (a new revision 3).
    let (code, out, err) = run_in(&ns, &name, &["rollback", "web", "1"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let h = package_history(&ns, &name, "web").await;
    let last = h.latest().unwrap();
    assert_eq!((last.revision, last.version.as_str()), (3, "1.0.0"));
    assert_eq!(last.status, RevisionStatus::Deployed);
    assert_eq!(releases_in(&ns, &name, "web-a").await, 3);

    // `uninstall NAME -o json`: components in reverse order, the summary last.
    let (code, out, err) = run_in(&ns, &name, &["uninstall", "web", "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let states: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["state"] != "message")
        .map(|e| component_state(&e))
        .collect();
    assert_eq!(
        states,
        [
            "b:uninstalling",
            "b:uninstalled",
            "a:uninstalling",
            "a:uninstalled",
            "-:summary"
        ],
        "{out}"
    );
    assert_eq!(releases_in(&ns, &name, "web-a").await, 0);
    assert!(
        package_history(&ns, &name, "web")
            .await
            .revisions
            .is_empty()
    );
    // With the package gone, NAME falls back to the release meaning.
    let (code, _, err) = run_in(&ns, &name, &["status", "web"]);
    assert_eq!((code, err.as_str()), (1, "Error: release: not found\n"));
    delete_namespace(&ns, &name).await;
}

/// Each way a package run can end has its own exit code (README, `kubepkg --help`).
#[tokio::test]
async fn exit_codes_distinguish_how_a_package_run_ended() {
    let ns = TestNamespace::fresh("pkg-exit").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = |n: &str| tmp.path().join(n);
    let fast = ["--timeout", "6s"];

    // 7 InvalidPackage: a dependency cycle, offline (plan) and against the cluster (apply).
    std::fs::create_dir_all(dir("cycle")).unwrap();
    component(&dir("cycle"), "a", "1.0.0", "1s");
    component(&dir("cycle"), "b", "1.0.0", "1s");
    std::fs::write(
        dir("cycle").join("kubepkg.yaml"),
        "package: {name: cyc, version: 1.0.0}\ncomponents:\n- {name: a, path: a, install: {dependsOn: [b]}}\n- {name: b, path: b, install: {dependsOn: [a]}}\n",
    )
    .unwrap();
    let (code, _, err) = run(&ns, &["plan", "cyc", pkg_path(&dir("cycle"))]);
    assert_eq!(code, 7, "{err}");
    assert!(err.contains("cycle"), "{err}");
    let (code, _, err) = run(&ns, &["apply", "cyc", pkg_path(&dir("cycle"))]);
    assert_eq!(code, 7, "{err}");

    // 2: usage.
    let (code, _, _) = run(&ns, &["apply", "only-a-name"]);
    assert_eq!(code, 2);

    // 1: an error before anything changed (no such package to roll back).
    let (code, _, err) = run(&ns, &["rollback", "nothing-here", "--package"]);
    assert_eq!(code, 1, "{err}");

    // 5 InstallFailed: a first install whose component never gets ready.
    package(&dir("first"), "first", "1.0.0", true, "never", "");
    let (code, out, err) = run(
        &ns,
        &[&["apply", "first", pkg_path(&dir("first"))][..], &fast].concat(),
    );
    assert_eq!(code, 5, "{out}\n{err}");
    assert!(out.starts_with("InstallFailed: "), "{out}");

    // 4 UpgradeFailed: v2 (rollback.safe: false) fails; nothing is rolled back.
    package(&dir("u1"), "unsafe", "1.0.0", false, "1s", "");
    package(&dir("u2"), "unsafe", "2.0.0", false, "never", "");
    assert_eq!(run(&ns, &["apply", "unsafe", pkg_path(&dir("u1"))]).0, 0);
    let (code, out, err) = run(
        &ns,
        &[
            &["apply", "unsafe", pkg_path(&dir("u2")), "-o", "json"][..],
            &fast,
        ]
        .concat(),
    );
    assert_eq!(code, 4, "{out}\n{err}");
    let summary: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(
        (summary["reason"].as_str(), summary["exitCode"].as_i64()),
        (Some("UpgradeFailed"), Some(4))
    );
    assert_eq!(
        release_revisions(&ns, "unsafe-b").await,
        2,
        "b stays at the failed revision"
    );
    // Rolling back out of 2.0.0 (rollback.safe: false) is refused (1) unless --force.
    let (code, _, err) = run(&ns, &["rollback", "unsafe", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("rollback.safe"), "{err}");
    assert_eq!(
        release_revisions(&ns, "unsafe-b").await,
        2,
        "refused: nothing changed"
    );
    let (code, out, err) = run(&ns, &["rollback", "unsafe", "1", "--force"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        release_revisions(&ns, "unsafe-b").await,
        3,
        "b rolled back to revision 1"
    );

    // 3 RolledBack: v2 (rollback.safe: true) fails and is rolled back to revision 1.
    package(&dir("s1"), "safe", "1.0.0", true, "1s", "");
    package(&dir("s2"), "safe", "2.0.0", true, "never", "");
    assert_eq!(run(&ns, &["apply", "safe", pkg_path(&dir("s1"))]).0, 0);
    let (code, out, err) = run(
        &ns,
        &[&["apply", "safe", pkg_path(&dir("s2"))][..], &fast].concat(),
    );
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(out.starts_with("RolledBack: "), "{out}");
    assert!(err.contains("b: rolled back"), "{err}");

    // 6 RequirementsNotMet: a required package that is not installed.
    package(
        &dir("needs"),
        "needs",
        "1.0.0",
        true,
        "1s",
        "  requires:\n  - {name: not-installed-anywhere}\n",
    );
    let (code, out, err) = run(
        &ns,
        &[
            "apply",
            "needs",
            pkg_path(&dir("needs")),
            "--requirements-timeout",
            "2s",
        ],
    );
    assert_eq!(code, 6, "{out}\n{err}");
    assert!(
        err.contains("requirements: waiting for package not-installed-anywhere"),
        "{err}"
    );
}

/// A package of one component `app` whose chart renders a Secret from values: `password`
/// (base64 in `data`) and `token` (clear in `stringData`).
fn secret_package(root: &Path) {
    charts::write_chart(
        &root.join("app"),
        "app",
        "1.0.0",
        &[
            ("values.yaml", "password: default-pw\ntoken: default-tok\n"),
            (
                "templates/secret.yaml",
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-creds\ntype: Opaque\ndata:\n  password: {{ .Values.password | b64enc }}\nstringData:\n  token: {{ .Values.token }}\n",
            ),
        ],
    );
    std::fs::write(
        root.join("kubepkg.yaml"),
        "package: {name: creds, version: 1.0.0}\ncomponents:\n- {name: app, path: app}\n",
    )
    .unwrap();
}

/// `plan --cluster` (text and `-o json`) and `apply --dry-run` never print a Secret's values,
/// old or new, `data` (nor its base64) or `stringData`, nor a `--set` value in the note about
/// values not kept; each key is shown with whether it changes and its size. `--show-secrets`
/// prints them (so the values are there to hide).
#[tokio::test]
async fn plan_against_the_cluster_never_prints_a_secret_value() {
    let ns = TestNamespace::fresh("pkg-secrets").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("creds");
    secret_package(&dir);
    let (code, out, err) = run(
        &ns,
        &[
            "apply",
            "creds",
            pkg_path(&dir),
            "--set",
            "app.password=OLD-pa55-w0rd",
            "--set",
            "app.token=OLD-t0ken-abc",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    // The values and their base64 (computed by `base64`, not by kubepkg).
    let secrets = [
        "OLD-pa55-w0rd",
        "T0xELXBhNTUtdzByZA==",
        "OLD-t0ken-abc",
        "T0xELXQwa2VuLWFiYw==",
        "NEW-pa55-w0rd",
        "TkVXLXBhNTUtdzByZA==",
        "NEW-t0ken-xyz",
        "TkVXLXQwa2VuLXh5eg==",
    ];
    let new = [
        "--set",
        "app.password=NEW-pa55-w0rd",
        "--set",
        "app.token=NEW-t0ken-xyz",
    ];
    let path = pkg_path(&dir);
    let runs: Vec<Vec<&str>> = vec![
        [&["plan", "creds", path, "--cluster"][..], &new].concat(),
        [
            &["plan", "creds", path, "--cluster", "-o", "json"][..],
            &new,
        ]
        .concat(),
        [&["apply", "creds", path, "--dry-run"][..], &new].concat(),
        [
            &["apply", "creds", path, "--dry-run", "-o", "json"][..],
            &new,
        ]
        .concat(),
        // No values: the note about values not kept names the keys only.
        vec!["plan", "creds", path, "--cluster"],
    ];
    for args in &runs {
        let (code, out, err) = run(&ns, args);
        assert_eq!(code, 0, "{args:?}: {out}\n{err}");
        for s in secrets {
            assert!(
                !out.contains(s) && !err.contains(s),
                "{args:?} printed {s}:\n{out}\n{err}"
            );
        }
        assert!(out.contains("Secret"), "{args:?}: {out}");
    }
    let (_, text, _) = run(&ns, &runs[0]);
    assert!(
        text.contains("data.password: (changed, 13 -> 13 bytes)\n")
            && text.contains("stringData.token: (changed, 13 -> 13 bytes)\n"),
        "{text}"
    );
    let (_, _, err_plain) = run(&ns, &runs[4]);
    assert!(
        err_plain.contains("(from --set app.password; --set app.token)"),
        "{err_plain}"
    );
    let (_, json, _) = run(&ns, &runs[1]);
    let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
    let keys = &plan["steps"][0]["diff"][0]["secretKeys"];
    assert_eq!(
        keys,
        &serde_json::json!([
            {"key": "data.password", "change": "changed", "oldSize": 13, "newSize": 13},
            {"key": "stringData.token", "change": "changed", "oldSize": 13, "newSize": 13}
        ]),
        "{json}"
    );

    // Asked for, the values are shown.
    let (code, shown, _) = run(&ns, &[&runs[0][..], &["--show-secrets"]].concat());
    assert_eq!(code, 0);
    assert!(
        shown.contains("TkVXLXBhNTUtdzByZA==") && shown.contains("NEW-t0ken-xyz"),
        "{shown}"
    );
}

/// A package name that is not a valid Lease, Secret and Helm release name is refused by
/// validation before anything is contacted or changed, offline and on the cluster, with one
/// clear line (exit 1). Checked against Helm: every name kubepkg accepts gives release names
/// `helm template` accepts, and Helm refuses the ones kubepkg refuses for length or case.
#[tokio::test]
async fn package_names_are_checked_before_anything_as_helm_checks_release_names() {
    let ns = TestNamespace::fresh("pkg-names").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    package(&dir, "names", "1.0.0", true, "1s", "");
    let helm = helm_binary("v4.3.1").expect("helm oracle");
    let helm_accepts = |release: &str| {
        Command::new(&helm)
            .args(["template", release])
            .arg(dir.join("a"))
            .output()
            .unwrap()
            .status
            .success()
    };
    let plan_offline = |name: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["plan", name, pkg_path(&dir), "--no-diff"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let a51 = "a".repeat(51);
    let a52 = "a".repeat(52);
    for (name, ok) in [
        ("names", true),
        (a51.as_str(), true),
        (a52.as_str(), false),
        ("Bad_Name", false),
        ("UPPER", false),
        ("under_score", false),
    ] {
        let (code, err) = plan_offline(name);
        assert_eq!(code, Some(if ok { 0 } else { 1 }), "{name}: {err}");
        let helm_ok = helm_accepts(&format!("{name}-a")) && helm_accepts(&format!("{name}-b"));
        assert_eq!(helm_ok, ok, "helm and kubepkg disagree on {name:?}");
        if !ok {
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.len() < 400, "{} bytes: {err}", err.len());
        }
    }
    let (_, err) = plan_offline("Bad_Name");
    assert_eq!(
        err,
        "Error: package name \"Bad_Name\" is not valid: it contains 'B'; a package name must be at most 53 characters of lowercase letters, digits and '-', starting and ending with a letter or digit (it names the Lease kubepkg.package.<name> and the Helm release <name>-<component> of each component)\n"
    );
    let (_, err) = plan_offline(&a52);
    assert!(
        err.contains("is 54 characters long, Helm allows 53"),
        "{err}"
    );

    // On the cluster: refused before the Lease is taken; nothing recorded.
    for verb in [
        &["plan", "Bad_Name", pkg_path(&dir), "--cluster"][..],
        &["apply", "Bad_Name", pkg_path(&dir)],
    ] {
        let (code, out, err) = run(&ns, verb);
        assert_eq!(code, 1, "{out}\n{err}");
        assert!(
            err.starts_with("Error: package name \"Bad_Name\" is not valid"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let leases: kube::Api<k8s_openapi::api::coordination::v1::Lease> = ns.api();
    assert!(
        leases
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty(),
        "no Lease taken"
    );
}

/// Compares `got` with the insta snapshot `NAME` (`snapshots/it__package_cli__NAME.snap`;
/// `cargo insta review` after a change). Insta ignores trailing whitespace, so the one final
/// newline every pinned text ends with is asserted here.
#[track_caller]
fn snapshot(name: &str, got: &str) {
    insta::assert_snapshot!(name, got);
    assert_eq!(
        &got[got.trim_end().len()..],
        "\n",
        "snapshot {name}: one final newline"
    );
}

/// A component chart with a `repository: file://` dependency on another chart of the package
/// renders with it, as if `dependency update` had packed it into `charts/` (its templates and
/// its values, and its own `file://` dependency): offline `plan` lists their objects; a path
/// that does not exist is refused naming the dependency and the path, nothing rendered.
#[test]
fn a_component_chart_with_file_dependencies_renders_with_them() {
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    let write = |rel: &str, text: &str| charts::write_files(&pkg, &[(rel, text)]);
    write(
        "kubepkg.yaml",
        "package: {name: umbrella, version: 1.0.0}\ncomponents:\n- name: app\n  path: charts/app\n  install: {namespace: shop}\n",
    );
    write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: common\n  version: ^1.0.0\n  repository: file://../common\n",
    );
    write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-config}\n",
    );
    write(
        "charts/common/Chart.yaml",
        "apiVersion: v2\nname: common\nversion: 1.2.0\ndependencies:\n- name: base\n  version: 0.x\n  repository: file://../base\n",
    );
    write(
        "charts/common/values.yaml",
        "configName: from-common-values\n",
    );
    write(
        "charts/common/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Values.configName }}}\n",
    );
    write(
        "charts/base/Chart.yaml",
        "apiVersion: v2\nname: base\nversion: 0.3.0\n",
    );
    write(
        "charts/base/templates/sa.yaml",
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: base-sa}\n",
    );
    let plan = || {
        Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["plan", "umbrella"])
            .arg(&pkg)
            .args(["-n", "shop", "--no-diff"])
            .output()
            .unwrap()
    };
    let out = plan();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for object in [
        "+ ConfigMap app-config",
        "+ ConfigMap from-common-values",
        "+ ServiceAccount base-sa",
    ] {
        assert!(stdout.contains(object), "{object} missing:\n{stdout}");
    }
    assert!(
        !pkg.join("charts/app/charts").exists(),
        "plan writes nothing into the package"
    );

    std::fs::remove_dir_all(pkg.join("charts/base")).unwrap();
    let out = plan();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains(&format!(
            "dependency \"base\" (file://../base): directory {} not found",
            pkg.join("charts/base").display()
        )),
        "{stderr}"
    );
}

/// `--backend` and `--chart-repository` are checked before anything is planned or any cluster is
/// asked (here there is none: `KUBECONFIG` names a missing file): flux and argocd need the
/// repository their puller reads the pushed charts from, and the helm backend refuses one.
#[test]
fn a_backend_asks_for_the_chart_repository_it_needs_and_helm_refuses_one() {
    let package = repo().join("examples/shop/v1");
    let package = package.to_str().unwrap();
    let plan = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
        cmd.env("KUBECONFIG", "/nonexistent/kubeconfig")
            .args(["plan", "shop", package])
            .args(extra);
        run_command(&mut cmd)
    };
    for (backend, puller) in [
        ("flux", "Flux's OCIRepository"),
        ("argocd", "Argo CD's repo server"),
    ] {
        let (code, stdout, stderr) = plan(&["--backend", backend]);
        assert_eq!(code, 1, "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            stderr.contains(&format!(
                "--backend {backend} needs --chart-repository oci://HOST/PATH"
            )) && stderr.contains(&format!("{puller} pulls it from")),
            "{stderr}"
        );
    }
    let (code, _, stderr) = plan(&["--chart-repository", "oci://registry.example/charts"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "--chart-repository oci://registry.example/charts: only --backend flux or argocd pushes charts to a repository"
        ),
        "{stderr}"
    );
}
