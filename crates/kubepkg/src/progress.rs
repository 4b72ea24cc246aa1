//! The three printers of progress events ([`kubepkg_progress::Event`]) of the changing verbs
//! (`apply`, package `rollback` and `uninstall`; the single-release verbs `install`,
//! `upgrade`, `rollback`, `uninstall` print text or live progress):
//!
//! - text: each event's line on standard error, as its `Display` says
//!   (`db: applying`, `db: waiting for Deployment "db" in namespace "shop": InProgress …`),
//!   never coloured: the lines scripts and CI logs read;
//! - live ([`live`], on a terminal; `--progress`): one redrawn line per component (per object
//!   for a single release) with a spinner, its elapsed time and what it waits for, collapsed
//!   to a one-line summary when it is done; other notices printed above them as text lines;
//! - `-o json`: one JSON object per line on standard output, flushed as each event happens —
//!   a component state as `{"state":"applying","component":"db"}` (`waitingFor` adds `object`
//!   and `reason`, `failed` adds `message`, `waitingForRequirements` has only `message`), every
//!   other notice as `{"state":"message","message":…,"component":…}` (`component` only when
//!   the notice is about one), and the summary (`state: summary`) last.
//!
//! Nothing else formats events: the engine and the release layer hand typed events to the
//! sink of the printer chosen here.

pub mod live;

use std::io::Write as _;
use std::sync::Arc;

use crate::present::style::Palette;
use anyhow::Result;
use kubepkg_package::orchestrator::Outcome;
use kubepkg_progress::{Event, Sink};
use serde_json::{Value, json};

use crate::exit::Exit;
use crate::format::Format;
use crate::present::report::outcome_text;
use crate::terminal::ProgressMode;
use crate::terminal::Terminal;

/// How a changing verb reports: text lines or live lines on standard error, or JSON lines on
/// standard output. The summary goes to standard output, in `stdout`'s colours.
#[derive(Debug, Clone)]
pub enum Printer {
    Text { stdout: Palette },
    Live { live: live::Live, stdout: Palette },
    Json,
}

impl Printer {
    /// The printer `-o` names: `json`, or `text` (also spelt `table`), which is live where
    /// `terminal` allows it in `mode` (clap takes no other format for these verbs).
    pub fn new(output: Format, mode: ProgressMode, terminal: &Terminal) -> Printer {
        match output {
            Format::Json => Printer::Json,
            Format::Table | Format::Text | Format::Yaml => Printer::progress(mode, terminal),
        }
    }

    /// The printer of a single release's progress (on standard error whatever `-o` says):
    /// live where `terminal` allows it in `mode`, else text.
    pub fn progress(mode: ProgressMode, terminal: &Terminal) -> Printer {
        if terminal.live(mode) {
            Printer::Live {
                live: live::Live::new(terminal.stderr),
                stdout: terminal.stdout,
            }
        } else {
            Printer::Text {
                stdout: terminal.stdout,
            }
        }
    }

    /// The text printer, its summary without colour (verbs that print no summary).
    pub fn text() -> Printer {
        Printer::Text {
            stdout: Palette::PLAIN,
        }
    }

    pub fn is_json(&self) -> bool {
        matches!(self, Printer::Json)
    }

    /// The sink that prints each event as it happens.
    pub fn sink(&self) -> Sink {
        match self {
            Printer::Text { .. } => Arc::new(print_text),
            Printer::Live { live, .. } => live.sink(),
            Printer::Json => Arc::new(|e: &Event| print_json(&json_object(e))),
        }
    }

    /// Ends the live lines (each line still under way stays as it was, marked stopped, or —
    /// `ready`, the objects a single release's `--wait` waited for — marked ready), so that
    /// what is printed next comes below them. Text and JSON print nothing.
    pub fn finish(&self, ready: bool) {
        if let Printer::Live { live, .. } = self {
            live.finish(ready);
        }
    }

    /// Prints the summary of an apply or rollback and returns the exit code of its reason.
    pub fn outcome(&self, outcome: &Outcome) -> Result<Exit> {
        let exit = Exit::of_reason(outcome.reason);
        self.finish(false);
        match self {
            Printer::Json => {
                let mut v = serde_json::to_value(outcome)?;
                v["state"] = "summary".into();
                v["exitCode"] = exit.code().into();
                print_json(&v);
            }
            Printer::Text { stdout } | Printer::Live { stdout, .. } => {
                print!("{}", outcome_text(outcome, *stdout))
            }
        }
        Ok(exit)
    }

    /// Prints the summary of a package uninstall: `components` were uninstalled.
    pub fn uninstalled(&self, package: &str, components: &[String], keep_history: bool) {
        self.finish(false);
        match self {
            Printer::Json => print_json(&json!({
                "state": "summary",
                "package": package,
                "uninstalled": components,
                "keepHistory": keep_history,
            })),
            Printer::Text { .. } | Printer::Live { .. } => {
                println!("package {package} uninstalled")
            }
        }
    }
}

/// The text printer: the event's line on standard error.
pub fn print_text(event: &Event) {
    eprintln!("{}", text_line(event));
}

/// The text printer's line for one event (its `Display`, shared with the engine's tests).
pub fn text_line(event: &Event) -> String {
    event.to_string()
}

/// The JSON printer's object for one event.
pub fn json_object(event: &Event) -> Value {
    let state = |state: &str, component: &str| json!({"state": state, "component": component});
    match event {
        Event::WaitingForRequirements { message } => {
            json!({"state": "waitingForRequirements", "message": message})
        }
        Event::HookRunning { component } => state("hookRunning", component),
        Event::Applying { component } => state("applying", component),
        Event::Unchanged { component } => state("unchanged", component),
        Event::Waiting { component } => state("waiting", component),
        Event::WaitingFor {
            component,
            object,
            reason,
        } => json!({
            "state": "waitingFor",
            "component": component,
            "object": object,
            "reason": reason,
        }),
        Event::Ready { component } => state("ready", component),
        Event::Failed { component, message } => {
            json!({"state": "failed", "component": component, "message": message})
        }
        Event::RollingBack { component } => state("rollingBack", component),
        Event::RolledBack { component } => state("rolledBack", component),
        Event::Uninstalling { component } => state("uninstalling", component),
        Event::Uninstalled { component } => state("uninstalled", component),
        Event::Message { component, message } => {
            let mut v = json!({"state": "message", "message": message.to_string()});
            if let Some(c) = component {
                v["component"] = c.as_str().into();
            }
            v
        }
    }
}

/// One JSON object on one line of standard output, flushed at once (scripts read it live).
fn print_json(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubepkg_progress::{Message, PendingObject};

    fn db() -> String {
        "db".to_string()
    }

    /// The component states whose lines say only what `db` does: each event, the text after
    /// `db: ` and its JSON `state` (in the same order).
    fn states() -> impl Iterator<Item = (Event, (&'static str, &'static str))> {
        let events = [
            Event::HookRunning { component: db() },
            Event::Applying { component: db() },
            Event::Unchanged { component: db() },
            Event::Waiting { component: db() },
            Event::Ready { component: db() },
            Event::RollingBack { component: db() },
            Event::RolledBack { component: db() },
            Event::Uninstalling { component: db() },
            Event::Uninstalled { component: db() },
        ];
        let lines = [
            ("hook running", "hookRunning"),
            ("applying", "applying"),
            ("unchanged", "unchanged"),
            ("waiting until ready", "waiting"),
            ("ready", "ready"),
            ("rolling back", "rollingBack"),
            ("rolled back", "rolledBack"),
            ("uninstalling", "uninstalling"),
            ("uninstalled", "uninstalled"),
        ];
        events.into_iter().zip(lines)
    }

    /// Each event, its text line, and its JSON line, as kubepkg printed them before events
    /// were typed.
    fn cases() -> Vec<(Event, String, String)> {
        let states = states().map(|(event, (text, state))| {
            let json = format!(r#"{{"state":"{state}","component":"db"}}"#);
            (event, format!("db: {text}"), json)
        });
        let others: Vec<(Event, &str, &str)> = vec![
            (
                Event::WaitingForRequirements {
                    message: "waiting for package cert-manager (not installed)".into(),
                },
                "requirements: waiting for package cert-manager (not installed)",
                r#"{"state":"waitingForRequirements","message":"waiting for package cert-manager (not installed)"}"#,
            ),
            (
                Event::WaitingFor {
                    component: db(),
                    object: "Deployment \"db\" in namespace \"shop\"".into(),
                    reason: "InProgress (LessReplicas): 0 of 1 updated".into(),
                },
                "db: waiting for Deployment \"db\" in namespace \"shop\": InProgress (LessReplicas): 0 of 1 updated",
                r#"{"state":"waitingFor","component":"db","object":"Deployment \"db\" in namespace \"shop\"","reason":"InProgress (LessReplicas): 0 of 1 updated"}"#,
            ),
            (
                Event::WaitingFor {
                    component: db(),
                    object: "Gadget shop/main".into(),
                    reason: "condition Available not reported yet".into(),
                },
                "db: waiting for Gadget shop/main: condition Available not reported yet",
                r#"{"state":"waitingFor","component":"db","object":"Gadget shop/main","reason":"condition Available not reported yet"}"#,
            ),
            (
                Event::Failed {
                    component: db(),
                    message: "timed out".into(),
                },
                "db: failed: timed out",
                r#"{"state":"failed","component":"db","message":"timed out"}"#,
            ),
            (
                Event::message(
                    Some("db"),
                    Message::ReleaseLeaseWait {
                        release: "shop-db".into(),
                        holder: "kubepkg-7".into(),
                    },
                ),
                "db: waiting for another operation on shop-db (held by kubepkg-7)",
                r#"{"state":"message","message":"waiting for another operation on shop-db (held by kubepkg-7)","component":"db"}"#,
            ),
            (
                Event::message(
                    Some("db"),
                    Message::RecoveringRelease {
                        release: "shop-db".into(),
                        revision: 2,
                        description: "pending-upgrade interrupted: the process running it stopped before finishing; marked failed by kubepkg".into(),
                    },
                ),
                "db: recovering release shop-db revision 2: pending-upgrade interrupted: the process running it stopped before finishing; marked failed by kubepkg",
                r#"{"state":"message","message":"recovering release shop-db revision 2: pending-upgrade interrupted: the process running it stopped before finishing; marked failed by kubepkg","component":"db"}"#,
            ),
            (
                Event::message(
                    Some("migrate"),
                    Message::HookStarted {
                        event: "pre-install".into(),
                        hook: "migrate".into(),
                        path: "migrate/templates/job.yaml".into(),
                    },
                ),
                "migrate: running pre-install hook migrate (migrate/templates/job.yaml)",
                r#"{"state":"message","message":"running pre-install hook migrate (migrate/templates/job.yaml)","component":"migrate"}"#,
            ),
            (
                Event::message(
                    Some("db"),
                    Message::Deleted {
                        object: "ConfigMap \"old\" in namespace \"shop\"".into(),
                    },
                ),
                "db: deleted ConfigMap \"old\" in namespace \"shop\"",
                r#"{"state":"message","message":"deleted ConfigMap \"old\" in namespace \"shop\"","component":"db"}"#,
            ),
            (
                Event::message(
                    Some("shop-db"),
                    Message::Kept {
                        object: "Secret \"s\" in namespace \"shop\"".into(),
                    },
                ),
                "shop-db: kept Secret \"s\" in namespace \"shop\" (helm.sh/resource-policy: keep)",
                r#"{"state":"message","message":"kept Secret \"s\" in namespace \"shop\" (helm.sh/resource-policy: keep)","component":"shop-db"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::WaitingForObjects {
                        pending: vec![PendingObject {
                            object: "Deployment \"a\" in namespace \"shop\"".into(),
                            reason: "LessReplicas".into(),
                            message: "0 of 1".into(),
                        }],
                    },
                ),
                "waiting for 1 object(s): Deployment \"a\" in namespace \"shop\": LessReplicas 0 of 1",
                r#"{"state":"message","message":"waiting for 1 object(s): Deployment \"a\" in namespace \"shop\": LessReplicas 0 of 1"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::Validated {
                        object: "Deployment \"a\" in namespace \"shop\"".into(),
                    },
                ),
                "validated Deployment \"a\" in namespace \"shop\" (server dry run)",
                r#"{"state":"message","message":"validated Deployment \"a\" in namespace \"shop\" (server dry run)"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::NotValidated {
                        object: "Widget \"w\" in namespace \"shop\"".into(),
                        why: "its CRD is in this release".into(),
                    },
                ),
                "not validated Widget \"w\" in namespace \"shop\": its CRD is in this release",
                r#"{"state":"message","message":"not validated Widget \"w\" in namespace \"shop\": its CRD is in this release"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::WouldDelete {
                        object: "ConfigMap \"old\" in namespace \"shop\"".into(),
                    },
                ),
                "would delete ConfigMap \"old\" in namespace \"shop\"",
                r#"{"state":"message","message":"would delete ConfigMap \"old\" in namespace \"shop\""}"#,
            ),
            (
                Event::message(
                    None,
                    Message::WouldKeep {
                        object: "Secret \"s\" in namespace \"shop\"".into(),
                    },
                ),
                "would keep Secret \"s\" in namespace \"shop\" (helm.sh/resource-policy: keep)",
                r#"{"state":"message","message":"would keep Secret \"s\" in namespace \"shop\" (helm.sh/resource-policy: keep)"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::PackageLeaseWait {
                        holder: "kubepkg-7".into(),
                    },
                ),
                "waiting for another operation on package (held by kubepkg-7)",
                r#"{"state":"message","message":"waiting for another operation on package (held by kubepkg-7)"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::PackageLeaseTakenOver {
                        previous: "kubepkg-7".into(),
                        holder_gone: true,
                    },
                ),
                "took over the package lock from kubepkg-7, whose process is gone; recovering its work",
                r#"{"state":"message","message":"took over the package lock from kubepkg-7, whose process is gone; recovering its work"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::PackageLeaseTakenOver {
                        previous: "kubepkg-7".into(),
                        holder_gone: false,
                    },
                ),
                "took over the package lock from kubepkg-7, which stopped renewing it; recovering its work",
                r#"{"state":"message","message":"took over the package lock from kubepkg-7, which stopped renewing it; recovering its work"}"#,
            ),
            // Regression: re-parsing the text line took "warning" for a component.
            (
                Event::message(
                    None,
                    Message::PackageStatusNotUpdated {
                        package: "shop/shop".into(),
                        error: "forbidden".into(),
                    },
                ),
                "warning: cannot update the status of Package shop/shop: forbidden",
                r#"{"state":"message","message":"warning: cannot update the status of Package shop/shop: forbidden"}"#,
            ),
            (
                Event::message(
                    None,
                    Message::ValuesNotKept {
                        notice: "values given in revision 1 (--set web.replicas) for component(s) web are not kept".into(),
                    },
                ),
                "note: values given in revision 1 (--set web.replicas) for component(s) web are not kept",
                r#"{"state":"message","message":"note: values given in revision 1 (--set web.replicas) for component(s) web are not kept"}"#,
            ),
        ];
        let others = others
            .into_iter()
            .map(|(event, text, json)| (event, text.to_string(), json.to_string()));
        states.chain(others).collect()
    }

    #[test]
    fn text_printer_prints_each_event_as_its_line() {
        for (event, text, _) in cases() {
            assert_eq!(text_line(&event), text, "{event:?}");
        }
    }

    #[test]
    fn json_printer_prints_each_event_as_its_object() {
        for (event, _, json) in cases() {
            assert_eq!(json_object(&event).to_string(), json, "{event:?}");
        }
    }

    /// A notice's JSON message is its text line without the component, whatever the text.
    #[test]
    fn json_message_is_the_line_after_the_component() {
        for (event, text, _) in cases() {
            if let Event::Message {
                component: Some(c), ..
            } = &event
            {
                let v = json_object(&event);
                assert_eq!(format!("{c}: {}", v["message"].as_str().unwrap()), text);
            }
        }
    }

    #[test]
    fn output_flag_selects_the_printer() {
        let _one_live = live::one_live_at_a_time();
        let pipe = Terminal::default();
        let auto = ProgressMode::Auto;
        assert!(Printer::new(Format::Json, auto, &pipe).is_json());
        assert!(matches!(
            Printer::new(Format::Table, auto, &pipe),
            Printer::Text { .. }
        ));
        assert!(matches!(
            Printer::new(Format::Text, auto, &pipe),
            Printer::Text { .. }
        ));
        // `-o json` whatever --progress says; live only where asked or allowed.
        let live = ProgressMode::Live;
        assert!(Printer::new(Format::Json, live, &pipe).is_json());
        assert!(matches!(
            Printer::new(Format::Text, live, &pipe),
            Printer::Live { .. }
        ));
        // `-o yaml` is refused by clap, naming the formats these verbs take.
        use clap::Parser as _;
        let e = crate::cli::Cli::try_parse_from(["kubepkg", "apply", "p", "dir", "-o", "yaml"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("invalid value 'yaml' for '--output <OUTPUT>'")
                && e.contains("[possible values: table, text, json]"),
            "{e}"
        );
    }
}
