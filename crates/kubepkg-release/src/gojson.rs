//! JSON text exactly as Go's `encoding/json.Marshal` writes it, so a release body written by
//! kubepkg is byte-for-byte what Helm would write for the same record.
//!
//! Differences from serde_json's default output that matter: Go escapes `<`, `>`, `&`,
//! U+2028 and U+2029 (`\u003c` …) and writes floats with `strconv.FormatFloat` rules
//! (`3` not `3.0`; exponent form below 1e-6 and from 1e21, as `1e-7` and `1e+21`), which
//! `kubepkg_gostd::json` holds.
//! Map key order is handled by the record types (Go sorts map keys, keeps struct order).

use std::io::{self, Write};

use serde::Serialize;

/// Serializes `value` to Go-compatible compact JSON.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, GoFormatter);
    value.serialize(&mut ser)?;
    Ok(out)
}

/// A serde_json formatter that follows Go's encoding/json.
#[derive(Debug, Clone, Copy, Default)]
pub struct GoFormatter;

impl serde_json::ser::Formatter for GoFormatter {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(format_float(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        writer.write_all(format_float(f64::from(value)).as_bytes())
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            let esc = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&fragment.as_bytes()[start..i])?;
            writer.write_all(esc.as_bytes())?;
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// Formats a float as Go's JSON encoder does for float64 (`kubepkg_gostd::json`). Go refuses
/// NaN and the infinities; JSON cannot carry them and JSON input never produces them.
pub fn format_float(f: f64) -> String {
    kubepkg_gostd::json::format_float64(f).unwrap_or_else(|| "null".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected strings are what Go 1.26 `json.Marshal(float64(x))` prints.
    #[test]
    fn floats_follow_go() {
        for (f, go) in [
            (3.0, "3"),
            (-0.5, "-0.5"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-10, "1.25e-10"),
            (0.1, "0.1"),
            (123456789.125, "123456789.125"),
            (0.0, "0"),
        ] {
            assert_eq!(format_float(f), go, "for {f:?}");
        }
    }

    #[test]
    fn html_characters_are_escaped_as_go_does() {
        let v = serde_json::json!({"a": "<b>&\u{2028}\"\n\u{1}"});
        let out = String::from_utf8(to_vec(&v).unwrap()).unwrap();
        assert_eq!(out, r#"{"a":"\u003cb\u003e\u0026\u2028\"\n\u0001"}"#);
    }
}
