//! Page-level robots directives: the robots `<meta>` tags and the
//! `X-Robots-Tag` and `Robots-Tag` headers, read for one crawler's token
//! chain.
//!
//! What applies to a crawler whose tokens are `botwarden-phone, botwarden`:
//! - `<meta name="robots" content="…">`, and `<meta name="T" …>` for every
//!   token `T` of the chain (names compared without ASCII case);
//! - `X-Robots-Tag: …` without an agent, and `X-Robots-Tag: T: …` for every
//!   token of the chain. One header may hold several agents' lists
//!   (`googlebot: nofollow, otherbot: noindex`): a `name:` that is not a
//!   directive starts the next agent's list. Several headers add up.
//!
//! - `Robots-Tag: …` (draft-illyes-repext-03): an RFC 9651 List of
//!   product tokens (or `*`) whose parameters are the rules
//!   (`*;nosnippet, ExampleBot;noindex`); the members naming `*` or a
//!   token of the chain apply. A value that is not a valid List is
//!   ignored, as RFC 9651 asks ([`PageDirectives::add_robots_tag`] says
//!   why). Both headers are read, and their rules add up.
//!
//! Everything that applies is kept with where it came from, and the most
//! restrictive wins: one `noindex` from any source makes the page
//! `noindex`, whatever an `all` or `index` elsewhere says. `none` is
//! `noindex` and `nofollow` at once.
//! `unavailable_after: DATE` keeps its text and, when it is a date in one
//! of the forms the web uses (RFC 1123 / 850 / asctime, RFC 3339, or
//! `25 Jun 2010 15:00:00 PST`-like text), the time; the page counts as
//! `noindex` once that time has passed ([`PageDirectives::noindex_at`]).

use std::fmt;
use std::time::SystemTime;

/// One directive's word.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `noindex` (or half of `none`).
    NoIndex,
    /// `nofollow` (or half of `none`).
    NoFollow,
    /// `noarchive`.
    NoArchive,
    /// `nosnippet`.
    NoSnippet,
    /// `noimageindex`.
    NoImageIndex,
    /// `unavailable_after: DATE`.
    UnavailableAfter,
    /// `all`, `index` or `follow`: allows, never overrides a restriction.
    Allow,
    /// Anything else (`max-snippet: 20`, `notranslate`, `noai`, …), as
    /// written in lower case.
    Other(String),
}

/// Where a directive was read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A `<meta name="NAME">` tag (`robots` or a token of the chain).
    Meta {
        /// The name as written.
        name: String,
    },
    /// An `X-Robots-Tag` header, for every robot (`agent` is `None`) or
    /// for the one named.
    Header {
        /// The agent before `:`, as written.
        agent: Option<String>,
    },
    /// A `Robots-Tag` header's member for `*` or a token of the chain.
    RobotsTag {
        /// The member's product token (`*`), as written.
        token: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Meta { name } => write!(f, "<meta name=\"{name}\">"),
            Origin::Header { agent: None } => f.write_str("X-Robots-Tag"),
            Origin::Header { agent: Some(a) } => write!(f, "X-Robots-Tag ({a}:)"),
            Origin::RobotsTag { token } => write!(f, "Robots-Tag ({token})"),
        }
    }
}

/// One directive that applies to the crawler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The word.
    pub kind: Kind,
    /// Where it was read.
    pub origin: Origin,
    /// The value after `:` (`unavailable_after`, `max-snippet`), trimmed.
    pub value: Option<String>,
    /// Whether it came from `none`.
    pub from_none: bool,
}

/// Every directive of one page that applies to one crawler.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageDirectives {
    list: Vec<Directive>,
}

/// Directive words that take a value after `:`; any other `word:` in an
/// `X-Robots-Tag` names an agent.
const VALUED: &[&str] = &[
    "unavailable_after",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
];

impl PageDirectives {
    /// None yet.
    #[must_use]
    pub fn new() -> Self {
        PageDirectives::default()
    }

    /// Every directive kept, in the order read.
    #[must_use]
    pub fn all(&self) -> &[Directive] {
        &self.list
    }

    /// Reads a `<meta name content>` tag: kept if `name` is `robots` or a
    /// token of `chain`.
    pub fn add_meta(&mut self, name: &str, content: &str, chain: &[String]) {
        let name = name.trim();
        if !name.eq_ignore_ascii_case("robots")
            && !chain.iter().any(|t| t.eq_ignore_ascii_case(name))
        {
            return;
        }
        let origin = Origin::Meta {
            name: name.to_owned(),
        };
        for item in content.split(',') {
            if self.continues_date(item) {
                continue;
            }
            let (word, value) = match item.split_once(':') {
                Some((w, v)) => (w, Some(v)),
                None => (item, None),
            };
            self.push(word, value, &origin);
        }
    }

    /// A date's own comma (`unavailable_after: Fri, 25 Jun 2010 …`): an
    /// item that is no directive word and no `agent:` right after an
    /// `unavailable_after` is the rest of its value.
    fn continues_date(&mut self, item: &str) -> bool {
        let Some(last) = self.list.last_mut() else {
            return false;
        };
        if last.kind != Kind::UnavailableAfter {
            return false;
        }
        let head = item.split(':').next().unwrap_or("").trim();
        let is_word = !head.is_empty()
            && head
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && !head.bytes().all(|b| b.is_ascii_digit());
        if is_word {
            return false;
        }
        let value = last.value.get_or_insert_with(String::new);
        value.push_str(", ");
        value.push_str(item.trim());
        true
    }

    /// Reads one `X-Robots-Tag` header's value.
    pub fn add_header(&mut self, value: &str, chain: &[String]) {
        let mut applies = true;
        let mut origin = Origin::Header { agent: None };
        for item in value.split(',') {
            if applies && self.continues_date(item) {
                continue;
            }
            let mut item = item;
            // `agent: word` or `word: value`.
            if let Some((head, rest)) = item.split_once(':') {
                let head_lc = head.trim().to_ascii_lowercase();
                if !VALUED.contains(&head_lc.as_str())
                    && !head_lc.is_empty()
                    && !head_lc.contains(char::is_whitespace)
                {
                    let agent = head.trim();
                    applies = chain.iter().any(|t| t.eq_ignore_ascii_case(agent));
                    origin = Origin::Header {
                        agent: Some(agent.to_owned()),
                    };
                    item = rest;
                }
            }
            if !applies {
                continue;
            }
            let (word, value) = match item.split_once(':') {
                Some((w, v)) => (w, Some(v)),
                None => (item, None),
            };
            self.push(word, value, &origin);
        }
    }

    /// Reads one `Robots-Tag` header's value; a value that is not an
    /// RFC 9651 List is ignored, and the error returned.
    ///
    /// # Errors
    /// Why the value is not a List (where, and what was expected).
    pub fn add_robots_tag(
        &mut self,
        value: &str,
        chain: &[String],
    ) -> Result<(), botwarden_robots::prefs::sf::SfError> {
        use botwarden_robots::prefs::sf::{Bare, parse_list};
        for member in parse_list(value)? {
            let Some(token) = member.item().and_then(Bare::as_token) else {
                continue;
            };
            let applies = token == "*" || chain.iter().any(|t| t.eq_ignore_ascii_case(token));
            if !applies {
                continue;
            }
            let origin = Origin::RobotsTag {
                token: token.to_owned(),
            };
            for (rule, v) in member.params() {
                let value = match v {
                    Bare::Boolean(true) => None,
                    Bare::String(s) | Bare::Token(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                };
                self.push(rule, value.as_deref(), &origin);
            }
        }
        Ok(())
    }

    fn push(&mut self, word: &str, value: Option<&str>, origin: &Origin) {
        let word = word.trim().to_ascii_lowercase();
        let value = value.map(|v| v.trim().to_owned());
        let mut add = |kind: Kind, from_none: bool| {
            self.list.push(Directive {
                kind,
                origin: origin.clone(),
                value: value.clone(),
                from_none,
            });
        };
        match word.as_str() {
            "" => {}
            "none" => {
                add(Kind::NoIndex, true);
                add(Kind::NoFollow, true);
            }
            "noindex" => add(Kind::NoIndex, false),
            "nofollow" => add(Kind::NoFollow, false),
            "noarchive" => add(Kind::NoArchive, false),
            "nosnippet" => add(Kind::NoSnippet, false),
            "noimageindex" => add(Kind::NoImageIndex, false),
            "unavailable_after" => add(Kind::UnavailableAfter, false),
            "all" | "index" | "follow" => add(Kind::Allow, false),
            _ => add(Kind::Other(word), false),
        }
    }

    /// The first directive of this kind, if any: its presence is the
    /// answer (the most restrictive wins).
    #[must_use]
    pub fn find(&self, kind: &Kind) -> Option<&Directive> {
        self.list.iter().find(|d| &d.kind == kind)
    }

    /// The `nofollow` that applies, if any.
    #[must_use]
    pub fn nofollow(&self) -> Option<&Directive> {
        self.find(&Kind::NoFollow)
    }

    /// The `noindex` that applies, if any (not counting
    /// `unavailable_after`: see [`PageDirectives::noindex_at`]).
    #[must_use]
    pub fn noindex(&self) -> Option<&Directive> {
        self.find(&Kind::NoIndex)
    }

    /// What makes the page `noindex` at `now`: a `noindex`, or an
    /// `unavailable_after` whose time has passed.
    #[must_use]
    pub fn noindex_at(&self, now: SystemTime) -> Option<&Directive> {
        self.noindex().or_else(|| {
            self.list.iter().find(|d| {
                d.kind == Kind::UnavailableAfter
                    && d.value
                        .as_deref()
                        .and_then(parse_date)
                        .is_some_and(|t| t <= now)
            })
        })
    }
}

/// A date as `unavailable_after` values write it.
#[must_use]
pub fn parse_date(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    if let Ok(t) = httpdate::parse_http_date(text) {
        return Some(t);
    }
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(SystemTime::from(ts));
    }
    if let Ok(dt) = text.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(SystemTime::from);
    }
    if let Ok(d) = text.parse::<jiff::civil::Date>() {
        return d
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(SystemTime::from);
    }
    // `25 Jun 2010 15:00:00 PST`, `Friday, 25-Jun-2010 15:00:00 EST`:
    // day, month, year, time, zone abbreviation.
    loose_date(text)
}

/// Zone abbreviations that dates on the web use, with their UTC offset.
const ZONES: &[(&str, i8)] = &[
    ("UTC", 0),
    ("GMT", 0),
    ("UT", 0),
    ("Z", 0),
    ("EST", -5),
    ("EDT", -4),
    ("CST", -6),
    ("CDT", -5),
    ("MST", -7),
    ("MDT", -6),
    ("PST", -8),
    ("PDT", -7),
    ("CET", 1),
    ("CEST", 2),
];

fn loose_date(text: &str) -> Option<SystemTime> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_ascii_whitespace() || c == ',' || c == '-')
        .filter(|w| !w.is_empty())
        .collect();
    let month_of = |w: &str| {
        let w = w.get(..3)?.to_ascii_lowercase();
        let m = [
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ]
        .iter()
        .position(|m| *m == w)?;
        i8::try_from(m + 1).ok()
    };
    let mut day = None;
    let mut month = None;
    let mut year = None;
    let mut time = (0i8, 0i8, 0i8);
    let mut offset_hours = 0i8;
    for w in words {
        if let Some(m) = month_of(w).filter(|_| w.len() <= 9 && month.is_none()) {
            month = Some(m);
        } else if w.contains(':') {
            let mut parts = w.split(':').map(str::parse::<i8>);
            time = (
                parts.next()?.ok()?,
                parts.next().unwrap_or(Ok(0)).ok()?,
                parts.next().unwrap_or(Ok(0)).ok()?,
            );
        } else if let Ok(n) = w.parse::<i16>() {
            if day.is_none() && (1..=31).contains(&n) && n < 100 {
                day = Some(n);
            } else {
                year = Some(if n < 100 { 2000 + n } else { n });
            }
        } else {
            let upper = w.to_ascii_uppercase();
            if let Some((_, h)) = ZONES.iter().find(|(z, _)| *z == upper) {
                offset_hours = *h;
            }
        }
    }
    let date = jiff::civil::Date::new(year?, month?, i8::try_from(day?).ok()?).ok()?;
    let dt = date.to_datetime(jiff::civil::Time::new(time.0, time.1, time.2, 0).ok()?);
    let offset = jiff::tz::Offset::from_hours(offset_hours).ok()?;
    let ts = offset.to_timestamp(dt).ok()?;
    Some(SystemTime::from(ts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Vec<String> {
        vec!["botwarden-phone".into(), "botwarden".into()]
    }

    fn kinds(d: &PageDirectives) -> Vec<(Kind, String)> {
        d.all()
            .iter()
            .map(|d| (d.kind.clone(), d.origin.to_string()))
            .collect()
    }

    #[test]
    fn meta_robots_and_the_chains_names_apply_others_do_not() {
        let mut d = PageDirectives::new();
        d.add_meta("ROBOTS", "index, NoFollow", &chain());
        d.add_meta("googlebot", "noindex", &chain());
        d.add_meta("Botwarden", "noarchive", &chain());
        d.add_meta("description", "noindex", &chain());
        assert_eq!(
            kinds(&d),
            [
                (Kind::Allow, "<meta name=\"ROBOTS\">".into()),
                (Kind::NoFollow, "<meta name=\"ROBOTS\">".into()),
                (Kind::NoArchive, "<meta name=\"Botwarden\">".into()),
            ]
        );
        assert!(d.noindex().is_none());
        assert!(d.nofollow().is_some());
    }

    /// draft-illyes-repext-03 §2.3's example: `*;nosnippet,
    /// ExampleBot;noindex` gives ExampleBot both rules, every other robot
    /// `nosnippet`; the union with `X-Robots-Tag` is taken.
    #[test]
    fn robots_tag_members_for_star_and_the_chain_add_up() {
        let example = vec!["examplebot".to_owned()];
        let mut d = PageDirectives::new();
        d.add_robots_tag("*;nosnippet, ExampleBot;noindex", &example)
            .expect("a valid List");
        assert_eq!(
            kinds(&d),
            [
                (Kind::NoSnippet, "Robots-Tag (*)".into()),
                (Kind::NoIndex, "Robots-Tag (ExampleBot)".into()),
            ]
        );
        let mut d = PageDirectives::new();
        d.add_robots_tag("*;nosnippet, ExampleBot;noindex", &chain())
            .expect("a valid List");
        assert!(d.noindex().is_none());
        d.add_header("nofollow", &chain());
        d.add_robots_tag(
            "botwarden;noindex;unavailable_after=\"2020-01-01\"",
            &chain(),
        )
        .expect("a valid List");
        assert!(d.nofollow().is_some());
        assert_eq!(
            d.noindex().map(|x| x.origin.to_string()).as_deref(),
            Some("Robots-Tag (botwarden)")
        );
        assert!(
            d.all()
                .iter()
                .any(|x| x.kind == Kind::UnavailableAfter
                    && x.value.as_deref() == Some("2020-01-01"))
        );
    }

    #[test]
    fn a_robots_tag_that_is_no_list_is_ignored_and_says_why() {
        let mut d = PageDirectives::new();
        let e = d
            .add_robots_tag("botwarden: noindex", &chain())
            .expect_err("not a List");
        // `botwarden:` is a token; the rule after a space is not a member.
        assert!(e.to_string().contains("byte 12"), "{e}");
        // Upper-case rules are not RFC 9651 keys.
        assert!(d.add_robots_tag("*;NoIndex", &chain()).is_err());
        assert!(d.all().is_empty());
        // A bare token names a robot: `noindex` alone is no rule.
        d.add_robots_tag("noindex", &chain()).expect("a valid List");
        assert!(d.all().is_empty());
    }

    #[test]
    fn none_is_noindex_and_nofollow() {
        let mut d = PageDirectives::new();
        d.add_meta("robots", "none", &chain());
        let ni = d.noindex().expect("noindex");
        assert!(ni.from_none);
        assert!(d.nofollow().expect("nofollow").from_none);
    }

    #[test]
    fn headers_with_and_without_agents() {
        let mut d = PageDirectives::new();
        d.add_header("noarchive", &chain());
        d.add_header(
            "googlebot: nofollow, botwarden: noindex, nosnippet",
            &chain(),
        );
        d.add_header("otherbot: noindex, nofollow", &chain());
        d.add_header("unavailable_after: 25 Jun 2010 15:00:00 PST", &chain());
        d.add_header("max-snippet: 20, botwarden-phone: nofollow", &chain());
        let got = kinds(&d);
        assert_eq!(
            got,
            [
                (Kind::NoArchive, "X-Robots-Tag".into()),
                (Kind::NoIndex, "X-Robots-Tag (botwarden:)".into()),
                (Kind::NoSnippet, "X-Robots-Tag (botwarden:)".into()),
                (Kind::UnavailableAfter, "X-Robots-Tag".into()),
                (Kind::Other("max-snippet".into()), "X-Robots-Tag".into()),
                (Kind::NoFollow, "X-Robots-Tag (botwarden-phone:)".into()),
            ]
        );
        assert_eq!(
            d.find(&Kind::UnavailableAfter)
                .and_then(|x| x.value.as_deref()),
            Some("25 Jun 2010 15:00:00 PST")
        );
    }

    #[test]
    fn a_dates_comma_stays_in_the_date() {
        let mut d = PageDirectives::new();
        d.add_header(
            "unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT, nofollow",
            &chain(),
        );
        d.add_meta(
            "robots",
            "unavailable_after: Friday, 25-Jun-10 15:00:00 EST",
            &chain(),
        );
        let values: Vec<_> = d
            .all()
            .iter()
            .filter(|x| x.kind == Kind::UnavailableAfter)
            .map(|x| x.value.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            values,
            [
                "Fri, 25 Jun 2010 15:00:00 GMT",
                "Friday, 25-Jun-10 15:00:00 EST"
            ]
        );
        assert!(d.nofollow().is_some());
        assert!(values.iter().all(|v| parse_date(v).is_some()));
    }

    #[test]
    fn the_most_restrictive_wins() {
        let mut d = PageDirectives::new();
        d.add_header("all", &chain());
        d.add_meta("botwarden", "index, follow", &chain());
        d.add_meta("robots", "noindex", &chain());
        assert!(d.noindex().is_some());
        assert!(d.nofollow().is_none());
    }

    #[test]
    fn unavailable_after_counts_once_its_time_has_passed() {
        let mut d = PageDirectives::new();
        d.add_header("unavailable_after: 2010-06-25T15:00:00Z", &chain());
        let then = SystemTime::from(
            "2010-06-25T14:00:00Z"
                .parse::<jiff::Timestamp>()
                .expect("time"),
        );
        let later = SystemTime::from(
            "2010-06-25T16:00:00Z"
                .parse::<jiff::Timestamp>()
                .expect("time"),
        );
        assert!(d.noindex_at(then).is_none());
        assert_eq!(
            d.noindex_at(later).map(|x| &x.kind),
            Some(&Kind::UnavailableAfter)
        );
    }

    #[test]
    fn dates_in_the_forms_the_web_writes() {
        let at = |s: &str| SystemTime::from(s.parse::<jiff::Timestamp>().expect("time"));
        for (text, want) in [
            ("Fri, 25 Jun 2010 15:00:00 GMT", "2010-06-25T15:00:00Z"),
            ("2010-06-25T15:00:00+02:00", "2010-06-25T13:00:00Z"),
            ("2010-06-25", "2010-06-25T00:00:00Z"),
            ("25 Jun 2010 15:00:00 PST", "2010-06-25T23:00:00Z"),
            ("Friday, 25-Jun-10 15:00:00 EST", "2010-06-25T20:00:00Z"),
            ("25 June 2010", "2010-06-25T00:00:00Z"),
        ] {
            assert_eq!(parse_date(text), Some(at(want)), "{text}");
        }
        for bad in ["", "soon", "32 Jun 2010", "Jun 2010"] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
