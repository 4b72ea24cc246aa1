//! JSON text exactly as Go's `encoding/json.Marshal` writes it, so a release body written by
//! kubepkg is byte-for-byte what Helm would write for the same record.
//!
//! Differences from serde_json's default output that matter: Go escapes `<`, `>`, `&`,
//! U+2028 and U+2029 (`\u003c` …) and writes floats with `strconv.FormatFloat` rules
//! (`3` not `3.0`; exponent form below 1e-6 and from 1e21, as `1e-7` and `1e+21`), which
//! `kubepkg_gostd::json` holds (with the formatter, shared with `Chart.yaml`'s JSON form).
//! Map key order is handled by the record types (Go sorts map keys, keeps struct order).

/// `format_float`: a float as Go's JSON encoder writes a float64; NaN and the infinities
/// (which Go refuses, and JSON input never produces) as `null`.
pub use kubepkg_gostd::json::{GoFormatter, float_text as format_float, to_vec};

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
