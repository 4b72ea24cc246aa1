//! TOML's written forms that the encoder ([`crate::toml`]) and the parser
//! ([`crate::toml_parse`]) share: BurntSushi's quoting of a string or key, and the named
//! zero-offset zones that mark local datetimes, dates and times.

/// The zero-offset zones BurntSushi/toml places local datetimes, dates and times in (its
/// `internal.LocalDatetime`, `LocalDate`, `LocalTime`); `toToml` writes such times back in
/// their TOML form.
pub const LOCAL_DATETIME: &str = "datetime-local";
/// See [`LOCAL_DATETIME`].
pub const LOCAL_DATE: &str = "date-local";
/// See [`LOCAL_DATETIME`].
pub const LOCAL_TIME: &str = "time-local";

/// BurntSushi's quoted TOML string: `"`, `\` and control characters escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
