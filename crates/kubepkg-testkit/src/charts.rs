//! Charts and packages written to temporary directories for cluster tests: components that are
//! one simulated Deployment each (the node simulator's `kubepkg.dev/sim` annotations make it
//! ready, never ready or failing, see [`crate::sim`]), and hook charts with a Job and a kept
//! ConfigMap recording the versions an upgrade moved between; and any chart or file tree a
//! test spells out itself ([`write_chart`], [`write_files`]).

use std::path::Path;

pub use crate::tree::write_files;

/// Writes chart `name` `version` under `dir`: a Chart.yaml of `apiVersion: v2` with just those,
/// and `files` ([`write_files`]: values.yaml, templates/..., crds/...).
pub fn write_chart(dir: &Path, name: &str, version: &str, files: &[(&str, &str)]) {
    let chart_yaml = format!("apiVersion: v2\nname: {name}\nversion: {version}\n");
    write_files(dir, &[("Chart.yaml", &chart_yaml)]);
    write_files(dir, files);
}

/// A chart `name` with one Deployment; `values.yaml` sets `sim` (default `ok`) and `image`;
/// `readyAfter` (e.g. `5s`) makes its pod Ready only after that long.
pub fn deploy_chart(dir: &Path, name: &str, version: &str) {
    write_chart(
        dir,
        name,
        version,
        &[
            ("values.yaml", "sim: ok\nimage: registry.invalid/x:1\n"),
            ("templates/deployment.yaml", DEPLOY_TEMPLATE),
        ],
    );
}

/// [`deploy_chart`]'s template.
const DEPLOY_TEMPLATE: &str = include_str!("charts/deployment.yaml");

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
    write_chart(
        dir,
        "migrate",
        "1.0.0",
        &[
            ("values.yaml", values),
            (
                "templates/job.yaml",
                &HOOK_TEMPLATE.replace("JOB_ANNOTATION", job_annotation),
            ),
        ],
    );
}

/// The hook chart's template; `JOB_ANNOTATION` is replaced by the Job pod's annotation.
const HOOK_TEMPLATE: &str = include_str!("charts/hook-job.yaml");

/// Writes a package: `manifest` as kubepkg.yaml, a deploy chart per name in `deploys`, a hook
/// chart ([`hook_chart`]) per name in `hooks`.
pub fn package(root: &Path, manifest: &str, deploys: &[&str], hooks: &[&str]) {
    package_with(root, manifest, deploys, hooks, hook_chart);
}

/// A package `name` `version` of one component `web` (a [`deploy_chart`]).
pub fn web_package(root: &Path, name: &str, version: &str) {
    package(
        root,
        &format!(
            "package:\n  name: {name}\n  version: {version}\ncomponents:\n- name: web\n  path: web\n"
        ),
        &["web"],
        &[],
    );
}

/// Version `version` of package `p` (rollback safe): a `PreUpgrade` hook `migrate`, then `a`,
/// then `b` (after `a`), their images tagged `version`: every upgrade changes every component.
pub fn hooked_package(root: &Path, version: &str) {
    package(
        root,
        &format!(
            "package: {{name: p, version: {version}, rollback: {{safe: true}}}}\ncomponents:\n- {{name: migrate, path: migrate, install: {{phase: PreUpgrade}}}}\n- {{name: a, path: a, values: {{image: \"registry.invalid/a:{version}\"}}}}\n- {{name: b, path: b, values: {{image: \"registry.invalid/b:{version}\"}}, install: {{dependsOn: [a]}}}}\n"
        ),
        &["a", "b"],
        &["migrate"],
    );
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
