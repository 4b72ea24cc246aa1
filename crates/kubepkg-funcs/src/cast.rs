//! Go conversions Sprig relies on: spf13/cast's `ToInt64`/`ToInt`/`ToFloat64` (which swallow
//! errors and return 0), `strconv.ParseInt(s, 0, 64)` and `ParseFloat`, Sprig's `strval`, and
//! Sprig's notion of an *empty* value (`default`, `empty`, `coalesce`, `compact`).

use kubepkg_value::Value;

use crate::gofmt;

/// Sprig's `strval`: strings as they are, `[]byte` as text, Stringers through `String()`,
/// anything else through `fmt.Sprintf("%v")`.
/// Bytes that are not UTF-8 are decoded as U+FFFD (see [`strval_exact`]).
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::NonUtf8String(b) | Value::Bytes(b) => kubepkg_value::go_lossy(b),
        other => gofmt::sprint_v(other),
    }
}

/// [`strval`] as the exact Go string (bytes that are not UTF-8 are kept).
pub fn strval_exact(v: &Value) -> Value {
    match v {
        Value::String(_) | Value::NonUtf8String(_) => v.clone(),
        Value::Bytes(b) => Value::from_go_bytes(b.to_vec()),
        other => Value::from(gofmt::sprint_v(other)),
    }
}

/// Go's conversion of a float64 to int64 as amd64 performs it: truncation toward zero, and the
/// "integer indefinite" value (minimum int64) for NaN and out-of-range inputs.
pub fn f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// spf13/cast's `trimZeroDecimal`: `"12.000"` → `"12"`, anything else unchanged.
fn trim_zero_decimal(s: &str) -> &str {
    let b = s.as_bytes();
    let mut found_zero = false;
    let mut i = b.len();
    while i > 0 {
        match b[i - 1] {
            b'.' => {
                if found_zero {
                    return &s[..i - 1];
                }
            }
            b'0' => found_zero = true,
            _ => return s,
        }
        i -= 1;
    }
    s
}

/// `strconv.ParseInt(s, 0, 64)`: optional sign, `0x`/`0o`/`0b`/leading-`0` prefixes and
/// underscores between digits after a prefix.
pub fn parse_go_int(s: &str) -> Option<i64> {
    kubepkg_gostd::strconv::parse_int(s, 0, 64).ok()
}

/// `strconv.ParseInt(s, 10, 64)`.
pub fn parse_go_int_base10(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `strconv.ParseFloat(s, 64)`; out-of-range results are errors as in Go.
pub fn parse_go_float(s: &str) -> Option<f64> {
    kubepkg_gostd::strconv::parse_float(s, 64).ok()
}

/// spf13/cast `ToInt64` (errors become 0).
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        Value::Uint(u) => *u as i64,
        Value::Uint8(u) => i64::from(*u),
        Value::Float(f) => f64_to_i64(*f),
        Value::String(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

/// spf13/cast `ToInt` (Go `int` is 64-bit on the platforms Helm ships for).
pub fn to_int(v: &Value) -> i64 {
    to_int64(v)
}

/// spf13/cast `ToFloat64` (errors become 0).
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::Uint8(u) => f64::from(*u),
        Value::Float(f) => *f,
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// Sprig's `empty`: the negation of Go's truth ([`Value::truthy`]; Sprig's rule is adapted
/// from text/template's `isTrue` and agrees with it on every kind a template can hold).
pub fn empty(v: &Value) -> bool {
    !v.truthy()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_to_int64_follows_spf13_cast() {
        assert_eq!(to_int64(&Value::str("12abc")), 0);
        assert_eq!(to_int64(&Value::str("12.00")), 12);
        assert_eq!(to_int64(&Value::str("12.5")), 0);
        assert_eq!(to_int64(&Value::str("0x1F")), 31);
        assert_eq!(to_int64(&Value::str("010")), 8);
        assert_eq!(to_int64(&Value::Float(3.99)), 3);
        assert_eq!(to_int64(&Value::Float(-3.99)), -3);
        assert_eq!(to_int64(&Value::Bool(true)), 1);
        assert_eq!(to_int64(&Value::str("1_000")), 1000);
        assert_eq!(to_int64(&Value::str("1__000")), 0);
        assert_eq!(to_int64(&Value::str("0x_1F")), 31);
    }

    #[test]
    fn parse_float_accepts_go_forms() {
        assert_eq!(parse_go_float("1e3"), Some(1000.0));
        assert_eq!(parse_go_float("abc"), None);
        assert_eq!(parse_go_float("1e400"), None);
        assert!(parse_go_float("-Inf").is_some_and(f64::is_infinite));
    }
}
