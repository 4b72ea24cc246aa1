//! Lint results printed as `helm lint` prints them (`==> Linting PATH`, one message a line,
//! a blank line, then `N chart(s) linted, M chart(s) failed`), or as kubepkg's JSON.

use crate::LintError;
use crate::support::{Linter, Message, Severity};

/// What one linted path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Chart,
    Package,
}

/// One linted path: its messages, or the error that kept it from being linted.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: EntryKind,
    /// The path as given (or as the package names its chart).
    pub path: String,
    pub messages: Vec<Message>,
    pub error: Option<String>,
}

impl Entry {
    /// An entry from a lint result.
    pub fn new(kind: EntryKind, path: &str, result: Result<Linter, LintError>) -> Entry {
        match result {
            Ok(l) => Entry {
                kind,
                path: path.to_string(),
                messages: l.messages,
                error: None,
            },
            Err(e) => Entry {
                kind,
                path: path.to_string(),
                messages: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    }

    /// Helm's `result.Errors`: the error, or the messages at or above the tolerance.
    fn errors(&self, strict: bool) -> usize {
        let floor = if strict {
            Severity::Warning
        } else {
            Severity::Error
        };
        usize::from(self.error.is_some())
            + self.messages.iter().filter(|m| m.severity >= floor).count()
    }

    fn has_warnings_or_errors(&self) -> bool {
        self.error.is_some() || self.messages.iter().any(|m| m.severity > Severity::Info)
    }
}

/// Every linted path of one run.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    pub entries: Vec<Entry>,
    pub strict: bool,
    pub quiet: bool,
}

/// The printed report and whether the run failed.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Standard output.
    pub stdout: String,
    /// `Some(summary)` when the run failed (printed as `Error: SUMMARY`, exit 1).
    pub failure: Option<String>,
}

impl LintReport {
    /// How many entries failed.
    pub fn failed(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.errors(self.strict) > 0)
            .count()
    }

    fn summary(&self) -> String {
        let packages = self
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Package)
            .count();
        let charts = self.entries.len() - packages;
        let failed = self.failed();
        if packages == 0 {
            format!("{charts} chart(s) linted, {failed} chart(s) failed")
        } else {
            format!("{packages} package(s) and {charts} chart(s) linted, {failed} failed")
        }
    }

    /// Helm's text.
    pub fn text(&self) -> Outcome {
        let mut out = String::new();
        let mut errors_or_warnings = 0;
        for e in &self.entries {
            let has = e.has_warnings_or_errors();
            if has {
                errors_or_warnings += 1;
            }
            if self.quiet && !has {
                continue;
            }
            out.push_str(&format!("==> Linting {}\n", e.path));
            if e.messages.is_empty()
                && let Some(err) = &e.error
            {
                out.push_str(&format!("Error {err}\n"));
            }
            for m in &e.messages {
                if !self.quiet || m.severity > Severity::Info {
                    out.push_str(&format!("{m}\n"));
                }
            }
            out.push('\n');
        }
        let summary = self.summary();
        if self.failed() > 0 {
            return Outcome {
                stdout: out,
                failure: Some(summary),
            };
        }
        if !self.quiet || errors_or_warnings > 0 {
            out.push_str(&summary);
            out.push('\n');
        }
        Outcome {
            stdout: out,
            failure: None,
        }
    }

    /// kubepkg's JSON: `{"results": [{"kind", "path", "failed", "error"?, "messages":
    /// [{"severity", "path", "text"}]}], "linted", "failed"}`.
    pub fn json(&self) -> Outcome {
        let results: Vec<serde_json::Value> = self
            .entries
            .iter()
            .map(|e| {
                let mut o = serde_json::Map::new();
                o.insert(
                    "kind".into(),
                    match e.kind {
                        EntryKind::Chart => "chart",
                        EntryKind::Package => "package",
                    }
                    .into(),
                );
                o.insert("path".into(), e.path.clone().into());
                o.insert("failed".into(), (e.errors(self.strict) > 0).into());
                if let Some(err) = &e.error {
                    o.insert("error".into(), err.clone().into());
                }
                o.insert(
                    "messages".into(),
                    e.messages
                        .iter()
                        .map(|m| {
                            serde_json::json!({
                                "severity": m.severity.json_name(),
                                "path": m.path,
                                "text": m.text,
                            })
                        })
                        .collect::<Vec<_>>()
                        .into(),
                );
                serde_json::Value::Object(o)
            })
            .collect();
        let failed = self.failed();
        let doc = serde_json::json!({
            "results": results,
            "linted": self.entries.len(),
            "failed": failed,
        });
        let mut stdout = serde_json::to_string_pretty(&doc).unwrap_or_default();
        stdout.push('\n');
        Outcome {
            stdout,
            failure: (failed > 0).then(|| self.summary()),
        }
    }
}
