//! `strconv.Quote`, `QuoteToASCII`, `QuoteRune`, `QuoteRuneToASCII`, `CanBackquote` and
//! `IsPrint` (Go's `strconv/quote.go`). `IsPrint` is Go's own table, recorded from Go by the
//! oracle (`isprint.rs`), so a character prints raw exactly when Go prints it raw, whatever
//! Unicode version Rust's tables follow.

use super::isprint::PRINT;
use crate::utf8;

/// Go's `strconv.IsPrint` (= `unicode.IsPrint`): letters, marks, numbers, punctuation, symbols
/// and the ASCII space.
pub fn is_print(c: char) -> bool {
    let u = c as u32;
    PRINT
        .binary_search_by(|&(lo, hi)| {
            if hi < u {
                std::cmp::Ordering::Less
            } else if lo > u {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Appends `c` as Go's `appendEscapedRune` writes it inside `quote` quotes.
fn escape_rune(out: &mut String, c: char, quote: char, ascii_only: bool) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if ascii_only {
        if c.is_ascii() && is_print(c) {
            out.push(c);
            return;
        }
    } else if is_print(c) {
        out.push(c);
        return;
    }
    let u = c as u32;
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        _ if u < 0x20 || u == 0x7f => out.push_str(&format!("\\x{u:02x}")),
        _ if u < 0x10000 => out.push_str(&format!("\\u{u:04x}")),
        _ => out.push_str(&format!("\\U{u:08x}")),
    }
}

/// Go's `strconv.Quote` (or, with `ascii_only`, `QuoteToASCII`) of Go string bytes: each byte
/// that is not part of valid UTF-8 is written `\xNN`.
pub fn quote_bytes(b: &[u8], ascii_only: bool) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    let mut i = 0;
    while i < b.len() {
        let (c, w) = utf8::decode_rune(&b[i..]);
        match c {
            Some(c) => escape_rune(&mut out, c, '"', ascii_only),
            None => out.push_str(&format!("\\x{:02x}", b[i])),
        }
        i += w;
    }
    out.push('"');
    out
}

/// Go's `strconv.Quote`: `"` quotes, Go escapes for what is not printable.
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes(), false)
}

/// Go's `strconv.QuoteToASCII`: as [`quote`], with every non-ASCII character escaped.
pub fn quote_to_ascii(s: &str) -> String {
    quote_bytes(s.as_bytes(), true)
}

/// Go's `strconv.QuoteRune` (or, with `ascii_only`, `QuoteRuneToASCII`). A Go rune that is not
/// a valid character (a surrogate, or beyond U+10FFFF) is U+FFFD: see [`rune`].
pub fn quote_rune(c: char, ascii_only: bool) -> String {
    let mut out = String::from("'");
    escape_rune(&mut out, c, '\'', ascii_only);
    out.push('\'');
    out
}

/// A Go `rune` (any `int32`, or an integer printed with `%c`/`%q`) as the character Go uses:
/// U+FFFD when it is not a valid Unicode scalar value.
pub fn rune(r: i64) -> char {
    u32::try_from(r)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}')
}

/// Go's `strconv.CanBackquote`: whether `s` can be written as a raw string literal (no control
/// characters but tab, no backquote, no invalid UTF-8, no byte order mark).
pub fn can_backquote(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let (c, w) = utf8::decode_rune(&s[i..]);
        i += w;
        let Some(c) = c else {
            return false;
        };
        if w > 1 {
            if c == '\u{feff}' {
                return false;
            }
            continue;
        }
        if (c < ' ' && c != '\t') || c == '`' || c == '\u{7f}' {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_like_go() {
        assert_eq!(quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(quote("\u{1}é\u{ad}"), "\"\\x01é\\u00ad\"");
        assert_eq!(quote_to_ascii("é"), "\"\\u00e9\"");
        assert_eq!(quote_bytes(b"\xff", false), "\"\\xff\"");
        assert_eq!(quote_rune('\'', false), "'\\''");
        assert!(can_backquote("a\tb\u{fffd}".as_bytes()));
        assert!(!can_backquote(b"a`b"));
    }
}
