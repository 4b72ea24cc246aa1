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

/// The writer in place and the number of the [`set_writer`] call that put it there.
static WRITER: std::sync::RwLock<Option<(u64, Writer)>> = std::sync::RwLock::new(None);

/// The number the next [`set_writer`] call gets.
static NEXT_WRITER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sends the lines of unclaimed records to `writer` (a live progress display prints them
/// above its redrawn lines, which would otherwise draw over them) until the returned
/// [`WriterInPlace`] is dropped; then standard error again, unless another writer was set
/// in the meantime (a display that ends leaves a later one's writer alone).
#[must_use = "the writer is taken away when this is dropped"]
pub fn set_writer(writer: Writer) -> WriterInPlace {
    let id = NEXT_WRITER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut w = WRITER.write().unwrap_or_else(|e| e.into_inner());
    *w = Some((id, writer));
    WriterInPlace(id)
}

/// A writer [`set_writer`] put in place; dropped, it is taken away if it is still the one.
#[derive(Debug)]
pub struct WriterInPlace(u64);

impl Drop for WriterInPlace {
    fn drop(&mut self) {
        let mut w = WRITER.write().unwrap_or_else(|e| e.into_inner());
        if w.as_ref().is_some_and(|(id, _)| *id == self.0) {
            *w = None;
        }
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
            Ok(Some((_, writer))) => writer(&record.to_string()),
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

    #[test]
    fn a_writer_taken_away_leaves_a_later_one_in_place() {
        use std::sync::{Arc, Mutex};
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let first = set_writer(Box::new(|_: &str| {}));
        let into = seen.clone();
        let second = set_writer(Box::new(move |line: &str| {
            into.lock().unwrap().push(line.to_string());
        }));
        drop(first);
        log(Record::warn("still shown above the lines"));
        drop(second);
        log(Record::warn("on standard error"));
        let seen = seen.lock().unwrap();
        assert!(
            seen.iter()
                .any(|l| l.contains("still shown above the lines")),
            "{seen:?}"
        );
        assert!(
            !seen.iter().any(|l| l.contains("on standard error")),
            "{seen:?}"
        );
    }
}
