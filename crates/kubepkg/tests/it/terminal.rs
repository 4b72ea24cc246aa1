//! kubepkg on a terminal, as a user sees it: the live progress of `kubepkg apply` run under a
//! pseudo-terminal (the screen read back through a terminal emulator, `vt100`) on the local
//! control plane, the plain lines it still prints on a pipe, with `--progress plain` and in
//! CI, and snapshots of `kubepkg plan` with and without colour (exit code, stdout, stderr).

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kubepkg_testkit::{TestNamespace, charts};

use crate::support::{kubepkg, repo, run_command};

/// The size of the test terminal: wide enough that no progress line wraps.
const ROWS: u16 = 40;
const COLS: u16 = 250;

/// The live printer's spinner frames (`crates/kubepkg/src/progress/live.rs`).
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// A package of two components: `settings` (one ConfigMap, ready at once) and `web` (one
/// simulated Deployment whose pod becomes Ready only after `ready_after`), after it.
fn package(root: &Path, ready_after: &str) {
    charts::write_chart(
        &root.join("settings"),
        "settings",
        "1.0.0",
        &[(
            "templates/configmap.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  greeting: hello\n",
        )],
    );
    charts::package(
        root,
        &format!(
            "package: {{name: term, version: 1.0.0}}\ncomponents:\n- {{name: settings, path: settings}}\n- {{name: web, path: web, install: {{dependsOn: [settings]}}, values: {{readyAfter: {ready_after}}}}}\n"
        ),
        &["web"],
        &[],
    );
}

/// `kubepkg apply INSTANCE DIR` in `ns`, in an environment that decides nothing by itself:
/// no CI, no colour variables, a colour terminal type (the caller adds what a case needs).
fn apply(ns: &TestNamespace, instance: &str, dir: &Path, extra: &[&str]) -> Command {
    let mut args = vec!["apply", instance, dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut cmd = kubepkg(ns, &args);
    for var in ["CI", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        cmd.env_remove(var);
    }
    cmd.env("TERM", "xterm-256color");
    cmd
}

/// A process whose standard output and standard error are a pseudo-terminal of
/// [`ROWS`]×[`COLS`], and the screen a terminal shows of what it wrote.
pub(crate) struct OnTerminal {
    child: std::process::Child,
    screen: Arc<Mutex<vt100::Parser>>,
    reader: std::thread::JoinHandle<()>,
}

impl OnTerminal {
    /// Starts `cmd` (consumed, so that no copy of the terminal's user side stays open here and
    /// the reader sees the end when the process exits).
    pub(crate) fn spawn(mut cmd: Command) -> OnTerminal {
        use rustix_openpty::rustix::termios::Winsize;
        let size = Winsize {
            ws_row: ROWS,
            ws_col: COLS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = rustix_openpty::openpty(None, Some(&size)).expect("open a pseudo-terminal");
        let user = pty.user;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::from(user.try_clone().expect("dup the terminal")))
            .stderr(Stdio::from(user));
        let child = cmd.spawn().expect("run kubepkg");
        drop(cmd);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 0)));
        let mut controller = std::fs::File::from(pty.controller);
        let parser = screen.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Linux answers EIO once every user side is closed: the process has exited.
            while let Ok(n) = controller.read(&mut buf) {
                if n == 0 {
                    break;
                }
                parser.lock().unwrap().process(&buf[..n]);
            }
        });
        OnTerminal {
            child,
            screen,
            reader,
        }
    }

    /// The screen's rows, trailing blanks trimmed, empty rows left out.
    fn rows(&self) -> Vec<String> {
        OnTerminal::rows_of(&self.screen)
    }

    fn rows_of(screen: &Mutex<vt100::Parser>) -> Vec<String> {
        let parser = screen.lock().unwrap();
        parser
            .screen()
            .rows(0, COLS)
            .map(|r| r.trim_end().to_string())
            .filter(|r| !r.is_empty())
            .collect()
    }

    /// Waits (at most `limit`) until a row satisfies `want`, and returns it.
    #[track_caller]
    fn wait_for_row(&mut self, limit: Duration, want: impl Fn(&str) -> bool) -> String {
        let rows = self.wait_for_screen(limit, |rows| rows.iter().any(|r| want(r)));
        rows.into_iter().find(|r| want(r)).unwrap()
    }

    /// Waits (at most `limit`) until the screen's rows satisfy `want`, and returns them (one
    /// reading of the screen, so what is asserted on them was on the screen at once).
    #[track_caller]
    fn wait_for_screen(
        &mut self,
        limit: Duration,
        want: impl Fn(&[String]) -> bool,
    ) -> Vec<String> {
        let deadline = Instant::now() + limit;
        loop {
            let rows = self.rows();
            if want(&rows) {
                return rows;
            }
            let exited = self.child.try_wait().unwrap();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "no such screen (kubepkg {}); the screen:\n{}",
                exited.map_or("still running".to_string(), |s| s.to_string()),
                rows.join("\n")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The foreground colour of the first cell of the first row starting with `prefix`.
    fn colour_of_row(&self, prefix: &str) -> vt100::Color {
        let parser = self.screen.lock().unwrap();
        let screen = parser.screen();
        let rows: Vec<String> = screen.rows(0, COLS).collect();
        let at = rows
            .iter()
            .position(|r| r.starts_with(prefix))
            .unwrap_or_else(|| panic!("no row starts with {prefix:?}: {rows:#?}"));
        let row = u16::try_from(at).unwrap();
        screen.cell(row, 0).expect("a cell").fgcolor()
    }

    /// Waits for the process to exit (at most two minutes) and for the terminal to drain:
    /// the exit code and the final screen.
    pub(crate) fn finish(mut self) -> (i32, Vec<String>) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(120) {
                let _ = self.child.kill();
                panic!(
                    "kubepkg did not finish; the screen:\n{}",
                    self.rows().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let OnTerminal { screen, reader, .. } = self;
        reader.join().unwrap();
        let drained = OnTerminal::rows_of(&screen);
        (status.code().unwrap_or(-1), drained)
    }
}

/// `[12s]` → 12: the elapsed seconds a live line shows after `name `.
fn elapsed_seconds(row: &str, name: &str) -> u64 {
    let rest = row
        .split_once(&format!(" {name} ["))
        .unwrap_or_else(|| panic!("no elapsed time in {row:?}"))
        .1;
    let secs = rest.split_once("s]").expect("a time in seconds").0;
    secs.parse()
        .unwrap_or_else(|_| panic!("elapsed {secs:?} in {row:?}"))
}

/// The plain lines of one install of [`package`] as instance `instance` of namespace `ns`:
/// the lines every run prints, with the `web: waiting for …` lines (one or more, as the
/// watch sees the Deployment's status change) checked for their object and reason.
#[track_caller]
fn assert_plain_lines(lines: &[String], instance: &str, ns: &str) {
    let waiting = format!("web: waiting for Deployment \"{instance}-web\" in namespace \"{ns}\": ");
    let (waits, fixed): (Vec<&String>, Vec<&String>) =
        lines.iter().partition(|l| l.starts_with(&waiting));
    assert_eq!(
        fixed,
        [
            "settings: applying",
            "settings: waiting until ready",
            "settings: ready",
            "web: applying",
            "web: waiting until ready",
            "web: ready",
        ],
        "{lines:#?}"
    );
    assert!(!waits.is_empty(), "web was waited for: {lines:#?}");
    assert!(
        waits
            .iter()
            .all(|l| l[waiting.len()..].starts_with("InProgress")),
        "{lines:#?}"
    );
    // The waiting lines come where the wait is: between `waiting until ready` and `ready`.
    let first = lines.iter().position(|l| l.starts_with(&waiting)).unwrap();
    let last = lines.iter().rposition(|l| l.starts_with(&waiting)).unwrap();
    assert_eq!(lines[first - 1], "web: waiting until ready", "{lines:#?}");
    assert_eq!(lines[last + 1], "web: ready", "{lines:#?}");
}

/// On a terminal, `kubepkg apply` shows one live line per component: while `web` waits,
/// a spinner, its name, the elapsed time (counting) and the object it waits for and why,
/// below the collapsed line of `settings`; when it is done, one summary line per component in
/// colour, and none of the plain lines. The same apply on a pipe prints exactly the plain
/// lines, and so does it on the terminal with `--progress plain` or in CI.
#[tokio::test]
async fn apply_on_a_terminal_shows_live_lines_and_plain_lines_elsewhere() {
    let ns = TestNamespace::fresh("terminal").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("term");
    package(&dir, "6s");

    // Live, on the terminal.
    let mut term = OnTerminal::spawn(apply(&ns, "live", &dir, &[]));
    let is_web_waiting = |row: &str| {
        row.starts_with(FRAMES)
            && row.contains(" web [")
            && row.contains(&format!(
                "] waiting for Deployment \"live-web\" in namespace \"{}\": InProgress",
                ns.name()
            ))
    };
    let first = term.wait_for_row(Duration::from_secs(60), is_web_waiting);
    let shown = elapsed_seconds(&first, "web");
    // The elapsed time counts while the line waits.
    let rows = term.wait_for_screen(Duration::from_secs(10), |rows| {
        rows.iter()
            .any(|r| is_web_waiting(r) && elapsed_seconds(r, "web") > shown)
    });
    // One line for web, below the collapsed line of settings.
    let web: Vec<usize> = (0..rows.len())
        .filter(|i| rows[*i].contains(" web ["))
        .collect();
    assert_eq!(web.len(), 1, "one line for web: {rows:#?}");
    let settings = rows
        .iter()
        .position(|r| r.starts_with("✓ settings [") && r.ends_with("] ready"))
        .unwrap_or_else(|| panic!("settings collapsed while web waits: {rows:#?}"));
    assert_eq!(settings + 1, web[0], "{rows:#?}");
    let last_live = elapsed_seconds(&rows[web[0]], "web");
    let (code, screen) = term.finish();
    assert_eq!(code, 0, "{screen:#?}");
    let summary: Vec<&String> = screen
        .iter()
        .filter(|r| r.starts_with("✓ ") || r.starts_with("✗ "))
        .collect();
    assert_eq!(summary.len(), 2, "{screen:#?}");
    assert!(summary[0].starts_with("✓ settings [") && summary[0].ends_with("] ready"));
    assert!(summary[1].starts_with("✓ web [") && summary[1].ends_with("] ready"));
    // The summary keeps the clock the live line showed: the whole wait, not a restart.
    assert!(
        elapsed_seconds(summary[1], "web") >= last_live,
        "live {last_live}s: {screen:#?}"
    );
    assert_eq!(
        screen.last().unwrap(),
        "Succeeded: term 1.0.0 is deployed as revision 1",
        "{screen:#?}"
    );
    // No plain line, and no spinner left behind.
    for row in &screen {
        assert!(
            !row.starts_with("settings: ") && !row.starts_with("web: "),
            "a plain line on the live screen: {row:?} in {screen:#?}"
        );
        assert!(!row.starts_with(FRAMES), "a spinner left: {screen:#?}");
    }

    // On a pipe: exactly the plain lines on standard error, the summary on standard output.
    let (code, out, err) = run_command(&mut apply(&ns, "pipe", &dir, &[]));
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(out, "Succeeded: term 1.0.0 is deployed as revision 1\n");
    assert!(!err.contains('\x1b'), "no escape codes on a pipe: {err:?}");
    let lines: Vec<String> = err.lines().map(str::to_string).collect();
    assert_plain_lines(&lines, "pipe", ns.name());

    // On the terminal with `--progress plain`, and in CI: the same plain lines.
    for (instance, cmd) in [
        ("plain", apply(&ns, "plain", &dir, &["--progress", "plain"])),
        ("ci", {
            let mut c = apply(&ns, "ci", &dir, &[]);
            c.env("CI", "true");
            c
        }),
    ] {
        let (code, screen) = OnTerminal::spawn(cmd).finish();
        assert_eq!(code, 0, "{instance}: {screen:#?}");
        let (summary, progress) = screen.split_last().unwrap();
        assert_eq!(summary, "Succeeded: term 1.0.0 is deployed as revision 1");
        assert_plain_lines(progress, instance, ns.name());
    }
}

/// The colours of the live lines: a collapsed `ready` line's mark is green, a failed one's
/// red (the Deployment never becomes ready within the timeout).
#[tokio::test]
async fn live_lines_are_coloured_by_state() {
    let ns = TestNamespace::fresh("terminal-colour").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("term");
    package(&dir, "1h");
    let term = OnTerminal::spawn(apply(&ns, "slow", &dir, &["--timeout", "3s"]));
    let (code, screen) = {
        let mut term = term;
        term.wait_for_row(Duration::from_secs(60), |r| r.starts_with("✓ settings ["));
        term.wait_for_row(Duration::from_secs(60), |r| r.starts_with("✗ web ["));
        let green = term.colour_of_row("✓ settings [");
        let red = term.colour_of_row("✗ web [");
        assert_eq!(green, vt100::Color::Idx(2), "green mark");
        assert_eq!(red, vt100::Color::Idx(1), "red mark");
        term.finish()
    };
    assert_eq!(
        code, 5,
        "a failed first install: InstallFailed: {screen:#?}"
    );
    let failed = screen
        .iter()
        .position(|r| r.starts_with("✗ web ["))
        .unwrap();
    assert!(
        screen[failed]
            .ends_with("] failed: timed out after 3s waiting for 1 object(s) to become ready …"),
        "{screen:#?}"
    );
    let summary = screen
        .iter()
        .position(|r| r.starts_with("InstallFailed: component web failed: "))
        .unwrap_or_else(|| panic!("the summary: {screen:#?}"));
    assert!(summary > failed, "{screen:#?}");
    assert!(
        !screen.iter().any(|r| r.starts_with("web: ")),
        "{screen:#?}"
    );
}

/// A single release has no components: on a terminal, `install --wait` shows a live line per
/// object it waits for, which collapses to a ready line; the release's table follows.
#[tokio::test]
async fn install_wait_on_a_terminal_shows_a_line_per_object() {
    let ns = TestNamespace::fresh("terminal-release").await;
    let tmp = tempfile::tempdir().unwrap();
    let chart = tmp.path().join("web");
    charts::deploy_chart(&chart, "web", "1.0.0");
    let mut cmd = kubepkg(
        &ns,
        &[
            "install",
            "shop",
            chart.to_str().unwrap(),
            "--wait",
            "--set",
            "readyAfter=4s",
        ],
    );
    for var in ["CI", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        cmd.env_remove(var);
    }
    cmd.env("TERM", "xterm-256color");
    let mut term = OnTerminal::spawn(cmd);
    let object = format!("Deployment \"shop\" in namespace \"{}\"", ns.name());
    let waiting = term.wait_for_row(Duration::from_secs(60), |r| {
        r.starts_with(FRAMES) && r.contains(&format!(" {object} [")) && r.contains("] waiting ")
    });
    // …and why: the object's readiness reason and message (`LessAvailable: Available: 0/1`).
    let why = waiting.split_once("] waiting ").unwrap().1;
    assert!(why.contains(": ") && why.contains("/1"), "{waiting}");
    let (code, screen) = term.finish();
    assert_eq!(code, 0, "{screen:#?}");
    let ready = format!("✓ {object} [");
    let at = screen
        .iter()
        .position(|r| r.starts_with(&ready) && r.ends_with("] ready"))
        .unwrap_or_else(|| panic!("a ready line: {screen:#?}"));
    assert_eq!(screen[at + 1], "NAME: shop", "{screen:#?}");
    assert!(
        screen.iter().any(|r| r == "STATUS: deployed"),
        "{screen:#?}"
    );
    assert!(
        !screen.iter().any(|r| r.starts_with("waiting for ")),
        "no plain line: {screen:#?}"
    );
}

/// `kubepkg plan` of an example package (offline, a first install), as a snapshot of exit
/// code, stdout and stderr; escape codes are shown as `␛`.
fn plan_snapshot(args: &[&str], colour: (&str, &str)) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    cmd.current_dir(repo())
        .args(args)
        .env_remove("HELM_NAMESPACE")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env(colour.0, colour.1);
    let (code, out, err) = run_command(&mut cmd);
    format!(
        "success: {}\nexit_code: {code}\n----- stdout -----\n{out}\n----- stderr -----\n{err}",
        code == 0
    )
}

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter("\x1b", "␛");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn plan_in_colour() {
    let got = plan_snapshot(
        &["plan", "shop", "examples/shop/v1", "-n", "shop"],
        ("CLICOLOR_FORCE", "1"),
    );
    assert!(got.contains('\x1b'), "coloured: {got}");
    snapshot_settings().bind(|| insta::assert_snapshot!("plan-shop-v1-colour", got));
}

#[test]
fn plan_without_colour() {
    let got = plan_snapshot(
        &["plan", "shop", "examples/shop/v1", "-n", "shop"],
        ("NO_COLOR", "1"),
    );
    assert!(!got.contains('\x1b'), "not coloured: {got}");
    snapshot_settings().bind(|| insta::assert_snapshot!("plan-shop-v1-no-colour", got));
    // NO_COLOR wins over CLICOLOR_FORCE; --no-color too; and without either, a pipe is plain.
    let mut both = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    both.current_dir(repo())
        .args(["plan", "shop", "examples/shop/v1", "-n", "shop"])
        .env_remove("HELM_NAMESPACE")
        .env("NO_COLOR", "1")
        .env("CLICOLOR_FORCE", "1");
    let plain = run_command(&mut both).1;
    assert!(!plain.contains('\x1b'));
    let flagged = plan_snapshot(
        &[
            "plan",
            "shop",
            "examples/shop/v1",
            "-n",
            "shop",
            "--no-color",
        ],
        ("CLICOLOR_FORCE", "1"),
    );
    assert_eq!(flagged, got);
    let piped = plan_snapshot(
        &["plan", "shop", "examples/shop/v1", "-n", "shop"],
        ("TERM", "xterm-256color"),
    );
    assert_eq!(piped, got);
}

/// An error's `Error:` prefix is red when standard error is coloured, plain otherwise.
#[test]
fn plan_error_in_colour_and_without() {
    let args = ["plan", "shop", "examples/no-such-package", "-n", "shop"];
    let coloured = plan_snapshot(&args, ("CLICOLOR_FORCE", "1"));
    let plain = plan_snapshot(&args, ("NO_COLOR", "1"));
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("plan-error-colour", coloured);
        insta::assert_snapshot!("plan-error-no-colour", plain);
    });
}
