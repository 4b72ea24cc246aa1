//! Go's `fmt` printing of [`Value`]s as Sprig relies on it: `%v` (through `fmt.Sprint`,
//! `fmt.Sprintf("%v")` and Sprig's `strval`), `%q` (`strconv.Quote`) and the shortest `%g`
//! float format Go uses for `float64` (`1e+06`, `0.0001`, `1.5e-07`).

use kubepkg_value::{ElemType, Value, map_read};

/// `fmt.Sprintf("%v", v)`.
pub fn sprint_v(v: &Value) -> String {
    let mut out = String::new();
    write_v(&mut out, v);
    out
}

fn write_v(out: &mut String, v: &Value) {
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) | Value::Int64(i) => out.push_str(&i.to_string()),
        Value::Uint(u) => out.push_str(&u.to_string()),
        Value::Uint8(u) => out.push_str(&u.to_string()),
        Value::Float(f) => out.push_str(&format_float_g(*f)),
        Value::String(s) => out.push_str(s),
        Value::NonUtf8String(b) => out.push_str(&kubepkg_value::go_lossy(b)),
        Value::Bytes(b) => {
            out.push('[');
            for (i, x) in b.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&x.to_string());
            }
            out.push(']');
        }
        Value::List(items, _) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, x);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, x)) in map_read(m).iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_v(out, x);
            }
            out.push(']');
        }
        Value::Time(t) => out.push_str(&crate::dates::time_string(t)),
        Value::Object(o) => out.push_str(&o.format_v()),
    }
}

/// `fmt.Sprint(a, b, …)`: operands are separated by a space when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, Value::String(_)) && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        write_v(&mut out, a);
    }
    out
}

/// Splits the shortest round-trip decimal form of a finite, non-zero `f` into its digits and
/// the decimal exponent of the first digit (`1234.5` → `("12345", 3)`).
fn shortest_digits(f: f64) -> (String, i32) {
    let e = format!("{:e}", f.abs());
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp.parse().unwrap_or(0))
}

fn special_float(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        })
    } else if f == 0.0 {
        Some(if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        })
    } else {
        None
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is also `%v` for a `float64`.
pub fn format_float_g(f: f64) -> String {
    format_float_shortest(f, 6)
}

/// Go's shortest float formatting switching to exponent form when the exponent is below -4 or
/// at least `eprec` (6 for `%g`/`%v`, 21 for encoding/json's threshold is handled elsewhere).
pub fn format_float_shortest(f: f64, eprec: i32) -> String {
    if let Some(s) = special_float(f) {
        return s;
    }
    let (digits, exp) = shortest_digits(f);
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if exp < -4 || exp >= eprec {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push('0');
        }
        out.push_str(&a.to_string());
    } else {
        out.push_str(&fixed_from_digits(&digits, exp));
    }
    out
}

/// Places the decimal point in `digits` whose first digit has decimal exponent `exp`.
fn fixed_from_digits(digits: &str, exp: i32) -> String {
    let dp = exp + 1;
    let nd = digits.len() as i32;
    if dp <= 0 {
        format!("0.{}{}", "0".repeat((-dp) as usize), digits)
    } else if dp >= nd {
        format!("{}{}", digits, "0".repeat((dp - nd) as usize))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: shortest digits, never an exponent.
pub fn format_float_f(f: f64) -> String {
    if let Some(s) = special_float(f) {
        return s;
    }
    let (digits, exp) = shortest_digits(f);
    let s = fixed_from_digits(&digits, exp);
    if f < 0.0 { format!("-{s}") } else { s }
}

/// Whether Go's `strconv.IsPrint` holds (approximated with Rust's Unicode tables).
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c,
        '\u{00AD}' | '\u{0600}'..='\u{0605}' | '\u{061C}' | '\u{06DD}' | '\u{070F}'
        | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E000}'..='\u{F8FF}' | '\u{FFFE}' | '\u{FFFF}' | '\u{F0000}'..='\u{10FFFF}')
}

/// `strconv.Quote(s)` (also `fmt.Sprintf("%q", s)`).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go's `%#v` of a scalar, as spf13/cast error messages print it.
pub fn go_syntax(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Nil => "<nil>".into(),
        Value::List(items, ElemType::String) => format!(
            "[]string{{{}}}",
            items.iter().map(go_syntax).collect::<Vec<_>>().join(", ")
        ),
        other => sprint_v(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go_percent_v() {
        assert_eq!(format_float_g(1_000_000.0), "1e+06");
        assert_eq!(format_float_g(123456.0), "123456");
        assert_eq!(format_float_g(0.0001), "0.0001");
        assert_eq!(format_float_g(0.00001), "1e-05");
        assert_eq!(format_float_g(1.5), "1.5");
        assert_eq!(format_float_g(-2.25e21), "-2.25e+21");
        assert_eq!(format_float_f(1e21), "1000000000000000000000");
    }

    #[test]
    fn quote_matches_strconv() {
        assert_eq!(quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(quote("\u{1}é"), "\"\\x01é\"");
    }
}
