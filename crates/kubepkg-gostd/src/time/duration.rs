//! Go's `time.Duration` (`time/time.go` `Duration.String`, `Duration.Round`; `time/format.go`
//! `ParseDuration`): a signed count of nanoseconds, printed `1h2m3.5s`, `1.5µs`, `0s`, and read
//! from the same units (`ns us µs μs ms s m h`, fractions and signs allowed) with Go's error
//! texts.

use std::fmt;
use std::str::FromStr;

/// Go's `time.Duration`: nanoseconds, negative allowed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub i64);

/// Why [`parse_duration`] refused a text; its `Display` is Go's error text
/// (`time: invalid duration "x"`, `time: missing unit in duration "1"`,
/// `time: unknown unit "x" in duration "1x"`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurationError {
    #[error("time: invalid duration {}", super::quote(.0))]
    Invalid(String),
    #[error("time: missing unit in duration {}", super::quote(.0))]
    MissingUnit(String),
    #[error("time: unknown unit {} in duration {}", super::quote(.unit), super::quote(.text))]
    UnknownUnit { unit: String, text: String },
}

pub const NANOSECOND: i64 = 1;
pub const MICROSECOND: i64 = 1_000;
pub const MILLISECOND: i64 = 1_000_000;
pub const SECOND: i64 = 1_000_000_000;
pub const MINUTE: i64 = 60 * SECOND;
pub const HOUR: i64 = 60 * MINUTE;

impl Duration {
    /// The nanoseconds.
    pub fn nanos(self) -> i64 {
        self.0
    }

    /// As a `std::time::Duration`; a negative duration is zero (a Go timer or context given a
    /// negative timeout expires at once).
    pub fn to_std(self) -> std::time::Duration {
        std::time::Duration::from_nanos(u64::try_from(self.0).unwrap_or(0))
    }

    /// Go's `Duration.Round(m)`: rounded to a multiple of `m`, halves away from zero, saturating
    /// at the extremes; `m` ≤ 0 leaves it as it is.
    pub fn round(self, m: Duration) -> Duration {
        Duration(round(self.0, m.0))
    }
}

impl fmt::Display for Duration {
    /// Go's `Duration.String`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&duration_string(self.0))
    }
}

impl FromStr for Duration {
    type Err = DurationError;
    /// Go's `time.ParseDuration`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_duration(s)
    }
}

fn round(d: i64, m: i64) -> i64 {
    if m <= 0 {
        return d;
    }
    let mut r = d % m;
    if d < 0 {
        r = -r;
        if r + r < m {
            return d + r;
        }
        if let Some(d1) = d.checked_sub(m).map(|x| x + r)
            && d1 < d
        {
            return d1;
        }
        return i64::MIN;
    }
    if r + r < m {
        return d - r;
    }
    if let Some(d1) = d.checked_add(m).map(|x| x - r)
        && d1 > d
    {
        return d1;
    }
    i64::MAX
}

/// Go's `Duration.String` of `d` nanoseconds: `1h2m3.5s`, `1.5µs`, `0s`.
pub fn duration_string(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let u = d.unsigned_abs();
    let mut out = String::new();
    if d < 0 {
        out.push('-');
    }
    if u < SECOND as u64 {
        let (unit, div) = if u < MICROSECOND as u64 {
            ("ns", 1)
        } else if u < MILLISECOND as u64 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        push_frac(&mut out, u, div);
        out.push_str(unit);
    } else {
        let secs = u / SECOND as u64;
        let h = secs / 3600;
        let m = (secs / 60) % 60;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        push_frac(&mut out, u % MINUTE as u64, SECOND as u64);
        out.push('s');
    }
    out
}

/// `v / div` with the remainder as a decimal fraction without trailing zeros.
fn push_frac(out: &mut String, v: u64, div: u64) {
    out.push_str(&(v / div).to_string());
    let rest = v % div;
    if rest != 0 {
        let width = div.to_string().len() - 1;
        let f = format!("{rest:0width$}");
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
}

/// Go's `leadingInt`: the leading decimal digits, `None` past 2^63.
fn leading_int(s: &[u8]) -> Option<(u64, usize)> {
    let mut x: u64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if x > (1 << 63) / 10 {
            return None;
        }
        x = x * 10 + u64::from(s[i] - b'0');
        if x > 1 << 63 {
            return None;
        }
        i += 1;
    }
    Some((x, i))
}

/// Go's `leadingFraction`: digits after the point (those past 2^63 are read but dropped) and
/// the power of ten they are scaled by.
fn leading_fraction(s: &[u8]) -> (u64, f64, usize) {
    let mut x: u64 = 0;
    let mut scale = 1.0;
    let mut overflow = false;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        let c = s[i];
        i += 1;
        if overflow {
            continue;
        }
        if x > (i64::MAX as u64) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(c - b'0');
        if y > 1 << 63 {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, i)
}

/// Go's `time.ParseDuration`: a possibly signed sequence of decimal numbers, each with an
/// optional fraction and a unit (`300ms`, `-1.5h`, `2h45m`), with Go's error texts. The CLI's
/// `--timeout` values are read with it; [`Duration::to_std`] gives a `std::time::Duration`.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let invalid = || DurationError::Invalid(text.to_string());
    let mut s = text.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(Duration(0));
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut d: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        let (mut v, n) = leading_int(s).ok_or_else(invalid)?;
        let pre = n > 0;
        s = &s[n..];
        let (mut f, mut scale, mut post) = (0, 1.0, false);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let n;
            (f, scale, n) = leading_fraction(s);
            post = n > 0;
            s = &s[n..];
        }
        if !pre && !post {
            return Err(invalid());
        }
        let i = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if i == 0 {
            return Err(DurationError::MissingUnit(text.to_string()));
        }
        let u = &s[..i];
        s = &s[i..];
        let unit: u64 = match u {
            b"ns" => 1,
            // `us`, `µs` (U+00B5) and `μs` (U+03BC)
            b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => {
                return Err(DurationError::UnknownUnit {
                    unit: String::from_utf8_lossy(u).into_owned(),
                    text: text.to_string(),
                });
            }
        };
        if v > (1 << 63) / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > 1 << 63 {
                return Err(invalid());
            }
        }
        d += v;
        if d > 1 << 63 {
            return Err(invalid());
        }
    }
    if neg {
        return Ok(Duration((d as i64).wrapping_neg()));
    }
    if d > i64::MAX as u64 {
        return Err(invalid());
    }
    Ok(Duration(d as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_and_parse_like_go() {
        assert_eq!(duration_string(3_723_000_000_000), "1h2m3s");
        assert_eq!(duration_string(1_500), "1.5µs");
        assert_eq!(parse_duration("1.5h").unwrap().nanos(), 5_400_000_000_000);
        assert_eq!(parse_duration("-1m30s").unwrap().nanos(), -90_000_000_000);
        assert_eq!(
            parse_duration("5x").unwrap_err().to_string(),
            "time: unknown unit \"x\" in duration \"5x\""
        );
        assert_eq!(
            parse_duration("").unwrap_err().to_string(),
            "time: invalid duration \"\""
        );
        assert_eq!(
            "90s".parse::<Duration>().unwrap().to_std(),
            std::time::Duration::from_secs(90)
        );
        assert_eq!(Duration(-5).to_std(), std::time::Duration::ZERO);
    }
}
