//! Directive names and how keys are recognised.

/// The directives botwarden knows.
///
/// The set is the union of RFC 9309 (`user-agent`, `allow`, `disallow`),
/// the widely read extensions (`sitemap`, `crawl-delay`, Yandex's `host` and
/// `clean-param`) and the 1996 extended standard (`robot-version`,
/// `request-rate`, `visit-time`, `comment`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DirectiveName {
    /// `user-agent`: starts or extends a group.
    UserAgent,
    /// `allow`: a rule that permits paths.
    Allow,
    /// `disallow`: a rule that forbids paths.
    Disallow,
    /// `sitemap`: the URL of a sitemap; not part of any group.
    Sitemap,
    /// `crawl-delay`: seconds between requests.
    CrawlDelay,
    /// `host`: Yandex's preferred host (mirror).
    Host,
    /// `clean-param`: Yandex's list of query parameters that do not change
    /// the page.
    CleanParam,
    /// `robot-version`: the 1996 extended standard's version line.
    RobotVersion,
    /// `request-rate`: the 1996 extended standard's `n/time` rate.
    RequestRate,
    /// `visit-time`: the 1996 extended standard's `HHMM-HHMM` window.
    VisitTime,
    /// `comment`: the 1996 extended standard's comment directive.
    Comment,
    /// A key botwarden does not know. Kept and reported.
    Unknown,
}

impl DirectiveName {
    /// The canonical lower-case spelling, or `None` for [`DirectiveName::Unknown`].
    #[must_use]
    pub const fn canonical(self) -> Option<&'static str> {
        Some(match self {
            DirectiveName::UserAgent => "user-agent",
            DirectiveName::Allow => "allow",
            DirectiveName::Disallow => "disallow",
            DirectiveName::Sitemap => "sitemap",
            DirectiveName::CrawlDelay => "crawl-delay",
            DirectiveName::Host => "host",
            DirectiveName::CleanParam => "clean-param",
            DirectiveName::RobotVersion => "robot-version",
            DirectiveName::RequestRate => "request-rate",
            DirectiveName::VisitTime => "visit-time",
            DirectiveName::Comment => "comment",
            DirectiveName::Unknown => return None,
        })
    }

    /// The conventional capitalised spelling used when writing a file
    /// (`User-agent`, `Disallow`, `Crawl-delay`, ...).
    #[must_use]
    pub const fn display(self) -> Option<&'static str> {
        Some(match self {
            DirectiveName::UserAgent => "User-agent",
            DirectiveName::Allow => "Allow",
            DirectiveName::Disallow => "Disallow",
            DirectiveName::Sitemap => "Sitemap",
            DirectiveName::CrawlDelay => "Crawl-delay",
            DirectiveName::Host => "Host",
            DirectiveName::CleanParam => "Clean-param",
            DirectiveName::RobotVersion => "Robot-version",
            DirectiveName::RequestRate => "Request-rate",
            DirectiveName::VisitTime => "Visit-time",
            DirectiveName::Comment => "Comment",
            DirectiveName::Unknown => return None,
        })
    }

    /// Whether the directive is a rule (`allow` or `disallow`).
    #[must_use]
    pub const fn is_rule(self) -> bool {
        matches!(self, DirectiveName::Allow | DirectiveName::Disallow)
    }
}

/// How a key was spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spelling {
    /// The canonical name, in any case (`User-Agent`, `DISALLOW`).
    Exact,
    /// A common misspelling that some robots accept (`disalow`, `useragent`,
    /// `user agent`, `site-map`, `crawldelay`).
    Misspelt,
    /// The key only starts with a name (`disallowed`, `sitemaps`): Google's
    /// parser compares keys by prefix, other robots ignore such lines.
    Prefix,
}

/// Exact names, lower case.
const EXACT: &[(&str, DirectiveName)] = &[
    ("user-agent", DirectiveName::UserAgent),
    ("allow", DirectiveName::Allow),
    ("disallow", DirectiveName::Disallow),
    ("sitemap", DirectiveName::Sitemap),
    ("crawl-delay", DirectiveName::CrawlDelay),
    ("host", DirectiveName::Host),
    ("clean-param", DirectiveName::CleanParam),
    ("robot-version", DirectiveName::RobotVersion),
    ("request-rate", DirectiveName::RequestRate),
    ("visit-time", DirectiveName::VisitTime),
    ("comment", DirectiveName::Comment),
];

/// Misspellings. The first block is the list Google's parser accepts
/// (google/robotstxt `robots.cc`, `kAllowFrequentTypos`); the second holds
/// the other directives' common variants, which only the checker uses.
const MISSPELT: &[(&str, DirectiveName)] = &[
    ("useragent", DirectiveName::UserAgent),
    ("user agent", DirectiveName::UserAgent),
    ("dissallow", DirectiveName::Disallow),
    ("dissalow", DirectiveName::Disallow),
    ("disalow", DirectiveName::Disallow),
    ("diasllow", DirectiveName::Disallow),
    ("disallaw", DirectiveName::Disallow),
    ("site-map", DirectiveName::Sitemap),
    // Not read by Google (it ignores these directives altogether).
    ("crawldelay", DirectiveName::CrawlDelay),
    ("crawl delay", DirectiveName::CrawlDelay),
    ("crawl_delay", DirectiveName::CrawlDelay),
    ("cleanparam", DirectiveName::CleanParam),
    ("clean_param", DirectiveName::CleanParam),
    ("requestrate", DirectiveName::RequestRate),
    ("request rate", DirectiveName::RequestRate),
    ("visittime", DirectiveName::VisitTime),
    ("visit time", DirectiveName::VisitTime),
    ("robotversion", DirectiveName::RobotVersion),
    ("robot version", DirectiveName::RobotVersion),
];

/// Prefixes Google's parser compares keys against, in its order of checks.
const GOOGLE_PREFIXES: &[(&str, DirectiveName)] = &[
    ("user-agent", DirectiveName::UserAgent),
    ("useragent", DirectiveName::UserAgent),
    ("user agent", DirectiveName::UserAgent),
    ("allow", DirectiveName::Allow),
    ("disallow", DirectiveName::Disallow),
    ("dissallow", DirectiveName::Disallow),
    ("dissalow", DirectiveName::Disallow),
    ("disalow", DirectiveName::Disallow),
    ("diasllow", DirectiveName::Disallow),
    ("disallaw", DirectiveName::Disallow),
    ("sitemap", DirectiveName::Sitemap),
    ("site-map", DirectiveName::Sitemap),
];

/// Names that are known but that no robot reads from robots.txt (they belong
/// in a meta tag or an HTTP header). The checker names them.
pub const KNOWN_UNUSED: &[&str] = &[
    "noindex",
    "nofollow",
    "noarchive",
    "nosnippet",
    "noimageindex",
];

/// Classifies a trimmed key.
#[must_use]
pub fn classify_key(key: &[u8]) -> (DirectiveName, Spelling) {
    let eq = |name: &str| key.eq_ignore_ascii_case(name.as_bytes());
    if let Some(&(_, name)) = EXACT.iter().find(|(n, _)| eq(n)) {
        return (name, Spelling::Exact);
    }
    if let Some(&(_, name)) = MISSPELT.iter().find(|(n, _)| eq(n)) {
        return (name, Spelling::Misspelt);
    }
    let starts =
        |p: &str| key.len() >= p.len() && key[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    if let Some(&(_, name)) = GOOGLE_PREFIXES.iter().find(|(p, _)| starts(p)) {
        return (name, Spelling::Prefix);
    }
    (DirectiveName::Unknown, Spelling::Exact)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert_eq!(
            classify_key(b"User-Agent"),
            (DirectiveName::UserAgent, Spelling::Exact)
        );
        assert_eq!(
            classify_key(b"DISALOW"),
            (DirectiveName::Disallow, Spelling::Misspelt)
        );
        assert_eq!(
            classify_key(b"disallowed"),
            (DirectiveName::Disallow, Spelling::Prefix)
        );
        assert_eq!(
            classify_key(b"Sitemap index"),
            (DirectiveName::Sitemap, Spelling::Prefix)
        );
        assert_eq!(
            classify_key(b"noindex"),
            (DirectiveName::Unknown, Spelling::Exact)
        );
        assert_eq!(
            classify_key(b"crawl delay"),
            (DirectiveName::CrawlDelay, Spelling::Misspelt)
        );
    }
}
