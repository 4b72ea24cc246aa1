//! `encoding/json`'s text of a `float64` (`encode.go`'s `floatEncoder`): `strconv`'s shortest
//! `'f'` form, or `'e'` below 1e-6 and from 1e21 on with a one-digit negative exponent written
//! as one digit (`1e-7`, `1e+21`); and [`to_vec`], serde data written as `json.Marshal`
//! writes it (that float form, `<`, `>`, `&`, U+2028 and U+2029 escaped); and [`field`], the
//! object key whose value `json.Unmarshal` leaves in a struct field.

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

/// The value `json.Unmarshal` leaves in the struct field whose JSON name is `name`, from an
/// object's `entries` in the order of its text (for text `json.Marshal` wrote from a map: keys
/// in byte order). Go's decoder assigns the field for every key that names it — the same
/// name, or one equal under Unicode simple case folding (`bytes.EqualFold`: `KIND`, `Kind`
/// and `\u{212A}ind`, K the Kelvin sign, all name `kind`) — so the last such key wins, even
/// after an exact one.
pub fn field<'e, V>(
    entries: impl DoubleEndedIterator<Item = (&'e str, V)>,
    name: &str,
) -> Option<V> {
    entries
        .rev()
        .find(|(k, _)| names_field(k, name))
        .map(|(_, v)| v)
}

/// Go's JSON decoder filling a struct whose fields' JSON names are `fields` from an object's
/// `entries` in the order of its text: each key that names a field ([`names_field`]; the field
/// of the same name first) has its value given to `fill` with the field's index, in that
/// order, so a later key's value lands over an earlier one's — or into it, for a struct or a
/// map. The first error stops the walk (Go decodes on, and reports the earliest).
pub fn fill_fields<'e, V, E>(
    entries: impl IntoIterator<Item = (&'e str, V)>,
    fields: &[&str],
    mut fill: impl FnMut(usize, V) -> Result<(), E>,
) -> Result<(), E> {
    for (key, value) in entries {
        let named = fields
            .iter()
            .position(|f| *f == key)
            .or_else(|| fields.iter().position(|f| names_field(key, f)));
        if let Some(i) = named {
            fill(i, value)?;
        }
    }
    Ok(())
}

/// Whether the object key `key` names the struct field `name` for `json.Unmarshal`: equal, or
/// equal under simple case folding.
pub fn names_field(key: &str, name: &str) -> bool {
    key == name || {
        let (mut a, mut b) = (key.chars(), name.chars());
        loop {
            match (a.next(), b.next()) {
                (None, None) => break true,
                (Some(x), Some(y)) if x == y || fold(x) == fold(y) => {}
                _ => break false,
            }
        }
    }
}

/// One representative of `c`'s simple case-folding orbit, as `bytes.EqualFold` walks them, for
/// the orbits that hold ASCII letters (a struct field's JSON name is ASCII here): the letter's
/// two cases, and the Kelvin sign with `k` and the long s with `s`. Other characters stand for
/// themselves (the dotless `ı` is not an `i`).
fn fold(c: char) -> char {
    match c {
        '\u{212A}' => 'k',
        '\u{17F}' => 's',
        c => c.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod field_tests {
    use super::*;

    /// Which key of an object `json.Unmarshal` leaves in the field `kind`; the same rule decides
    /// where helm v4.3.1 sorts the documents of the reference case `synthetic/json-field-names`.
    #[test]
    fn the_last_key_naming_the_field_wins() {
        let pick = |keys: &[&str]| {
            let mut sorted: Vec<(&str, usize)> = keys.iter().copied().zip(0..).collect();
            sorted.sort();
            field(sorted.into_iter(), "kind")
        };
        assert_eq!(pick(&["kind"]), Some(0));
        assert_eq!(pick(&["KIND", "Kind"]), Some(1));
        assert_eq!(pick(&["Kind", "kind"]), Some(1));
        assert_eq!(pick(&["kind", "\u{212A}ind"]), Some(1));
        assert_eq!(pick(&["kinds", "kin"]), None);
        assert!(names_field("ANNOTATION\u{17F}", "annotations"));
        assert!(names_field("apiversion", "apiVersion"));
        assert!(!names_field("apiVersio", "apiVersion"));
        assert!(!names_field("k\u{EF}nd", "kind"));
        assert!(!names_field("k\u{131}nd", "kind"));
        let mut filled = Vec::new();
        let entries = [("Kind", 1), ("METADATA", 2), ("kind", 3), ("kinds", 4)];
        let r: Result<(), ()> = fill_fields(entries, &["kind", "metadata"], |f, v| {
            filled.push((f, v));
            Ok(())
        });
        assert_eq!((r, filled), (Ok(()), vec![(0, 1), (1, 2), (0, 3)]));
    }
}
