//! The name of a client the registry does not know, read from its
//! User-Agent: the product token that carries its identity.
//!
//! uap-core's families name browsers and a list of crawlers; for the rest
//! its generic parsers give whatever word matched (`crawler`, `robot`,
//! `favicon`), and for a crawler that copies a browser's User-Agent, the
//! browser (`Firefox`, `Chrome`). A User-Agent says more: its product
//! tokens (`name/version`, in order of significance) and the comments
//! after them (`(compatible; Name/1.0; +http://…)`) name the client. The
//! rules, in order:
//!
//! 1. The first product, when it is no browser's or engine's (`Mozilla`,
//!    `AppleWebKit`, `Chrome`, …) and no HTTP library's: a client that
//!    does not pretend to be a browser puts its name first
//!    (`UniversalFeedParser/4.2 +http://feedparser.org/`).
//! 2. Otherwise the best of every product and comment entry, scored: one
//!    that holds a crawler word (`bot`, `crawl`, `spider`, `fetch`,
//!    `proxy`, …) scores 8; one after `compatible;` 4; one just before a
//!    contact URL or e-mail address, or whose comment holds one, 2; one
//!    with a version 1. The highest wins, then the leftmost.
//! 3. Otherwise the host of the contact URL (`www.` left out), or the
//!    domain of the e-mail address.
//!
//! Entries that name no product are never candidates: browsers, engines
//! and platforms (`Firefox`, `KHTML`, `Windows NT 6.1`, `Linux x86_64`,
//! `rv:1.9`), languages (`en-US`), `like Gecko`, names without a letter,
//! and generic words alone (`crawler`, `robot`, `bot`, `spider`, `agent`).
//! A name is at most [`MAX_WORDS`] words and [`MAX_LEN`] bytes: longer
//! text is a sentence, not a name.

use super::rules;
use super::uap;

/// The most words a name may have.
pub(crate) const MAX_WORDS: usize = 6;

/// The most bytes a name may have.
pub(crate) const MAX_LEN: usize = 64;

/// Parts of words that say a product is an automated client.
const CRAWLER_WORDS: &[&str] = &[
    "bot",
    "crawl",
    "spider",
    "fetch",
    "proxy",
    "scrape",
    "slurp",
    "archiver",
    "indexer",
    "preview",
    "monitor",
    "checker",
    "validator",
    "feed",
    "rss",
    "reader",
    "scan",
];

/// Names (lower case, whole) that are no product's own: generic words.
const GENERIC_NAMES: &[&str] = &[
    "agent",
    "bot",
    "browser",
    "by",
    "client",
    "compatible",
    "crawl",
    "crawler",
    "fetch",
    "fetcher",
    "for",
    "from",
    "home",
    "homepage",
    "http",
    "https",
    "info",
    "mailto",
    "none",
    "null",
    "proxy",
    "robot",
    "scraper",
    "see",
    "spider",
    "test",
    "unknown",
    "user-agent",
    "visit",
    "web crawler",
    "webcrawler",
];

/// First words (lower case) of entries that name a browser, an engine, a
/// platform or a device, not a client of their own.
const NOT_A_PRODUCT: &[&str] = &[
    // Browsers and engines.
    "applewebkit",
    "camino",
    "chrome",
    "chromium",
    "edg",
    "edga",
    "edge",
    "edgios",
    "firefox",
    "fxios",
    "gecko",
    "khtml",
    "konqueror",
    "like",
    "mobile",
    "mozilla",
    "msie",
    "netscape",
    "opera",
    "opr",
    "presto",
    "safari",
    "seamonkey",
    "trident",
    "version",
    "webkit",
    "crios",
    "samsungbrowser",
    "ucbrowser",
    "yabrowser",
    "vivaldi",
    "brave",
    // Platforms, architectures and devices.
    "aarch64",
    "amd64",
    "android",
    "arm",
    "arm64",
    "centos",
    "cpu",
    "cros",
    "debian",
    "fedora",
    "freebsd",
    "i386",
    "i686",
    "infopath",
    "intel",
    "ipad",
    "iphone",
    "ipod",
    "linux",
    "mac",
    "macintosh",
    "mddr",
    "media",
    "netbsd",
    "openbsd",
    "ppc",
    "slcc1",
    "slcc2",
    "sunos",
    "tablet",
    "ubuntu",
    "win32",
    "win64",
    "win98",
    "windows",
    "winnt",
    "wow64",
    "wv",
    "x11",
    "x64",
    "x86",
    "x86_64",
    "zune",
    "electron",
    // Security and build markers.
    "build",
    "i",
    "n",
    "rv",
    "sv1",
    "u",
];

/// Text inside a first word that marks a platform (`x86_64-linux`).
const PLATFORM_PARTS: &[&str] = &["linux", "windows", "darwin", "x86", ".net"];

/// One possible name.
#[derive(Debug, Clone, Copy)]
struct Candidate<'a> {
    name: &'a str,
    score: u8,
}

/// Words that join the words of a description, not of a name: a name
/// is taken from one side of them (`Speedy Spider for SpeedyAds`).
const STOPWORDS: &[&str] = &[
    "-", "a", "also", "an", "and", "as", "at", "by", "contact", "dot", "for", "from", "in", "is",
    "not", "of", "on", "or", "our", "please", "see", "seen", "support", "the", "to", "via",
    "visit", "with", "your",
];

/// First words (lower case prefixes) of old mobile phones' browsers.
const PHONE_PREFIXES: &[&str] = &[
    "blackberry",
    "docomo",
    "j-phone",
    "kddi",
    "lg-",
    "mot-",
    "netfront",
    "nokia",
    "obigo",
    "openwave",
    "portalmmm",
    "samsung-",
    "sec-",
    "softbank",
    "sonyericsson",
    "up.browser",
    "vodafone",
];

/// Scores.
const CRAWLER_WORD: u8 = 8;
const COMPATIBLE: u8 = 4;
const CONTACT: u8 = 2;
const VERSION: u8 = 1;

/// The name a User-Agent gives its client, by the rules above; `None`
/// when it names none.
pub(crate) fn product_name(ua: &str) -> Option<&str> {
    let mut scan = Scan {
        ua,
        candidates: Vec::new(),
        first: None,
        contact: None,
        compatible: false,
    };
    scan.top_level();
    if let Some(Some(first)) = scan.first
        && !is_library(first)
    {
        return Some(first);
    }
    let mut best: Option<Candidate<'_>> = None;
    for c in &scan.candidates {
        if best.is_none_or(|b| c.score > b.score) {
            best = Some(*c);
        }
    }
    match best {
        // A bare entry (no version, no mark) names less than a contact.
        Some(b) if b.score == 0 && scan.contact.is_some() => scan.contact,
        Some(b) => Some(b.name),
        None => scan.contact,
    }
}

/// Whether a name is an HTTP library's (uap-core's and botwarden's
/// lists), compared without ASCII case, spaces, `-` and `_`
/// (`python-requests` is uap-core's `Python Requests`).
fn is_library(name: &str) -> bool {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let name = key(name);
    uap::LIBRARY_FAMILIES
        .iter()
        .chain(rules::LIBRARY_NAMES)
        .any(|n| key(n) == name)
}

struct Scan<'a> {
    ua: &'a str,
    candidates: Vec<Candidate<'a>>,
    /// The first product at the top level: `Some(None)` when it names no
    /// product (`Mozilla/5.0`).
    first: Option<Option<&'a str>>,
    /// The host of the first contact URL, or the domain of the first
    /// e-mail address.
    contact: Option<&'a str>,
    /// A top-level `compatible` waits for its product.
    compatible: bool,
}

impl<'a> Scan<'a> {
    /// Products and comments at the top level. Words without a version
    /// join the product that follows (`Chef Client/10.18`), or form one at
    /// the end (`… Firefox/6.0 Google favicon`); `;` and `,` end one.
    fn top_level(&mut self) {
        let ua = self.ua;
        let b = ua.as_bytes();
        let mut i = 0;
        // Words waiting for a version: start and end.
        let mut run: Option<(usize, usize)> = None;
        // The candidate index of the last product, if it is one.
        let mut last: Option<usize> = None;
        while i < b.len() {
            match b[i] {
                c if c.is_ascii_whitespace() || c == b')' => i += 1,
                b';' | b',' => {
                    if let Some((s, e)) = run.take() {
                        last = self.product(&ua[s..e], false);
                    }
                    i += 1;
                }
                b'(' => {
                    if let Some((s, e)) = run.take() {
                        last = self.product(&ua[s..e], false);
                    }
                    let end = closing(b, i);
                    let inner = &ua[i + 1..end.min(b.len())];
                    self.comment(inner, last);
                    i = end + 1;
                }
                _ => {
                    let start = i;
                    while i < b.len()
                        && !b[i].is_ascii_whitespace()
                        && !matches!(b[i], b'(' | b')' | b';' | b',')
                    {
                        i += 1;
                    }
                    let word = &ua[start..i];
                    if let Some(host) = contact_host(word) {
                        self.contact.get_or_insert(host);
                        if let Some((s, e)) = run.take() {
                            last = self.product(&ua[s..e], false);
                        }
                        if let Some(c) = last {
                            self.candidates[c].score |= CONTACT;
                        }
                        last = None;
                    } else if word.eq_ignore_ascii_case("compatible") {
                        if let Some((s, e)) = run.take() {
                            self.product(&ua[s..e], false);
                        }
                        self.compatible = true;
                        last = None;
                    } else if let Some(slash) = word.find('/') {
                        // Words before a browser's token are a product of
                        // their own (`Uptime Bot Mozilla/5.0`).
                        let own =
                            !NOT_A_PRODUCT.contains(&word[..slash].to_ascii_lowercase().as_str());
                        let s = match run.take() {
                            Some((s, _)) if own => s,
                            Some((s, e)) => {
                                self.product(&ua[s..e], false);
                                start
                            }
                            None => start,
                        };
                        last = self.product(&ua[s..start + slash], true);
                    } else {
                        run = Some((run.map_or(start, |(s, _)| s), i));
                    }
                }
            }
        }
        if let Some((s, e)) = run {
            self.product(&ua[s..e], false);
        }
    }

    /// A product at the top level: its candidate's index, if it names one.
    fn product(&mut self, text: &'a str, version: bool) -> Option<usize> {
        let found = name_in(text, version);
        if self.first.is_none() && !std::mem::take(&mut self.compatible) {
            self.first = Some(found.map(|(n, _)| n));
            return found.map(|(name, version)| self.push(name, score(name, version)));
        }
        let (name, version) = found?;
        let mut s = score(name, version);
        if std::mem::take(&mut self.compatible) {
            s |= COMPATIBLE;
        }
        Some(self.push(name, s))
    }

    fn push(&mut self, name: &'a str, score: u8) -> usize {
        self.candidates.push(Candidate { name, score });
        self.candidates.len() - 1
    }

    /// The entries of a comment, split at `;` and `,` outside nested
    /// parentheses; `owner` is the candidate of the product before it.
    fn comment(&mut self, inner: &'a str, owner: Option<usize>) {
        let mut compatible = false;
        let mut before: Option<usize> = None;
        let mut owner_marked = false;
        for part in split_entries(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if part.eq_ignore_ascii_case("compatible") {
                compatible = true;
                continue;
            }
            let (text, contact) = match contact_at(part) {
                Some((at, host)) => {
                    self.contact.get_or_insert(host);
                    (&part[..at], true)
                }
                None => (part, false),
            };
            let index = entry_name(text).map(|(name, version)| {
                let mut s = score(name, version);
                if compatible {
                    s |= COMPATIBLE;
                }
                if contact {
                    s |= CONTACT;
                }
                self.push(name, s)
            });
            if contact {
                if index.is_none()
                    && let Some(b) = before
                {
                    self.candidates[b].score |= CONTACT;
                }
                if !owner_marked && let Some(o) = owner {
                    self.candidates[o].score |= CONTACT;
                    owner_marked = true;
                }
            }
            compatible = false;
            before = index;
        }
    }
}

fn score(name: &str, version: bool) -> u8 {
    let mut s = 0;
    if has_crawler_word(name) {
        s |= CRAWLER_WORD;
    }
    if version {
        s |= VERSION;
    }
    s
}

fn has_crawler_word(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    CRAWLER_WORDS.iter().any(|w| lower.contains(w))
}

/// The index of the `)` closing the `(` at `open`, or the length when it
/// is never closed.
fn closing(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// A comment's entries, split at `;` and `,` outside nested parentheses.
fn split_entries(inner: &str) -> Vec<&str> {
    let mut depth = 0usize;
    let mut start = 0;
    let mut out = Vec::new();
    for (i, c) in inner.bytes().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b';' | b',' if depth == 0 => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[start..]);
    out
}

/// The name of a comment entry and whether it has a version:
/// `Name/1.0`, `Name 1.0`, `key:Name`, cut before a nested comment.
fn entry_name(text: &str) -> Option<(&str, bool)> {
    let text = text.split('(').next().unwrap_or(text);
    let text = clean(text)?;
    if let Some(slash) = text.find('/') {
        let name = &text[..slash];
        // `Nexus 5X Build/MMB29P` names a device.
        if name
            .rsplit(' ')
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("build"))
        {
            return None;
        }
        return name_in(name, true);
    }
    if let Some((key, value)) = text.split_once(':')
        && !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_alphabetic())
    {
        // `rv:1.9` is a version; `aggregator:Spinn3r` a labelled name.
        let value = clean(value)?;
        if value.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        return name_in(value, false);
    }
    name_in(text, false)
}

/// The name in a product's words or a comment entry, and whether it has
/// a version (`version`, or one cut from its end). Descriptions are split
/// at [`STOPWORDS`]: with a version the part before it is the name (`Twitter
/// for X/1.0`: `X`), else the first part holding a crawler word, else the
/// first part.
fn name_in(text: &str, version: bool) -> Option<(&str, bool)> {
    let parts = parts(text);
    if version {
        return parts.last().and_then(|p| named(p, true));
    }
    let names: Vec<(&str, bool)> = parts.iter().filter_map(|p| named(p, false)).collect();
    names
        .iter()
        .find(|(n, _)| has_crawler_word(n))
        .or(names.first())
        .copied()
}

/// One part as a name, without its version, if it can be one.
fn named(part: &str, version: bool) -> Option<(&str, bool)> {
    let (name, cut) = strip_version(clean(part)?);
    let name = clean(name)?;
    is_name(name).then_some((name, cut || version))
}

/// The runs of words of `text` between [`STOPWORDS`], labels (`Info:`),
/// `key:value` pairs with a number (`feed-id:2005`) and quoted text
/// (`'The Tazmans Flax-lily'`), which are left out.
fn parts(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let mut quote: Option<char> = None;
    let base = text.as_ptr() as usize;
    for word in text.split_whitespace() {
        let start = word.as_ptr() as usize - base;
        let end = start + word.len();
        if let Some(q) = quote {
            if word.ends_with(q) {
                quote = None;
            }
            continue;
        }
        let opening = word.chars().next().filter(|c| matches!(c, '\'' | '"'));
        let bare = word.trim_matches(['[', ']', '(', ')', '{', '}']);
        let boundary = opening.is_some()
            || STOPWORDS.iter().any(|s| s.eq_ignore_ascii_case(bare))
            || word.ends_with(':')
            || word
                .split_once(':')
                .is_some_and(|(_, v)| v.starts_with(|c: char| c.is_ascii_digit()));
        if boundary {
            if let Some((s, e)) = run.take() {
                out.push(&text[s..e]);
            }
            if let Some(q) = opening
                && !(word.len() > 1 && word.ends_with(q))
            {
                quote = Some(q);
            }
        } else {
            run = Some((run.map_or(start, |(s, _)| s), end));
        }
    }
    if let Some((s, e)) = run {
        out.push(&text[s..e]);
    }
    out
}

/// A name without the version at its end (`Foo 1.2`, `Foo v2`,
/// `foo-1.4`, `foo_2.0`, `foo0.5.0`) or before lower-case words at its
/// end (`Foo Crawler 6 used`), and whether there was one.
fn strip_version(name: &str) -> (&str, bool) {
    let words: Vec<&str> = name.split_whitespace().collect();
    if let Some(i) = (1..words.len()).find(|&i| {
        is_version(words[i])
            && words[i + 1..]
                .iter()
                .all(|w| w.bytes().all(|b| !b.is_ascii_uppercase()))
    }) {
        let cut = words[i].as_ptr() as usize - name.as_ptr() as usize;
        let head = name[..cut].trim_end();
        if head.bytes().any(|b| b.is_ascii_alphabetic()) {
            return (head, true);
        }
    }
    let head = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let tail = &name[head.len()..];
    if !tail.bytes().any(|b| b.is_ascii_digit()) {
        return (name, false);
    }
    let unv = head
        .strip_suffix(['v', 'V'])
        .filter(|h| h.ends_with(['-', '_']))
        .unwrap_or(head);
    if let Some(h) = unv.strip_suffix(['-', '_'])
        && h.bytes().any(|b| b.is_ascii_alphabetic())
    {
        return (h, true);
    }
    if tail.contains('.') && head.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return (head, true);
    }
    (name, false)
}

/// `1.0`, `3.1b`, `v2`: a version, not a word of a name.
fn is_version(word: &str) -> bool {
    let w = word.strip_prefix(['v', 'V']).unwrap_or(word);
    w.starts_with(|c: char| c.is_ascii_digit())
}

/// Text without the punctuation around it; `None` when nothing is left.
fn clean(text: &str) -> Option<&str> {
    let t = text.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '+' | '-'
                    | ';'
                    | ':'
                    | ','
                    | '"'
                    | '\''
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | '='
                    | '#'
                    | '*'
                    | '/'
            )
    });
    (!t.is_empty()).then_some(t)
}

/// Whether a cleaned entry can be a product's name.
fn is_name(name: &str) -> bool {
    if name.len() > MAX_LEN || name.split_whitespace().count() > MAX_WORDS {
        return false;
    }
    if name.is_ascii() && !name.bytes().any(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if GENERIC_NAMES.contains(&lower.as_str()) || is_language(&lower) {
        return false;
    }
    let first = lower.split_whitespace().next().unwrap_or("");
    if first.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return false;
    }
    let head = first.split(['/', ':']).next().unwrap_or(first);
    if NOT_A_PRODUCT.contains(&head) || PHONE_PREFIXES.iter().any(|p| head.starts_with(p)) {
        return false;
    }
    has_crawler_word(name) || !PLATFORM_PARTS.iter().any(|p| first.contains(p))
}

/// `en`, `en-US`, `pt_BR` (lower case): a language, not a name.
fn is_language(lower: &str) -> bool {
    let b = lower.as_bytes();
    let letters = |s: &[u8]| s.len() == 2 && s.iter().all(u8::is_ascii_lowercase);
    match b.len() {
        2 => letters(b),
        5 => letters(&b[..2]) && matches!(b[2], b'-' | b'_') && letters(&b[3..]),
        _ => false,
    }
}

/// Where a contact URL or e-mail address starts in `text`, and its host.
fn contact_at(text: &str) -> Option<(usize, &str)> {
    let lower = text.to_ascii_lowercase();
    let url = rules::URL_MARKS
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        .and_then(|at| {
            let rest = text[at..].trim_start_matches(|c: char| c.is_ascii_alphabetic() || c == ':');
            let rest = strip_www(rest.trim_start_matches('/'));
            Some((at, host(rest)?))
        });
    let mail = text.find('@').and_then(|at| {
        let start = text[..at]
            .rfind(|c: char| c.is_ascii_whitespace())
            .map_or(0, |s| s + 1);
        let domain = host(&text[at + 1..])?;
        (at > start).then_some((start, domain))
    });
    match (url, mail) {
        (Some(u), Some(m)) => Some(if u.0 <= m.0 { u } else { m }),
        (u, m) => u.or(m),
    }
}

/// The host of a word that is a contact (`+http://…`, `www.…`,
/// `name@domain`).
fn contact_host(word: &str) -> Option<&str> {
    let (at, host) = contact_at(word)?;
    word[..at]
        .bytes()
        .all(|b| !b.is_ascii_alphanumeric())
        .then_some(host)
}

fn strip_www(text: &str) -> &str {
    match text.get(..4) {
        Some(w) if w.eq_ignore_ascii_case("www.") => &text[4..],
        _ => text,
    }
}

/// The host name at the start of `text`: letters, digits, `-` and `.`,
/// with a dot and a letter.
fn host(text: &str) -> Option<&str> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
        .unwrap_or(text.len());
    let h = text[..end].trim_matches('.');
    let ok = h.contains('.') && h.bytes().any(|b| b.is_ascii_alphabetic());
    ok.then_some(h)
}

/// The whole User-Agent as a name, when it is only words: at most 64
/// bytes, a letter, no `/`, `(`, `;`, `@` or `:`.
pub(crate) fn whole_name(ua: &str) -> Option<&str> {
    let ua = ua.trim();
    (ua.len() <= 64
        && ua.bytes().any(|b| b.is_ascii_alphabetic())
        && !ua.contains(['/', '(', ';', '@', ':']))
    .then_some(ua)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_clients() {
        for (ua, name) in [
            (
                "UniversalFeedParser/4.2-pre-314-svn +http://feedparser.org/",
                "UniversalFeedParser",
            ),
            (
                "Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10.6; en-US; rv:1.9.2) Gecko/20100115 \
                 Firefox/3.6 (FlipboardProxy/1.1; +http://flipboard.com/browserproxy)",
                "FlipboardProxy",
            ),
            (
                "Mozilla/5.0 (X11; U; Linux x86_64; en-US; rv:1.9.0.19; aggregator:Spinn3r \
                 (Spinn3r 3.1); http://spinn3r.com/robot) Gecko/2010040121 Firefox/3.0.19",
                "Spinn3r",
            ),
            (
                "Mozilla/5.0 (Windows NT 6.1; rv:6.0) Gecko/20110814 Firefox/6.0 Google favicon",
                "Google favicon",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google \
                 Web Preview) Chrome/27.0.1453 Safari/537.36",
                "Google Web Preview",
            ),
            (
                "Mozilla/5.0 (compatible; Linux x86_64; Mail.RU_Bot/2.0; +http://go.mail.ru/help/robots)",
                "Mail.RU_Bot",
            ),
            (
                "Mozilla/5.0 (compatible; Embedly/0.2; snap; +http://support.embed.ly/)",
                "Embedly",
            ),
            (
                "Chef Client/10.18.2 (ruby-1.9.3-p327; ohai-6.16.0; x86_64-linux; +http://opscode.com)",
                "Chef Client",
            ),
            (
                "Feedly/1.0 (+http://www.feedly.com/fetcher.html; like FeedFetcher-Google)",
                "Feedly",
            ),
            (
                "SimplePie/1.3.1 (Feed Parser; http://simplepie.org; Allow like Gecko) Build/20121030175911",
                "SimplePie",
            ),
            (
                "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1; http://www.tropicdesigns.net)",
                "tropicdesigns.net",
            ),
            ("Mozilla/5.0 (compatible; crawler)", ""),
            ("python-requests/2.31.0", "python-requests"),
            (
                "python-requests/2.31.0 (compatible; AcmeScraper/1.0; +https://acme.example/bot)",
                "AcmeScraper",
            ),
            (
                "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
                "Yahoo! Slurp",
            ),
            (
                "ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)",
                "ia_archiver",
            ),
            (
                "Mozilla/5.0 (compatible; +mailto:bot@crawl.example.org)",
                "crawl.example.org",
            ),
        ] {
            assert_eq!(product_name(ua).unwrap_or(""), name, "{ua}");
        }
    }

    #[test]
    fn any_text_gives_an_answer_without_panicking() {
        let nasty = [
            "",
            "(",
            ")",
            "((((",
            "))((",
            "a@",
            "@b.c",
            "x\u{3000}bot@crawl.example (+http://\u{e9}.example)",
            "\u{3000}Foo/1 (compatible;\u{3000}Bar\u{3000}1.0;\u{3000}+http://b.example)",
            "Caf\u{e9}Bot/1.0 (+https://caf\u{e9}.example/bot)",
            "/ / / ; , : +http:// www. @ - -1 v1 1.0",
            "compatible compatible; compatible",
            "'unclosed quote bot",
        ];
        let sample = "Mozilla/5.0 (compatible; B\u{f6}t/1.0; +http://b\u{f6}t.example; \u{2028}x@y.z) Gecko/1 \u{e9}";
        let cuts = sample.char_indices().map(|(i, _)| &sample[..i]);
        for ua in nasty.into_iter().chain(cuts) {
            if let Some(name) = product_name(ua) {
                assert!(!name.is_empty() && ua.contains(name), "{ua:?}: {name:?}");
            }
        }
    }

    #[test]
    fn entries_and_languages() {
        assert_eq!(entry_name("Spinn3r 3.1"), Some(("Spinn3r", true)));
        assert_eq!(entry_name("MSIE 6.0"), None);
        assert_eq!(entry_name("rv:1.9.2"), None);
        assert_eq!(
            entry_name("Exabot/3.0 (BiggerBetter)"),
            Some(("Exabot", true))
        );
        assert_eq!(entry_name("Nexus 5X Build/MMB29P"), None);
        assert_eq!(strip_version("grub-client-1.5.3"), ("grub-client", true));
        assert_eq!(
            strip_version("trendictionbot0.5.0"),
            ("trendictionbot", true)
        );
        assert_eq!(strip_version("WPScan v3.8.22"), ("WPScan", true));
        assert_eq!(strip_version("360Spider"), ("360Spider", false));
        assert_eq!(strip_version("agent6"), ("agent6", false));
        assert_eq!(
            parts("Speedy Spider for SpeedyAds"),
            ["Speedy Spider", "SpeedyAds"]
        );
        assert!(is_language("en-us") && is_language("de") && !is_language("snap"));
        assert!(!is_name("Windows NT") && !is_name("x86_64-linux") && !is_name("like Gecko"));
        assert!(is_name("360Spider") && !is_name("8 readers") && !is_name("crawler"));
    }
}
