//! Sprig's date functions over Go `time.Time`: `date`, `dateInZone`, `htmlDate`, `ago`,
//! `duration`, `durationRound`, `dateModify`, `toDate` and `unixEpoch`. Go's `time` itself
//! (layouts, zones, `Local`, durations) is `kubepkg_gostd::time`.

use std::sync::Arc;

use kubepkg_gostd::time::{self, Location};
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
    GoTime::zero()
}

/// `time.Now()` in the local zone.
pub fn now() -> GoTime {
    time::now()
}

fn date_in_zone(layout: &str, date: &Value, zone: &str) -> String {
    let t = match date {
        Value::Time(t) => (**t).clone(),
        Value::Int(i) | Value::Int64(i) => GoTime::utc_unix(*i, 0),
        _ => now(),
    };
    let z = time::load_location(zone).unwrap_or(Location::Utc);
    t.in_location(&z).format(layout)
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
        Location::Utc
    } else {
        zone_of(t)
    };
    Ok(Value::Time(Arc::new(match zone {
        Location::Utc if t.zone != "UTC" => GoTime {
            unix_secs: secs,
            nanos,
            offset_secs: t.offset_secs,
            zone: t.zone.clone(),
        },
        z => z.at(secs, nanos),
    })))
}

/// The zone a time was expressed in: the local zone if it matches, else a fixed offset.
fn zone_of(t: &GoTime) -> Location {
    let local = time::local();
    let probe = local.at(t.unix_secs, 0);
    if probe.offset_secs == t.offset_secs && probe.zone == t.zone {
        local
    } else {
        Location::Utc
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
    time::Duration(d).round(time::Duration(m)).nanos()
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
    time::duration_string(d)
}

/// `time.ParseDuration` in nanoseconds, with Go's error texts.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    time::parse_duration(s)
        .map(time::Duration::nanos)
        .map_err(|e| e.to_string())
}

/// `time.Time.Format(layout)`.
pub fn format_time(t: &GoTime, layout: &str) -> String {
    t.format(layout)
}

/// `time.Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
pub fn time_string(t: &GoTime) -> String {
    t.string()
}

/// `time.ParseInLocation(layout, value, time.Local)` with Go's error texts.
pub fn parse_in_local(layout: &str, value: &str) -> Result<GoTime, String> {
    time::parse_in_location(layout, value, &time::local()).map_err(|e| e.0)
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
        crate::assert_refusals(
            parse_duration,
            &[
                ("5x", "time: unknown unit \"x\" in duration \"5x\""),
                ("", "time: invalid duration \"\""),
            ],
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
