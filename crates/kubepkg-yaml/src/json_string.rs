//! Go's `encoding/json` string literals: `"` … `"` with Go's escapes (HTML-safe `\u003c` unless
//! raw, U+2028/U+2029 escaped, other control characters as `\u00XX`), and Go string bytes that
//! are not UTF-8 written with `\ufffd`. The JSON encoder and the YAML-to-JSON decoder both
//! write strings through it.

use std::fmt::Write as _;

/// Append `s` as a Go JSON string literal.
pub(crate) fn write_json_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    write_json_chars(out, s, escape_html);
    out.push('"');
}

/// `encoding/json`'s string encoding of Go string bytes that are not UTF-8: each byte that does
/// not start a valid sequence is written as the escape `\ufffd`.
pub(crate) fn write_json_go_bytes(out: &mut String, b: &[u8], escape_html: bool) {
    out.push('"');
    let mut rest = b;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                write_json_chars(out, s, escape_html);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                write_json_chars(
                    out,
                    std::str::from_utf8(good).unwrap_or_default(),
                    escape_html,
                );
                out.push_str("\\ufffd");
                rest = &bad[1..];
            }
        }
    }
    out.push('"');
}

fn write_json_chars(out: &mut String, s: &str, escape_html: bool) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => {
                let _ = write!(out, "\\u00{:02x}", c as u32);
            }
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u00{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
}
