//! Go's reference-time layouts (`time/format.go`): `Time.Format` ([`format`]) and
//! `ParseInLocation` ([`parse_in_location`]) with every layout element Go knows (`2006 06 Jan
//! January 01 1 _2 02 __2 002 Mon Monday 15 3 03 4 04 5 05 PM pm MST -0700 -07:00 Z07:00 …`
//! and the fractional seconds `.000`/`.999`/`,000`), Go's flexible spaces, and Go's error
//! texts (`parsing time "x" as "2006": cannot parse "x" as "2006"`, `… month out of range`).

use super::{Location, Time, civil, quote};

/// Why [`parse_in_location`] refused a value; `Display` is Go's `*time.ParseError` text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

/// Go's month names, January first.
pub const MONTHS: [&str; 12] = [
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
/// Go's weekday names, Sunday first.
pub const DAYS: [&str; 7] = [
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

/// What a zone-offset element writes (`Z07:00`, `-0700`, …): Go's `stdISO8601*` and
/// `stdNum*` cases of `appendFormat` and `parse`.
impl Std {
    /// `Z` for UTC (the `Z07…` forms).
    fn zone_is_iso8601(self) -> bool {
        matches!(
            self,
            Std::Iso8601TZ
                | Std::Iso8601SecondsTZ
                | Std::Iso8601ShortTZ
                | Std::Iso8601ColonTZ
                | Std::Iso8601ColonSecondsTZ
        )
    }

    /// `:` between hours, minutes and seconds.
    fn zone_has_colons(self) -> bool {
        matches!(
            self,
            Std::Iso8601ColonTZ
                | Std::Iso8601ColonSecondsTZ
                | Std::NumColonTZ
                | Std::NumColonSecondsTZ
        )
    }

    /// Seconds after the minutes.
    fn zone_has_seconds(self) -> bool {
        matches!(
            self,
            Std::Iso8601SecondsTZ
                | Std::NumSecondsTz
                | Std::NumColonSecondsTZ
                | Std::Iso8601ColonSecondsTZ
        )
    }

    /// Hours only.
    fn zone_is_short(self) -> bool {
        matches!(self, Std::Iso8601ShortTZ | Std::NumShortTZ)
    }
}

/// The forms of a zone offset after its `-` (numeric) or `Z` (ISO 8601), in the order
/// `nextStdChunk` tries them (a longer form before its prefix).
const ZONE_FORMS: [&str; 5] = ["070000", "07:00:00", "0700", "07:00", "07"];

/// The layout element of zone form `form` ([`ZONE_FORMS`]) after `sign` (`-` or `Z`).
fn zone_element(sign: u8, form: usize) -> Std {
    use Std::*;
    let numeric = [
        NumSecondsTz,
        NumColonSecondsTZ,
        NumTZ,
        NumColonTZ,
        NumShortTZ,
    ];
    let iso = [
        Iso8601SecondsTZ,
        Iso8601ColonSecondsTZ,
        Iso8601TZ,
        Iso8601ColonTZ,
        Iso8601ShortTZ,
    ];
    if sign == b'-' {
        numeric[form]
    } else {
        iso[form]
    }
}

/// Go's `nextStdChunk`: the literal prefix, the next layout element and the rest.
fn next_std(layout: &str) -> (&str, Option<Std>, &str) {
    let b = layout.as_bytes();
    let n = b.len();
    let has = |i: usize, p: &str| layout[i..].starts_with(p);
    let lower_after = |i: usize| b.get(i).is_some_and(u8::is_ascii_lowercase);
    for i in 0..n {
        let (std, len) = match b[i] {
            b'J' if has(i, "January") => (Std::LongMonth, 7),
            // `Jan` and `Mon` followed by a lower-case letter are text (`Janu`, `Monthly`).
            b'J' if has(i, "Jan") && !lower_after(i + 3) => (Std::Month, 3),
            b'M' if has(i, "Monday") => (Std::LongWeekDay, 6),
            b'M' if has(i, "Mon") && !lower_after(i + 3) => (Std::WeekDay, 3),
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
            b'-' | b'Z' => match ZONE_FORMS.iter().position(|f| has(i + 1, f)) {
                Some(k) => (zone_element(b[i], k), 1 + ZONE_FORMS[k].len()),
                None => continue,
            },
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

/// Go's `Time.Format(layout)`.
pub fn format(t: &Time, layout: &str) -> String {
    let days = t.local_days();
    let (year, month, day) = civil::from_days(days);
    let (hour, minute, second) = t.clock();
    let weekday = civil::weekday(days) as usize;
    let yday = civil::year_day(days);
    let mut out = String::new();
    let mut rest = layout;
    loop {
        let (prefix, std, after) = next_std(rest);
        out.push_str(prefix);
        let Some(std) = std else { break };
        rest = after;
        let off = t.offset_secs;
        match std {
            Std::LongYear => out.push_str(&pad(year, 4)),
            Std::Year => out.push_str(&format!("{:02}", year.rem_euclid(100))),
            Std::LongMonth => out.push_str(MONTHS[month as usize - 1]),
            Std::Month => out.push_str(&MONTHS[month as usize - 1][..3]),
            Std::NumMonth => out.push_str(&month.to_string()),
            Std::ZeroMonth => out.push_str(&format!("{month:02}")),
            Std::LongWeekDay => out.push_str(DAYS[weekday]),
            Std::WeekDay => out.push_str(&DAYS[weekday][..3]),
            Std::Day => out.push_str(&day.to_string()),
            Std::UnderDay => out.push_str(&format!("{day:>2}")),
            Std::ZeroDay => out.push_str(&format!("{day:02}")),
            Std::UnderYearDay => out.push_str(&format!("{yday:>3}")),
            Std::ZeroYearDay => out.push_str(&format!("{yday:03}")),
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
            Std::Minute => out.push_str(&minute.to_string()),
            Std::ZeroMinute => out.push_str(&format!("{minute:02}")),
            Std::Second => out.push_str(&second.to_string()),
            Std::ZeroSecond => out.push_str(&format!("{second:02}")),
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
                let iso = std.zone_is_iso8601();
                if iso && off == 0 {
                    out.push('Z');
                    continue;
                }
                let z = off.abs();
                out.push(if off < 0 { '-' } else { '+' });
                out.push_str(&format!("{:02}", z / 3600));
                let colon = std.zone_has_colons();
                if !std.zone_is_short() {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", (z / 60) % 60));
                }
                if std.zone_has_seconds() {
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

/// Go's `time.ParseInLocation(layout, value, loc)` with Go's error texts: a value without a
/// zone is a wall clock in `loc`; an offset that `loc` has at that instant takes `loc`'s zone,
/// another offset is a fixed zone without a name; a zone abbreviation that `loc` uses there
/// takes `loc`'s offset, another one offset 0 under that name.
pub fn parse_in_location(layout: &str, value: &str, loc: &Location) -> Result<Time, ParseError> {
    parse(layout, value, loc).map_err(ParseError)
}

fn parse(layout: &str, value: &str, loc: &Location) -> Result<Time, String> {
    let q = quote;
    let orig_value = value;
    let mut value = value;
    let mut rest = layout;
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
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
        let res: Result<(), Option<&str>> = (|| {
            match std {
                Std::Year => {
                    let (n, r) = take_digits(value, 2, 2).ok_or(None)?;
                    year = if n >= 69 { n + 1900 } else { n + 2000 };
                    value = r;
                }
                Std::LongYear => {
                    if value.len() < 4 || !value.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
                        return Err(None);
                    }
                    year = value[..4].parse().map_err(|_| None)?;
                    value = &value[4..];
                }
                Std::Month | Std::LongMonth => {
                    let names = layout_names(&MONTHS, std == Std::Month);
                    let (i, r) = lookup(&names, value).ok_or(None)?;
                    month = i as i64 + 1;
                    value = r;
                }
                Std::NumMonth | Std::ZeroMonth => {
                    let (n, r) = take_digits(value, if std == Std::ZeroMonth { 2 } else { 1 }, 2)
                        .ok_or(None)?;
                    if !(1..=12).contains(&n) {
                        return Err(Some("month"));
                    }
                    month = n;
                    value = r;
                }
                Std::WeekDay | Std::LongWeekDay => {
                    let names = layout_names(&DAYS, std == Std::WeekDay);
                    let (_, r) = lookup(&names, value).ok_or(None)?;
                    value = r;
                }
                Std::Day | Std::UnderDay | Std::ZeroDay => {
                    if std == Std::UnderDay && value.starts_with(' ') {
                        value = &value[1..];
                    }
                    let (n, r) = take_digits(value, if std == Std::ZeroDay { 2 } else { 1 }, 2)
                        .ok_or(None)?;
                    day = n;
                    value = r;
                }
                Std::UnderYearDay | Std::ZeroYearDay => {
                    let mut v = value;
                    if std == Std::UnderYearDay {
                        v = v.trim_start_matches(' ');
                    }
                    let (n, r) = take_digits(v, if std == Std::ZeroYearDay { 3 } else { 1 }, 3)
                        .ok_or(None)?;
                    yday = n;
                    value = r;
                }
                Std::Hour => {
                    let (n, r) = take_digits(value, 1, 2).ok_or(None)?;
                    if n >= 24 {
                        return Err(Some("hour"));
                    }
                    hour = n;
                    value = r;
                }
                Std::Hour12 | Std::ZeroHour12 => {
                    let (n, r) = take_digits(value, if std == Std::ZeroHour12 { 2 } else { 1 }, 2)
                        .ok_or(None)?;
                    if n > 12 {
                        return Err(Some("hour"));
                    }
                    hour = n;
                    value = r;
                }
                Std::Minute | Std::ZeroMinute | Std::Second | Std::ZeroSecond => {
                    let zero = matches!(std, Std::ZeroMinute | Std::ZeroSecond);
                    let (n, r) = take_digits(value, if zero { 2 } else { 1 }, 2).ok_or(None)?;
                    if n >= 60 {
                        return Err(Some(if matches!(std, Std::Minute | Std::ZeroMinute) {
                            "minute"
                        } else {
                            "second"
                        }));
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
                        return Err(None);
                    }
                    let p = &value[..2];
                    match (std, p) {
                        (Std::PM, "PM") | (Std::Pm, "pm") => pm_set = true,
                        (Std::PM, "AM") | (Std::Pm, "am") => am_set = true,
                        _ => return Err(None),
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
                            return Err(None);
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
                    let n = parse_time_zone(value).ok_or(None)?;
                    z_name = value[..n].to_string();
                    value = &value[n..];
                }
                _ => {
                    // Numeric and ISO 8601 offsets.
                    let iso = std.zone_is_iso8601();
                    if iso && value.starts_with('Z') {
                        value = &value[1..];
                        z_offset = Some(0);
                        z_name = "UTC".into();
                        return Ok(());
                    }
                    let colon = std.zone_has_colons();
                    let secs = std.zone_has_seconds();
                    let short = std.zone_is_short();
                    let b = value.as_bytes();
                    let sign = match b.first() {
                        Some(b'+') => 1,
                        Some(b'-') => -1,
                        _ => return Err(None),
                    };
                    let mut p = 1;
                    // Two digits at `p`, after a `:` when the layout has colons and `sep`.
                    let mut two = |sep: bool| -> Result<i32, Option<&str>> {
                        if sep && colon {
                            if b.get(p) != Some(&b':') {
                                return Err(None);
                            }
                            p += 1;
                        }
                        if b.len() < p + 2 || !b[p].is_ascii_digit() || !b[p + 1].is_ascii_digit() {
                            return Err(None);
                        }
                        p += 2;
                        Ok(i32::from(b[p - 2] - b'0') * 10 + i32::from(b[p - 1] - b'0'))
                    };
                    let hh = two(false)?;
                    let mut mm = 0;
                    let mut ss = 0;
                    if !short {
                        mm = two(true)?;
                        if secs {
                            ss = two(true)?;
                        }
                    }
                    z_offset = Some(sign * (hh * 3600 + mm * 60 + ss));
                    value = &value[p..];
                }
            }
            Ok(())
        })();
        if let Err(range) = res {
            if let Some(what) = range {
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
        let len = if civil::is_leap(year) { 366 } else { 365 };
        if yday < 1 || yday > len {
            return Err(format!(
                "parsing time {}: day-of-year out of range",
                q(orig_value)
            ));
        }
        let (_, m, d) = civil::from_days(civil::to_days(year, 1, 1) + yday - 1);
        for (parsed, got, what) in [(month, m, "month"), (day, d, "day")] {
            if parsed >= 0 && parsed != i64::from(got) {
                return Err(format!(
                    "parsing time {}: day-of-year does not match {what}",
                    q(orig_value)
                ));
            }
        }
        month = i64::from(m);
        day = i64::from(d);
    }
    if month < 0 {
        month = 1;
    }
    if day < 0 {
        day = 1;
    }
    if day < 1 || day > i64::from(civil::days_in_month(year, month as u32)) {
        return Err(format!("parsing time {}: day out of range", q(orig_value)));
    }
    let wall_secs =
        civil::to_days(year, month as u32, day as u32) * 86_400 + hour * 3600 + min * 60 + sec;
    let local = loc;
    if let Some(off) = z_offset {
        let unix = wall_secs - i64::from(off);
        let mut t = local.at(unix, nsec as u32);
        if t.offset_secs != off || (off == 0 && z_name == "UTC") {
            t = if off == 0 && z_name == "UTC" {
                Time::utc_unix(unix, nsec as u32)
            } else {
                Time {
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
        if let Some(offset) = local.offset_of_name(&z_name, wall_secs) {
            return Ok(local.at(wall_secs - i64::from(offset), nsec as u32));
        }
        // Go's fake zone: offset 0, or the hours of a `GMT+5` (the instant stays the wall
        // clock read as UTC, as in Go).
        let offset = match z_name.strip_prefix("GMT") {
            Some(h) if !h.is_empty() => h.parse::<i32>().unwrap_or(0) * 3600,
            _ => 0,
        };
        return Ok(Time {
            unix_secs: wall_secs,
            nanos: nsec as u32,
            offset_secs: offset,
            zone: z_name,
        });
    }
    Ok(local.from_wall(wall_secs, nsec as u32))
}

/// The instant whose wall clock in `zone` is `wall_secs` (Go's `Date` in a location).
/// Go's `parseTimeZone`: the length of a zone abbreviation at the start of `value` (`MST`,
/// `CEST`, `ChST`, `WITA`, `GMT+5`, `+03`), if there is one.
fn parse_time_zone(value: &str) -> Option<usize> {
    let b = value.as_bytes();
    if b.len() < 3 {
        return None;
    }
    if value.starts_with("ChST") || value.starts_with("MeST") {
        return Some(4);
    }
    if let Some(rest) = value.strip_prefix("GMT") {
        return Some(
            3 + if rest.is_empty() {
                0
            } else {
                parse_signed_offset(rest)
            },
        );
    }
    if b[0] == b'+' || b[0] == b'-' {
        return Some(parse_signed_offset(value)).filter(|&n| n > 0);
    }
    let upper = b
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    match upper {
        5 if b[4] == b'T' => Some(5),
        4 if b[3] == b'T' || value.starts_with("WITA") => Some(4),
        3 => Some(3),
        _ => None,
    }
}

/// Go's `parseSignedOffset`: the length of `+h`/`-hh` (hours up to 23), 0 if it is not one.
fn parse_signed_offset(value: &str) -> usize {
    let b = value.as_bytes();
    if !matches!(b.first(), Some(b'+' | b'-')) {
        return 0;
    }
    let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
    match value[1..1 + digits].parse::<u64>() {
        Ok(x) if digits > 0 && x <= 23 => 1 + digits,
        _ => 0,
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

/// Month or day names as a layout element spells them: the first three letters (`Jan`, `Mon`)
/// or the whole name.
fn layout_names(names: &[&str], short: bool) -> Vec<String> {
    names
        .iter()
        .map(|n| {
            if short {
                n[..3].to_string()
            } else {
                n.to_string()
            }
        })
        .collect()
}
