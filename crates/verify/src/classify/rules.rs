//! botwarden's own rules, tried after uap-core's: names of HTTP libraries
//! and automation tools that uap-core does not know, and the contact URL
//! that crawlers put in their User-Agents and browsers never do.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::frame::Frame;
use super::literals::Set;
use super::tokens::Tokens;
use super::uap::FamilyKind;

/// HTTP client libraries, as product tokens (found like robots tokens:
/// without ASCII case, on word boundaries).
pub(crate) const LIBRARY_NAMES: &[&str] = &[
    "python-httpx",
    "aiohttp",
    "node-fetch",
    "undici",
    "Java-http-client",
    "Apache-HttpAsyncClient",
    "GuzzleHttp",
    "Faraday",
    "rest-client",
    "http.rb",
    "Dart",
    "colly",
];

/// Crawling, automation and scanning tools, as product tokens.
pub(crate) const TOOL_NAMES: &[&str] = &[
    "HTTrack",
    "Playwright",
    "Selenium",
    "zgrab",
    "Nikto",
    "ZmEu",
];

/// What shows a contact URL (without ASCII case).
pub(crate) const URL_MARKS: &[&str] = &["http://", "https://", "www."];

/// Top-level domains of contact addresses written without a scheme
/// (`(postrank.com)`, `+metauri.com`, `bit.ly/x`). Not `.net`: Internet
/// Explorer's `.NET CLR` would take every such browser past the prefilter.
pub(crate) const DOMAIN_ENDS: &[&str] = &[
    ".com", ".org", ".io", ".ai", ".dev", ".app", ".ly", ".gy", ".info", ".biz",
];

/// Obfuscated `@` in contact addresses.
pub(crate) const AT_MARKS: &[&str] = &["(at)", "[at]"];

/// The rules, compiled.
pub(crate) struct Rules {
    names: Tokens,
    urls: AhoCorasick,
}

/// Kinds by token index: libraries first, then tools.
const LIBRARY: u32 = 0;
const TOOL: u32 = 1;

impl Rules {
    pub(crate) fn new() -> Result<Self, aho_corasick::BuildError> {
        let names = Tokens::new(
            LIBRARY_NAMES
                .iter()
                .map(|n| (LIBRARY, *n))
                .chain(TOOL_NAMES.iter().map(|n| (TOOL, *n))),
        )?;
        let urls = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostFirst)
            .build(URL_MARKS)?;
        Ok(Self { names, urls })
    }

    /// The literals one of which a User-Agent must hold for a rule to
    /// answer.
    pub(crate) fn literals() -> Set {
        LIBRARY_NAMES
            .iter()
            .chain(TOOL_NAMES)
            .chain(URL_MARKS)
            .chain(DOMAIN_ENDS)
            .chain(AT_MARKS)
            .chain(&["@"])
            .map(|s| s.to_ascii_lowercase().into_bytes())
            .collect()
    }

    /// A library's or tool's name in `ua`.
    #[cfg(test)]
    pub(crate) fn name(&self, ua: &str) -> Option<FamilyKind> {
        self.name_at(ua).map(|(k, _)| k)
    }

    /// A library's or tool's name in `ua`, with where it is.
    pub(crate) fn name_at(&self, ua: &str) -> Option<(FamilyKind, std::ops::Range<usize>)> {
        self.names.find_at(ua).map(|(k, at)| {
            let k = if k == LIBRARY {
                FamilyKind::Library
            } else {
                FamilyKind::Crawler
            };
            (k, at)
        })
    }

    /// Whether `ua` holds a URL.
    #[cfg(test)]
    pub(crate) fn url(&self, ua: &str) -> bool {
        self.urls.is_match(ua)
    }

    /// Where the first URL mark of `ua` (`http://`, `https://`, `www.`)
    /// outside a phone's model starts.
    pub(crate) fn url_at(&self, ua: &str, frame: &Frame) -> Option<usize> {
        self.urls
            .find_iter(ua)
            .find(|m| !frame.in_device(&m.range()))
            .map(|m| m.start())
    }
}

/// A domain name in `ua`, as crawlers write their home without
/// `http://`: a name of a generic top-level domain (`example.com`), after
/// the start, a space, `(`, `+`, `;` or `,`, and followed by the end, a
/// space, `)`, `;`, `,` or a path (`bit.ly/x`) — not by a version
/// (`radio.de/1.2` is a product) nor by more labels (`com.example.app` is
/// an app's id). Returns its byte range.
pub(crate) fn domain(ua: &str) -> Option<std::ops::Range<usize>> {
    let bytes = ua.as_bytes();
    let label = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    for (dot, _) in ua.match_indices('.') {
        let Some(end) = DOMAIN_ENDS.iter().find_map(|tld| {
            let end = dot + tld.len();
            let here = bytes.get(dot..end)?;
            let ends = match bytes.get(end) {
                None | Some(b' ' | b')' | b';' | b',') => true,
                // A path, unless it is a version (digits and dots).
                Some(b'/') => !bytes[end + 1..]
                    .iter()
                    .take_while(|b| !matches!(b, b' ' | b')' | b';' | b','))
                    .all(|b| b.is_ascii_digit() || *b == b'.'),
                Some(_) => false,
            };
            (here.eq_ignore_ascii_case(tld.as_bytes()) && ends).then_some(end)
        }) else {
            continue;
        };
        let mut start = dot;
        while start > 0 && (label(bytes[start - 1]) || bytes[start - 1] == b'.') {
            start -= 1;
        }
        let starts = start == 0 || matches!(bytes[start - 1], b' ' | b'(' | b'+' | b';' | b',');
        let name = &bytes[start..dot];
        let last = name.rsplit(|&b| b == b'.').next().unwrap_or(name);
        if starts && last.len() >= 2 && last.iter().any(u8::is_ascii_alphabetic) {
            return Some(start..end);
        }
    }
    None
}

/// An e-mail address in `ua`: a local part of letters, digits and `._%-`,
/// `@`, then a domain of at least two labels whose last is letters only
/// (`info@example.com`, `bot[at]` is not one). Returns its byte range.
pub(crate) fn email(ua: &str) -> Option<std::ops::Range<usize>> {
    let bytes = ua.as_bytes();
    let local = |b: u8| b.is_ascii_alphanumeric() || b"._%-".contains(&b);
    let label = |b: u8| b.is_ascii_alphanumeric() || b == b'-';
    let ats = ua.match_indices('@').map(|(at, _)| (at, at + 1)).chain(
        AT_MARKS
            .iter()
            .flat_map(|m| ua.match_indices(m).map(|(at, m)| (at, at + m.len()))),
    );
    for (at, after) in ats {
        let mut start = at;
        while start > 0 && local(bytes[start - 1]) {
            start -= 1;
        }
        if start == at {
            continue;
        }
        let mut end = after;
        let mut labels = 0;
        let mut last_alpha = false;
        loop {
            let label_start = end;
            while end < bytes.len() && label(bytes[end]) {
                end += 1;
            }
            if end == label_start {
                break;
            }
            labels += 1;
            last_alpha = bytes[label_start..end].iter().all(u8::is_ascii_alphabetic)
                && end - label_start >= 2;
            if end + 1 < bytes.len() && bytes[end] == b'.' && label(bytes[end + 1]) {
                end += 1;
            } else {
                break;
            }
        }
        if labels >= 2 && last_alpha {
            return Some(start..end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_urls() {
        let r = Rules::new().unwrap();
        assert_eq!(r.name("python-httpx/0.16.1"), Some(FamilyKind::Library));
        assert_eq!(r.name("Dart/3.2 (dart:io)"), Some(FamilyKind::Library));
        assert_eq!(
            r.name("Mozilla/5.0 (X11) Nikto/2.5.0"),
            Some(FamilyKind::Crawler)
        );
        assert_eq!(r.name("Mozilla/5.0 Dartmouth"), None);
        assert!(r.url("Foo/1.0 (+https://example.com/bot)"));
        assert!(r.url("Foo/1.0 (WWW.example.com)"));
        assert!(!r.url("Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36"));
    }

    #[test]
    fn email_addresses() {
        fn found(ua: &str) -> Option<&str> {
            email(ua).map(|r| &ua[r])
        }
        assert_eq!(
            found("SurveyAgent/1.0; +info@example.com)"),
            Some("info@example.com")
        );
        assert_eq!(
            found("Foo (bot@mail.example.co.uk)"),
            Some("bot@mail.example.co.uk")
        );
        assert_eq!(found("Foo @home"), None);
        assert_eq!(found("a@b"), None);
        assert_eq!(found("x@1.2.3.4"), None);
        assert_eq!(
            found("Firefox/42.0 - nobody(at)example.com"),
            Some("nobody(at)example.com")
        );
        let found = |ua: &'static str| domain(ua).map(|r| &ua[r]);
        assert_eq!(found("PostRank/2.0 (postrank.com)"), Some("postrank.com"));
        assert_eq!(found("BW/1.1; bit.ly/3eZNDnO"), Some("bit.ly"));
        assert_eq!(found("Foo/1.0 (x.com)"), None);
        assert_eq!(found("Foo/1.0 (example.community)"), None);
        assert_eq!(found("radio.de/1.2.0 (Android 3.2)"), None);
        assert_eq!(found("com.example.app/5.7 (Android 11)"), None);
        assert_eq!(found("Foo Build/EXAMPLE.COM"), None);
        assert_eq!(
            found("Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36"),
            None
        );
    }
}
