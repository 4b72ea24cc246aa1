//! What a lint run produces: messages of a severity about a path, as Helm's
//! `lint/support` package has them (`[ERROR] templates/: text`).

use std::fmt;

/// How bad a finding is; ordered (`Info < Warning < Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Advice (`icon is recommended`); never fails a lint.
    Info,
    /// Breaks a convention or recommendation; fails a lint under `--strict`.
    Warning,
    /// The chart or package would fail to install; always fails a lint.
    Error,
}

impl Severity {
    /// Helm's bracketed name (`INFO`, `WARNING`, `ERROR`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "INFO",
            Severity::Warning => "WARNING",
            Severity::Error => "ERROR",
        }
    }

    /// The lower-case name used in the JSON report.
    pub fn json_name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding: severity, the file or directory it is about (chart-relative, or the chart's
/// absolute directory for the dependency rules, as Helm prints them) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub severity: Severity,
    pub path: String,
    pub text: String,
}

impl fmt::Display for Message {
    /// `[SEVERITY] PATH: TEXT`, Helm's `support.Message.Error()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {}: {}",
            self.severity.as_str(),
            self.path,
            self.text
        )
    }
}

/// The messages of one chart (or package), in the order the rules found them.
#[derive(Debug, Clone, Default)]
pub struct Linter {
    pub messages: Vec<Message>,
}

impl Linter {
    /// Records `err` (if any) at `severity` for `path`; whether the rule passed (Helm's
    /// `RunLinterRule`).
    pub fn rule(&mut self, severity: Severity, path: &str, err: Option<String>) -> bool {
        match err {
            None => true,
            Some(text) => {
                self.messages.push(Message {
                    severity,
                    path: path.to_string(),
                    text,
                });
                false
            }
        }
    }

    /// Records the error `text` for `path`: a rule that failed outright.
    pub fn error(&mut self, path: &str, text: String) {
        self.rule(Severity::Error, path, Some(text));
    }

    /// [`Linter::rule`] over a `Result`.
    pub fn check(&mut self, severity: Severity, path: &str, r: Result<(), String>) -> bool {
        self.rule(severity, path, r.err())
    }

    /// The highest severity recorded, if any.
    pub fn highest(&self) -> Option<Severity> {
        self.messages.iter().map(|m| m.severity).max()
    }
}
