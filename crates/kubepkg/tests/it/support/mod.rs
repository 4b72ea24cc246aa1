//! Helpers shared by the `kubepkg` CLI's cluster tests (`release_cli.rs`, `helm_parity.rs`,
//! `package_cli.rs`, `values_cli.rs`): the built `kubepkg` binary aimed at a test namespace
//! of the local control plane, its exit code and output, and the repository's test chart.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kubepkg_testkit::TestNamespace;

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

/// The stdout of a command that must have succeeded (else fails with both outputs).
#[track_caller]
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
