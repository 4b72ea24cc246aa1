//! Civil (proleptic Gregorian) dates: days since 1970-01-01 to and from year, month and day,
//! leap years and month lengths, for every year Go's `time` can represent. Go computes the
//! same in `time/time.go` (`absDate`, `daysIn`, `isLeap`); this is the days-from-civil
//! algorithm over 400-year eras, which agrees with it day for day.

/// The date `days` after 1970-01-01 (before it when negative): year, month 1–12, day 1–31.
pub fn from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days from 1970-01-01 to the date (month 1–12; a day past the month's end runs on).
pub fn to_days(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Whether `year` has a February 29th.
pub fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days in `month` (1–12) of `year`.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The weekday of the day `days` after 1970-01-01, 0 for Sunday (Go's `time.Weekday`).
pub fn weekday(days: i64) -> u32 {
    (days + 4).rem_euclid(7) as u32
}

/// The day of the year, 1–366, of the date `days` after 1970-01-01 (Go's `YearDay`).
pub fn year_day(days: i64) -> u32 {
    let (y, _, _) = from_days(days);
    (days - to_days(y, 1, 1) + 1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_over_eras() {
        for days in (-800_000..800_000).step_by(7) {
            let (y, m, d) = from_days(days);
            assert_eq!(to_days(y, m, d), days);
        }
        assert_eq!(from_days(0), (1970, 1, 1));
        assert_eq!(from_days(-719_162), (1, 1, 1));
        assert_eq!(weekday(0), 4);
        assert_eq!(year_day(to_days(2024, 12, 31)), 366);
    }
}
