//! Go's `log/slog` as the Helm 4 CLI logs: a `TextHandler` on standard error whose
//! `ReplaceAttr` drops the time (`internal/logging.NewLogger`), installed with `slog.SetDefault`,
//! which also routes the standard `log.Printf` through it at level `INFO`. So a Helm library
//! warning reaches the terminal as `level=WARN msg="this chart is deprecated"`, and a
//! `log.Printf("warning: …")` of the values coalescing as `level=INFO msg="warning: …"`.
//!
//! [`Record`] is one such line ([`Record`]'s `Display` is the handler's text, checked against
//! Go in `oracle_tests.rs`); [`log`] is the one way kubepkg's libraries emit one: to the
//! records [`capture`] collects on this thread, or else as a line on standard error, as Helm's
//! default logger writes it.

use std::cell::RefCell;
use std::fmt;

/// A `slog.Level` Helm logs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// `slog.LevelInfo`: Helm's `slog.Info`, and every `log.Printf` under `slog.SetDefault`.
    Info,
    /// `slog.LevelWarn`: Helm's `slog.Warn`.
    Warn,
}

impl Level {
    /// The level's text (`Level.String`).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "INFO",
            Level::Warn => "WARN",
        }
    }
}

/// One log record: level, message and attributes (string values; an `error` attribute is its
/// `Error()` text, as the handler prints it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    pub level: Level,
    pub msg: String,
    pub attrs: Vec<(String, String)>,
}

impl Record {
    /// A record at `level` with no attributes.
    pub fn new(level: Level, msg: impl Into<String>) -> Record {
        Record {
            level,
            msg: msg.into(),
            attrs: Vec::new(),
        }
    }

    /// `slog.Info(msg)`, and what Go's `log.Printf` becomes under `slog.SetDefault`.
    pub fn info(msg: impl Into<String>) -> Record {
        Record::new(Level::Info, msg)
    }

    /// `slog.Warn(msg)`.
    pub fn warn(msg: impl Into<String>) -> Record {
        Record::new(Level::Warn, msg)
    }

    /// The record with one more attribute.
    pub fn attr(mut self, key: impl Into<String>, value: impl Into<String>) -> Record {
        self.attrs.push((key.into(), value.into()));
        self
    }
}

/// The `TextHandler` line without its newline: `level=… msg=… key=value…`.
impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "level={} msg={}",
            self.level.as_str(),
            text_value(&self.msg)
        )?;
        for (k, v) in &self.attrs {
            write!(f, " {}={}", text_value(k), text_value(v))?;
        }
        Ok(())
    }
}

/// A key or string value as `TextHandler` writes it: as is, or `strconv.Quote`d when it
/// `needsQuoting` (empty; an ASCII space, `=`, `"` or a byte JSON would escape, a backslash
/// excepted; a space or non-printable rune).
fn text_value(s: &str) -> std::borrow::Cow<'_, str> {
    if needs_quoting(s) {
        std::borrow::Cow::Owned(crate::strconv::quote(s))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

fn needs_quoting(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    s.chars().any(|c| {
        if c.is_ascii() {
            c != '\\' && (c == ' ' || c == '=' || c == '"' || c.is_ascii_control() && c != '\x7f')
        } else {
            c == char::REPLACEMENT_CHARACTER || is_go_space(c) || !crate::strconv::is_print(c)
        }
    })
}

/// Go's `unicode.IsSpace` outside ASCII.
fn is_go_space(c: char) -> bool {
    matches!(
        c,
        '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

thread_local! {
    /// The records [`capture`] collects on this thread (innermost capture last).
    static CAPTURE: RefCell<Vec<Vec<Record>>> = const { RefCell::new(Vec::new()) };
}

/// Where the lines of records no [`capture`] claims go instead of standard error.
pub type Writer = Box<dyn Fn(&str) + Send + Sync>;

static WRITER: std::sync::RwLock<Option<Writer>> = std::sync::RwLock::new(None);

/// Sends the lines of unclaimed records to `writer` (a live progress display prints them
/// above its redrawn lines, which would otherwise draw over them); `None`: standard error.
pub fn set_writer(writer: Option<Writer>) {
    if let Ok(mut w) = WRITER.write() {
        *w = writer;
    }
}

/// Log a record as Helm's default logger does: collected by the innermost [`capture`] running
/// on this thread, or else written as a line on standard error (or to the [`set_writer`] one).
pub fn log(record: Record) {
    let unclaimed = CAPTURE
        .try_with(|c| match c.borrow_mut().last_mut() {
            Some(records) => {
                records.push(record.clone());
                false
            }
            None => true,
        })
        .unwrap_or(true);
    if unclaimed {
        match WRITER.read().as_deref() {
            Ok(Some(writer)) => writer(&record.to_string()),
            _ => eprintln!("{record}"),
        }
    }
}

/// Run `f`, collecting what it [`log`]s on this thread instead of writing it (a process that
/// renders many charts, or a test, decides what to do with them).
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Vec<Record>) {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            let _ = CAPTURE.try_with(|c| c.borrow_mut().pop());
        }
    }
    CAPTURE.with(|c| c.borrow_mut().push(Vec::new()));
    let pop = Pop;
    let out = f();
    let records = CAPTURE
        .try_with(|c| c.borrow_mut().last_mut().map(std::mem::take))
        .ok()
        .flatten()
        .unwrap_or_default();
    drop(pop);
    (out, records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_collects_and_nests() {
        let ((inner, ()), outer) = capture(|| {
            log(Record::info("a"));
            let r = capture(|| log(Record::warn("b")));
            (r.1, ())
        });
        assert_eq!(inner, vec![Record::warn("b")]);
        assert_eq!(outer, vec![Record::info("a")]);
    }
}
