//! Timestamps as logs write them, converted to Unix seconds without
//! allocating.
//!
//! The Apache/nginx `[10/Oct/2000:13:55:36 -0700]` form is the hot path and
//! is read by hand; ISO 8601 and epoch numbers likewise. Only `strftime`
//! formats given in a `%{...}t` directive go through jiff.

use crate::record::Timestamp;

/// Days since 1970-01-01 of a proleptic Gregorian date (which must be
/// valid), by counting whole 400-year eras from 0000-03-01.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Years start in March so that the leap day is the last day of a year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400; // 0..=399
    let month_from_march = i64::from((month + 9) % 12); // March = 0
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    // 719_468 days lie between 0000-03-01 and 1970-01-01.
    era * 146_097 + day_of_era - 719_468
}

/// Whether `year` has a 29 February.
pub(crate) fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days of a month (1–12) in a year.
fn month_days(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Unix seconds of a civil time, or `None` when a field is out of range.
/// A second of 60 (a leap second) is accepted and counts as the next
/// minute's first second.
fn civil_to_unix(year: i64, month: u32, day: u32, hour: u32, min: u32, sec: u32) -> Option<i64> {
    if !(1..=12).contains(&month)
        || day == 0
        || day > month_days(year, month)
        || hour > 23
        || min > 59
        || sec > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(days * 86_400 + i64::from(hour * 3600 + min * 60 + sec))
}

/// The value of `N` ASCII digits, or `None`.
fn digits(b: &[u8]) -> Option<u32> {
    let mut v: u32 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u32::from(d);
    }
    Some(v)
}

/// A three-letter English month name, any case: its number.
pub(crate) fn month_number(b: &[u8]) -> Option<u32> {
    if b.len() < 3 {
        return None;
    }
    month_of(b)
}

/// A three-letter English month name, any case.
fn month_of(b: &[u8]) -> Option<u32> {
    let m = [b[0] | 0x20, b[1] | 0x20, b[2] | 0x20];
    Some(match &m {
        b"jan" => 1,
        b"feb" => 2,
        b"mar" => 3,
        b"apr" => 4,
        b"may" => 5,
        b"jun" => 6,
        b"jul" => 7,
        b"aug" => 8,
        b"sep" => 9,
        b"oct" => 10,
        b"nov" => 11,
        b"dec" => 12,
        _ => return None,
    })
}

/// `+hhmm`, `-hhmm`, `+hh:mm`, `+hh`, as seconds east of UTC.
fn offset_of(b: &[u8]) -> Option<i32> {
    let (&sign, rest) = b.split_first()?;
    let sign = match sign {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, m) = match rest.len() {
        2 => (digits(rest)?, 0),
        4 => (digits(&rest[..2])?, digits(&rest[2..])?),
        5 if rest[2] == b':' => (digits(&rest[..2])?, digits(&rest[3..])?),
        _ => return None,
    };
    if h > 23 || m > 59 {
        return None;
    }
    Some(sign * i32::try_from(h * 3600 + m * 60).ok()?)
}

/// The common log format time, `10/Oct/2000:13:55:36 -0700`, with or
/// without its brackets. The exact 26-byte form is read first; then the
/// variants real servers write: fractional seconds
/// (`13:55:36.123`, HAProxy), no zone (`13:55:36`, taken as UTC), a zone
/// written `+05:30`, `+05`, `Z`, `UTC` or `GMT`, and a one-digit day.
pub(crate) fn parse_clf(s: &str) -> Option<Timestamp> {
    let mut b = s.as_bytes();
    if let [b'[', inner @ .., b']'] = b {
        b = inner;
    }
    clf_exact(b).or_else(|| clf_lenient(b))
}

/// `dd/Mon/yyyy:HH:MM:SS +zzzz`, exactly.
fn clf_exact(b: &[u8]) -> Option<Timestamp> {
    if b.len() != 26
        || b[2] != b'/'
        || b[6] != b'/'
        || b[11] != b':'
        || b[14] != b':'
        || b[17] != b':'
        || b[20] != b' '
    {
        return None;
    }
    let day = digits(&b[0..2])?;
    let month = month_of(&b[3..6])?;
    let year = digits(&b[7..11])?;
    let hour = digits(&b[12..14])?;
    let min = digits(&b[15..17])?;
    let sec = digits(&b[18..20])?;
    let offset = offset_of(&b[21..26])?;
    let local = civil_to_unix(i64::from(year), month, day, hour, min, sec)?;
    Some(Timestamp {
        unix: local - i64::from(offset),
        offset,
    })
}

/// The variants of [`clf_exact`] that [`parse_clf`] also reads.
fn clf_lenient(b: &[u8]) -> Option<Timestamp> {
    let b = b.trim_ascii();
    let day_len = b.iter().position(|&c| c == b'/')?;
    if !(1..=2).contains(&day_len) {
        return None;
    }
    let day = digits(&b[..day_len])?;
    let b = &b[day_len..];
    // /Mon/yyyy:HH:MM:SS
    if b.len() < 18
        || b[0] != b'/'
        || b[4] != b'/'
        || b[9] != b':'
        || b[12] != b':'
        || b[15] != b':'
    {
        return None;
    }
    let month = month_of(&b[1..4])?;
    let year = digits(&b[5..9])?;
    let hour = digits(&b[10..12])?;
    let min = digits(&b[13..15])?;
    let sec = digits(&b[16..18])?;
    let mut rest = &b[18..];
    if let [b'.' | b',', frac @ ..] = rest {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        rest = &frac[n..];
    }
    let zone = rest.trim_ascii_start();
    if !rest.is_empty() && zone.len() == rest.len() {
        // Something glued to the seconds.
        return None;
    }
    let offset = match zone {
        [] | b"Z" | b"z" | b"UTC" | b"GMT" | b"utc" | b"gmt" => 0,
        _ => offset_of(zone)?,
    };
    let local = civil_to_unix(i64::from(year), month, day, hour, min, sec)?;
    Some(Timestamp {
        unix: local - i64::from(offset),
        offset,
    })
}

/// ISO 8601 / RFC 3339: `2000-10-10T13:55:36`, a space instead of the `T`,
/// optional fractional seconds (`.` or `,`), and `Z`, `+hh:mm`, `+hhmm` or
/// `+hh`; without an offset the time is taken as UTC.
pub(crate) fn parse_iso(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let year = digits(&b[0..4])?;
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let hour = digits(&b[11..13])?;
    let min = digits(&b[14..16])?;
    let sec = digits(&b[17..19])?;
    let mut rest = &b[19..];
    if let [b'.' | b',', frac @ ..] = rest {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        rest = &frac[n..];
    }
    let offset = match rest {
        [] | [b'Z' | b'z'] => 0,
        _ => offset_of(rest)?,
    };
    let local = civil_to_unix(i64::from(year), month, day, hour, min, sec)?;
    Some(Timestamp {
        unix: local - i64::from(offset),
        offset,
    })
}

/// A W3C extended log's `date` and `time` fields, `2012-04-01` and
/// `00:00:13` (fractional seconds allowed), in UTC as the format has them.
pub(crate) fn parse_date_time(date: &str, time: &str) -> Option<Timestamp> {
    let d = date.as_bytes();
    let t = time.as_bytes();
    if d.len() != 10 || d[4] != b'-' || d[7] != b'-' || t.len() < 8 || t[2] != b':' || t[5] != b':'
    {
        return None;
    }
    match &t[8..] {
        [] => {}
        [b'.' | b',', frac @ ..] if !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) => {}
        _ => return None,
    }
    let unix = civil_to_unix(
        i64::from(digits(&d[0..4])?),
        digits(&d[5..7])?,
        digits(&d[8..10])?,
        digits(&t[0..2])?,
        digits(&t[3..5])?,
        digits(&t[6..8])?,
    )?;
    Some(Timestamp { unix, offset: 0 })
}

/// Seconds since the epoch written as `digits[.digits]`, in units of
/// `1 / per_second` seconds (1 for seconds, 1000 for milliseconds…);
/// the fraction is dropped.
pub(crate) fn parse_epoch(s: &str, per_second: i64) -> Option<Timestamp> {
    let b = s.as_bytes();
    let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int_len == 0 || int_len > 18 {
        return None;
    }
    match &b[int_len..] {
        [] => {}
        [b'.', frac @ ..] if !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) => {}
        _ => return None,
    }
    let mut v: i64 = 0;
    for &c in &b[..int_len] {
        v = v * 10 + i64::from(c - b'0');
    }
    Some(Timestamp {
        unix: v / per_second,
        offset: 0,
    })
}

/// An epoch number whose unit is guessed from its size: up to 11 integer
/// digits are seconds, 12–14 milliseconds, 15–17 microseconds, more
/// nanoseconds (for JSON logs, where the key does not say).
pub(crate) fn parse_epoch_guess(s: &str) -> Option<Timestamp> {
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let per_second = match int_len {
        0..=11 => 1,
        12..=14 => 1_000,
        15..=17 => 1_000_000,
        _ => 1_000_000_000,
    };
    parse_epoch(s, per_second)
}

/// Any of the textual forms: brackets or `dd/` mean the common log format,
/// digits and a dot an epoch number, anything else ISO 8601.
pub(crate) fn parse_any(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.first() == Some(&b'[') || b.get(2) == Some(&b'/') {
        parse_clf(s)
    } else if b.iter().all(|&c| c.is_ascii_digit() || c == b'.') {
        parse_epoch_guess(s)
    } else {
        parse_iso(s)
    }
}

/// A `strftime` format (as Apache's `%{format}t` has it) read from the start
/// of `s`: the time and the number of bytes it took. Without `%z` in the
/// format the time is taken as UTC.
pub(crate) fn parse_strftime(format: &str, s: &str) -> Option<(Timestamp, usize)> {
    let (tm, used) = jiff::fmt::strtime::BrokenDownTime::parse_prefix(format, s).ok()?;
    let (ts, offset) = match tm.offset() {
        Some(off) => (tm.to_timestamp().ok()?, off.seconds()),
        None => {
            let dt = tm.to_datetime().ok()?;
            (jiff::tz::Offset::UTC.to_timestamp(dt).ok()?, 0)
        }
    };
    Some((
        Timestamp {
            unix: ts.as_second(),
            offset,
        },
        used,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_log_times_as_servers_write_them() {
        let t = |s: &str| parse_clf(s).map(|t| (t.unix, t.offset));
        let exact = Some((971_211_336, -7 * 3600));
        assert_eq!(t("[10/Oct/2000:13:55:36 -0700]"), exact);
        assert_eq!(t("10/Oct/2000:13:55:36 -0700"), exact);
        assert_eq!(t("[10/Oct/2000:13:55:36.123 -0700]"), exact);
        assert_eq!(t("[10/Oct/2000:13:55:36 -07:00]"), exact);
        assert_eq!(t("[10/Oct/2000:13:55:36 -07]"), exact);
        assert_eq!(t("[10/Oct/2000:20:55:36]"), Some((971_211_336, 0)));
        assert_eq!(t("[10/Oct/2000:20:55:36 ]"), Some((971_211_336, 0)));
        assert_eq!(t("[10/Oct/2000:20:55:36.584]"), Some((971_211_336, 0)));
        assert_eq!(t("[10/Oct/2000:20:55:36 UTC]"), Some((971_211_336, 0)));
        assert_eq!(t("[10/Oct/2000:20:55:36 GMT]"), Some((971_211_336, 0)));
        assert_eq!(t("[10/Oct/2000:20:55:36 Z]"), Some((971_211_336, 0)));
        assert_eq!(
            t("[1/Oct/2000:20:55:36 +0000]").map(|t| t.0),
            Some(970_433_736)
        );
        for bad in [
            "[10/Oct/2000:13:55:36 -0700 x]",
            "[10/Oct/2000:13:55:36x]",
            "[10/Oct/2000:13:55:36 CEST]",
            "[10/Foo/2000:13:55:36 -0700]",
            "[100/Oct/2000:13:55:36 -0700]",
            "[10/Oct/2000:25:55:36 -0700]",
            "[10/Oct/2000:13:55:3]",
            "[10/Oct/2000:13:55:36.]",
            "[]",
            "-",
        ] {
            assert_eq!(t(bad), None, "{bad}");
        }
    }

    #[test]
    fn days_match_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
    }

    #[test]
    fn every_day_of_four_centuries_follows_the_previous() {
        let mut expect = days_from_civil(1900, 1, 1);
        for year in 1900..2300 {
            for month in 1..=12 {
                for day in 1..=month_days(year, month) {
                    assert_eq!(
                        days_from_civil(year, month, day),
                        expect,
                        "{year}-{month}-{day}"
                    );
                    expect += 1;
                }
            }
        }
    }
}
