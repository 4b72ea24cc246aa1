//! Helpers shared by the engine's cluster tests (`rules.rs`, `requires.rs`, `crash.rs`,
//! `examples.rs`, …): packages written to temporary directories whose components are one
//! simulated Deployment each (the node simulator's `kubepkg.dev/sim` annotations make it
//! ready, never ready or failing), hook charts with a Job, a [`KubeCluster`] over a test
//! namespace that collects progress lines, apply and rollback of an instance, and readers of
//! the recorded package revisions and Helm release records.

#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_engine::{EngineError, Instance, KubeCluster, ops};
use kubepkg_model::values::UserValues;
use kubepkg_package::orchestrator::Outcome;
use kubepkg_package::revision::{History, PackageRevision, RevisionStatus};
use kubepkg_release::Status;
use kubepkg_release::storage::{SecretDriver, Store};
use kubepkg_testkit::TestNamespace;

/// A chart `name` with one Deployment; `values.yaml` sets `sim` (default `ok`) and `image`;
/// `readyAfter` (e.g. `5s`) makes its pod Ready only after that long.
pub fn deploy_chart(dir: &Path, name: &str, version: &str) {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        format!("apiVersion: v2\nname: {name}\nversion: {version}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("values.yaml"),
        "sim: ok\nimage: registry.invalid/x:1\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("templates/deployment.yaml"),
        r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: 1
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
      annotations:
        kubepkg.dev/sim: {{ .Values.sim }}
        {{- with .Values.readyAfter }}
        kubepkg.dev/sim-ready-after: {{ . }}
        {{- end }}
    spec:
      containers:
      - name: c
        image: {{ .Values.image }}
"#,
    )
    .unwrap();
}

/// A `PreUpgrade` hook chart: a Job that runs `sim-exit-after` (values `runFor`, default 1s)
/// and a kept ConfigMap recording the versions it moved between.
pub fn hook_chart(dir: &Path) {
    write_hook_chart(
        dir,
        "runFor: 1s\n",
        "kubepkg.dev/sim-exit-after: {{ .Values.runFor }}",
    );
}

/// A `PreUpgrade` hook chart whose Job the node simulator steers with value `sim` (default
/// `ok`; `fail` makes it fail), and the same kept ConfigMap as [`hook_chart`].
pub fn sim_hook_chart(dir: &Path) {
    write_hook_chart(dir, "sim: ok\n", "kubepkg.dev/sim: {{ .Values.sim }}");
}

/// A check hook chart (`migrate`) whose Job's pod the simulator runs as `sim`, exits with
/// `exitCode` when failing, and whose log is `log` (a verdict line, or anything).
pub fn verdict_hook_chart(dir: &Path) {
    write_hook_chart(
        dir,
        "sim: ok\nexitCode: 1\nlog: \"\"\n",
        "kubepkg.dev/sim: {{ .Values.sim }}\n        kubepkg.dev/sim-exit-code: {{ .Values.exitCode | quote }}\n        kubepkg.dev/sim-log: {{ .Values.log | quote }}",
    );
}

/// Writes chart `migrate`: `values` as values.yaml, a Job (pod annotation `job_annotation`)
/// named after `kubepkg.toVersion`, and a kept ConfigMap recording `kubepkg.fromVersion` and
/// `kubepkg.toVersion`.
fn write_hook_chart(dir: &Path, values: &str, job_annotation: &str) {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: migrate\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("values.yaml"), values).unwrap();
    std::fs::write(
        dir.join("templates/job.yaml"),
        HOOK_TEMPLATE.replace("JOB_ANNOTATION", job_annotation),
    )
    .unwrap();
}

/// The hook chart's template; `JOB_ANNOTATION` is replaced by the Job pod's annotation.
const HOOK_TEMPLATE: &str = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: migrate-{{ .Values.kubepkg.toVersion | replace "." "-" }}
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        JOB_ANNOTATION
    spec:
      restartPolicy: Never
      containers:
      - name: m
        image: registry.invalid/migrate:1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: migrated-{{ .Values.kubepkg.toVersion | replace "." "-" }}
  annotations:
    helm.sh/resource-policy: keep
data:
  from: {{ .Values.kubepkg.fromVersion | quote }}
  to: {{ .Values.kubepkg.toVersion | quote }}
"#;

/// Writes a package: `manifest` as kubepkg.yaml, a deploy chart per name in `deploys`, a hook
/// chart ([`hook_chart`]) per name in `hooks`.
pub fn package(root: &Path, manifest: &str, deploys: &[&str], hooks: &[&str]) {
    package_with(root, manifest, deploys, hooks, hook_chart);
}

/// [`package`] with the hook charts written by `hook` (e.g. [`sim_hook_chart`]).
pub fn package_with(
    root: &Path,
    manifest: &str,
    deploys: &[&str],
    hooks: &[&str],
    hook: fn(&Path),
) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("kubepkg.yaml"), manifest).unwrap();
    for d in deploys {
        deploy_chart(&root.join(d), d, "1.0.0");
    }
    for h in hooks {
        hook(&root.join(h));
    }
}

/// A [`KubeCluster`] on `ns` whose progress lines go to `lines`.
pub fn kube_cluster(
    ns: &TestNamespace,
    timeout: Duration,
    lines: Arc<Mutex<Vec<String>>>,
) -> KubeCluster {
    let kube = kubepkg_kube::Cluster::from_client(ns.client().clone(), ns.name());
    KubeCluster::new(
        kube,
        ClusterCapabilities::default(),
        timeout,
        Arc::new(move |l: &str| lines.lock().unwrap().push(l.to_string())),
    )
}

/// Applies the package in `dir` as instance `name` of `ns`.
pub async fn apply(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    dir: &Path,
    timeout: Duration,
) -> Outcome {
    apply_with(kc, ns, name, dir, &UserValues::new(), timeout).await
}

/// [`apply`] with the user's values `user` (`-f`, `--set` …).
pub async fn apply_with(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    dir: &Path,
    user: &UserValues,
    timeout: Duration,
) -> Outcome {
    let package = kubepkg_model::source::load_dir(dir).expect("valid package");
    kc.events.clear();
    let (outcome, _) = ops::apply(
        kc,
        &package,
        Instance {
            name,
            namespace: ns,
        },
        user,
        ops::ApplyOptions::new(timeout),
    )
    .await
    .expect("apply runs");
    outcome
}

/// `kubepkg rollback NAME` (to the revision before the deployed one, not forced) of
/// instance `name` of `ns`.
pub async fn rollback(
    kc: &mut KubeCluster,
    ns: &str,
    name: &str,
    timeout: Duration,
) -> Result<Outcome, EngineError> {
    ops::rollback(
        kc,
        Instance {
            name,
            namespace: ns,
        },
        None,
        false,
        timeout,
    )
    .await
}

/// The progress lines (as the CLI prints them) of the last operation on `kc`.
pub fn progress(kc: &KubeCluster) -> Vec<String> {
    kc.events.iter().map(ToString::to_string).collect()
}

/// Where `needle` stands in `lines` (fails, showing the lines, when it is missing).
pub fn pos(lines: &[String], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l == needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {lines:#?}"))
}

/// The recorded revisions of instance `name`.
pub async fn history(ns: &TestNamespace, name: &str) -> History {
    kubepkg_engine::store::RevisionStore::new(ns.client().clone())
        .history(name, ns.name())
        .await
        .expect("history")
}

/// `(status, version, [(component, release revision)])` of one package revision.
pub type RevisionRow = (RevisionStatus, String, Vec<(String, u64)>);

/// The [`RevisionRow`] of every revision, oldest first, components in the order recorded.
pub fn revision_rows(h: &History) -> Vec<RevisionRow> {
    h.revisions
        .iter()
        .map(|r| {
            (
                r.status,
                r.version.clone(),
                r.components
                    .iter()
                    .map(|c| (c.name.clone(), c.revision))
                    .collect(),
            )
        })
        .collect()
}

/// `(status, reason)` of every revision, oldest first.
pub fn brief(h: &History) -> Vec<(String, String)> {
    h.revisions
        .iter()
        .map(|r| {
            (
                r.status.as_str().to_string(),
                r.reason.map_or("", |r| r.as_str()).to_string(),
            )
        })
        .collect()
}

/// `(release revision, status)` of every stored Helm record of `release`.
pub async fn release_revisions(ns: &TestNamespace, release: &str) -> Vec<(u64, Status)> {
    Store::new(SecretDriver::new(ns.client().clone(), Some(ns.name())))
        .history(release)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.version, r.status()))
        .collect()
}

/// [`release_revisions`] with the statuses as Helm prints them.
pub async fn release_history(ns: &TestNamespace, release: &str) -> Vec<(u64, String)> {
    release_revisions(ns, release)
        .await
        .into_iter()
        .map(|(v, s)| (v, s.to_string()))
        .collect()
}

/// `(type, status, reason)` of a revision's recorded conditions.
pub fn conditions(r: &PackageRevision) -> Vec<(String, String, String)> {
    r.conditions
        .iter()
        .map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone()))
        .collect()
}

/// Polls `check` every 100 ms until it returns `Some`, for at most `limit`.
pub async fn eventually<T>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Asserts that nothing an operation on package `name` touched is left mid-way: no package
/// revision and no Helm record of `releases` is `pending-*` (the records read directly, and
/// each release's history as the real `helm history` prints it), and no Lease is left in the
/// namespace (the package's and the releases' Leases are deleted when freed). `when` names
/// the run in the failure message.
pub async fn assert_final_states(ns: &TestNamespace, name: &str, releases: &[&str], when: &str) {
    let h = history(ns, name).await;
    let pending: Vec<_> = h
        .revisions
        .iter()
        .filter(|r| r.status.is_pending())
        .map(|r| (r.revision, r.status.as_str(), r.description.clone()))
        .collect();
    assert!(
        pending.is_empty(),
        "{when}: pending package revisions {pending:?}"
    );
    let helm = kubepkg_testkit::helm_binary("v4.3.1").expect("helm oracle");
    for rel in releases {
        let stored = release_history(ns, rel).await;
        assert!(
            stored.iter().all(|(_, s)| !s.starts_with("pending")),
            "{when}: release {rel} records {stored:?}"
        );
        if stored.is_empty() {
            continue;
        }
        let out = kubepkg_testkit::helm_command(&helm, ns, &["history", rel, "-o", "json"])
            .output()
            .expect("run helm");
        assert!(
            out.status.success(),
            "{when}: helm history {rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        let statuses: Vec<&str> = rows
            .iter()
            .map(|r| r["status"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(statuses.len(), stored.len(), "{when}: helm history {rel}");
        assert!(
            statuses.iter().all(|s| !s.starts_with("pending")),
            "{when}: helm history {rel}: {statuses:?}"
        );
    }
    // No Lease is held: each is deleted, or — when the network failed even the delete, after
    // its retries — no longer renewed, so it is free once its duration passes (the next
    // operation takes it over; docs/rules.md#retries).
    let leases: kube::Api<k8s_openapi::api::coordination::v1::Lease> = ns.api();
    let deadline = std::time::Instant::now()
        + Duration::from_secs(kubepkg_kube::lease::LEASE_SECONDS as u64 + 15);
    loop {
        let held: Vec<String> = leases
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter(|l| !kubepkg_kube::lease::is_free(l, jiff::Timestamp::now()))
            .filter_map(|l| l.metadata.name)
            .collect();
        if held.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{when}: Leases still held (renewed) after the process stopped: {held:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
