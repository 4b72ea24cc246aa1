//! Times as Helm prints them: Go's `time.ANSIC`, `time.Time.String()`, JSON's RFC 3339 with
//! nanoseconds and `time.RFC3339`, in local time where Go uses it (`TZ`).

use jiff::Timestamp;
use kubepkg_gostd::time::{self as gotime, Location, RFC3339_NANO, Time};

/// Go's `time.ANSIC` in local time (`Mon Jan  2 15:04:05 2006`), as Helm prints LAST DEPLOYED;
/// empty without a time.
pub fn ansic(t: Option<Timestamp>) -> String {
    t.map(|t| ansic_in(t, &gotime::local())).unwrap_or_default()
}

/// Go's `time.Time.String()` (`2006-01-02 15:04:05.999999999 -0700 MST`) in local time, as
/// `helm list` prints UPDATED.
pub fn go_string(t: Timestamp) -> String {
    go_string_in(t, &gotime::local())
}

/// A time as Go's `time.Time` marshals to JSON (RFC 3339 with nanoseconds, trailing zeros
/// dropped), in local time (`Z` for UTC), as `helm history -o json` prints it.
pub fn go_json(t: Timestamp) -> String {
    go_json_in(t, &gotime::local())
}

/// Go's `time.RFC3339` of a UTC time (whole seconds), as `helm get metadata` prints
/// DEPLOYED_AT; Go's zero time without one.
pub fn rfc3339_utc(t: Option<Timestamp>) -> String {
    t.map(go_time)
        .unwrap_or_else(Time::zero)
        .format("2006-01-02T15:04:05Z07:00")
}

/// Go's zero `time.Time` (0001-01-01 00:00:00 UTC), printed when a record has no time.
pub fn go_zero() -> Timestamp {
    Timestamp::from_second(gotime::ZERO_UNIX_SECS).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// A record's time as Go's `time.Time` (UTC), for `kubepkg-gostd`'s formatting.
fn go_time(t: Timestamp) -> Time {
    Time::utc_unix(t.as_second(), t.subsec_nanosecond().unsigned_abs())
}

fn ansic_in(t: Timestamp, loc: &Location) -> String {
    go_time(t).in_location(loc).format(gotime::ANSIC)
}

fn go_string_in(t: Timestamp, loc: &Location) -> String {
    go_time(t).in_location(loc).string()
}

fn go_json_in(t: Timestamp, loc: &Location) -> String {
    go_time(t).in_location(loc).format(RFC3339_NANO)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's texts for the same instants (`TZ=UTC` and `TZ=Europe/Berlin`).
    #[test]
    fn go_forms_of_a_time() {
        let t: Timestamp = "2026-03-04T05:06:07.120Z".parse().unwrap();
        let utc = Location::Utc;
        assert_eq!(ansic_in(t, &utc), "Wed Mar  4 05:06:07 2026");
        assert_eq!(go_string_in(t, &utc), "2026-03-04 05:06:07.12 +0000 UTC");
        assert_eq!(go_json_in(t, &utc), "2026-03-04T05:06:07.12Z");
        assert_eq!(rfc3339_utc(Some(t)), "2026-03-04T05:06:07Z");
        assert_eq!(rfc3339_utc(None), "0001-01-01T00:00:00Z");
        assert_eq!(ansic(None), "");
        assert_eq!(go_json_in(go_zero(), &utc), "0001-01-01T00:00:00Z");
        let whole: Timestamp = "2026-03-04T05:06:07Z".parse().unwrap();
        assert_eq!(go_string_in(whole, &utc), "2026-03-04 05:06:07 +0000 UTC");
        if let Some(berlin) = gotime::load_location("Europe/Berlin") {
            assert_eq!(go_json_in(t, &berlin), "2026-03-04T06:06:07.12+01:00");
            assert_eq!(go_string_in(t, &berlin), "2026-03-04 06:06:07.12 +0100 CET");
        }
    }
}
