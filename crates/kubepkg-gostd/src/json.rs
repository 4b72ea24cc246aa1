//! `encoding/json`'s text of a `float64` (`encode.go`'s `floatEncoder`): `strconv`'s shortest
//! `'f'` form, or `'e'` below 1e-6 and from 1e21 on with a one-digit negative exponent written
//! as one digit (`1e-7`, `1e+21`); and [`to_vec`], serde data written as `json.Marshal`
//! writes it (that float form, `<`, `>`, `&`, U+2028 and U+2029 escaped).

use std::io::{self, Write};

use serde::Serialize;

use crate::strconv::format_float;

/// The JSON text of `f` as Go's `json.Marshal` writes a `float64`; `None` for NaN and the
/// infinities, which Go refuses (`json: unsupported value: NaN`).
pub fn format_float64(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let mut s = format_float(f, 'e', -1, 64);
        let n = s.len();
        let b = s.as_bytes();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            s.remove(n - 2);
        }
        Some(s)
    } else {
        Some(format_float(f, 'f', -1, 64))
    }
}

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
        writer.write_all(float_text(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        writer.write_all(float_text(f64::from(value)).as_bytes())
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

/// [`format_float64`], with NaN and the infinities (which Go refuses, and JSON input never
/// produces) written as `null`.
pub fn float_text(f: f64) -> String {
    format_float64(f).unwrap_or_else(|| "null".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(format_float64(1e21).unwrap(), "1e+21");
        assert_eq!(format_float64(1e20).unwrap(), "100000000000000000000");
        assert_eq!(format_float64(1e-7).unwrap(), "1e-7");
        assert_eq!(format_float64(0.000001).unwrap(), "0.000001");
        assert_eq!(format_float64(-0.0).unwrap(), "-0");
        assert_eq!(format_float64(f64::NAN), None);
    }
}
