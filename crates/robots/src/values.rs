//! Typed values of the non-rule directives: `crawl-delay`, `request-rate`,
//! `visit-time`, `clean-param`.

/// A time of day, minutes after midnight (0..1440).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay(pub u16);

impl TimeOfDay {
    /// Hours (0–23).
    #[must_use]
    pub const fn hour(self) -> u16 {
        self.0 / 60
    }

    /// Minutes (0–59).
    #[must_use]
    pub const fn minute(self) -> u16 {
        self.0 % 60
    }

    /// Reads `HHMM` (four digits, hours below 24, minutes below 60).
    #[must_use]
    pub fn parse_hhmm(s: &str) -> Option<TimeOfDay> {
        let b = s.as_bytes();
        if b.len() != 4 || !b.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let h = u16::from(b[0] - b'0') * 10 + u16::from(b[1] - b'0');
        let m = u16::from(b[2] - b'0') * 10 + u16::from(b[3] - b'0');
        (h < 24 && m < 60).then_some(TimeOfDay(h * 60 + m))
    }
}

impl std::fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}:{:02}", self.hour(), self.minute())
    }
}

/// A `visit-time` window (1996 extended standard): `0600-0845`, also
/// written `0600 0845`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VisitTime {
    /// Start of the window (UTC).
    pub start: TimeOfDay,
    /// End of the window (UTC).
    pub end: TimeOfDay,
}

impl VisitTime {
    /// Reads `HHMM-HHMM` or `HHMM HHMM`.
    #[must_use]
    pub fn parse(value: &str) -> Option<VisitTime> {
        let value = value.trim();
        let (a, b) = value
            .split_once('-')
            .or_else(|| value.split_once(char::is_whitespace))?;
        Some(VisitTime {
            start: TimeOfDay::parse_hhmm(a.trim())?,
            end: TimeOfDay::parse_hhmm(b.trim())?,
        })
    }
}

/// A `request-rate` (1996 extended standard): `n/t[s|m|h|d]`, optionally
/// followed by a `HHMM-HHMM` window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestRate {
    /// Number of requests...
    pub requests: u32,
    /// ...per this many seconds.
    pub seconds: u32,
    /// When the rate applies, if restricted.
    pub window: Option<VisitTime>,
}

impl RequestRate {
    /// Reads `1/10`, `1/10s`, `100/15m`, `400/1h`, `9000/1d`,
    /// `1/10s 1820-1940`. Zero or negative numbers are rejected.
    #[must_use]
    pub fn parse(value: &str) -> Option<RequestRate> {
        let mut parts = value.split_whitespace();
        let rate = parts.next()?;
        let window = match parts.next() {
            Some(w) => Some(VisitTime::parse(w)?),
            None => None,
        };
        if parts.next().is_some() {
            return None;
        }
        let (n, t) = rate.split_once('/')?;
        let requests: u32 = parse_positive(n)?;
        let (digits, unit) = match t.as_bytes().last()? {
            b's' | b'S' => (&t[..t.len() - 1], 1),
            b'm' | b'M' => (&t[..t.len() - 1], 60),
            b'h' | b'H' => (&t[..t.len() - 1], 3600),
            b'd' | b'D' => (&t[..t.len() - 1], 86_400),
            _ => (t, 1),
        };
        let seconds = parse_positive(digits)?.checked_mul(unit)?;
        Some(RequestRate {
            requests,
            seconds,
            window,
        })
    }
}

fn parse_positive(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&n| n > 0)
}

/// Reads a `crawl-delay`: a finite, non-negative number of seconds
/// (decimals allowed).
#[must_use]
pub fn parse_crawl_delay(value: &str) -> Option<f64> {
    let v = value.trim();
    let well_formed = !v.is_empty()
        && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && v.bytes().filter(|&b| b == b'.').count() <= 1
        && v != ".";
    well_formed.then(|| v.parse::<f64>().ok()).flatten()
}

/// A Yandex `clean-param`: `p1&p2 [/path-prefix]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CleanParam {
    /// The parameter names.
    pub params: Vec<String>,
    /// The path prefix the parameters are cleaned on (`None`: every path).
    pub path: Option<String>,
}

impl CleanParam {
    /// Reads `p1&p2 /path`.
    #[must_use]
    pub fn parse(value: &str) -> Option<CleanParam> {
        let mut parts = value.split_whitespace();
        let params: Vec<String> = parts
            .next()?
            .split('&')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        let path = parts.next().map(str::to_owned);
        if params.is_empty() || parts.next().is_some() {
            return None;
        }
        Some(CleanParam { params, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_rates() {
        let r = RequestRate::parse("100/15m").unwrap();
        assert_eq!((r.requests, r.seconds), (100, 900));
        let r = RequestRate::parse("1/10s 1820-1940").unwrap();
        assert_eq!(r.window.unwrap().start.to_string(), "18:20");
        for bad in [
            "one/two", "5", "-1/5", "0/5", "1/0", "0/0", "1/-5", "1/5 9-17",
        ] {
            assert_eq!(RequestRate::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn crawl_delays() {
        assert_eq!(parse_crawl_delay("10"), Some(10.0));
        assert_eq!(parse_crawl_delay("0.5"), Some(0.5));
        for bad in ["-5", "inf", "nan", "random_word", "", "1.2.3"] {
            assert_eq!(parse_crawl_delay(bad), None, "{bad}");
        }
    }

    #[test]
    fn visit_times() {
        assert!(VisitTime::parse("0400-0845").is_some());
        assert!(VisitTime::parse("0200 0630").is_some());
        for bad in [
            "9-17",
            "900",
            "0400-",
            "0400-0845-1000",
            "2500-2600",
            "abcd-efgh",
        ] {
            assert_eq!(VisitTime::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn clean_params() {
        let c = CleanParam::parse("ref&sid /forum/").unwrap();
        assert_eq!(c.params, ["ref", "sid"]);
        assert_eq!(c.path.as_deref(), Some("/forum/"));
    }
}
