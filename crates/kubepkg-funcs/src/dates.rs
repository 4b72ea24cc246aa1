//! Sprig's date functions over Go `time.Time`: Go's reference-time layouts (`2006-01-02`,
//! `Jan _2 15:04:05.000 MST`) for formatting and parsing, time zones from the IANA database,
//! Go's `time.Duration` printing (`1h2m3s`) and parsing (`"1.5h"`), `ago`, `durationRound`,
//! `dateModify`, `toDate` and `unixEpoch`.
//!
//! Go's `Local` zone is the `TZ` environment variable's zone, else the zone `/etc/localtime`
//! links to, else UTC.

use std::str::FromStr;
use std::sync::Arc;

use chrono::{Datelike, NaiveDate, NaiveDateTime, Offset, TimeZone, Timelike};
use chrono_tz::{OffsetName, Tz};
use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{GoTime, Value};

use crate::args::{arg, s};
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("now", [], |_| Ok(Value::Time(Arc::new(now())))),
        f!("date", [String, Any], |a| Ok(date_in_zone(
            s(a, 0),
            arg(a, 1),
            "Local"
        )
        .into())),
        f!("dateInZone", [String, Any, String], |a| Ok(date_in_zone(
            s(a, 0),
            arg(a, 1),
            s(a, 2)
        )
        .into())),
        f!("date_in_zone", [String, Any, String], |a| Ok(date_in_zone(
            s(a, 0),
            arg(a, 1),
            s(a, 2)
        )
        .into())),
        f!("htmlDate", [Any], |a| Ok(date_in_zone(
            "2006-01-02",
            arg(a, 0),
            "Local"
        )
        .into())),
        f!("htmlDateInZone", [Any, String], |a| Ok(date_in_zone(
            "2006-01-02",
            arg(a, 0),
            s(a, 1)
        )
        .into())),
        f!("dateModify", [String, Time], |a| Ok(date_modify(
            s(a, 0),
            arg(a, 1)
        )
        .unwrap_or_else(|_| arg(a, 1).clone()))),
        f!("date_modify", [String, Time], |a| Ok(date_modify(
            s(a, 0),
            arg(a, 1)
        )
        .unwrap_or_else(|_| arg(a, 1).clone()))),
        f!("mustDateModify", [String, Time], |a| date_modify(
            s(a, 0),
            arg(a, 1)
        )),
        f!("must_date_modify", [String, Time], |a| date_modify(
            s(a, 0),
            arg(a, 1)
        )),
        f!("ago", [Any], |a| Ok(ago(arg(a, 0)).into())),
        f!("duration", [Any], |a| Ok(duration(arg(a, 0)).into())),
        f!("durationRound", [Any], |a| Ok(
            duration_round(arg(a, 0)).into()
        )),
        f!("toDate", [String, String], |a| {
            Ok(Value::Time(Arc::new(
                parse_in_local(s(a, 0), s(a, 1)).unwrap_or_else(|_| zero_time()),
            )))
        }),
        f!("mustToDate", [String, String], |a| parse_in_local(
            s(a, 0),
            s(a, 1)
        )
        .map(|t| Value::Time(Arc::new(t)))),
        f!("unixEpoch", [Time], |a| match arg(a, 0) {
            Value::Time(t) => Ok(t.unix_secs.to_string().into()),
            _ => Ok("-62135596800".into()),
        }),
    ]
}

/// Go's zero `time.Time` (January 1, year 1, 00:00:00 UTC).
pub fn zero_time() -> GoTime {
    GoTime {
        unix_secs: -62_135_596_800,
        nanos: 0,
        offset_secs: 0,
        zone: "UTC".into(),
    }
}

/// A resolved time zone: an IANA zone, or UTC.
#[derive(Clone, Copy)]
enum Zone {
    Utc,
    Iana(Tz),
}

fn local_zone() -> Zone {
    match std::env::var("TZ") {
        Ok(tz) if tz.is_empty() || tz == "UTC" => Zone::Utc,
        Ok(tz) => Tz::from_str(tz.trim_start_matches(':'))
            .map(Zone::Iana)
            .unwrap_or(Zone::Utc),
        Err(_) => std::fs::read_link("/etc/localtime")
            .ok()
            .and_then(|p| {
                let p = p.to_string_lossy().into_owned();
                p.split_once("zoneinfo/")
                    .and_then(|(_, name)| Tz::from_str(name).ok())
            })
            .map(Zone::Iana)
            .unwrap_or(Zone::Utc),
    }
}

/// `time.LoadLocation(name)`; `None` when Go would return an error.
fn load_location(name: &str) -> Option<Zone> {
    match name {
        "" | "UTC" => Some(Zone::Utc),
        "Local" => Some(local_zone()),
        other => Tz::from_str(other).ok().map(Zone::Iana),
    }
}

/// The instant `unix_secs` seen in `zone`.
fn in_zone(unix_secs: i64, nanos: u32, zone: Zone) -> GoTime {
    match zone {
        Zone::Utc => GoTime {
            unix_secs,
            nanos,
            offset_secs: 0,
            zone: "UTC".into(),
        },
        Zone::Iana(tz) => {
            let naive = chrono::DateTime::from_timestamp(unix_secs, 0).map(|d| d.naive_utc());
            let Some(naive) = naive else {
                return GoTime {
                    unix_secs,
                    nanos,
                    offset_secs: 0,
                    zone: "UTC".into(),
                };
            };
            let off = tz.offset_from_utc_datetime(&naive);
            let secs = off.fix().local_minus_utc();
            let name = off
                .abbreviation()
                .map(str::to_string)
                .unwrap_or_else(|| numeric_zone(secs));
            GoTime {
                unix_secs,
                nanos,
                offset_secs: secs,
                zone: name,
            }
        }
    }
}

/// Go prints a zone without an abbreviation as `+03` or `+0530`.
fn numeric_zone(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let m = secs.abs() / 60;
    if m % 60 == 0 {
        format!("{sign}{:02}", m / 60)
    } else {
        format!("{sign}{:02}{:02}", m / 60, m % 60)
    }
}

/// `time.Now()` in the local zone.
pub fn now() -> GoTime {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    in_zone(d.as_secs() as i64, d.subsec_nanos(), local_zone())
}

fn date_in_zone(layout: &str, date: &Value, zone: &str) -> String {
    let t = match date {
        Value::Time(t) => (**t).clone(),
        Value::Int(i) | Value::Int64(i) => GoTime {
            unix_secs: *i,
            nanos: 0,
            offset_secs: 0,
            zone: "UTC".into(),
        },
        _ => now(),
    };
    let z = load_location(zone).unwrap_or(Zone::Utc);
    format_time(&in_zone(t.unix_secs, t.nanos, z), layout)
}

fn date_modify(d: &str, t: &Value) -> FuncResult {
    let dur = parse_duration(d)?;
    let Value::Time(t) = t else {
        return Ok(t.clone());
    };
    let total = t.nanos as i128 + dur as i128;
    let secs = t.unix_secs + total.div_euclid(1_000_000_000) as i64;
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    let zone = if t.zone == "UTC" && t.offset_secs == 0 {
        Zone::Utc
    } else {
        zone_of(t)
    };
    Ok(Value::Time(Arc::new(match zone {
        Zone::Utc if t.zone != "UTC" => GoTime {
            unix_secs: secs,
            nanos,
            offset_secs: t.offset_secs,
            zone: t.zone.clone(),
        },
        z => in_zone(secs, nanos, z),
    })))
}

/// The zone a time was expressed in: the local zone if it matches, else a fixed offset.
fn zone_of(t: &GoTime) -> Zone {
    let local = local_zone();
    let probe = in_zone(t.unix_secs, 0, local);
    if probe.offset_secs == t.offset_secs && probe.zone == t.zone {
        local
    } else {
        Zone::Utc
    }
}

fn ago(v: &Value) -> String {
    let n = now();
    let then = match v {
        Value::Time(t) => (t.unix_secs, t.nanos),
        Value::Int(i) | Value::Int64(i) => (*i, 0),
        _ => (n.unix_secs, n.nanos),
    };
    let d =
        (n.unix_secs as i128 - then.0 as i128) * 1_000_000_000 + n.nanos as i128 - then.1 as i128;
    let d = d.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    duration_string(round_duration(d, 1_000_000_000))
}

/// `time.Duration.Round(m)`.
pub(crate) fn round_duration(d: i64, m: i64) -> i64 {
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

fn duration(v: &Value) -> String {
    let n = match v {
        Value::String(s) => crate::cast::parse_go_int_base10(s).unwrap_or(0),
        Value::Int64(i) => *i,
        _ => 0,
    };
    duration_string(n.wrapping_mul(1_000_000_000))
}

fn duration_round(v: &Value) -> String {
    let d: i64 = match v {
        Value::String(s) => parse_duration(s).unwrap_or(0),
        Value::Int64(i) => *i,
        Value::Time(t) => {
            let n = now();
            let d = (n.unix_secs as i128 - t.unix_secs as i128) * 1_000_000_000 + n.nanos as i128
                - t.nanos as i128;
            d.clamp(i64::MIN as i128, i64::MAX as i128) as i64
        }
        _ => 0,
    };
    let u = d.unsigned_abs();
    const HOUR: u64 = 3_600_000_000_000;
    let (year, month, day, minute, second) = (
        HOUR * 24 * 365,
        HOUR * 24 * 30,
        HOUR * 24,
        60_000_000_000u64,
        1_000_000_000u64,
    );
    if u > year {
        format!("{}y", u / year)
    } else if u > month {
        format!("{}mo", u / month)
    } else if u > day {
        format!("{}d", u / day)
    } else if u > HOUR {
        format!("{}h", u / HOUR)
    } else if u > minute {
        format!("{}m", u / minute)
    } else if u > second {
        format!("{}s", u / second)
    } else {
        "0s".into()
    }
}

/// `time.Duration.String()`: `1h2m3.5s`, `1.5µs`, `0s`.
pub fn duration_string(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let neg = d < 0;
    let u = d.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        let (unit, div) = if u < 1_000 {
            ("ns", 1)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        out.push_str(&frac(u, div));
        out.push_str(unit);
    } else {
        let secs = u / 1_000_000_000;
        let h = secs / 3600;
        let m = (secs / 60) % 60;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&frac(u % 60_000_000_000, 1_000_000_000));
        out.push('s');
    }
    if neg { format!("-{out}") } else { out }
}

fn frac(v: u64, div: u64) -> String {
    let int = v / div;
    let rest = v % div;
    if rest == 0 {
        return int.to_string();
    }
    let width = div.to_string().len() - 1;
    let f = format!("{:0width$}", rest, width = width);
    format!("{int}.{}", f.trim_end_matches('0'))
}

/// `time.ParseDuration`, with Go's error texts.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let orig = s;
    let err = || format!("time: invalid duration {}", crate::gofmt::quote(orig));
    let mut s = s;
    let mut neg = false;
    if let Some(c) = s.chars().next()
        && (c == '-' || c == '+')
    {
        neg = c == '-';
        s = &s[1..];
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(err());
    }
    let mut total: u128 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(err());
        }
        let int_end = b
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len());
        let int_part = &s[..int_end];
        let mut rest = &s[int_end..];
        let mut frac_part = "";
        if rest.starts_with('.') {
            let r = &rest[1..];
            let fe = r
                .bytes()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(r.len());
            frac_part = &r[..fe];
            rest = &r[fe..];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(err());
        }
        let ue = rest
            .bytes()
            .position(|c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..ue];
        if unit.is_empty() {
            return Err(format!(
                "time: missing unit in duration {}",
                crate::gofmt::quote(orig)
            ));
        }
        let mult: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    crate::gofmt::quote(unit),
                    crate::gofmt::quote(orig)
                ));
            }
        };
        let iv: u128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().map_err(|_| err())?
        };
        let mut v = iv.checked_mul(mult).ok_or_else(err)?;
        if !frac_part.is_empty() {
            let mut scale: f64 = 1.0;
            let mut fv: u128 = 0;
            for c in frac_part.bytes().take(18) {
                fv = fv * 10 + (c - b'0') as u128;
                scale *= 10.0;
            }
            v += (fv as f64 * (mult as f64 / scale)) as u128;
        }
        total = total.checked_add(v).ok_or_else(err)?;
        if total > i64::MAX as u128 + u128::from(neg) {
            return Err(err());
        }
        s = &rest[ue..];
    }
    let t = total as i128;
    Ok((if neg { -t } else { t }) as i64)
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    TZ,
    Iso8601TZ,
    Iso8601SecondsTZ,
    Iso8601ShortTZ,
    Iso8601ColonTZ,
    Iso8601ColonSecondsTZ,
    NumTZ,
    NumSecondsTz,
    NumShortTZ,
    NumColonTZ,
    NumColonSecondsTZ,
    /// Fractional seconds: separator, digit count, trailing zeros trimmed (`.999`).
    Frac(u8, usize, bool),
}

/// Go's `nextStdChunk`: the literal prefix, the next layout element and the rest.
fn next_std(layout: &str) -> (&str, Option<Std>, &str) {
    let b = layout.as_bytes();
    let n = b.len();
    let has = |i: usize, p: &str| layout[i..].starts_with(p);
    for i in 0..n {
        let (std, len) = match b[i] {
            b'J' if has(i, "January") => (Std::LongMonth, 7),
            b'J' if has(i, "Jan") => (Std::Month, 3),
            b'M' if has(i, "Monday") => (Std::LongWeekDay, 6),
            b'M' if has(i, "Mon") => (Std::WeekDay, 3),
            b'M' if has(i, "MST") => (Std::TZ, 3),
            b'0' if has(i, "002") => (Std::ZeroYearDay, 3),
            b'0' if i + 1 < n && (b'1'..=b'6').contains(&b[i + 1]) => (
                [
                    Std::ZeroMonth,
                    Std::ZeroDay,
                    Std::ZeroHour12,
                    Std::ZeroMinute,
                    Std::ZeroSecond,
                    Std::Year,
                ][(b[i + 1] - b'1') as usize],
                2,
            ),
            b'1' if has(i, "15") => (Std::Hour, 2),
            b'1' => (Std::NumMonth, 1),
            b'2' if has(i, "2006") => (Std::LongYear, 4),
            b'2' => (Std::Day, 1),
            b'_' if has(i, "_2") => {
                if has(i, "_2006") {
                    return (&layout[..i + 1], Some(Std::LongYear), &layout[i + 5..]);
                }
                (Std::UnderDay, 2)
            }
            b'_' if has(i, "__2") => (Std::UnderYearDay, 3),
            b'3' => (Std::Hour12, 1),
            b'4' => (Std::Minute, 1),
            b'5' => (Std::Second, 1),
            b'P' if has(i, "PM") => (Std::PM, 2),
            b'p' if has(i, "pm") => (Std::Pm, 2),
            b'-' if has(i, "-070000") => (Std::NumSecondsTz, 7),
            b'-' if has(i, "-07:00:00") => (Std::NumColonSecondsTZ, 9),
            b'-' if has(i, "-0700") => (Std::NumTZ, 5),
            b'-' if has(i, "-07:00") => (Std::NumColonTZ, 6),
            b'-' if has(i, "-07") => (Std::NumShortTZ, 3),
            b'Z' if has(i, "Z070000") => (Std::Iso8601SecondsTZ, 7),
            b'Z' if has(i, "Z07:00:00") => (Std::Iso8601ColonSecondsTZ, 9),
            b'Z' if has(i, "Z0700") => (Std::Iso8601TZ, 5),
            b'Z' if has(i, "Z07:00") => (Std::Iso8601ColonTZ, 6),
            b'Z' if has(i, "Z07") => (Std::Iso8601ShortTZ, 3),
            b'.' | b',' if i + 1 < n && (b[i + 1] == b'0' || b[i + 1] == b'9') => {
                let ch = b[i + 1];
                let mut j = i + 1;
                while j < n && b[j] == ch {
                    j += 1;
                }
                if j < n && b[j].is_ascii_digit() {
                    continue;
                }
                (Std::Frac(b[i], j - i - 1, ch == b'9'), j - i)
            }
            _ => continue,
        };
        return (&layout[..i], Some(std), &layout[i + len..]);
    }
    (layout, None, "")
}

/// The wall-clock fields of a time in its own zone.
fn wall(t: &GoTime) -> NaiveDateTime {
    chrono::DateTime::from_timestamp(t.unix_secs + i64::from(t.offset_secs), t.nanos)
        .map(|d| d.naive_utc())
        .unwrap_or_default()
}

/// `time.Time.Format(layout)`.
pub fn format_time(t: &GoTime, layout: &str) -> String {
    let w = wall(t);
    let mut out = String::new();
    let mut rest = layout;
    loop {
        let (prefix, std, after) = next_std(rest);
        out.push_str(prefix);
        let Some(std) = std else { break };
        rest = after;
        let year = w.year();
        let hour = w.hour();
        let off = t.offset_secs;
        match std {
            Std::LongYear => out.push_str(&pad(i64::from(year), 4)),
            Std::Year => out.push_str(&format!("{:02}", year.rem_euclid(100))),
            Std::LongMonth => out.push_str(MONTHS[w.month0() as usize]),
            Std::Month => out.push_str(&MONTHS[w.month0() as usize][..3]),
            Std::NumMonth => out.push_str(&w.month().to_string()),
            Std::ZeroMonth => out.push_str(&format!("{:02}", w.month())),
            Std::LongWeekDay => out.push_str(DAYS[w.weekday().num_days_from_sunday() as usize]),
            Std::WeekDay => out.push_str(&DAYS[w.weekday().num_days_from_sunday() as usize][..3]),
            Std::Day => out.push_str(&w.day().to_string()),
            Std::UnderDay => out.push_str(&format!("{:>2}", w.day())),
            Std::ZeroDay => out.push_str(&format!("{:02}", w.day())),
            Std::UnderYearDay => out.push_str(&format!("{:>3}", w.ordinal())),
            Std::ZeroYearDay => out.push_str(&format!("{:03}", w.ordinal())),
            Std::Hour => out.push_str(&format!("{hour:02}")),
            Std::Hour12 | Std::ZeroHour12 => {
                let h = if hour.is_multiple_of(12) {
                    12
                } else {
                    hour % 12
                };
                out.push_str(&if std == Std::Hour12 {
                    h.to_string()
                } else {
                    format!("{h:02}")
                });
            }
            Std::Minute => out.push_str(&w.minute().to_string()),
            Std::ZeroMinute => out.push_str(&format!("{:02}", w.minute())),
            Std::Second => out.push_str(&w.second().to_string()),
            Std::ZeroSecond => out.push_str(&format!("{:02}", w.second())),
            Std::PM => out.push_str(if hour >= 12 { "PM" } else { "AM" }),
            Std::Pm => out.push_str(if hour >= 12 { "pm" } else { "am" }),
            Std::TZ => {
                if t.zone.is_empty() {
                    let z = off / 60;
                    out.push(if z < 0 { '-' } else { '+' });
                    out.push_str(&format!("{:02}{:02}", z.abs() / 60, z.abs() % 60));
                } else {
                    out.push_str(&t.zone);
                }
            }
            Std::Iso8601TZ
            | Std::Iso8601SecondsTZ
            | Std::Iso8601ShortTZ
            | Std::Iso8601ColonTZ
            | Std::Iso8601ColonSecondsTZ
            | Std::NumTZ
            | Std::NumSecondsTz
            | Std::NumShortTZ
            | Std::NumColonTZ
            | Std::NumColonSecondsTZ => {
                let iso = matches!(
                    std,
                    Std::Iso8601TZ
                        | Std::Iso8601SecondsTZ
                        | Std::Iso8601ShortTZ
                        | Std::Iso8601ColonTZ
                        | Std::Iso8601ColonSecondsTZ
                );
                if iso && off == 0 {
                    out.push('Z');
                    continue;
                }
                let z = off.abs();
                out.push(if off < 0 { '-' } else { '+' });
                out.push_str(&format!("{:02}", z / 3600));
                let colon = matches!(
                    std,
                    Std::Iso8601ColonTZ
                        | Std::Iso8601ColonSecondsTZ
                        | Std::NumColonTZ
                        | Std::NumColonSecondsTZ
                );
                if !matches!(std, Std::Iso8601ShortTZ | Std::NumShortTZ) {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", (z / 60) % 60));
                }
                if matches!(
                    std,
                    Std::Iso8601SecondsTZ
                        | Std::NumSecondsTz
                        | Std::NumColonSecondsTZ
                        | Std::Iso8601ColonSecondsTZ
                ) {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", z % 60));
                }
            }
            Std::Frac(sep, digits, trim) => {
                let f = format!("{:09}", t.nanos);
                let mut d = &f[..digits.min(9)];
                if trim {
                    d = d.trim_end_matches('0');
                    if d.is_empty() {
                        continue;
                    }
                }
                out.push(sep as char);
                out.push_str(d);
            }
        }
    }
    out
}

fn pad(v: i64, width: usize) -> String {
    if v < 0 {
        format!("-{:0width$}", -v, width = width)
    } else {
        format!("{v:0width$}")
    }
}

/// `time.Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
pub fn time_string(t: &GoTime) -> String {
    format_time(t, "2006-01-02 15:04:05.999999999 -0700 MST")
}

/// `time.ParseInLocation(layout, value, time.Local)` with Go's error texts.
pub fn parse_in_local(layout: &str, value: &str) -> Result<GoTime, String> {
    let q = crate::gofmt::quote;
    let orig_value = value;
    let mut value = value;
    let mut rest = layout;
    let (mut year, mut month, mut day, mut yday) = (1i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let mut pm_set = false;
    let mut am_set = false;
    let mut z_offset: Option<i32> = None;
    let mut z_name = String::new();
    let bad = |elem: &str, v: &str, extra: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}{extra}",
            q(orig_value),
            q(layout),
            q(v),
            q(elem)
        )
    };
    loop {
        let (prefix, std, after) = next_std(rest);
        let std_str = &rest[prefix.len()..rest.len() - after.len()];
        // Literal prefix must match (Go skips leading spaces flexibly).
        let (ok, v2) = skip(value, prefix);
        if !ok {
            return Err(bad(prefix, value, ""));
        }
        value = v2;
        let Some(std) = std else {
            if !value.is_empty() {
                return Err(format!(
                    "parsing time {}: extra text: {}",
                    q(orig_value),
                    q(value)
                ));
            }
            break;
        };
        rest = after;
        let hold = value;
        let res: Result<(), ()> = (|| {
            match std {
                Std::Year => {
                    let (n, r) = take_digits(value, 2, 2).ok_or(())?;
                    year = if n >= 69 { n + 1900 } else { n + 2000 };
                    value = r;
                }
                Std::LongYear => {
                    if value.len() < 4 || !value.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
                        return Err(());
                    }
                    year = value[..4].parse().map_err(|_| ())?;
                    value = &value[4..];
                }
                Std::Month | Std::LongMonth => {
                    let names: Vec<String> = MONTHS
                        .iter()
                        .map(|m| {
                            if std == Std::Month {
                                m[..3].to_string()
                            } else {
                                m.to_string()
                            }
                        })
                        .collect();
                    let (i, r) = lookup(&names, value).ok_or(())?;
                    month = i as i64 + 1;
                    value = r;
                }
                Std::NumMonth | Std::ZeroMonth => {
                    let (n, r) = take_digits(value, if std == Std::ZeroMonth { 2 } else { 1 }, 2)
                        .ok_or(())?;
                    if !(1..=12).contains(&n) {
                        return Err(());
                    }
                    month = n;
                    value = r;
                }
                Std::WeekDay | Std::LongWeekDay => {
                    let names: Vec<String> = DAYS
                        .iter()
                        .map(|m| {
                            if std == Std::WeekDay {
                                m[..3].to_string()
                            } else {
                                m.to_string()
                            }
                        })
                        .collect();
                    let (_, r) = lookup(&names, value).ok_or(())?;
                    value = r;
                }
                Std::Day | Std::UnderDay | Std::ZeroDay => {
                    if std == Std::UnderDay && value.starts_with(' ') {
                        value = &value[1..];
                    }
                    let (n, r) =
                        take_digits(value, if std == Std::ZeroDay { 2 } else { 1 }, 2).ok_or(())?;
                    day = n;
                    value = r;
                }
                Std::UnderYearDay | Std::ZeroYearDay => {
                    let mut v = value;
                    if std == Std::UnderYearDay {
                        v = v.trim_start_matches(' ');
                    }
                    let (n, r) =
                        take_digits(v, if std == Std::ZeroYearDay { 3 } else { 1 }, 3).ok_or(())?;
                    yday = n;
                    value = r;
                }
                Std::Hour => {
                    let (n, r) = take_digits(value, 2, 2).ok_or(())?;
                    if n >= 24 {
                        return Err(());
                    }
                    hour = n;
                    value = r;
                }
                Std::Hour12 | Std::ZeroHour12 => {
                    let (n, r) = take_digits(value, if std == Std::ZeroHour12 { 2 } else { 1 }, 2)
                        .ok_or(())?;
                    if n > 12 {
                        return Err(());
                    }
                    hour = n;
                    value = r;
                }
                Std::Minute | Std::ZeroMinute | Std::Second | Std::ZeroSecond => {
                    let zero = matches!(std, Std::ZeroMinute | Std::ZeroSecond);
                    let (n, r) = take_digits(value, if zero { 2 } else { 1 }, 2).ok_or(())?;
                    if n >= 60 {
                        return Err(());
                    }
                    value = r;
                    if matches!(std, Std::Minute | Std::ZeroMinute) {
                        min = n;
                    } else {
                        sec = n;
                        // A fractional second in the value without one in the layout.
                        let (_, nstd, _) = next_std(rest);
                        let next_is_frac =
                            matches!(nstd, Some(Std::Frac(..))) && next_std(rest).0.is_empty();
                        if !next_is_frac
                            && value.len() >= 2
                            && (value.starts_with('.') || value.starts_with(','))
                            && value.as_bytes()[1].is_ascii_digit()
                        {
                            let n = 1 + value[1..].bytes().take_while(u8::is_ascii_digit).count();
                            nsec = frac_nanos(&value[1..n]);
                            value = &value[n..];
                        }
                    }
                }
                Std::PM | Std::Pm => {
                    if value.len() < 2 {
                        return Err(());
                    }
                    let p = &value[..2];
                    match (std, p) {
                        (Std::PM, "PM") | (Std::Pm, "pm") => pm_set = true,
                        (Std::PM, "AM") | (Std::Pm, "am") => am_set = true,
                        _ => return Err(()),
                    }
                    value = &value[2..];
                }
                Std::Frac(_, digits, trim) => {
                    if trim {
                        if value.len() < 2
                            || !(value.starts_with('.') || value.starts_with(','))
                            || !value.as_bytes()[1].is_ascii_digit()
                        {
                            return Ok(());
                        }
                        let n = 1 + value[1..].bytes().take_while(u8::is_ascii_digit).count();
                        nsec = frac_nanos(&value[1..n]);
                        value = &value[n..];
                    } else {
                        let n = digits + 1;
                        if value.len() < n
                            || !(value.starts_with('.') || value.starts_with(','))
                            || !value.as_bytes()[1..n].iter().all(u8::is_ascii_digit)
                        {
                            return Err(());
                        }
                        nsec = frac_nanos(&value[1..n]);
                        value = &value[n..];
                    }
                }
                Std::TZ => {
                    if value.len() >= 3 && value.starts_with("UTC") {
                        z_name = "UTC".into();
                        value = &value[3..];
                        z_offset = Some(0);
                        return Ok(());
                    }
                    let n = value.bytes().take_while(u8::is_ascii_uppercase).count();
                    if n < 3 {
                        return Err(());
                    }
                    z_name = value[..n].to_string();
                    value = &value[n..];
                }
                _ => {
                    // Numeric and ISO 8601 offsets.
                    let iso = matches!(
                        std,
                        Std::Iso8601TZ
                            | Std::Iso8601SecondsTZ
                            | Std::Iso8601ShortTZ
                            | Std::Iso8601ColonTZ
                            | Std::Iso8601ColonSecondsTZ
                    );
                    if iso && value.starts_with('Z') {
                        value = &value[1..];
                        z_offset = Some(0);
                        z_name = "UTC".into();
                        return Ok(());
                    }
                    let colon = matches!(
                        std,
                        Std::Iso8601ColonTZ
                            | Std::Iso8601ColonSecondsTZ
                            | Std::NumColonTZ
                            | Std::NumColonSecondsTZ
                    );
                    let secs = matches!(
                        std,
                        Std::Iso8601SecondsTZ
                            | Std::NumSecondsTz
                            | Std::NumColonSecondsTZ
                            | Std::Iso8601ColonSecondsTZ
                    );
                    let short = matches!(std, Std::Iso8601ShortTZ | Std::NumShortTZ);
                    let b = value.as_bytes();
                    let sign = match b.first() {
                        Some(b'+') => 1,
                        Some(b'-') => -1,
                        _ => return Err(()),
                    };
                    let mut p = 1;
                    let two = |p: usize| -> Result<i32, ()> {
                        if b.len() < p + 2 || !b[p].is_ascii_digit() || !b[p + 1].is_ascii_digit() {
                            return Err(());
                        }
                        Ok(i32::from(b[p] - b'0') * 10 + i32::from(b[p + 1] - b'0'))
                    };
                    let hh = two(p)?;
                    p += 2;
                    let mut mm = 0;
                    let mut ss = 0;
                    if !short {
                        if colon {
                            if b.get(p) != Some(&b':') {
                                return Err(());
                            }
                            p += 1;
                        }
                        mm = two(p)?;
                        p += 2;
                        if secs {
                            if colon {
                                if b.get(p) != Some(&b':') {
                                    return Err(());
                                }
                                p += 1;
                            }
                            ss = two(p)?;
                            p += 2;
                        }
                    }
                    z_offset = Some(sign * (hh * 3600 + mm * 60 + ss));
                    value = &value[p..];
                }
            }
            Ok(())
        })();
        if res.is_err() {
            let range_err = matches!(
                std,
                Std::Hour
                    | Std::Hour12
                    | Std::ZeroHour12
                    | Std::Minute
                    | Std::ZeroMinute
                    | Std::Second
                    | Std::ZeroSecond
                    | Std::NumMonth
                    | Std::ZeroMonth
            ) && take_digits(hold, 1, 2).is_some();
            if range_err {
                let what = match std {
                    Std::Hour | Std::Hour12 | Std::ZeroHour12 => "hour",
                    Std::Minute | Std::ZeroMinute => "minute",
                    Std::Second | Std::ZeroSecond => "second",
                    _ => "month",
                };
                return Err(format!(
                    "parsing time {}: {what} out of range",
                    q(orig_value)
                ));
            }
            return Err(bad(std_str, hold, ""));
        }
    }
    if pm_set && hour < 12 {
        hour += 12;
    } else if am_set && hour == 12 {
        hour = 0;
    }
    if yday >= 0 {
        let leap = NaiveDate::from_ymd_opt(year as i32, 2, 29).is_some();
        if yday < 1 || yday > if leap { 366 } else { 365 } {
            return Err(format!(
                "parsing time {}: day-of-year out of range",
                q(orig_value)
            ));
        }
        let d = NaiveDate::from_yo_opt(year as i32, yday as u32)
            .ok_or_else(|| format!("parsing time {}: day-of-year out of range", q(orig_value)))?;
        if month >= 0 && i64::from(d.month()) != month || day >= 0 && i64::from(d.day()) != day {
            return Err(format!(
                "parsing time {}: day-of-year does not match month",
                q(orig_value)
            ));
        }
        month = i64::from(d.month());
        day = i64::from(d.day());
    }
    if month < 0 {
        month = 1;
    }
    if day < 0 {
        day = 1;
    }
    let date = NaiveDate::from_ymd_opt(year as i32, month as u32, 1)
        .ok_or_else(|| format!("parsing time {}: month out of range", q(orig_value)))?;
    let days_in_month = if month == 12 {
        31
    } else {
        (NaiveDate::from_ymd_opt(year as i32, month as u32 + 1, 1).unwrap_or(date) - date)
            .num_days()
    };
    if day < 1 || day > days_in_month {
        return Err(format!("parsing time {}: day out of range", q(orig_value)));
    }
    let naive = date
        .with_day(day as u32)
        .and_then(|d| d.and_hms_opt(hour as u32, min as u32, sec as u32))
        .ok_or_else(|| format!("parsing time {}: day out of range", q(orig_value)))?;
    let wall_secs = naive.and_utc().timestamp();
    let local = local_zone();
    if let Some(off) = z_offset {
        let unix = wall_secs - i64::from(off);
        let mut t = in_zone(unix, nsec as u32, local);
        if t.offset_secs != off || (off == 0 && z_name == "UTC") {
            t = if off == 0 && z_name == "UTC" {
                in_zone(unix, nsec as u32, Zone::Utc)
            } else {
                GoTime {
                    unix_secs: unix,
                    nanos: nsec as u32,
                    offset_secs: off,
                    zone: String::new(),
                }
            };
        }
        return Ok(t);
    }
    if !z_name.is_empty() {
        // A zone abbreviation: the local zone's if it matches, else offset 0 under that name.
        let guess = in_zone(wall_secs, nsec as u32, local);
        if guess.zone == z_name {
            let t = in_zone(wall_secs - i64::from(guess.offset_secs), nsec as u32, local);
            return Ok(t);
        }
        return Ok(GoTime {
            unix_secs: wall_secs,
            nanos: nsec as u32,
            offset_secs: 0,
            zone: z_name,
        });
    }
    Ok(local_from_wall(wall_secs, nsec as u32, local))
}

/// The instant whose wall clock in `zone` is `wall_secs` (Go's `Date` in a location).
fn local_from_wall(wall_secs: i64, nanos: u32, zone: Zone) -> GoTime {
    match zone {
        Zone::Utc => in_zone(wall_secs, nanos, Zone::Utc),
        Zone::Iana(_) => {
            let guess = in_zone(wall_secs, nanos, zone);
            let unix = wall_secs - i64::from(guess.offset_secs);
            let t = in_zone(unix, nanos, zone);
            if t.offset_secs == guess.offset_secs {
                t
            } else {
                in_zone(wall_secs - i64::from(t.offset_secs), nanos, zone)
            }
        }
    }
}

fn frac_nanos(digits: &str) -> i64 {
    let mut d: String = digits.chars().take(9).collect();
    while d.len() < 9 {
        d.push('0');
    }
    d.parse().unwrap_or(0)
}

fn take_digits(v: &str, min: usize, max: usize) -> Option<(i64, &str)> {
    let n = v.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n < min {
        return None;
    }
    // Go's getnum with fixed width rejects a third digit only for two-digit fields.
    Some((v[..n].parse().ok()?, &v[n..]))
}

fn lookup<'a>(names: &[String], v: &'a str) -> Option<(usize, &'a str)> {
    for (i, n) in names.iter().enumerate() {
        if v.len() >= n.len() && v.is_char_boundary(n.len()) && v[..n.len()].eq_ignore_ascii_case(n)
        {
            return Some((i, &v[n.len()..]));
        }
    }
    None
}

/// Go's `skip`: match a literal layout prefix, letting runs of spaces match flexibly.
fn skip<'a>(mut value: &'a str, prefix: &str) -> (bool, &'a str) {
    let mut p = prefix;
    while !p.is_empty() {
        if p.starts_with(' ') {
            if !value.is_empty() && !value.starts_with(' ') {
                return (false, value);
            }
            p = p.trim_start_matches(' ');
            value = value.trim_start_matches(' ');
            continue;
        }
        let c = p.chars().next().unwrap_or(' ');
        if !value.starts_with(c) {
            return (false, value);
        }
        p = &p[c.len_utf8()..];
        value = &value[c.len_utf8()..];
    }
    (true, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(secs: i64) -> GoTime {
        GoTime {
            unix_secs: secs,
            nanos: 0,
            offset_secs: 0,
            zone: "UTC".into(),
        }
    }

    // Reference strings from Go's time package documentation.
    #[test]
    fn formats_go_layouts() {
        let t = utc(1_136_214_245); // 2006-01-02T15:04:05Z
        assert_eq!(format_time(&t, "2006-01-02"), "2006-01-02");
        assert_eq!(
            format_time(&t, "Mon Jan _2 15:04:05 MST 2006"),
            "Mon Jan  2 15:04:05 UTC 2006"
        );
        assert_eq!(format_time(&t, "3:04PM"), "3:04PM");
        assert_eq!(
            format_time(&t, "2006-01-02T15:04:05Z07:00"),
            "2006-01-02T15:04:05Z"
        );
        assert_eq!(time_string(&t), "2006-01-02 15:04:05 +0000 UTC");
    }

    #[test]
    fn durations_print_and_parse_like_go() {
        assert_eq!(duration_string(3_723_000_000_000), "1h2m3s");
        assert_eq!(duration_string(1_500), "1.5µs");
        assert_eq!(duration_string(0), "0s");
        assert_eq!(parse_duration("1.5h").unwrap(), 5_400_000_000_000);
        assert_eq!(parse_duration("-1m30s").unwrap(), -90_000_000_000);
        assert_eq!(
            parse_duration("5x").unwrap_err(),
            "time: unknown unit \"x\" in duration \"5x\""
        );
        assert_eq!(
            parse_duration("").unwrap_err(),
            "time: invalid duration \"\""
        );
    }

    #[test]
    fn parses_dates() {
        let t = parse_in_local("2006-01-02", "2017-12-31").unwrap();
        assert_eq!(t.unix_secs - i64::from(t.offset_secs), 1_514_678_400);
        let e = parse_in_local("2006-01-02", "2017-13-31").unwrap_err();
        assert_eq!(e, "parsing time \"2017-13-31\": month out of range");
    }
}
