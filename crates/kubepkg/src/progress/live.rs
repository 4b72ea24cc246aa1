//! The live printer of progress events: on a terminal, one line per component (per object
//! that a single release's `--wait` waits for; one for the package's requirements), redrawn as
//! its state changes, with a spinner, its elapsed time and what it waits for, and collapsed to
//! a one-line summary when it is done:
//!
//! ```text
//! ✓ database [4s] ready
//! ⠹ storefront [12s] waiting for Deployment "shop-storefront" in namespace "shop": InProgress (LessReplicas): 1/2 updated
//! ```
//!
//! Notices that are not a state (lease waits, hooks started, objects deleted or kept, notes and
//! warnings) are printed above the live lines as their text lines, so none is lost. Drawn by
//! indicatif (a `MultiProgress` of spinners) on standard error, in the palette decided at
//! start-up (`crate::terminal`).
//!
//! The line a component gets follows its events: `Applying`, `HookRunning`, `Waiting`,
//! `WaitingFor`, `RollingBack`, `Uninstalling` keep it live; `Ready`, `Unchanged`, `Failed`
//! (with the first line of its message: the summary after the lines says all of it),
//! `RolledBack`, `Uninstalled` collapse it. A component that moves again after its line
//! collapsed (rolled back after a later component failed) gets a new line below.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::present::style::{Palette, Role};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use kubepkg_progress::{Event, Message, PendingObject, Sink};

/// The spinner's frames (the braille spinner of cargo, npm and kubectl plugins).
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// How often a live line is redrawn (the spinner turns and the elapsed time counts).
const TICK: Duration = Duration::from_millis(120);

/// The live lines of one run; clones share them. When the last clone goes the lines still
/// under way are marked stopped ([`Live::finish`]).
#[derive(Clone)]
pub struct Live {
    board: Arc<Mutex<Board>>,
}

impl fmt::Debug for Live {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Live").finish_non_exhaustive()
    }
}

impl Live {
    /// Live lines on standard error in `palette`'s colours.
    pub fn new(palette: Palette) -> Live {
        // Drawn whatever standard error is: the decision whether to draw live was made once
        // (`crate::terminal`), so indicatif must not make its own.
        let target =
            ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::buffered_stderr()), 20);
        Live::with_target(palette, target)
    }

    /// Live lines drawn to `target`. Helm's warnings logged while charts render
    /// (`kubepkg_gostd::slog`) are printed above the lines while they are drawn.
    pub fn with_target(palette: Palette, target: ProgressDrawTarget) -> Live {
        let multi = MultiProgress::with_draw_target(target);
        let above = multi.clone();
        let helm_log = kubepkg_gostd::slog::set_writer(Box::new(move |line: &str| {
            let _ = above.println(line);
        }));
        Live {
            board: Arc::new(Mutex::new(Board {
                multi,
                palette,
                lines: Vec::new(),
                _helm_log: helm_log,
            })),
        }
    }

    /// The sink that draws each event.
    pub fn sink(&self) -> Sink {
        let live = self.clone();
        Arc::new(move |e: &Event| live.board().event(e))
    }

    /// Collapses every line still under way: the objects a single release waited for as
    /// ready when `ready` (its `--wait` ended well), everything else as stopped.
    pub fn finish(&self, ready: bool) {
        self.board().finish(ready);
    }

    fn board(&self) -> MutexGuard<'_, Board> {
        // A printer that panicked mid-draw leaves lines that are still good to draw.
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a live line is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Subject {
    /// The package's `requires`.
    Requirements,
    /// A component of the package.
    Component(String),
    /// An object a single release's `--wait` waits for (`Kind "name" in namespace "ns"`).
    Object(String),
}

impl Subject {
    fn name(&self) -> &str {
        match self {
            Subject::Requirements => "requirements",
            Subject::Component(n) | Subject::Object(n) => n,
        }
    }
}

/// One line: live until it is collapsed.
struct Line {
    subject: Subject,
    bar: ProgressBar,
    /// What the line says now (without colour), kept for the summary of a stopped line.
    doing: String,
    done: bool,
}

struct Board {
    multi: MultiProgress,
    palette: Palette,
    lines: Vec<Line>,
    /// Helm's log lines go above the live lines until the board is dropped.
    _helm_log: kubepkg_gostd::slog::WriterInPlace,
}

/// How a collapsed line ends.
struct Summary<'a> {
    mark: &'a str,
    role: Role,
    word: &'a str,
    detail: Option<&'a str>,
}

impl Summary<'_> {
    fn good(word: &str) -> Summary<'_> {
        Summary {
            mark: "✓",
            role: Role::Good,
            word,
            detail: None,
        }
    }
}

impl Board {
    fn event(&mut self, event: &Event) {
        if event.component().is_some() && !matches!(event, Event::Message { .. }) {
            self.requirements_met();
        }
        let component = |c: &str| Subject::Component(c.to_string());
        match event {
            Event::WaitingForRequirements { message } => {
                self.live(Subject::Requirements, Role::Waiting, message, None)
            }
            Event::HookRunning { component: c } => {
                self.live(component(c), Role::Active, "hook running", None)
            }
            Event::Applying { component: c } => {
                self.live(component(c), Role::Active, "applying", None)
            }
            Event::Waiting { component: c } => {
                self.live(component(c), Role::Waiting, "waiting until ready", None)
            }
            Event::WaitingFor {
                component: c,
                object,
                reason,
            } => self.live(
                component(c),
                Role::Waiting,
                "waiting for",
                Some(&format!("{object}: {reason}")),
            ),
            Event::RollingBack { component: c } => {
                self.live(component(c), Role::Waiting, "rolling back", None)
            }
            Event::Uninstalling { component: c } => {
                self.live(component(c), Role::Active, "uninstalling", None)
            }
            Event::Ready { component: c } => self.collapse(component(c), Summary::good("ready")),
            Event::Unchanged { component: c } => {
                self.collapse(component(c), Summary::good("unchanged"))
            }
            Event::RolledBack { component: c } => {
                self.collapse(component(c), Summary::good("rolled back"))
            }
            Event::Uninstalled { component: c } => {
                self.collapse(component(c), Summary::good("uninstalled"))
            }
            Event::Failed {
                component: c,
                message,
            } => {
                // One line: the message's first (the summary below says all of it).
                let first = match message.split_once('\n') {
                    Some((first, _)) => format!("{} …", first.trim_end_matches(':')),
                    None => message.clone(),
                };
                self.collapse(
                    component(c),
                    Summary {
                        mark: "✗",
                        role: Role::Bad,
                        word: "failed:",
                        detail: Some(&first),
                    },
                )
            }
            Event::Message {
                component: None,
                message: Message::WaitingForObjects { pending },
            } => self.objects(pending),
            Event::Message { .. } => {
                // A notice: above the live lines, as its text line.
                let _ = self.multi.println(event.to_string());
            }
        }
    }

    /// A single release's `--wait`: a live line per object still pending; the lines of
    /// objects no longer pending collapse as ready.
    fn objects(&mut self, pending: &[PendingObject]) {
        let now: Vec<&str> = pending.iter().map(|p| p.object.as_str()).collect();
        let gone: Vec<Subject> = self
            .lines
            .iter()
            .filter(|l| !l.done)
            .filter(|l| matches!(&l.subject, Subject::Object(o) if !now.contains(&o.as_str())))
            .map(|l| l.subject.clone())
            .collect();
        for subject in gone {
            self.collapse(subject, Summary::good("ready"));
        }
        for p in pending {
            let why = match (p.reason.is_empty(), p.message.is_empty()) {
                (false, false) => format!("{}: {}", p.reason, p.message),
                (false, true) => p.reason.clone(),
                (true, _) => p.message.clone(),
            };
            let detail = (!why.is_empty()).then_some(why.as_str());
            self.live(
                Subject::Object(p.object.clone()),
                Role::Waiting,
                "waiting",
                detail,
            );
        }
    }

    /// The requirements line, if it is live, collapses: a component moving means they are met.
    fn requirements_met(&mut self) {
        if self
            .lines
            .iter()
            .any(|l| l.subject == Subject::Requirements && !l.done)
        {
            self.collapse(Subject::Requirements, Summary::good("met"));
        }
    }

    /// The live line of `subject` (a new one when it has none, or only collapsed ones).
    fn line(&mut self, subject: Subject) -> &mut Line {
        let at = self
            .lines
            .iter()
            .rposition(|l| l.subject == subject && !l.done);
        let at = match at {
            Some(at) => at,
            None => {
                let bar = self.multi.add(ProgressBar::new_spinner());
                bar.set_style(self.live_style());
                bar.set_prefix(
                    self.palette
                        .paint(Role::Heading, subject.name())
                        .to_string(),
                );
                bar.enable_steady_tick(TICK);
                self.lines.push(Line {
                    subject,
                    bar,
                    doing: String::new(),
                    done: false,
                });
                self.lines.len() - 1
            }
        };
        &mut self.lines[at]
    }

    /// `subject`'s line says `word` (in `role`'s colour) and `detail`.
    fn live(&mut self, subject: Subject, role: Role, word: &str, detail: Option<&str>) {
        let palette = self.palette;
        let line = self.line(subject);
        let doing = match detail {
            Some(d) => format!("{word} {d}"),
            None => word.to_string(),
        };
        if line.doing != doing {
            let shown = match detail {
                Some(d) => format!("{} {d}", palette.paint(role, word)),
                None => palette.paint(role, word).to_string(),
            };
            line.bar.set_message(shown);
            line.doing = doing;
        }
    }

    /// `subject`'s line collapses to its summary: `✓ name [elapsed] ready`.
    fn collapse(&mut self, subject: Subject, summary: Summary<'_>) {
        let palette = self.palette;
        let line = self.line(subject);
        let took = palette.paint(Role::Dim, format!("[{}]", elapsed(line.bar.elapsed())));
        let mut text = format!(
            "{} {} {took} {}",
            palette.paint(summary.role, summary.mark),
            palette.paint(Role::Heading, line.subject.name()),
            palette.paint(summary.role, summary.word),
        );
        if let Some(d) = summary.detail {
            text.push(' ');
            text.push_str(d);
        }
        line.bar
            .set_style(ProgressStyle::with_template("{msg}").expect("a valid template"));
        line.bar.finish_with_message(text);
        line.done = true;
    }

    /// Collapses the lines still under way (see [`Live::finish`]).
    fn finish(&mut self, ready: bool) {
        let open: Vec<(Subject, String)> = self
            .lines
            .iter()
            .filter(|l| !l.done)
            .map(|l| (l.subject.clone(), l.doing.clone()))
            .collect();
        for (subject, doing) in open {
            let summary = if ready && matches!(subject, Subject::Object(_)) {
                Summary::good("ready")
            } else {
                Summary {
                    mark: "-",
                    role: Role::Dim,
                    word: "stopped:",
                    detail: Some(&doing),
                }
            };
            self.collapse(subject, summary);
        }
    }

    /// A live line: `⠹ name [12s] waiting for …`.
    fn live_style(&self) -> ProgressStyle {
        let palette = self.palette;
        let frames: Vec<String> = FRAMES
            .iter()
            .chain(std::iter::once(&" "))
            .map(|f| palette.paint(Role::Active, f).to_string())
            .collect();
        let frames: Vec<&str> = frames.iter().map(String::as_str).collect();
        ProgressStyle::with_template("{spinner} {prefix} {took} {wide_msg}")
            .expect("a valid template")
            .tick_strings(&frames)
            .with_key(
                "took",
                move |state: &ProgressState, w: &mut dyn fmt::Write| {
                    let took = format!("[{}]", elapsed(state.elapsed()));
                    let _ = write!(w, "{}", palette.paint(Role::Dim, took));
                },
            )
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        self.finish(false);
    }
}

/// An elapsed time as Go prints a duration rounded to the second (`0s`, `42s`, `1m5s`), as
/// kubectl and Helm print durations.
fn elapsed(d: Duration) -> String {
    let nanos = i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    kubepkg_gostd::time::Duration(nanos)
        .round(kubepkg_gostd::time::Duration(kubepkg_gostd::time::SECOND))
        .to_string()
}

/// The lock a test holds while it has a [`Live`]: each takes the process's one Helm log
/// writer while it lives, so a test that logs through its own would see another test's.
#[cfg(test)]
pub(crate) fn one_live_at_a_time() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::InMemoryTerm;

    /// The lock that keeps the tests of this module apart, a live printer, the in-memory
    /// terminal it draws on and its sink of events.
    type TestBoard = (std::sync::MutexGuard<'static, ()>, Live, InMemoryTerm, Sink);

    /// A live printer on an in-memory terminal of 120 columns, and the lock that keeps it
    /// apart from the other tests that make one ([`one_live_at_a_time`]).
    fn board() -> TestBoard {
        board_in(Palette::PLAIN)
    }

    /// A board in `palette`, one at a time.
    fn board_in(palette: Palette) -> TestBoard {
        let serial = one_live_at_a_time();
        let term = InMemoryTerm::new(20, 120);
        let live = Live::with_target(
            palette,
            ProgressDrawTarget::term_like(Box::new(term.clone())),
        );
        let sink = live.sink();
        (serial, live, term, sink)
    }

    fn lines(term: &InMemoryTerm) -> Vec<String> {
        term.contents()
            .lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    }

    fn c(name: &str) -> String {
        name.to_string()
    }

    #[test]
    fn a_component_line_is_live_then_collapses() {
        let (_serial, _live, term, sink) = board();
        sink(&Event::Applying { component: c("db") });
        sink(&Event::WaitingFor {
            component: c("db"),
            object: "Deployment \"shop-db\" in namespace \"shop\"".into(),
            reason: "InProgress (LessReplicas): 0 of 1 updated".into(),
        });
        let shown = lines(&term);
        assert_eq!(shown.len(), 1, "{shown:?}");
        let line = &shown[0];
        assert!(FRAMES.iter().any(|f| line.starts_with(f)), "{line}");
        assert!(
            line.ends_with(
                " db [0s] waiting for Deployment \"shop-db\" in namespace \"shop\": InProgress (LessReplicas): 0 of 1 updated"
            ),
            "{line}"
        );
        sink(&Event::Ready { component: c("db") });
        sink(&Event::Unchanged {
            component: c("web"),
        });
        sink(&Event::Failed {
            component: c("worker"),
            message: "timed out".into(),
        });
        sink(&Event::Failed {
            component: c("api"),
            message: "timed out waiting for 1 object(s):\n  Deployment api: 0/1".into(),
        });
        assert_eq!(
            lines(&term),
            [
                "✓ db [0s] ready",
                "✓ web [0s] unchanged",
                "✗ worker [0s] failed: timed out",
                "✗ api [0s] failed: timed out waiting for 1 object(s) …",
            ]
        );
    }

    #[test]
    fn helms_render_warnings_go_above_the_live_lines() {
        let (_serial, live, term, sink) = board();
        sink(&Event::Applying { component: c("db") });
        kubepkg_gostd::slog::log(
            kubepkg_gostd::slog::Record::warn("coalesce.go:298: warning: cannot overwrite table")
                .attr("key", "db.config"),
        );
        let shown = lines(&term);
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(shown[0].contains("cannot overwrite table"), "{shown:?}");
        assert!(shown[1].ends_with(" db [0s] applying"), "{shown:?}");
        drop(sink);
        drop(live);
    }

    #[test]
    fn notices_go_above_the_live_lines() {
        let (_serial, live, term, sink) = board();
        sink(&Event::WaitingForRequirements {
            message: "waiting for package cert-manager (not installed)".into(),
        });
        sink(&Event::message(
            Some("db"),
            Message::Deleted {
                object: "ConfigMap shop/old".into(),
            },
        ));
        sink(&Event::Applying { component: c("db") });
        let shown = lines(&term);
        assert_eq!(shown[0], "db: deleted ConfigMap shop/old");
        assert_eq!(shown[1], "✓ requirements [0s] met");
        assert!(shown[2].ends_with(" db [0s] applying"), "{shown:?}");
        // The run ends (an error, say) with db under way: its line says so.
        live.finish(false);
        assert_eq!(lines(&term)[2], "- db [0s] stopped: applying");
    }

    #[test]
    fn a_release_wait_has_a_line_per_object() {
        let (_serial, live, term, sink) = board();
        let pending = |objects: &[&str]| {
            Event::message(
                None,
                Message::WaitingForObjects {
                    pending: objects
                        .iter()
                        .map(|o| PendingObject {
                            object: o.to_string(),
                            reason: "LessReplicas".into(),
                            message: "0 of 1 updated".into(),
                        })
                        .collect(),
                },
            )
        };
        sink(&pending(&["Deployment a", "Deployment b"]));
        sink(&pending(&["Deployment b"]));
        let shown = lines(&term);
        assert_eq!(shown[0], "✓ Deployment a [0s] ready");
        assert!(
            shown[1].ends_with(" Deployment b [0s] waiting LessReplicas: 0 of 1 updated"),
            "{shown:?}"
        );
        live.finish(true);
        assert_eq!(lines(&term)[1], "✓ Deployment b [0s] ready");
    }

    #[test]
    fn a_component_that_moves_again_gets_a_new_line() {
        let (_serial, _live, term, sink) = board();
        sink(&Event::Ready { component: c("a") });
        sink(&Event::RollingBack { component: c("a") });
        sink(&Event::RolledBack { component: c("a") });
        assert_eq!(lines(&term), ["✓ a [0s] ready", "✓ a [0s] rolled back"]);
    }

    #[test]
    fn colours_say_the_state() {
        let (_serial, _live, term, sink) = board_in(Palette::ANSI);
        sink(&Event::Ready { component: c("a") });
        sink(&Event::Failed {
            component: c("b"),
            message: "x".into(),
        });
        let styled = term.contents_formatted();
        let styled = String::from_utf8_lossy(&styled);
        assert!(styled.contains("\x1b[32m✓"), "{styled:?}");
        assert!(styled.contains("\x1b[31m✗"), "{styled:?}");
    }

    #[test]
    fn elapsed_times_are_gos() {
        assert_eq!(elapsed(Duration::from_millis(400)), "0s");
        assert_eq!(elapsed(Duration::from_millis(1500)), "2s");
        assert_eq!(elapsed(Duration::from_secs(65)), "1m5s");
        assert_eq!(elapsed(Duration::from_secs(3600)), "1h0m0s");
    }
}
