//! Charts and packages written to temporary directories for cluster tests: components that are
//! one simulated Deployment each (the node simulator's `kubepkg.dev/sim` annotations make it
//! ready, never ready or failing, see [`crate::sim`]), and hook charts with a Job and a kept
//! ConfigMap recording the versions an upgrade moved between.

use std::path::Path;

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
