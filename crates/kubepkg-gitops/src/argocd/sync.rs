//! Driving one Application: the sync operation to set on it, as `argocd app sync` sets it, and
//! what its status says about that operation. Pure: the caller patches and watches the object.
//!
//! `argocd app sync` asks Argo CD's API server, which writes the Application's `operation`
//! (`sync: {revision, prune, syncStrategy: {hook: {}}}`, `initiatedBy: {username}`, `retry: {}`)
//! and clears
//! `status.operationState` in one update, refusing when an operation is already set
//! (`util/argo.SetAppOperation`). [`sync_patch`] is that update as a JSON merge patch (Argo CD's
//! Application CRD has no status subresource: `status` is written with the object), and
//! [`operation_in_progress`] is the refusal.
//!
//! The application controller then starts the operation (`status.operationState.phase:
//! Running`, the operation copied to `status.operationState.operation`), applies the chart's
//! objects, and on completion removes `operation` and sets the phase `Succeeded`, `Failed`
//! (objects did not apply or sync hooks failed) or `Error` (the sync could not run: the chart
//! failed to render, the project refused it, ...) with its message. Independently it keeps
//! `status.sync` (`Synced`/`OutOfSync` against `status.sync.revision`) and `status.health`
//! (`Healthy`, `Progressing`, `Degraded`, `Suspended`, `Missing`, `Unknown`; the reasons are on
//! `status.resources[].health`) up to date. [`verdict`] reads all of it for one revision.

use std::fmt;

use serde_json::{Value, json};

/// Who kubepkg's operations are initiated by (`operation.initiatedBy.username`).
pub const INITIATOR: &str = "kubepkg";

/// The `operation` that syncs an Application to `revision` (a Helm source: the chart's
/// version), with the default (`hook`) strategy, as `argocd app sync --revision REVISION
/// [--prune]` sets it.
pub fn sync_operation(revision: &str, prune: bool) -> Value {
    let mut sync = json!({
        "revision": revision,
        "syncStrategy": { "hook": {} },
    });
    if prune {
        sync["prune"] = true.into();
    }
    // `retry: {}` as Argo CD's Go types write an operation without a retry strategy (the
    // field is a struct, never left out): the object reads back as it was set.
    json!({
        "sync": sync,
        "initiatedBy": { "username": INITIATOR },
        "retry": {},
    })
}

/// The JSON merge patch that starts [`sync_operation`] on an Application: the operation set
/// and the previous operation's state cleared, so that [`verdict`] never reads an older
/// operation's outcome. Check [`operation_in_progress`] first (on the same resourceVersion).
pub fn sync_patch(revision: &str, prune: bool) -> Value {
    json!({
        "operation": sync_operation(revision, prune),
        "status": { "operationState": null },
    })
}

/// Whether an operation is set on `app` and not finished: a new one must not be set (Argo CD's
/// API server refuses with "another operation is already in progress").
pub fn operation_in_progress(app: &Value) -> bool {
    app.get("operation").is_some_and(|o| !o.is_null())
}

/// The phase of an Application's operation (`status.operationState.phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Running,
    Terminating,
    Succeeded,
    Failed,
    Error,
}

impl Phase {
    fn parse(s: &str) -> Option<Phase> {
        Some(match s {
            "Running" => Phase::Running,
            "Terminating" => Phase::Terminating,
            "Succeeded" => Phase::Succeeded,
            "Failed" => Phase::Failed,
            "Error" => Phase::Error,
            _ => return None,
        })
    }

    /// The name Argo CD writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Running => "Running",
            Phase::Terminating => "Terminating",
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
            Phase::Error => "Error",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an Application's status says about the sync to one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The operation is set but not started, or running (or the status is of an older
    /// operation): wait. `message` is the controller's (or a condition's), if any.
    Syncing { message: String },
    /// The operation ended `Failed` or `Error`: the component failed; `message` is Argo CD's
    /// (with the objects that failed to apply).
    Failed { phase: Phase, message: String },
    /// The operation succeeded but the Application is not yet `Synced` to the revision and
    /// `Healthy`: `sync` and `health` are Argo CD's codes, `message` names the objects that are
    /// not synced or not healthy, with their health messages. Wait (kubepkg's timeout decides).
    Unready {
        sync: String,
        health: String,
        message: String,
    },
    /// Succeeded, `Synced` to the revision and `Healthy`.
    Ready,
}

impl Verdict {
    /// The line to show for it.
    pub fn message(&self) -> String {
        match self {
            Verdict::Syncing { message } if message.is_empty() => "syncing".to_string(),
            Verdict::Syncing { message } => format!("syncing: {message}"),
            Verdict::Failed { phase, message } => format!("sync {phase}: {message}"),
            Verdict::Unready {
                sync,
                health,
                message,
            } if message.is_empty() => format!("{sync}, {health}"),
            Verdict::Unready {
                sync,
                health,
                message,
            } => format!("{sync}, {health}: {message}"),
            Verdict::Ready => "Synced, Healthy".to_string(),
        }
    }
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .try_fold(v, |v, key| v.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Reads `app` (a whole Application object) for the sync operation to `revision` that
/// [`sync_patch`] set.
pub fn verdict(app: &Value, revision: &str) -> Verdict {
    let status = app.get("status").unwrap_or(&Value::Null);
    let state = status.get("operationState").filter(|s| !s.is_null());
    let Some(state) = state else {
        // Not started yet: what keeps it from starting is in the conditions.
        return Verdict::Syncing {
            message: conditions(status),
        };
    };
    let for_revision = str_at(state, &["operation", "sync", "revision"]) == revision;
    let phase = Phase::parse(str_at(state, &["phase"]));
    let message = str_at(state, &["message"]).to_string();
    match phase {
        _ if !for_revision => Verdict::Syncing {
            message: conditions(status),
        },
        Some(phase @ (Phase::Failed | Phase::Error)) if !operation_in_progress(app) => {
            Verdict::Failed {
                phase,
                message: failure_message(state, message),
            }
        }
        Some(Phase::Succeeded) if !operation_in_progress(app) => {
            let sync = str_at(status, &["sync", "status"]);
            let synced_to = str_at(status, &["sync", "revision"]);
            let health = str_at(status, &["health", "status"]);
            if sync == "Synced" && synced_to == revision && health == "Healthy" {
                Verdict::Ready
            } else {
                let mut message = unready_resources(status);
                if sync == "Synced" && synced_to != revision {
                    message = join(format!("synced to {synced_to}, not {revision}"), message);
                }
                Verdict::Unready {
                    sync: or_unknown(sync),
                    health: or_unknown(health),
                    message,
                }
            }
        }
        // Running, Terminating, a retry in progress (Failed with the operation still set), or
        // a phase this reader does not know.
        _ => Verdict::Syncing {
            message: join(message, conditions(status)),
        },
    }
}

fn or_unknown(s: &str) -> String {
    if s.is_empty() {
        "Unknown".to_string()
    } else {
        s.to_string()
    }
}

fn join(a: String, b: String) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b,
        (_, true) => a,
        _ => format!("{a}; {b}"),
    }
}

/// The operation's message, with each object that did not sync (`syncResult.resources[]` whose
/// `status` is not `Synced`) and its message, when the operation's message does not already
/// carry it.
fn failure_message(state: &Value, message: String) -> String {
    let mut out = message;
    for r in state
        .pointer("/syncResult/resources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let status = str_at(r, &["status"]);
        if status == "Synced" || status.is_empty() {
            continue;
        }
        let text = str_at(r, &["message"]);
        if !text.is_empty() && out.contains(text) {
            continue;
        }
        out = join(
            out,
            format!(
                "{} {}: {status} {text}",
                str_at(r, &["kind"]),
                str_at(r, &["name"])
            )
            .trim_end()
            .to_string(),
        );
    }
    out
}

/// Each of `status.resources[]` that is not `Synced` or not `Healthy`: `Kind name: OutOfSync`,
/// `Kind name: Progressing (message)`.
fn unready_resources(status: &Value) -> String {
    let mut parts = Vec::new();
    for r in status
        .get("resources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mut states = Vec::new();
        let sync = str_at(r, &["status"]);
        if !sync.is_empty() && sync != "Synced" {
            states.push(sync.to_string());
        }
        let health = str_at(r, &["health", "status"]);
        if !health.is_empty() && health != "Healthy" {
            let text = str_at(r, &["health", "message"]);
            states.push(if text.is_empty() {
                health.to_string()
            } else {
                format!("{health} ({text})")
            });
        }
        if !states.is_empty() {
            parts.push(format!(
                "{} {}: {}",
                str_at(r, &["kind"]),
                str_at(r, &["name"]),
                states.join(", ")
            ));
        }
    }
    parts.join("; ")
}

/// The messages of `status.conditions[]` (ComparisonError, InvalidSpecError, ...), joined.
fn conditions(status: &Value) -> String {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| format!("{}: {}", str_at(c, &["type"]), str_at(c, &["message"])))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests;
