//! kubepkg's progress events: one typed [`Event`] for every line kubepkg reports while it
//! changes a cluster (`apply`, package `rollback` and `uninstall`, and the single-release verbs
//! `install`, `upgrade`, `rollback`, `uninstall`, `test`), and its text form ([`fmt::Display`]).
//!
//! Why a crate of its own: the events come from two layers that must not depend on each other.
//! The package orchestrator (`kubepkg-package`, pure, offline) reports component states; the
//! release layer (`kubepkg-release`, on the cluster) reports lease waits, hooks, prunes and
//! recoveries; the package engine (`kubepkg-engine`) reports the package lease and the status it
//! mirrors. `kubepkg-release` must not depend on `kubepkg-package`, and `kubepkg-package` must
//! not pull in the cluster client through `kubepkg-release` or `kubepkg-kube`, so the one event
//! type lives below both, in this leaf crate with no dependencies.
//!
//! Who produces what:
//! - the orchestrator: the component states ([`Event::Applying`], [`Event::WaitingFor`], …);
//! - the release layer: a [`Message`] through its progress callback, which knows no component;
//!   the engine wraps it as [`Event::Message`] with the component it applies (the CLI's
//!   single-release verbs with none);
//! - the engine and the CLI: the package-level messages (package lease, `Package` status,
//!   values not kept).
//!
//! The text form of each event is its `Display`, the line kubepkg has always printed; the CLI
//! prints events as those lines (standard error) or as JSON lines (`-o json`, standard output,
//! `crates/kubepkg/src/progress.rs`). Everything that is not a component state is a
//! [`Event::Message`]: in JSON `{"state":"message","message":…,"component":…}`.

#![forbid(unsafe_code)]

use std::fmt;
use std::sync::Arc;

/// Where progress events go (printers, test recorders). Called synchronously, in order.
pub type Sink = Arc<dyn Fn(&Event) + Send + Sync>;

/// A sink that drops every event.
pub fn discard() -> Sink {
    Arc::new(|_| {})
}

/// A sink that hands each event's text line (its `Display`) to `line`.
pub fn lines(line: impl Fn(&str) + Send + Sync + 'static) -> Sink {
    Arc::new(move |e: &Event| line(&e.to_string()))
}

/// One progress event: a component's state change, or a [`Message`] about a component (or the
/// package, or a release).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The apply waits for required packages; `message` says which and why.
    WaitingForRequirements { message: String },
    /// A hook component (`PreUpgrade`) was started.
    HookRunning { component: String },
    /// The component's release is being installed or upgraded.
    Applying { component: String },
    /// The component's release needs no change.
    Unchanged { component: String },
    /// The component was applied; now waiting until it is ready.
    Waiting { component: String },
    /// Still waiting for one object (`Kind namespace/name` or the readiness wait's name of it)
    /// and why (its kstatus state, or the `readyWhen` condition not met yet).
    WaitingFor {
        component: String,
        object: String,
        reason: String,
    },
    /// The component is ready.
    Ready { component: String },
    /// The component failed; `message` says why.
    Failed { component: String, message: String },
    /// The component's release is being rolled back.
    RollingBack { component: String },
    /// The component's release was rolled back.
    RolledBack { component: String },
    /// The component's release is being uninstalled.
    Uninstalling { component: String },
    /// The component's release was uninstalled.
    Uninstalled { component: String },
    /// Anything else worth saying, about `component` (during a package rollback, or the
    /// removal of a component the package no longer has, this is the release's name, as the
    /// line has always shown it) or, with `None`, about the package or the single release.
    Message {
        component: Option<String>,
        message: Message,
    },
}

impl Event {
    /// The message `message` about `component` (`None`: the package or the single release).
    pub fn message(component: Option<&str>, message: Message) -> Event {
        Event::Message {
            component: component.map(str::to_string),
            message,
        }
    }

    /// The component the event is about, if any.
    pub fn component(&self) -> Option<&str> {
        match self {
            Event::WaitingForRequirements { .. } => None,
            Event::HookRunning { component }
            | Event::Applying { component }
            | Event::Unchanged { component }
            | Event::Waiting { component }
            | Event::WaitingFor { component, .. }
            | Event::Ready { component }
            | Event::Failed { component, .. }
            | Event::RollingBack { component }
            | Event::RolledBack { component }
            | Event::Uninstalling { component }
            | Event::Uninstalled { component } => Some(component),
            Event::Message { component, .. } => component.as_deref(),
        }
    }
}

/// A notice that is not a component's state: what the release layer does (hooks, prunes,
/// lease waits, recovery) and what the package engine says about the package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// Another process holds the release's lease; waiting for it.
    ReleaseLeaseWait { release: String, holder: String },
    /// A revision left pending by a process that stopped is marked failed with `description`.
    RecoveringRelease {
        release: String,
        revision: u64,
        description: String,
    },
    /// A Helm hook (`event` as Helm names it: `pre-install`, `test`, …) was started.
    HookStarted {
        event: String,
        hook: String,
        path: String,
    },
    /// An object the new revision no longer has was deleted.
    Deleted { object: String },
    /// An object was kept instead of deleted (`helm.sh/resource-policy: keep`).
    Kept { object: String },
    /// `--wait`: the objects not ready yet, each with its reason and message.
    WaitingForObjects { pending: Vec<PendingObject> },
    /// Server-side dry run: the server accepted the object.
    Validated { object: String },
    /// Server-side dry run: the object could not be checked, and why.
    NotValidated { object: String, why: String },
    /// Server-side dry run: the upgrade would delete the object.
    WouldDelete { object: String },
    /// Server-side dry run: the upgrade would keep the object (`helm.sh/resource-policy: keep`).
    WouldKeep { object: String },
    /// Another process holds the package's lease; waiting for it.
    PackageLeaseWait { holder: String },
    /// The package's lease was taken over from `previous`, whose process is gone
    /// (`holder_gone`) or which stopped renewing it; its work is recovered.
    PackageLeaseTakenOver { previous: String, holder_gone: bool },
    /// The status of the `Package` object `package` (`namespace/name`) could not be updated.
    PackageStatusNotUpdated { package: String, error: String },
    /// Values of the deployed revision that this apply does not keep (`notice` says which).
    ValuesNotKept { notice: String },
    /// `apply --force` suspended the `Package` object the controller reconciled (`Package
    /// ns/name`).
    PackageObjectSuspended { object: String },
    /// The apply waited for the package's lock and another operation recorded revision
    /// `revision` (`version`, `status`) meanwhile: the apply plans again against it.
    Replanned {
        revision: u64,
        version: String,
        status: String,
    },
    /// The apply moves the package to a lower version; `verdict` is the rollback policy's
    /// ("allowed: …", or refused but allowed by `--allow-downgrade`).
    Downgrade {
        from: String,
        to: String,
        verdict: String,
    },
    /// A `PreUpgrade` hook that the interrupted revision `revision` already ran to completion
    /// for the same move is not run again.
    HookCompletedBefore {
        revision: u64,
        from_version: String,
        to_version: String,
    },
    /// A `PreUpgrade` hook reported a verdict (`proceed`, `refused`, `check_failed`) with its
    /// message and what it affects (one line; empty when not given).
    HookVerdict {
        verdict: String,
        message: String,
        affected: String,
    },
}

/// An object `--wait` still waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingObject {
    /// `Kind namespace/name`.
    pub object: String,
    /// The readiness reason (kstatus).
    pub reason: String,
    /// The readiness message.
    pub message: String,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::WaitingForRequirements { message } => write!(f, "requirements: {message}"),
            Event::HookRunning { component } => write!(f, "{component}: hook running"),
            Event::Applying { component } => write!(f, "{component}: applying"),
            Event::Unchanged { component } => write!(f, "{component}: unchanged"),
            Event::Waiting { component } => write!(f, "{component}: waiting until ready"),
            Event::WaitingFor {
                component,
                object,
                reason,
            } => write!(f, "{component}: waiting for {object}: {reason}"),
            Event::Ready { component } => write!(f, "{component}: ready"),
            Event::Failed { component, message } => write!(f, "{component}: failed: {message}"),
            Event::RollingBack { component } => write!(f, "{component}: rolling back"),
            Event::RolledBack { component } => write!(f, "{component}: rolled back"),
            Event::Uninstalling { component } => write!(f, "{component}: uninstalling"),
            Event::Uninstalled { component } => write!(f, "{component}: uninstalled"),
            Event::Message {
                component: Some(component),
                message,
            } => write!(f, "{component}: {message}"),
            Event::Message {
                component: None,
                message,
            } => write!(f, "{message}"),
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KEEP: &str = "(helm.sh/resource-policy: keep)";
        match self {
            Message::ReleaseLeaseWait { release, holder } => {
                write!(
                    f,
                    "waiting for another operation on {release} (held by {holder})"
                )
            }
            Message::RecoveringRelease {
                release,
                revision,
                description,
            } => write!(
                f,
                "recovering release {release} revision {revision}: {description}"
            ),
            Message::HookStarted { event, hook, path } => {
                write!(f, "running {event} hook {hook} ({path})")
            }
            Message::Deleted { object } => write!(f, "deleted {object}"),
            Message::Kept { object } => write!(f, "kept {object} {KEEP}"),
            Message::WaitingForObjects { pending } => {
                write!(f, "waiting for {} object(s): ", pending.len())?;
                for (i, p) in pending.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{}: {} {}", p.object, p.reason, p.message)?;
                }
                Ok(())
            }
            Message::Validated { object } => write!(f, "validated {object} (server dry run)"),
            Message::NotValidated { object, why } => write!(f, "not validated {object}: {why}"),
            Message::WouldDelete { object } => write!(f, "would delete {object}"),
            Message::WouldKeep { object } => write!(f, "would keep {object} {KEEP}"),
            Message::PackageLeaseWait { holder } => {
                write!(
                    f,
                    "waiting for another operation on package (held by {holder})"
                )
            }
            Message::PackageLeaseTakenOver {
                previous,
                holder_gone,
            } => {
                let why = if *holder_gone {
                    "whose process is gone"
                } else {
                    "which stopped renewing it"
                };
                write!(
                    f,
                    "took over the package lock from {previous}, {why}; recovering its work"
                )
            }
            Message::PackageStatusNotUpdated { package, error } => write!(
                f,
                "warning: cannot update the status of Package {package}: {error}"
            ),
            Message::ValuesNotKept { notice } => write!(f, "note: {notice}"),
            Message::PackageObjectSuspended { object } => write!(
                f,
                "note: suspended {object} (spec.suspend: true): the controller leaves this package to the CLI until it is resumed"
            ),
            Message::Replanned {
                revision,
                version,
                status,
            } => write!(
                f,
                "the package changed while this apply waited for its lock: revision {revision} ({version}, {status}) is the latest now; planning again against it"
            ),
            Message::Downgrade { from, to, verdict } => {
                write!(f, "downgrade from {from} to {to}: {verdict}")
            }
            Message::HookCompletedBefore {
                revision,
                from_version,
                to_version,
            } => write!(
                f,
                "already completed for {from_version} -> {to_version} by interrupted revision {revision}; not run again"
            ),
            Message::HookVerdict {
                verdict,
                message,
                affected,
            } => {
                write!(f, "verdict {verdict}")?;
                if !message.is_empty() {
                    write!(f, ": {message}")?;
                }
                if !affected.is_empty() {
                    write!(f, " (affected: {affected})")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn c() -> String {
        "db".to_string()
    }

    /// Every event's line, exactly as kubepkg printed it before events were typed: a
    /// component's is the component, then what it does.
    #[test]
    fn each_event_is_its_line() {
        let requirements = Event::WaitingForRequirements {
            message: "waiting for package cert-manager (not installed)".into(),
        };
        assert_eq!(
            requirements.to_string(),
            "requirements: waiting for package cert-manager (not installed)"
        );
        let cases: Vec<(Event, &str)> = vec![
            (Event::HookRunning { component: c() }, "hook running"),
            (Event::Applying { component: c() }, "applying"),
            (Event::Unchanged { component: c() }, "unchanged"),
            (Event::Waiting { component: c() }, "waiting until ready"),
            (
                Event::WaitingFor {
                    component: c(),
                    object: "Deployment shop/db".into(),
                    reason: "InProgress (LessReplicas): 0 of 1".into(),
                },
                "waiting for Deployment shop/db: InProgress (LessReplicas): 0 of 1",
            ),
            (Event::Ready { component: c() }, "ready"),
            (
                Event::Failed {
                    component: c(),
                    message: "timed out".into(),
                },
                "failed: timed out",
            ),
            (Event::RollingBack { component: c() }, "rolling back"),
            (Event::RolledBack { component: c() }, "rolled back"),
            (Event::Uninstalling { component: c() }, "uninstalling"),
            (Event::Uninstalled { component: c() }, "uninstalled"),
        ];
        for (event, what) in cases {
            assert_eq!(event.to_string(), format!("db: {what}"));
        }
    }

    #[test]
    fn each_message_is_its_line() {
        let cases: Vec<(Message, &str)> = vec![
            (
                Message::ReleaseLeaseWait {
                    release: "shop-db".into(),
                    holder: "kubepkg-1".into(),
                },
                "waiting for another operation on shop-db (held by kubepkg-1)",
            ),
            (
                Message::RecoveringRelease {
                    release: "shop-db".into(),
                    revision: 2,
                    description: "pending-upgrade interrupted: gone".into(),
                },
                "recovering release shop-db revision 2: pending-upgrade interrupted: gone",
            ),
            (
                Message::HookStarted {
                    event: "pre-upgrade".into(),
                    hook: "migrate".into(),
                    path: "db/templates/job.yaml".into(),
                },
                "running pre-upgrade hook migrate (db/templates/job.yaml)",
            ),
            (
                Message::Deleted {
                    object: "ConfigMap shop/old".into(),
                },
                "deleted ConfigMap shop/old",
            ),
            (
                Message::Kept {
                    object: "Secret shop/s".into(),
                },
                "kept Secret shop/s (helm.sh/resource-policy: keep)",
            ),
            (
                Message::WaitingForObjects {
                    pending: vec![
                        PendingObject {
                            object: "Deployment shop/a".into(),
                            reason: "LessReplicas".into(),
                            message: "0 of 1".into(),
                        },
                        PendingObject {
                            object: "Service shop/b".into(),
                            reason: "".into(),
                            message: "".into(),
                        },
                    ],
                },
                "waiting for 2 object(s): Deployment shop/a: LessReplicas 0 of 1; Service shop/b:  ",
            ),
            (
                Message::Validated {
                    object: "Deployment shop/a".into(),
                },
                "validated Deployment shop/a (server dry run)",
            ),
            (
                Message::NotValidated {
                    object: "Widget shop/w".into(),
                    why: "kind not served".into(),
                },
                "not validated Widget shop/w: kind not served",
            ),
            (
                Message::WouldDelete {
                    object: "ConfigMap shop/old".into(),
                },
                "would delete ConfigMap shop/old",
            ),
            (
                Message::WouldKeep {
                    object: "Secret shop/s".into(),
                },
                "would keep Secret shop/s (helm.sh/resource-policy: keep)",
            ),
            (
                Message::PackageLeaseWait {
                    holder: "kubepkg-1".into(),
                },
                "waiting for another operation on package (held by kubepkg-1)",
            ),
            (
                Message::PackageLeaseTakenOver {
                    previous: "kubepkg-1".into(),
                    holder_gone: true,
                },
                "took over the package lock from kubepkg-1, whose process is gone; recovering its work",
            ),
            (
                Message::PackageLeaseTakenOver {
                    previous: "kubepkg-1".into(),
                    holder_gone: false,
                },
                "took over the package lock from kubepkg-1, which stopped renewing it; recovering its work",
            ),
            (
                Message::PackageStatusNotUpdated {
                    package: "shop/shop".into(),
                    error: "forbidden".into(),
                },
                "warning: cannot update the status of Package shop/shop: forbidden",
            ),
            (
                Message::PackageObjectSuspended {
                    object: "Package shop/shop".into(),
                },
                "note: suspended Package shop/shop (spec.suspend: true): the controller leaves this package to the CLI until it is resumed",
            ),
            (
                Message::ValuesNotKept {
                    notice: "values given in revision 1 are not kept".into(),
                },
                "note: values given in revision 1 are not kept",
            ),
            (
                Message::Replanned {
                    revision: 4,
                    version: "2.0.1".into(),
                    status: "deployed".into(),
                },
                "the package changed while this apply waited for its lock: revision 4 (2.0.1, deployed) is the latest now; planning again against it",
            ),
            (
                Message::Downgrade {
                    from: "2.0.1".into(),
                    to: "1.1.0".into(),
                    verdict: "allowed: no version that ran since 1.1.0 last ran forbids it (by rollback.safe: false or a rollback.to floor)".into(),
                },
                "downgrade from 2.0.1 to 1.1.0: allowed: no version that ran since 1.1.0 last ran forbids it (by rollback.safe: false or a rollback.to floor)",
            ),
            (
                Message::HookCompletedBefore {
                    revision: 2,
                    from_version: "1.0.0".into(),
                    to_version: "2.0.0".into(),
                },
                "already completed for 1.0.0 -> 2.0.0 by interrupted revision 2; not run again",
            ),
        ];
        for (message, line) in cases {
            assert_eq!(message.to_string(), line);
            // About a component, the line says which; about the package or a release, not.
            let about = Event::message(Some("db"), message.clone());
            assert_eq!(about.to_string(), format!("db: {line}"));
            assert_eq!(about.component(), Some("db"));
            let bare = Event::message(None, message);
            assert_eq!(bare.to_string(), line);
            assert_eq!(bare.component(), None);
        }
    }

    #[test]
    fn lines_sink_hands_over_each_line() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let sink = lines(move |l| s.lock().unwrap().push(l.to_string()));
        sink(&Event::Applying { component: c() });
        sink(&Event::message(
            None,
            Message::PackageLeaseWait { holder: "x".into() },
        ));
        discard()(&Event::Ready { component: c() });
        assert_eq!(
            *seen.lock().unwrap(),
            [
                "db: applying",
                "waiting for another operation on package (held by x)"
            ]
        );
    }
}
