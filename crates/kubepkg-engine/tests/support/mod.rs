//! Helpers shared by the engine's cluster tests (`requires.rs`, `crash.rs`): packages written
//! to temporary directories whose components are one simulated Deployment each (the node
//! simulator's `kubepkg.dev/sim` annotations make it ready, never ready or failing), a hook
//! chart with a Job, and a [`KubeCluster`] over a test namespace that collects progress lines.

#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_package::orchestrator::Outcome;
use kubepkg_package::revision::{History, PackageRevision};
use kubepkg_package::values::UserValues;
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
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: migrate\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("values.yaml"), "runFor: 1s\n").unwrap();
    std::fs::write(
        dir.join("templates/job.yaml"),
        r#"apiVersion: batch/v1
kind: Job
metadata:
  name: migrate-{{ .Values.kubepkg.toVersion | replace "." "-" }}
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        kubepkg.dev/sim-exit-after: {{ .Values.runFor }}
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
"#,
    )
    .unwrap();
}

/// Writes a package: `manifest` as kubepkg.yaml, a deploy chart per name in `deploys`, a hook
/// chart per name in `hooks`.
pub fn package(root: &Path, manifest: &str, deploys: &[&str], hooks: &[&str]) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("kubepkg.yaml"), manifest).unwrap();
    for d in deploys {
        deploy_chart(&root.join(d), d, "1.0.0");
    }
    for h in hooks {
        hook_chart(&root.join(h));
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
    let package = kubepkg_package::source::load_dir(dir).expect("valid package");
    kc.events.clear();
    let (outcome, _) = ops::apply(
        kc,
        &package,
        Instance {
            name,
            namespace: ns,
        },
        &UserValues::new(),
        timeout,
    )
    .await
    .expect("apply runs");
    outcome
}

/// The recorded revisions of instance `name`.
pub async fn history(ns: &TestNamespace, name: &str) -> History {
    kubepkg_engine::store::RevisionStore::new(ns.client().clone())
        .history(name, ns.name())
        .await
        .expect("history")
}

/// `(status, reason)` of every revision, oldest first.
pub fn brief(h: &History) -> Vec<(String, String)> {
    h.revisions
        .iter()
        .map(|r| (r.status.as_str().to_string(), r.reason.clone()))
        .collect()
}

/// `(release revision, status)` of every stored Helm record of `release`.
pub async fn release_history(ns: &TestNamespace, release: &str) -> Vec<(u64, String)> {
    Store::new(SecretDriver::new(ns.client().clone(), Some(ns.name())))
        .history(release)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.version, r.status().to_string()))
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
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(start.elapsed() < limit, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
