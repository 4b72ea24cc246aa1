//! Go's `time` as Helm's templates see it: [`Time`] (an instant with its zone offset and
//! abbreviation), its `String`, `Format` with Go's reference-time layouts and
//! `ParseInLocation` ([`format`]), zones ([`Location`]: `UTC`, Go's `Local`, `LoadLocation` from
//! the IANA database through jiff), [`Duration`] with `String`, `Round` and
//! [`parse_duration`], and civil dates ([`civil`]).
//!
//! Go's sources: `time/time.go` (`Time`, `Duration.String`, `Round`), `time/format.go`
//! (`Format`, `Parse`, `ParseDuration`, the error texts and their own `quote`),
//! `time/zoneinfo.go`, `zoneinfo_unix.go` and `zoneinfo_read.go` (`Local`, `LoadLocation`).

pub mod civil;
mod duration;
pub mod format;
mod zone;

pub use duration::{
    Duration, DurationError, HOUR, MICROSECOND, MILLISECOND, MINUTE, NANOSECOND, SECOND,
    duration_string, parse_duration,
};
pub use format::{ParseError, format, parse_in_location};
pub use zone::{Location, load_location, local};

/// An instant as Go's `time.Time` carries it: seconds and nanoseconds since the Unix epoch,
/// and the zone it is seen in: the offset in seconds east of UTC and the zone's abbreviation
/// (empty for a fixed offset without a name, which Go prints as the offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Time {
    pub unix_secs: i64,
    pub nanos: u32,
    pub offset_secs: i32,
    pub zone: String,
}

/// Seconds from the Unix epoch back to Go's zero time, January 1, year 1, 00:00:00 UTC.
pub const ZERO_UNIX_SECS: i64 = -62_135_596_800;

/// The layout of `Time.String`.
pub const STRING_LAYOUT: &str = "2006-01-02 15:04:05.999999999 -0700 MST";
/// Go's `time.RFC3339Nano`, the layout `Time.MarshalJSON` writes.
pub const RFC3339_NANO: &str = "2006-01-02T15:04:05.999999999Z07:00";

impl Time {
    /// Go's zero `time.Time`.
    pub fn zero() -> Time {
        Time::utc_unix(ZERO_UNIX_SECS, 0)
    }

    /// The instant `unix_secs` (plus `nanos`) in UTC.
    pub fn utc_unix(unix_secs: i64, nanos: u32) -> Time {
        Time {
            unix_secs,
            nanos,
            offset_secs: 0,
            zone: "UTC".into(),
        }
    }

    /// Go's `IsZero`.
    pub fn is_zero(&self) -> bool {
        self.unix_secs == ZERO_UNIX_SECS && self.nanos == 0
    }

    /// The same instant in UTC (Go's `UTC()`).
    pub fn utc(&self) -> Time {
        Time::utc_unix(self.unix_secs, self.nanos)
    }

    /// The same instant in `loc` (Go's `In`).
    pub fn in_location(&self, loc: &Location) -> Time {
        loc.at(self.unix_secs, self.nanos)
    }

    /// Days since 1970-01-01 of the wall-clock date in the time's own zone.
    pub fn local_days(&self) -> i64 {
        (self.unix_secs + i64::from(self.offset_secs)).div_euclid(86_400)
    }

    /// Seconds since midnight of the wall clock in the time's own zone.
    fn local_seconds_of_day(&self) -> i64 {
        (self.unix_secs + i64::from(self.offset_secs)).rem_euclid(86_400)
    }

    /// Go's `Date()`: year, month (1–12), day.
    pub fn date(&self) -> (i64, u32, u32) {
        civil::from_days(self.local_days())
    }

    /// Go's `Clock()`: hour, minute, second.
    pub fn clock(&self) -> (u32, u32, u32) {
        let s = self.local_seconds_of_day() as u32;
        (s / 3600, (s / 60) % 60, s % 60)
    }

    /// Go's `YearDay()`, 1–366.
    pub fn year_day(&self) -> u32 {
        civil::year_day(self.local_days())
    }

    /// Go's `Weekday()`, 0 for Sunday.
    pub fn weekday(&self) -> u32 {
        civil::weekday(self.local_days())
    }

    /// Go's `UnixNano` (wrapping, as Go's does, outside about 1678–2262).
    pub fn unix_nano(&self) -> i64 {
        self.unix_secs
            .wrapping_mul(1_000_000_000)
            .wrapping_add(i64::from(self.nanos))
    }

    /// Go's `Format(layout)`.
    pub fn format(&self, layout: &str) -> String {
        format(self, layout)
    }

    /// Go's `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST` (without the monotonic
    /// clock reading Go appends to a `time.Now()`).
    pub fn string(&self) -> String {
        format(self, STRING_LAYOUT)
    }
}

/// Go's `time.ANSIC` layout, as Helm prints LAST DEPLOYED and `history`'s UPDATED.
pub const ANSIC: &str = "Mon Jan _2 15:04:05 2006";

/// An RFC 3339 time (as records store them) seen in the local zone, as Helm's tables print
/// times (`.format(ANSIC)` for `history`, `.string()` for `list`); `None` if it is not one.
pub fn local_of_rfc3339(text: &str) -> Option<Time> {
    let local = local();
    format::parse_in_location("2006-01-02T15:04:05Z07:00", text, &local)
        .ok()
        .map(|t| t.in_location(&local))
}

/// Go's `time.Now()` in the local zone.
pub fn now() -> Time {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    local().at(d.as_secs() as i64, d.subsec_nanos())
}

/// The `quote` of Go's `time` package, used in all its error texts: unlike `strconv.Quote` it
/// writes every byte of a non-ASCII or control character as `\xNN`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if !c.is_ascii() || c < ' ' {
            let mut b = [0u8; 4];
            for byte in c.encode_utf8(&mut b).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}
