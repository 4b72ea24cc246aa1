//! scripts/lib/needs.sh: what the tests need from the machine besides Rust and Go, shared by the
//! README's test command (scripts/test) and CI (.ci/run). Each case runs the real script with a
//! PATH holding only the tools the case gives it: the machine's real `bash`, `sed`, `openssl`,
//! `sha256sum`…, never `tinyproxy` unless the case installs it, and, where the case lets it
//! install, an `apt-get` that records what it was asked for and "installs" a package by putting an
//! executable of its name on that PATH (the real one would change the machine the other tests run
//! on). `go` is a stand-in that refuses to run, so a script that went past the check would fail
//! instead of building the control plane. Like CI, these run as root (the install path is root's).

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the machine keeps `tool` (the usual directories, not the caller's PATH).
fn real(tool: &str) -> PathBuf {
    ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        .iter()
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{tool} must be on this machine"))
}

fn executable(path: &Path, script: &str) {
    fs::write(path, script).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A directory to be the whole PATH: the real `tools`, a `go` that refuses to run and, with
/// `apt_get`, an `apt-get` that appends each call's arguments to `apt-get.log` and, for
/// `install`, puts an executable named after each package it was given (unless `installs` is
/// false: a package that installs no such command).
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new(tools: &[&str], apt_get: Option<bool>) -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).unwrap();
        for tool in ["bash", "env", "dirname", "cat"].iter().chain(tools) {
            symlink(real(tool), bin.join(tool)).unwrap();
        }
        executable(
            &bin.join("go"),
            "#!/bin/sh\necho 'go: not in this test (the check must stop before building)' >&2\nexit 1\n",
        );
        if let Some(installs) = apt_get {
            let log = dir.path().join("apt-get.log");
            let install = if installs {
                format!(
                    "for p in \"$@\"; do case $p in -*) ;; *) printf '#!/bin/sh\\n' > \"{b}/$p\"; {chmod} +x \"{b}/$p\";; esac; done",
                    b = bin.display(),
                    chmod = real("chmod").display()
                )
            } else {
                ":".to_string()
            };
            executable(
                &bin.join("apt-get"),
                &format!(
                    "#!/bin/bash\necho \"$*\" >> {log}\nif [[ $1 == install ]]; then shift; {install}; fi\n",
                    log = log.display()
                ),
            );
        }
        Machine { dir }
    }

    /// What `apt-get` was asked, one call a line.
    fn apt_get_calls(&self) -> Vec<String> {
        fs::read_to_string(self.dir.path().join("apt-get.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn run(&self, program: &Path, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .env_clear()
            .env("PATH", self.dir.path().join("bin"))
            .env("HOME", self.dir.path())
            .env("KUBEPKG_CACHE_DIR", self.dir.path().join("cache"))
            .env("KUBEPKG_TESTENV_DIR", self.dir.path().join("testenv"))
            .current_dir(repo())
            .output()
            .unwrap()
    }

    /// Sources scripts/lib/needs.sh and runs `kubepkg_needs probe`.
    fn needs(&self) -> Output {
        self.run(
            &real("bash"),
            &[
                "-c",
                "set -euo pipefail; source scripts/lib/needs.sh; kubepkg_needs probe; echo checked",
            ],
        )
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const ALL_BUT_TINYPROXY: &[&str] = &[
    "sha256sum",
    "sed",
    "openssl",
    "git",
    "sshd",
    "chromium",
    "chromedriver",
    "npm",
    "containerd",
    "runc",
    "busybox",
    "ip",
    "iptables",
];

#[test]
fn a_missing_tool_is_installed_with_one_update_and_one_install_of_just_it() {
    let m = Machine::new(ALL_BUT_TINYPROXY, Some(true));
    let out = m.needs();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "checked\n");
    assert_eq!(m.apt_get_calls(), ["update", "install -y tinyproxy"]);
    assert!(
        stderr(&out).contains("probe: installing what it needs: apt-get install -y tinyproxy"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn several_missing_tools_are_installed_in_one_call() {
    let tools: Vec<&str> = ALL_BUT_TINYPROXY
        .iter()
        .copied()
        .filter(|t| *t != "openssl")
        .collect();
    let m = Machine::new(&tools, Some(true));
    let out = m.needs();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        m.apt_get_calls(),
        ["update", "install -y openssl tinyproxy"]
    );
}

#[test]
fn nothing_missing_asks_apt_get_nothing() {
    let m = Machine::new(ALL_BUT_TINYPROXY, Some(true));
    // tinyproxy "installed": an executable of that name on the PATH.
    executable(&m.dir.path().join("bin/tinyproxy"), "#!/bin/sh\n");
    let out = m.needs();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(m.apt_get_calls(), Vec::<String>::new());
    assert_eq!(stderr(&out), "");
}

#[test]
fn without_apt_get_it_fails_in_one_line_saying_what_to_install() {
    let m = Machine::new(ALL_BUT_TINYPROXY, None);
    let out = m.needs();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "it must stop there"
    );
    assert_eq!(
        stderr(&out),
        "probe: FAILED: missing tools; install them first: apt-get install -y tinyproxy\n"
    );
}

#[test]
fn a_package_that_does_not_bring_the_tool_is_a_failure_not_a_pass() {
    let m = Machine::new(ALL_BUT_TINYPROXY, Some(false));
    let out = m.needs();
    assert!(!out.status.success());
    assert_eq!(m.apt_get_calls(), ["update", "install -y tinyproxy"]);
    assert!(
        stderr(&out).ends_with(
            "probe: FAILED: still missing after apt-get install; install them first: apt-get install -y tinyproxy\n"
        ),
        "{}",
        stderr(&out)
    );
}

/// `script` (of the repository) on a machine without tinyproxy fails at once, in one line that
/// says what to install; the machine.
fn refused_without_tinyproxy(script: &str) -> Machine {
    let m = Machine::new(ALL_BUT_TINYPROXY, None);
    let out = m.run(&repo().join(script), &[]);
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        format!(
            "{script}: FAILED: missing tools; install them first: apt-get install -y tinyproxy\n"
        )
    );
    m
}

#[test]
fn scripts_test_checks_first_and_fails_in_one_line_before_building_anything() {
    let m = refused_without_tinyproxy("scripts/test");
    assert!(!m.dir.path().join("cache").exists(), "nothing was built");
}

#[test]
fn scripts_test_installs_what_is_missing_then_goes_on_to_build() {
    let m = Machine::new(ALL_BUT_TINYPROXY, Some(true));
    let out = m.run(&repo().join("scripts/test"), &[]);
    assert_eq!(m.apt_get_calls(), ["update", "install -y tinyproxy"]);
    // Past the check it builds the control plane and the tests: here `go` refuses and there is
    // no `cargo`, so that is where it stops.
    let err = stderr(&out);
    assert!(!out.status.success());
    let building = err
        .find("scripts/test: building the local control plane")
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        err[..building].contains("apt-get install -y tinyproxy"),
        "installs before building: {err}"
    );
}

#[test]
fn ci_runs_the_same_check_before_anything_else() {
    refused_without_tinyproxy(".ci/run");
}

#[test]
fn ci_has_no_list_of_its_own_and_still_runs_exactly_scripts_test() {
    let ci = fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert!(
        !ci.contains("apt-get"),
        "tools are installed by scripts/lib/needs.sh only"
    );
    let commands: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(commands.last(), Some(&"scripts/test"));
    for script in [".ci/run", "scripts/test"] {
        let text = fs::read_to_string(repo().join(script)).unwrap();
        assert!(
            text.contains("source \"$repo/scripts/lib/needs.sh\""),
            "{script} sources the shared check"
        );
    }
}

#[test]
fn scripts_demo_checks_the_real_nodes_programs_first_and_only_those() {
    // Everything but busybox-static, tinyproxy and the browser: the demo asks only for what
    // the real node runs.
    let tools: Vec<&str> = ALL_BUT_TINYPROXY
        .iter()
        .copied()
        .filter(|t| !matches!(*t, "busybox" | "chromium" | "chromedriver"))
        .collect();
    let m = Machine::new(&tools, None);
    let out = m.run(&repo().join("scripts/demo"), &[]);
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        "scripts/demo: FAILED: missing tools; install them first: apt-get install -y busybox-static\n"
    );
    assert!(!m.dir.path().join("cache").exists(), "nothing was built");
}
