//! go-yaml v2's scalar resolution (YAML 1.1 as Go implements it): which plain scalars are
//! booleans (`y`, `yes`, `on`, `true` and their capitalised forms), nulls (`~`, `null`, empty),
//! integers (Go base prefixes `0x`, `0o`, `0b`, leading `0` for octal, `_` separators), floats
//! (`1e3`, `.5`, `.inf`, `.nan`), timestamps (kept as strings when decoding into `interface{}`)
//! and the merge key `<<`. The same rules decide, when writing, whether a string must be quoted.

use kubepkg_gostd::strconv::{parse_float, parse_int, parse_uint};

/// A decoded scalar with the Go type go-yaml gives it inside an `interface{}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// `nil`
    Null,
    /// `bool`
    Bool(bool),
    /// `int` (go-yaml uses `int` whenever the value fits, which on 64-bit is every `int64`).
    Int(i64),
    /// `uint64`, for integers above `math.MaxInt64`.
    Uint(u64),
    /// `float64`
    Float(f64),
    /// `string`
    Str(String),
}

/// The resolved tag in go-yaml's short form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Timestamp,
    Merge,
}

impl Kind {
    /// go-yaml's short tag name, as its error messages print it.
    pub fn short(self) -> &'static str {
        match self {
            Kind::Null => "!!null",
            Kind::Bool => "!!bool",
            Kind::Int => "!!int",
            Kind::Float => "!!float",
            Kind::Str => "!!str",
            Kind::Timestamp => "!!timestamp",
            Kind::Merge => "!!merge",
        }
    }

    fn from_short(tag: &str) -> Option<Kind> {
        Some(match tag {
            "!!null" => Kind::Null,
            "!!bool" => Kind::Bool,
            "!!int" => Kind::Int,
            "!!float" => Kind::Float,
            "!!str" => Kind::Str,
            "!!timestamp" => Kind::Timestamp,
            _ => return None,
        })
    }
}

fn lookup(s: &str) -> Option<(Kind, Scalar)> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            (Kind::Bool, Scalar::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            (Kind::Bool, Scalar::Bool(false))
        }
        "" | "~" | "null" | "Null" | "NULL" => (Kind::Null, Scalar::Null),
        ".nan" | ".NaN" | ".NAN" => (Kind::Float, Scalar::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            (Kind::Float, Scalar::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => (Kind::Float, Scalar::Float(f64::NEG_INFINITY)),
        "<<" => (Kind::Merge, Scalar::Str("<<".into())),
        _ => return None,
    })
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let b = s.strip_prefix(['+', '-']).unwrap_or(s).as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'.') {
        i = 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st {
            return false;
        }
    } else {
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st {
            return false;
        }
    }
    i == b.len()
}

fn int_scalar(v: i64) -> (Kind, Scalar) {
    (Kind::Int, Scalar::Int(v))
}

/// Resolve an untagged plain scalar (go-yaml `resolve("", s)`).
pub fn resolve_plain(s: &str) -> (Kind, Scalar) {
    resolve_inner(s, true)
}

fn resolve_inner(s: &str, try_timestamp: bool) -> (Kind, Scalar) {
    let hint = match s.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        _ => 0,
    };
    if hint == 0 {
        return (Kind::Str, Scalar::Str(s.to_string()));
    }
    if let Some(r) = lookup(s) {
        return r;
    }
    match hint {
        b'.' => {
            if let Ok(f) = parse_float(s, 64) {
                return (Kind::Float, Scalar::Float(f));
            }
        }
        b'D' | b'S' => {
            if try_timestamp && crate::resolve::is_timestamp(s) {
                return (Kind::Timestamp, Scalar::Str(s.to_string()));
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Ok(i) = parse_int(&plain, 0, 64) {
                return int_scalar(i);
            }
            if let Ok(u) = parse_uint(&plain, 0, 64) {
                return (Kind::Int, Scalar::Uint(u));
            }
            if yaml_style_float(&plain)
                && let Ok(f) = parse_float(&plain, 64)
            {
                return (Kind::Float, Scalar::Float(f));
            }
        }
        _ => {}
    }
    (Kind::Str, Scalar::Str(s.to_string()))
}

/// Resolve a scalar carrying an explicit tag (`!!int "12"`). `Ok(None)` means the tag is not
/// one go-yaml resolves (custom tags, `!!binary`): the value stays the raw string. Errors are
/// go-yaml's `cannot decode !!str `x` as a !!int`.
pub fn resolve_tagged(tag: &str, s: &str) -> Result<Option<(Kind, Scalar)>, String> {
    let Some(want) = Kind::from_short(tag) else {
        return Ok(None);
    };
    let (kind, val) = if want == Kind::Str {
        (Kind::Str, Scalar::Str(s.to_string()))
    } else {
        resolve_inner(s, want == Kind::Timestamp)
    };
    if kind == want || want == Kind::Str {
        return Ok(Some((kind, val)));
    }
    if want == Kind::Float
        && let Scalar::Int(i) = val
    {
        return Ok(Some((Kind::Float, Scalar::Float(i as f64))));
    }
    Err(format!(
        "cannot decode {} `{}` as a {}",
        kind.short(),
        s,
        want.short()
    ))
}

/// Whether a string would come back as something other than a string if written plain — the
/// writer then double-quotes it. Includes go-yaml's extra rule for base-60 floats (`1:20`).
pub fn needs_quotes(s: &str) -> bool {
    resolve_plain(s).0 != Kind::Str || is_base60_float(s)
}

/// go-yaml's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        // [0-5]?[0-9]
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() && i - st < 2 {
            i += 1;
        }
        let n = i - st;
        if n == 0 {
            return false;
        }
        if n == 2 && b[st] > b'5' {
            // [0-5]?[0-9] cannot take "6x"; backtrack to one digit
            i = st + 1;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

fn getnum(b: &[u8], i: &mut usize) -> Option<u32> {
    let d0 = *b.get(*i)?;
    if !d0.is_ascii_digit() {
        return None;
    }
    *i += 1;
    let mut v = (d0 - b'0') as u32;
    if let Some(&d1) = b.get(*i)
        && d1.is_ascii_digit()
    {
        *i += 1;
        v = v * 10 + (d1 - b'0') as u32;
    }
    Some(v)
}

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 => {
            if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// go-yaml's `parseTimestamp`: Go's `time.Parse` with the layouts `2006-1-2T15:4:5.999999999Z07:00`
/// (also with a lower-case `t`), `2006-1-2 15:4:5.999999999` and `2006-1-2`.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: i64 = s[..4].parse().unwrap_or(0);
    let mut i = 5;
    let Some(month) = getnum(b, &mut i) else {
        return false;
    };
    if !(1..=12).contains(&month) || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    let Some(day) = getnum(b, &mut i) else {
        return false;
    };
    if day < 1 || day > days_in(month, year) {
        return false;
    }
    if i == b.len() {
        return true;
    }
    let zoned = match b[i] {
        b'T' | b't' => true,
        b' ' => false,
        _ => return false,
    };
    i += 1;
    let Some(h) = getnum(b, &mut i) else {
        return false;
    };
    if h >= 24 || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    let Some(m) = getnum(b, &mut i) else {
        return false;
    };
    if m >= 60 || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    let Some(sec) = getnum(b, &mut i) else {
        return false;
    };
    if sec >= 60 {
        return false;
    }
    if i + 1 < b.len() && (b[i] == b'.' || b[i] == b',') && b[i + 1].is_ascii_digit() {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if !zoned {
        return i == b.len();
    }
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let rest = &b[i..];
            rest.len() == 6
                && rest[1].is_ascii_digit()
                && rest[2].is_ascii_digit()
                && rest[3] == b':'
                && rest[4].is_ascii_digit()
                && rest[5].is_ascii_digit()
                && (rest[1] - b'0') * 10 + (rest[2] - b'0') <= 24
                && (rest[4] - b'0') * 10 + (rest[5] - b'0') <= 60
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml11_words() {
        assert_eq!(resolve_plain("yes").1, Scalar::Bool(true));
        assert_eq!(resolve_plain("Off").1, Scalar::Bool(false));
        assert_eq!(resolve_plain("~").1, Scalar::Null);
        assert_eq!(resolve_plain("0x1F").1, Scalar::Int(31));
        assert_eq!(resolve_plain("1e3").1, Scalar::Float(1000.0));
        assert_eq!(resolve_plain("1_000").1, Scalar::Int(1000));
        assert_eq!(resolve_plain("2001-12-14").0, Kind::Timestamp);
        assert_eq!(resolve_plain("2001-02-30").0, Kind::Str);
        assert!(is_base60_float("1:20"));
        assert!(!is_base60_float("1:60"));
    }
}
