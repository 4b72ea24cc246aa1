//! Go's time zones (`time/zoneinfo.go`, `zoneinfo_unix.go`): [`Location`] is UTC or an IANA
//! zone. Go's `Local` is the `TZ` environment variable's zone (UTC when it is empty or names
//! no zone), else the zone `/etc/localtime` links to, else UTC. Zones come from the IANA
//! database as jiff finds it: the system's zoneinfo, which is what Go reads, or jiff's bundled
//! copy where the system has none.

use super::Time;

/// A zone to see instants in (Go's `*time.Location`).
#[derive(Debug, Clone)]
pub enum Location {
    Utc,
    Zone(jiff::tz::TimeZone),
}

impl PartialEq for Location {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Location::Utc, Location::Utc) => true,
            (Location::Zone(a), Location::Zone(b)) => a == b,
            _ => false,
        }
    }
}

/// An IANA zone by its exact name (Go's file names are case-sensitive; jiff's look-up is not).
fn iana(name: &str) -> Option<Location> {
    let tz = jiff::tz::TimeZone::get(name).ok()?;
    (tz.iana_name() == Some(name)).then_some(Location::Zone(tz))
}

/// Go's `time.Local`.
pub fn local() -> Location {
    match std::env::var("TZ") {
        Ok(tz) if tz.is_empty() || tz == "UTC" => Location::Utc,
        Ok(tz) => iana(tz.trim_start_matches(':')).unwrap_or(Location::Utc),
        Err(_) => std::fs::read_link("/etc/localtime")
            .ok()
            .and_then(|p| {
                let p = p.to_string_lossy().into_owned();
                p.split_once("zoneinfo/").and_then(|(_, name)| iana(name))
            })
            .unwrap_or(Location::Utc),
    }
}

/// Go's `time.LoadLocation(name)`: `""` and `"UTC"` are UTC, `"Local"` is [`local`], anything
/// else an IANA zone; `None` where Go returns an error.
pub fn load_location(name: &str) -> Option<Location> {
    match name {
        "" | "UTC" => Some(Location::Utc),
        "Local" => Some(local()),
        other => iana(other),
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

impl Location {
    /// The instant `unix_secs` (plus `nanos`) seen in this zone.
    pub fn at(&self, unix_secs: i64, nanos: u32) -> Time {
        let Location::Zone(tz) = self else {
            return Time::utc_unix(unix_secs, nanos);
        };
        // Beyond the years jiff covers, the zone's rule at its edge holds.
        let clamped = unix_secs.clamp(
            jiff::Timestamp::MIN.as_second() + 1,
            jiff::Timestamp::MAX.as_second() - 1,
        );
        let Ok(ts) = jiff::Timestamp::from_second(clamped) else {
            return Time::utc_unix(unix_secs, nanos);
        };
        let info = tz.to_offset_info(ts);
        let secs = info.offset().seconds();
        let abbr = info.abbreviation();
        Time {
            unix_secs,
            nanos,
            offset_secs: secs,
            zone: if abbr.is_empty() {
                numeric_zone(secs)
            } else {
                abbr.to_string()
            },
        }
    }

    /// Go's `lookupName`: the offset of the zone abbreviated `name`, preferring the one in
    /// force at `unix_secs`, else any the zone has ever used.
    pub fn offset_of_name(&self, name: &str, unix_secs: i64) -> Option<i32> {
        let guess = self.at(unix_secs, 0);
        if guess.zone == name {
            return Some(guess.offset_secs);
        }
        let Location::Zone(tz) = self else {
            return None;
        };
        tz.following(jiff::Timestamp::MIN)
            .take(10_000)
            .find(|t| t.abbreviation() == name)
            .map(|t| t.offset().seconds())
    }

    /// The instant whose wall clock here reads `wall_secs` seconds after 1970-01-01 00:00
    /// (Go's `time.Date` in a location; the oracle checks the gaps and overlaps of DST).
    pub fn from_wall(&self, wall_secs: i64, nanos: u32) -> Time {
        match self {
            Location::Utc => Time::utc_unix(wall_secs, nanos),
            Location::Zone(_) => {
                let guess = self.at(wall_secs, nanos);
                let unix = wall_secs - i64::from(guess.offset_secs);
                let t = self.at(unix, nanos);
                if t.offset_secs == guess.offset_secs {
                    t
                } else {
                    self.at(wall_secs - i64::from(t.offset_secs), nanos)
                }
            }
        }
    }
}
