//! Go's number text: `strconv.FormatFloat` (`'e'`, `'f'`, `'g'` with shortest precision, 32 and
//! 64 bits), `encoding/json`'s float format, and `strconv.ParseInt`/`ParseUint`/`ParseFloat`
//! with base prefixes as go-yaml v2 calls them. Both Go and Rust print the shortest decimal that
//! round-trips, so only the layout differs and is rebuilt here.

/// Shortest round-trip digits and decimal point position of a finite, non-zero `f`
/// (`0.d1d2… × 10^dp`), computed at 64-bit or 32-bit precision.
fn shortest_digits(f: f64, bits32: bool) -> (String, i32) {
    let s = if bits32 {
        format!("{:e}", (f as f32).abs())
    } else {
        format!("{:e}", f.abs())
    };
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let dp = exp + 1;
    if bits32 {
        return (digits, dp);
    }
    (break_tie_to_even(f.abs(), digits, dp), dp)
}

fn pow10(k: u32) -> Option<u128> {
    10u128.checked_pow(k)
}

/// When two shortest decimals are exactly equally close to `f`, Go picks the one with an even
/// last digit; Rust's formatter may pick the other. Detect the exact tie with integer
/// arithmetic (where it fits in 128 bits) and return Go's choice.
fn break_tie_to_even(f: f64, digits: String, dp: i32) -> String {
    let last = digits.as_bytes()[digits.len() - 1] - b'0';
    let Ok(d) = digits.parse::<u128>() else {
        return digits;
    };
    // f = n / 10^s exactly
    let bits = f.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    let (n, s): (u128, u32) = if e >= 0 {
        match (m as u128).checked_shl(e as u32) {
            Some(v) if e < 74 => (v, 0),
            _ => return digits,
        }
    } else {
        match 5u128
            .checked_pow((-e) as u32)
            .and_then(|p| p.checked_mul(m as u128))
        {
            Some(v) => (v, (-e) as u32),
            None => return digits,
        }
    };
    // candidate value = c / 10^t with t = len - dp; tie when 2n * 10^t == (2d ± 1) * 10^s
    let t = digits.len() as i32 - dp;
    let other = if last % 2 == 1 { d - 1 } else { d + 1 };
    let mid2 = d + other; // 2 * midpoint, in units of 10^-t
    let (lhs, rhs) = if t >= 0 {
        (
            n.checked_mul(2)
                .and_then(|x| pow10(t as u32).and_then(|p| x.checked_mul(p))),
            pow10(s).and_then(|p| mid2.checked_mul(p)),
        )
    } else {
        (
            n.checked_mul(2),
            pow10(s + (-t) as u32).and_then(|p| mid2.checked_mul(p)),
        )
    };
    match (lhs, rhs) {
        (Some(l), Some(r)) if l == r && last % 2 == 1 => {
            let cand = format!("{:0width$}", other, width = digits.len());
            // both candidates must read back as f
            let text = format!("0.{cand}e{dp}");
            if text.parse::<f64>().ok() == Some(f) {
                cand
            } else {
                digits
            }
        }
        _ => digits,
    }
}

fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f == f64::INFINITY {
        Some("+Inf".into())
    } else if f == f64::NEG_INFINITY {
        Some("-Inf".into())
    } else {
        None
    }
}

fn fmt_e(neg: bool, digits: &str, dp: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let exp = if digits == "0" { 0 } else { dp - 1 };
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let a = exp.unsigned_abs();
    if a < 10 {
        out.push('0');
    }
    out.push_str(&a.to_string());
    out
}

fn fmt_f(neg: bool, digits: &str, dp: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let nd = digits.len() as i32;
    if dp <= 0 {
        out.push('0');
    } else {
        for i in 0..dp {
            out.push(if i < nd {
                digits.as_bytes()[i as usize] as char
            } else {
                '0'
            });
        }
    }
    let frac = (nd - dp).max(0);
    if frac > 0 {
        out.push('.');
        for i in 0..frac {
            let idx = dp + i;
            out.push(if idx < 0 || idx >= nd {
                '0'
            } else {
                digits.as_bytes()[idx as usize] as char
            });
        }
    }
    out
}

/// `strconv.FormatFloat(f, fmt, -1, bits)` for `fmt` in `'e'`, `'f'`, `'g'`.
pub fn format_float(f: f64, fmt: char, bits32: bool) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let neg = f.is_sign_negative();
    let (digits, dp) = if f == 0.0 {
        ("0".to_string(), 1)
    } else {
        shortest_digits(f, bits32)
    };
    match fmt {
        'e' => fmt_e(neg, &digits, dp),
        'f' => fmt_f(neg, &digits, dp),
        _ => {
            let exp = if f == 0.0 { 0 } else { dp - 1 };
            // With shortest precision Go decides by a fixed precision of 6.
            if !(-4..6).contains(&exp) {
                fmt_e(neg, &digits, dp)
            } else {
                fmt_f(neg, &digits, dp)
            }
        }
    }
}

/// Go `encoding/json`'s text for a float64: `'f'` format, or `'e'` below 1e-6 and from 1e21
/// on, with a one-digit negative exponent (`1e-7`, `1e+21`). `None` for NaN and infinities
/// (`json: unsupported value`).
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let mut s = format_float(f, 'e', false);
        let n = s.len();
        let b = s.as_bytes();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            s.remove(n - 2);
        }
        Some(s)
    } else {
        Some(format_float(f, 'f', false))
    }
}

/// Digits of `s` in `radix`, as Go's `ParseUint` core: non-empty, every char a valid digit.
fn parse_digits(s: &str, radix: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for c in s.chars() {
        let d = c.to_digit(radix)?;
        v = v.checked_mul(radix as u64)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// `strconv.ParseUint(s, 0, 64)` (base from prefix: `0x`, `0o`, `0b`, leading `0` = octal).
/// Underscores are not accepted here (go-yaml strips them before calling).
pub fn parse_uint_base0(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    if b[0] == b'0' && b.len() > 1 {
        match b[1] {
            b'x' | b'X' => parse_digits(&s[2..], 16),
            b'o' | b'O' => parse_digits(&s[2..], 8),
            b'b' | b'B' => parse_digits(&s[2..], 2),
            _ => parse_digits(&s[1..], 8),
        }
    } else {
        parse_digits(s, 10)
    }
}

/// `strconv.ParseInt(s, 0, 64)`.
pub fn parse_int_base0(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = parse_uint_base0(rest)?;
    if neg {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else if u <= i64::MAX as u64 {
        Some(u as i64)
    } else {
        None
    }
}

/// `strconv.ParseFloat(s, 64)` for the decimal forms go-yaml hands it (`[-+]?(digits[.digits]|.digits)([eE][-+]?digits)?`,
/// plus Go's `inf`/`infinity`/`nan` words). Out-of-range values are errors, as in Go.
pub fn parse_float(s: &str) -> Option<f64> {
    let v = parse_float_saturating(s)?;
    let word = s.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if v.is_infinite() && word != "inf" && word != "infinity" {
        None
    } else {
        Some(v)
    }
}

/// The same syntax as [`parse_float`], but an out-of-range value comes back as ±infinity (the
/// value Go's `ParseFloat` returns alongside its range error), for callers that word that error
/// themselves.
pub fn parse_float_saturating(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" || lower == "nan" {
        return s.to_ascii_lowercase().parse::<f64>().ok();
    }
    let b = body.as_bytes();
    let mut i = 0;
    let mut mant_digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        mant_digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            mant_digits += 1;
        }
    }
    if mant_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_switches_to_exponent_at_1e6() {
        assert_eq!(format_float(1e6, 'g', false), "1e+06");
        assert_eq!(format_float(123456.0, 'g', false), "123456");
        assert_eq!(format_float(1234567.0, 'g', false), "1.234567e+06");
        assert_eq!(format_float(0.0001, 'g', false), "0.0001");
        assert_eq!(format_float(0.00001, 'g', false), "1e-05");
        assert_eq!(format_float(-0.0, 'g', false), "-0");
        assert_eq!(format_float(0.1, 'g', true), "0.1");
    }

    #[test]
    fn json_float_thresholds() {
        assert_eq!(json_float(1e21).unwrap(), "1e+21");
        assert_eq!(json_float(1e20).unwrap(), "100000000000000000000");
        assert_eq!(json_float(1e-7).unwrap(), "1e-7");
        assert_eq!(json_float(0.000001).unwrap(), "0.000001");
        assert_eq!(json_float(-0.0).unwrap(), "-0");
        assert_eq!(json_float(1.5e300).unwrap(), "1.5e+300");
        // an exact tie between two 17-digit decimals: Go keeps the even one
        let f: f64 = "1.2993909193068512e+15".parse().unwrap();
        assert_eq!(json_float(f).unwrap(), "1299390919306851.2");
    }

    #[test]
    fn base0_integers() {
        assert_eq!(parse_int_base0("0x1F"), Some(31));
        assert_eq!(parse_int_base0("017"), Some(15));
        assert_eq!(parse_int_base0("0o17"), Some(15));
        assert_eq!(parse_int_base0("-0b101"), Some(-5));
        assert_eq!(parse_int_base0("08"), None);
        assert_eq!(parse_int_base0("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_uint_base0("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float(".5"), Some(0.5));
    }
}
