//! Helpers shared by the `kubepkg` CLI's cluster tests (`release_cli.rs`, `helm_parity.rs`,
//! `package_cli.rs`, `values_cli.rs`): the built `kubepkg` binary aimed at a test namespace
//! of the local control plane, its exit code and output, and the repository's test chart; and
//! for any test of the binary, the files a command wrote and outputs less what differs by run.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kube::api::{Api, DynamicObject};
use kubepkg_engine::store::RevisionStore;
use kubepkg_package::revision::History;
use kubepkg_testkit::TestNamespace;
pub use kubepkg_testkit::tree::{files, walk};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `crashy` test chart (tests/charts/crashy), as a command-line argument.
pub fn crashy_chart() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/charts/crashy")
        .display()
        .to_string()
}

/// `kubepkg ARGS -n NAMESPACE --kubeconfig PLANE` on `ns`'s control plane, with the calling
/// environment's `KUBECONFIG`, `HELM_DRIVER` and `HELM_NAMESPACE` removed so only the flags
/// decide where it goes, and `CLICOLOR_FORCE` so that output compared byte for byte is never
/// coloured.
pub fn kubepkg_in(ns: &TestNamespace, namespace: &str, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    c.args(args)
        .args(["-n", namespace, "--kubeconfig"])
        .arg(ns.plane().kubeconfig())
        .env_remove("KUBECONFIG")
        .env_remove("HELM_DRIVER")
        .env_remove("HELM_NAMESPACE")
        .env_remove("CLICOLOR_FORCE");
    c
}

/// For a synchronous test: a runtime for its cluster calls, and a fresh namespace for `test`.
pub fn blocking_namespace(test: &str) -> (tokio::runtime::Runtime, TestNamespace) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ns = rt.block_on(TestNamespace::fresh(test));
    (rt, ns)
}

/// [`kubepkg_in`] the test namespace itself.
pub fn kubepkg(ns: &TestNamespace, args: &[&str]) -> Command {
    kubepkg_in(ns, ns.name(), args)
}

/// Runs `cmd`: (exit code, or -1 when killed by a signal; stdout; stderr).
pub fn run_command(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run kubepkg");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// [`kubepkg`] run to the end: (exit code, stdout, stderr).
pub fn run(ns: &TestNamespace, args: &[&str]) -> (i32, String, String) {
    run_command(&mut kubepkg(ns, args))
}

/// [`kubepkg_in`] run to the end: (exit code, stdout, stderr).
pub fn run_in(ns: &TestNamespace, namespace: &str, args: &[&str]) -> (i32, String, String) {
    run_command(&mut kubepkg_in(ns, namespace, args))
}

/// The stdout of a command that must have succeeded (else fails with its status and both
/// outputs).
#[track_caller]
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `text` without its lines that start with `prefix` (what differs between two runs: a
/// `generated:` time, a `LAST DEPLOYED:` line), joined by newlines.
pub fn without_lines(text: &str, prefix: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with(prefix))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts that the Chart.lock files of charts `ours` and `theirs` are the same but for their
/// `generated:` time; returns ours.
#[track_caller]
pub fn assert_same_lock(ours: &Path, theirs: &Path) -> String {
    let our_lock = std::fs::read_to_string(ours.join("Chart.lock")).unwrap();
    let their_lock = std::fs::read_to_string(theirs.join("Chart.lock")).unwrap();
    assert_eq!(
        without_lines(&our_lock, "generated: "),
        without_lines(&their_lock, "generated: ")
    );
    our_lock
}

/// Gives `c` (kubepkg or the real helm) one user's Helm configuration, caches and data, and
/// kubepkg's cache, all under `home`: `config/` (with `repositories.yaml`), `cache/` (with the
/// repository cache `repository/`), `data/` and `kubepkg/`.
pub fn helm_home<'c>(c: &'c mut Command, home: &Path) -> &'c mut Command {
    c.env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_DATA_HOME", home.join("data"))
        .env(
            "HELM_REPOSITORY_CONFIG",
            home.join("config/repositories.yaml"),
        )
        .env("HELM_REPOSITORY_CACHE", home.join("cache/repository"))
        .env("KUBEPKG_CACHE_DIR", home.join("kubepkg"))
}

/// `kubectl apply -n NS -f -` of `yaml` on `ns`'s control plane (a client-side apply, as a
/// user's), which must succeed.
pub fn kubectl_apply(ns: &TestNamespace, yaml: &str) {
    let mut kubectl = ns.plane().kubectl();
    kubectl
        .args(["apply", "-n", ns.name(), "-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    let mut child = kubectl.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), yaml.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "kubectl apply of:\n{yaml}");
}

/// `kubepkg package status NAME -o json`'s output read as JSON, and the source of the revision
/// it shows (`revision.source`, or the top-level `source` of an older shape).
pub fn status_and_source(status_json: &str) -> (serde_json::Value, Option<serde_json::Value>) {
    let json: serde_json::Value = serde_json::from_str(status_json).unwrap();
    let source = json
        .pointer("/revision/source")
        .or_else(|| json.get("source"))
        .cloned();
    (json, source)
}

/// The recorded package revisions of instance `name` in `namespace`, as `kubepkg history`
/// reads them.
pub async fn package_history(ns: &TestNamespace, namespace: &str, name: &str) -> History {
    RevisionStore::new(ns.client().clone())
        .history(name, namespace)
        .await
        .unwrap()
}

/// Object `name` of `api`, as JSON (None when there is none).
pub async fn get_json(api: &Api<DynamicObject>, name: &str) -> Option<serde_json::Value> {
    api.get_opt(name)
        .await
        .unwrap()
        .map(|o| serde_json::to_value(o).unwrap())
}

/// The data of ConfigMap `name` of the test namespace (empty when it has none); fails the test
/// when there is no such ConfigMap.
pub async fn config_map_data(
    ns: &TestNamespace,
    name: &str,
) -> std::collections::BTreeMap<String, String> {
    ns.api::<k8s_openapi::api::core::v1::ConfigMap>()
        .get(name)
        .await
        .unwrap_or_else(|e| panic!("ConfigMap {name}: {e}"))
        .data
        .unwrap_or_default()
}

/// Creates the Secret `secret` (its JSON: `metadata.name`, `stringData`, ...) in `ns`.
pub async fn create_secret(ns: &TestNamespace, secret: serde_json::Value) {
    let secret: k8s_openapi::api::core::v1::Secret = serde_json::from_value(secret).unwrap();
    let name = secret.metadata.name.clone().unwrap_or_default();
    ns.api::<k8s_openapi::api::core::v1::Secret>()
        .create(&Default::default(), &secret)
        .await
        .unwrap_or_else(|e| panic!("Secret {name}: {e}"));
}

/// [`run`] of a command that must succeed: its standard output (a failure names the command
/// and shows its standard error).
pub fn run_ok(ns: &TestNamespace, args: &[&str]) -> String {
    let (code, out, err) = run(ns, args);
    assert_eq!(code, 0, "kubepkg {}: {err}", args.join(" "));
    out
}
