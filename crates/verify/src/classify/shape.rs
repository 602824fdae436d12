//! The structure of a User-Agent: whether it has a browser's or an app's
//! shape at all.
//!
//! A browser's User-Agent is `Mozilla/5.0 (platform; …) engine/… browser/…`
//! (or an old phone's or an app's `Name/version (…) Other/version …`). A
//! User-Agent too short or too bare for that — empty, `-`, a single word, a
//! single `name/version`, `Mozilla/5.0` alone, `Mozilla/4.0 (compatible;)`,
//! `Mozilla/5.0 (compatible; Foo/1.0)` without any browser engine — is an
//! automated client's. The check reads a few bytes of a well-formed
//! browser's User-Agent, so every User-Agent can take it.

use std::fmt;

use super::frame::{PHONE_MARKS, PLATFORMS};

/// Why a User-Agent has no browser's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shape {
    /// Empty or only spaces.
    Empty,
    /// No ASCII letter (`-`, `0`).
    NoLetter,
    /// One word without a version or anything else.
    SingleWord,
    /// One `name/version` product and no comment, alone or after words
    /// (`Java/1.8.0`, `Mozilla/5.0`, `Acme API Client/2.0`).
    LoneProduct,
    /// Words without any `name/version` product or comment.
    NoProduct,
    /// `Mozilla/x.y` followed by one word, without a comment.
    MozillaWithoutComment,
    /// `Mozilla/x.y (…)` whose comment is empty or only `compatible`.
    EmptyComment,
    /// `Mozilla/x.y (compatible; X …)` where nothing in the User-Agent is a
    /// browser's engine or platform.
    CompatibleNotBrowser,
    /// `Mozilla/x.y (X)` with a single comment entry, nothing after it,
    /// and nothing in it a browser's engine or platform.
    BareMozilla,
}

impl Shape {
    /// What the shape says, for explanations.
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Empty => "empty",
            Shape::NoLetter => "no letter",
            Shape::SingleWord => "a single word without version",
            Shape::LoneProduct => "a single name/version without a comment",
            Shape::NoProduct => "words without any name/version or comment",
            Shape::MozillaWithoutComment => "Mozilla/x.y followed by one word, without a comment",
            Shape::EmptyComment => "Mozilla/x.y with an empty or only `compatible` comment",
            Shape::CompatibleNotBrowser => {
                "`compatible;` with a product that is not a browser, and no browser engine or \
                 platform"
            }
            Shape::BareMozilla => {
                "Mozilla/x.y with a single comment entry that names no browser engine or platform"
            }
        }
    }
}

impl Shape {
    /// The shape's name in [`Source`](super::Source)'s text
    /// (`structure(singleword)`): its variant's name in lower case.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Empty => "empty",
            Shape::NoLetter => "noletter",
            Shape::SingleWord => "singleword",
            Shape::LoneProduct => "loneproduct",
            Shape::NoProduct => "noproduct",
            Shape::MozillaWithoutComment => "mozillawithoutcomment",
            Shape::EmptyComment => "emptycomment",
            Shape::CompatibleNotBrowser => "compatiblenotbrowser",
            Shape::BareMozilla => "baremozilla",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Words of browsers' engines and platforms (and old phones' browsers)
/// that may stand with `compatible;` in a person's browser.
const BROWSER_MARKS: &[&str] = &[
    "MSIE",
    "Trident",
    "AppleWebKit",
    "KHTML",
    "Gecko",
    "Presto",
    "Konqueror",
    "Opera",
    "Teleca",
    "Polaris",
    "NetFront",
    "Obigo",
    "BREW",
    "Brew",
    "Nokia",
    "SonyEricsson",
    "Symbian",
    "Series60",
    "IEMobile",
    "Windows",
    "Linux",
    "Macintosh",
    "Mac OS",
    "Android",
    "iPhone",
    "iPad",
    "X11",
    "Lotus-Notes",
    "ms-office",
    "MSOffice",
    "Go.Web",
    "YOSPACE",
    "BlackBerry",
    "PlayStation",
    "Nintendo",
    "Xbox",
    "UCWEB",
    "UCBrowser",
    "MIDP",
    "Browser",
    "Lynx",
    "w3m",
    "Dillo",
    "ELinks",
    "NetSurf",
];

fn has_browser_mark(ua: &str) -> bool {
    BROWSER_MARKS
        .iter()
        .chain(PLATFORMS)
        .chain(PHONE_MARKS)
        .any(|m| ua.contains(m))
        || ua
            .as_bytes()
            .windows(b"browser".len())
            .any(|w| w.eq_ignore_ascii_case(b"browser"))
}

/// Why `ua` has no browser's or app's shape, or `None` when it has one.
pub(crate) fn not_a_browser(ua: &str) -> Option<Shape> {
    let ua = ua.trim();
    if ua.is_empty() {
        return Some(Shape::Empty);
    }
    if let Some(rest) = strip_prefix_ignore_case(ua, "Mozilla/") {
        return mozilla(ua, rest);
    }
    if !ua.bytes().any(|b| b.is_ascii_alphabetic()) {
        return Some(Shape::NoLetter);
    }
    let space = ua.contains(' ');
    let slash = ua.contains('/');
    let shape = match (space, slash) {
        (false, false) => Shape::SingleWord,
        (false, true) if !ua.contains('(') => Shape::LoneProduct,
        (true, true) if !ua.contains('(') && ua.matches('/').count() == 1 => Shape::LoneProduct,
        (true, false) if !ua.contains('(') => Shape::NoProduct,
        _ => return None,
    };
    // Old phones' browsers and apps, and devices' names (`iPhone12`,
    // `Android 2.3.6; 10; samsung; GT-I8160P`).
    (!has_browser_mark(ua)).then_some(shape)
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// `ua` is `Mozilla/` followed by `rest`.
fn mozilla(ua: &str, rest: &str) -> Option<Shape> {
    let version_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let rest = rest[version_end..].trim_start();
    if rest.is_empty() {
        return Some(Shape::LoneProduct);
    }
    let Some(comment) = rest.strip_prefix('(') else {
        // `Mozilla/4.7 [en] (Win98; I)` and the like are browsers; one
        // word after the version is not.
        return (!rest.contains([' ', '(', '['])).then_some(Shape::MozillaWithoutComment);
    };
    let (inside, after) = match comment.find(')') {
        Some(close) => (&comment[..close], comment[close + 1..].trim()),
        None => (comment, ""),
    };
    let mut entries = inside.split(';').map(str::trim).filter(|e| !e.is_empty());
    let first = entries.next();
    let compatible = first.is_some_and(|e| e.eq_ignore_ascii_case("compatible"));
    if !compatible {
        // The common case: a browser's platform first.
        return match first {
            None => Some(Shape::EmptyComment),
            Some(_) if after.is_empty() && entries.next().is_none() && !has_browser_mark(ua) => {
                Some(Shape::BareMozilla)
            }
            Some(_) => None,
        };
    }
    if entries.next().is_none() {
        return Some(Shape::EmptyComment);
    }
    (!has_browser_mark(ua)).then_some(Shape::CompatibleNotBrowser)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_and_apps_have_their_shape() {
        for ua in [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/120.0.0.0 Safari/537.36",
            "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)",
            "Mozilla/4.7 [en] (Win98; I)",
            "Mozilla/5.0 (compatible; Konqueror/4.4; Linux) KHTML/4.4.5 (like Gecko)",
            "Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) \
             Presto/2.5.25 Version/10.54",
            "Dalvik/2.1.0 (Linux; U; Android 11; SM-A105F Build/RP1A.200720.012)",
            "Instagram 123.0.0.21.114 Android (28/9; 420dpi; 1080x2131; samsung)",
            "Nokia6230/2.0 (04.44) Profile/MIDP-2.0 Configuration/CLDC-1.1",
            "Links (2.1pre15; Linux 2.6.11 i686; 80x24)",
        ] {
            assert_eq!(not_a_browser(ua), None, "{ua}");
        }
    }

    #[test]
    fn bare_user_agents_have_none() {
        for (ua, shape) in [
            ("", Shape::Empty),
            ("  ", Shape::Empty),
            ("-", Shape::NoLetter),
            ("Mozilla", Shape::SingleWord),
            ("xq7hjkd8", Shape::SingleWord),
            ("Mozilla/5.0", Shape::LoneProduct),
            ("Go-http-client/2.0", Shape::LoneProduct),
            ("Java HttpClient", Shape::NoProduct),
            ("Mozilla/5.0 Foo", Shape::MozillaWithoutComment),
            ("Mozilla/4.0 (compatible;)", Shape::EmptyComment),
            ("Mozilla/5.0 ()", Shape::EmptyComment),
            (
                "Mozilla/5.0 (compatible; Foo/1.0)",
                Shape::CompatibleNotBrowser,
            ),
            ("Mozilla/5.0 (Foo/1.0)", Shape::BareMozilla),
        ] {
            assert_eq!(not_a_browser(ua), Some(shape), "{ua:?}");
        }
    }
}
