//! botwarden's own rules, tried after uap-core's: names of HTTP libraries
//! and automation tools that uap-core does not know, and the contact URL
//! that crawlers put in their User-Agents and browsers never do.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

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
            .map(|s| s.to_ascii_lowercase().into_bytes())
            .collect()
    }

    /// A library's or tool's name in `ua`.
    pub(crate) fn name(&self, ua: &str) -> Option<FamilyKind> {
        self.names.find(ua).map(|k| {
            if k == LIBRARY {
                FamilyKind::Library
            } else {
                FamilyKind::Crawler
            }
        })
    }

    /// Whether `ua` holds a URL.
    pub(crate) fn url(&self, ua: &str) -> bool {
        self.urls.is_match(ua)
    }
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
}
