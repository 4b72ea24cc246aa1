//! The state a package or a component is shown in, decided from the latest revision and each
//! component's live state (`kubepkg_engine::ops::status`), with the words and the symbol that
//! say it (colour is never the only signal).

use kubepkg_package::instance::ComponentState;
use kubepkg_package::revision::{PackageRevision, RevisionStatus};

/// What the dashboard shows a package or component as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Ready,
    Waiting,
    Applying,
    Pending,
    Failed,
    Uninstalled,
    Unknown,
}

impl State {
    /// Every state, in the order counts are shown.
    pub const ALL: [State; 7] = [
        State::Ready,
        State::Waiting,
        State::Applying,
        State::Pending,
        State::Failed,
        State::Uninstalled,
        State::Unknown,
    ];

    /// The word shown.
    pub fn label(self) -> &'static str {
        match self {
            State::Ready => "Ready",
            State::Waiting => "Waiting",
            State::Applying => "Applying",
            State::Pending => "Not applied yet",
            State::Failed => "Failed",
            State::Uninstalled => "Uninstalled",
            State::Unknown => "Unknown",
        }
    }

    /// The name in URLs, CSS and the live events.
    pub fn key(self) -> &'static str {
        match self {
            State::Ready => "ready",
            State::Waiting => "waiting",
            State::Applying => "applying",
            State::Pending => "pending",
            State::Failed => "failed",
            State::Uninstalled => "uninstalled",
            State::Unknown => "unknown",
        }
    }

    /// A symbol beside the word (hidden from screen readers, which read the word).
    pub fn symbol(self) -> &'static str {
        match self {
            State::Ready => "✓",
            State::Waiting | State::Applying => "…",
            State::Pending => "○",
            State::Failed => "✗",
            State::Uninstalled | State::Unknown => "–",
        }
    }

    pub fn from_key(key: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// A package's state and what it waits for, from its latest revision and components.
pub fn package(rev: &PackageRevision, components: &[ComponentState]) -> (State, String) {
    let waiting = components
        .iter()
        .find(|c| !c.ready)
        .map(|c| format!("{}: {}", c.name, waiting_text(c)))
        .unwrap_or_default();
    let state = match rev.status {
        s if s.is_pending() => State::Applying,
        RevisionStatus::Failed => State::Failed,
        RevisionStatus::Uninstalled => State::Uninstalled,
        RevisionStatus::Deployed if waiting.is_empty() => State::Ready,
        RevisionStatus::Deployed => State::Waiting,
        _ => State::Unknown,
    };
    (state, waiting)
}

/// A component's state and what it waits for.
pub fn component(rev: &PackageRevision, c: &ComponentState) -> (State, String) {
    if c.ready {
        return (State::Ready, String::new());
    }
    if c.revision == 0 && rev.status.is_pending() {
        return (State::Pending, "not applied yet".to_string());
    }
    let state = if rev.status == RevisionStatus::Failed {
        State::Failed
    } else {
        State::Waiting
    };
    (state, waiting_text(c))
}

fn waiting_text(c: &ComponentState) -> String {
    match &c.waiting_for {
        Some(w) => format!("waiting for {w}"),
        None => "not ready".to_string(),
    }
}

/// The package's conditions as `kubepkg status` shows them (the recorded ones, `Ready=False`
/// when a component is not ready now) and kstatus' summary of them.
pub fn conditions(
    rev: &PackageRevision,
    waiting: &str,
) -> (Vec<kubepkg_package::revision::Condition>, &'static str) {
    use kubepkg_package::conditions::{live, summary};
    let now = live(rev, Some(waiting).filter(|w| !w.is_empty()));
    let kstatus = summary(&now).as_str();
    (now, kstatus)
}

/// One element's live state: the state's key, word and symbol, and what it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveRow {
    pub key: String,
    pub state: State,
    pub detail: String,
}

impl LiveRow {
    pub fn new(key: String, state: State, detail: String) -> LiveRow {
        LiveRow { key, state, detail }
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "key": self.key,
            "state": self.state.key(),
            "label": self.state.label(),
            "symbol": self.state.symbol(),
            "detail": self.detail,
        })
    }
}
