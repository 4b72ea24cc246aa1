//! `strconv.ParseInt`, `ParseUint` and `ParseFloat` (Go's `internal/strconv/atoi.go` and
//! `atof.go`) with Go's `*NumError` texts (`strconv.ParseInt: parsing "x": invalid syntax`).
//!
//! `ParseFloat` reads decimal text: an optional sign, digits with at most one `.`, an optional
//! exponent, underscores where Go allows them, and `inf`/`infinity`/`nan` in any case.
//! Hexadecimal floats (`0x1p-2`) are not read (no caller hands them over): they are a syntax
//! error here.

use std::fmt;

/// Why a number did not parse (Go's `ErrSyntax`, `ErrRange` and the base/bit-size errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NumErrorKind {
    /// `invalid syntax`
    Syntax,
    /// `value out of range`
    Range,
    /// `invalid base N`
    Base(u32),
    /// `invalid bit size N`
    BitSize(u32),
}

/// Go's `*strconv.NumError`: the function, the text and why it failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("strconv.{func}: parsing {}: {kind}", super::quote(.num))]
pub struct NumError {
    /// `ParseInt`, `ParseUint`, `ParseFloat` or `Atoi`.
    pub func: &'static str,
    /// The text that was parsed.
    pub num: String,
    pub kind: NumErrorKind,
}

impl fmt::Display for NumErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumErrorKind::Syntax => f.write_str("invalid syntax"),
            NumErrorKind::Range => f.write_str("value out of range"),
            NumErrorKind::Base(b) => write!(f, "invalid base {b}"),
            NumErrorKind::BitSize(b) => write!(f, "invalid bit size {b}"),
        }
    }
}

fn err(func: &'static str, s: &str, kind: NumErrorKind) -> NumError {
    NumError {
        func,
        num: s.to_string(),
        kind,
    }
}

/// Go's `underscoreOK`: underscores only between digits, or between a base prefix and a digit
/// (Go's number literals, as `strconv` with base 0 and text/template's lexer accept them).
pub fn underscore_ok(s: &[u8]) -> bool {
    let s = match s.first() {
        Some(b'+' | b'-') => &s[1..],
        _ => s,
    };
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// Go's `ParseUint(s, base, bit_size)` without the error's function name.
fn parse_uint_kind(s: &str, base: u32, bit_size: u32) -> Result<u64, (u64, NumErrorKind)> {
    if s.is_empty() {
        return Err((0, NumErrorKind::Syntax));
    }
    let base0 = base == 0;
    let s0 = s.as_bytes();
    let mut b = s0;
    let mut base = base;
    if base == 0 {
        base = 10;
        if b[0] == b'0' {
            match b.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if b.len() >= 3 => (base, b) = (2, &b[2..]),
                Some(b'o') if b.len() >= 3 => (base, b) = (8, &b[2..]),
                Some(b'x') if b.len() >= 3 => (base, b) = (16, &b[2..]),
                _ => (base, b) = (8, &b[1..]),
            }
        }
    } else if !(2..=36).contains(&base) {
        return Err((0, NumErrorKind::Base(base)));
    }
    let bit_size = if bit_size == 0 { 64 } else { bit_size };
    if bit_size > 64 {
        return Err((0, NumErrorKind::BitSize(bit_size)));
    }
    let cutoff = u64::MAX / u64::from(base) + 1;
    let max_val = if bit_size == 64 {
        u64::MAX
    } else {
        (1u64 << bit_size) - 1
    };
    let mut underscores = false;
    let mut n: u64 = 0;
    for &c in b {
        let d = match c {
            b'_' if base0 => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => c - b'0',
            _ if c.is_ascii_alphabetic() => c.to_ascii_lowercase() - b'a' + 10,
            _ => return Err((0, NumErrorKind::Syntax)),
        };
        if u32::from(d) >= base {
            return Err((0, NumErrorKind::Syntax));
        }
        if n >= cutoff {
            return Err((max_val, NumErrorKind::Range));
        }
        n *= u64::from(base);
        match n.checked_add(u64::from(d)) {
            Some(n1) if n1 <= max_val => n = n1,
            _ => return Err((max_val, NumErrorKind::Range)),
        }
    }
    if underscores && !underscore_ok(s0) {
        return Err((0, NumErrorKind::Syntax));
    }
    Ok(n)
}

/// Go's `strconv.ParseUint(s, base, bit_size)`: base 0 reads Go's prefixes (`0x`, `0o`, `0b`,
/// a leading `0` for octal) and underscores; `bit_size` 0 is 64.
pub fn parse_uint(s: &str, base: u32, bit_size: u32) -> Result<u64, NumError> {
    parse_uint_kind(s, base, bit_size).map_err(|(_, k)| err("ParseUint", s, k))
}

/// Go's `strconv.ParseInt(s, base, bit_size)`: an optional sign, then as [`parse_uint`].
pub fn parse_int(s: &str, base: u32, bit_size: u32) -> Result<i64, NumError> {
    let fail = |k| err("ParseInt", s, k);
    if s.is_empty() {
        return Err(fail(NumErrorKind::Syntax));
    }
    let (neg, body) = match s.as_bytes()[0] {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let un = match parse_uint_kind(body, base, bit_size) {
        Ok(u) => u,
        Err((u, NumErrorKind::Range)) => u,
        Err((_, k)) => return Err(fail(k)),
    };
    let bit_size = if bit_size == 0 { 64 } else { bit_size };
    let cutoff = 1u64 << (bit_size - 1);
    if (!neg && un >= cutoff) || (neg && un > cutoff) {
        return Err(fail(NumErrorKind::Range));
    }
    Ok(if neg {
        (un as i64).wrapping_neg()
    } else {
        un as i64
    })
}

/// Go's `strconv.Atoi`: `ParseInt(s, 10, 0)` with Go's `Atoi` error name.
pub fn atoi(s: &str) -> Result<i64, NumError> {
    parse_int(s, 10, 64).map_err(|e| NumError { func: "Atoi", ..e })
}

/// Go's `special`: `[+-]inf`, `[+-]infinity`, `nan` (any case), the whole text.
fn special(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// Whether `s` is decimal float text as Go's `readFloat` accepts it (underscores included).
fn decimal_syntax(s: &[u8]) -> bool {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let mut underscores = false;
    let mut saw_dot = false;
    let mut saw_digits = false;
    while i < s.len() {
        match s[i] {
            b'_' => underscores = true,
            b'.' if !saw_dot => saw_dot = true,
            b'0'..=b'9' => saw_digits = true,
            _ => break,
        }
        i += 1;
    }
    if !saw_digits {
        return false;
    }
    if i < s.len() && s[i].eq_ignore_ascii_case(&b'e') {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !s.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'_') {
            underscores |= s[i] == b'_';
            i += 1;
        }
    }
    i == s.len() && (!underscores || underscore_ok(s))
}

/// Go's `strconv.ParseFloat(s, bit_size)` for decimal text (see the module docs). A value too
/// large for the size is a range error, as in Go; [`parse_float_saturating`] returns the
/// infinity Go returns alongside it.
pub fn parse_float(s: &str, bit_size: u32) -> Result<f64, NumError> {
    match parse_float_saturating(s, bit_size) {
        Ok(f) if f.is_infinite() && special(s).is_none() => {
            Err(err("ParseFloat", s, NumErrorKind::Range))
        }
        r => r,
    }
}

/// [`parse_float`], but a value out of range comes back as ±infinity (what Go's `ParseFloat`
/// returns with its range error), for callers that word that error themselves.
pub fn parse_float_saturating(s: &str, bit_size: u32) -> Result<f64, NumError> {
    if let Some(f) = special(s) {
        return Ok(f);
    }
    if !decimal_syntax(s.as_bytes()) {
        return Err(err("ParseFloat", s, NumErrorKind::Syntax));
    }
    let clean;
    let text = if s.contains('_') {
        clean = s.replace('_', "");
        clean.as_str()
    } else {
        s
    };
    let parsed = if bit_size == 32 {
        text.parse::<f32>().map(f64::from).ok()
    } else {
        text.parse::<f64>().ok()
    };
    parsed.ok_or_else(|| err("ParseFloat", s, NumErrorKind::Syntax))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base0_integers() {
        assert_eq!(parse_int("0x1F", 0, 64), Ok(31));
        assert_eq!(parse_int("017", 0, 64), Ok(15));
        assert_eq!(parse_int("-0b101", 0, 64), Ok(-5));
        assert_eq!(parse_int("1_000", 0, 64), Ok(1000));
        assert_eq!(parse_int("-9223372036854775808", 0, 64), Ok(i64::MIN));
        assert_eq!(parse_uint("18446744073709551615", 0, 64), Ok(u64::MAX));
        assert_eq!(
            parse_int("08", 0, 64).unwrap_err().to_string(),
            "strconv.ParseInt: parsing \"08\": invalid syntax"
        );
        assert_eq!(
            parse_int("9223372036854775808", 10, 64)
                .unwrap_err()
                .to_string(),
            "strconv.ParseInt: parsing \"9223372036854775808\": value out of range"
        );
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float(".5", 64), Ok(0.5));
        assert_eq!(parse_float("1_0.5", 64), Ok(10.5));
        assert_eq!(parse_float("-Inf", 64), Ok(f64::NEG_INFINITY));
        assert_eq!(
            parse_float("1e400", 64).unwrap_err().kind,
            NumErrorKind::Range
        );
        assert_eq!(parse_float_saturating("1e400", 64), Ok(f64::INFINITY));
        assert!(parse_float("+nan", 64).is_err());
        assert!(parse_float("1e", 64).is_err());
    }
}
