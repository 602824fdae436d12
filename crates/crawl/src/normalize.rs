//! URLs as the crawler keeps them: one spelling per resource.
//!
//! [`normalize`] resolves a link against its page and writes the result in
//! the normal form of RFC 3986 §6.2.2, on top of what the `url` crate
//! already does (scheme and host in lower case, IDNA host names in their
//! ASCII form, default ports dropped, `.` and `..` segments removed, an
//! empty path made `/`, characters that must be escaped escaped):
//!
//! - the fragment is dropped (it never reaches the server);
//! - percent-escapes of unreserved characters (`A–Z a–z 0–9 - . _ ~`) are
//!   decoded, and the others are written with upper-case hex digits
//!   (`%7e` → `~`, `%2f` → `%2F`), in the path and the query;
//! - an empty query (`/a?`) is dropped;
//! - only `http` and `https` URLs are kept; others are
//!   [`UrlProblem::Scheme`].
//!
//! The query's order and the path's case are kept: servers may read them.
//!
//! A site's pages mostly link with absolute paths (`/p/123.html`), and
//! such a link resolves the same way against every page of an origin: the
//! results of those are remembered ([`normalize`]), per thread, for the
//! origin last asked about, so that the crawl parses each once rather
//! than once per link.

use std::cell::RefCell;

use url::{Position, Url};

/// Why a link was not made a crawlable URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UrlProblem {
    /// It does not parse as a URL relative to its page.
    Invalid(String),
    /// Not `http` or `https` (`mailto:`, `javascript:`, `ftp:`, …).
    Scheme(String),
    /// Longer than the limit, in bytes of its normal form.
    TooLong(usize),
}

impl std::fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlProblem::Invalid(e) => write!(f, "not a URL: {e}"),
            UrlProblem::Scheme(s) => write!(f, "a '{s}:' URL is not crawled"),
            UrlProblem::TooLong(n) => write!(f, "a URL of {n} bytes is longer than the limit"),
        }
    }
}

/// The longest URL kept, in bytes: longer ones are almost always traps
/// (session identifiers appended again and again, calendars).
pub const MAX_URL_LEN: usize = 2048;

/// `href` resolved against `base` and normalised (module docs).
///
/// # Errors
/// [`UrlProblem`] when it is not an `http` or `https` URL of at most
/// [`MAX_URL_LEN`] bytes.
pub fn normalize(base: &Url, href: &str) -> Result<Url, UrlProblem> {
    let href = href.trim_matches(|c: char| c.is_ascii_whitespace());
    // A path-absolute or scheme-relative reference (`/x`, `//host/x`,
    // and `\` for `/`, as the URL standard reads it in `http` and
    // `https` URLs) takes only the base's scheme and authority: its
    // result is remembered under them.
    if !href.starts_with(['/', '\\']) {
        return resolve(base, href);
    }
    let authority = &base[..Position::BeforePath];
    MEMO.with_borrow_mut(|memo| {
        if memo.authority != authority {
            memo.authority.clear();
            memo.authority.push_str(authority);
            memo.urls.clear();
        }
        if let Some(url) = memo.urls.get(href) {
            return Ok(url.clone());
        }
        let url = resolve(base, href)?;
        if memo.urls.len() >= MEMO_URLS {
            memo.urls.clear();
        }
        memo.urls.insert(href.into(), url.clone());
        Ok(url)
    })
}

/// The most results [`normalize`] remembers (per thread): about a
/// megabyte. When full it forgets them all and starts again.
const MEMO_URLS: usize = 4096;

/// Results of [`normalize`] for references that depend on their base's
/// scheme and authority only.
#[derive(Default)]
struct Memo {
    /// The base's `scheme://userinfo@host:port` the results are for.
    authority: String,
    /// The reference (trimmed) and its normal form.
    urls: foldhash::HashMap<Box<str>, Url>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// `href` (trimmed) resolved against `base` and normalised, remembering
/// nothing.
fn resolve(base: &Url, href: &str) -> Result<Url, UrlProblem> {
    let url = base
        .join(href)
        .map_err(|e| UrlProblem::Invalid(e.to_string()))?;
    normalize_url(url)
}

/// An absolute URL normalised (module docs).
///
/// # Errors
/// As [`normalize`].
pub fn normalize_url(mut url: Url) -> Result<Url, UrlProblem> {
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(UrlProblem::Scheme(other.to_owned())),
    }
    url.set_fragment(None);
    if url.path().contains('%') {
        let path = escapes(url.path());
        url.set_path(&path);
    }
    match url.query() {
        Some("") => url.set_query(None),
        Some(q) if q.contains('%') => {
            let q = escapes(q);
            url.set_query(Some(&q));
        }
        _ => {}
    }
    let len = url.as_str().len();
    if len > MAX_URL_LEN {
        return Err(UrlProblem::TooLong(len));
    }
    Ok(url)
}

/// Percent-escapes in normal form: unreserved characters decoded, the rest
/// with upper-case hex digits. A `%` not followed by two hex digits stays.
fn escapes(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (hex(b.get(i + 1)), hex(b.get(i + 2)))
        {
            let byte = h * 16 + l;
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                out.push(char::from(byte));
            } else {
                out.push('%');
                out.push(char::from(b[i + 1].to_ascii_uppercase()));
                out.push(char::from(b[i + 2].to_ascii_uppercase()));
            }
            i += 3;
            continue;
        }
        // `s` is a URL's path or query: ASCII only, so bytes are chars.
        out.push(char::from(b[i]));
        i += 1;
    }
    out
}

fn hex(b: Option<&u8>) -> Option<u8> {
    let b = *b?;
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(base: &str, href: &str) -> Result<String, UrlProblem> {
        let base = Url::parse(base).expect("base");
        normalize(&base, href).map(String::from)
    }

    #[test]
    fn normal_forms() {
        let base = "https://Example.COM/dir/page.html";
        for (href, want) in [
            ("other.html", "https://example.com/dir/other.html"),
            ("../a/./b/../c", "https://example.com/a/c"),
            ("HTTPS://EXAMPLE.com:443/x", "https://example.com/x"),
            ("http://example.com:80", "http://example.com/"),
            ("http://example.com:8080/", "http://example.com:8080/"),
            ("/a#frag", "https://example.com/a"),
            ("#top", "https://example.com/dir/page.html"),
            ("/a?", "https://example.com/a"),
            ("/%7euser/%2f%41%5a", "https://example.com/~user/%2FAZ"),
            ("/q?x=%3d%61&y=%7E", "https://example.com/q?x=%3Da&y=~"),
            ("/bad%zz%4", "https://example.com/bad%zz%4"),
            (
                "/Case/Kept?B=2&a=1",
                "https://example.com/Case/Kept?B=2&a=1",
            ),
            ("  /spaced  ", "https://example.com/spaced"),
            ("/a b", "https://example.com/a%20b"),
            ("//bücher.example/ü", "https://xn--bcher-kva.example/%C3%BC"),
            ("//other.example", "https://other.example/"),
        ] {
            assert_eq!(n(base, href).as_deref(), Ok(want), "{href}");
        }
    }

    #[test]
    fn what_is_not_crawled_says_why() {
        let base = "https://example.com/";
        assert_eq!(
            n(base, "mailto:a@example.com"),
            Err(UrlProblem::Scheme("mailto".into()))
        );
        assert_eq!(
            n(base, "javascript:void(0)"),
            Err(UrlProblem::Scheme("javascript".into()))
        );
        assert!(matches!(
            n(base, "http://[::1"),
            Err(UrlProblem::Invalid(_))
        ));
        let long = format!("/{}", "a".repeat(MAX_URL_LEN));
        assert!(matches!(n(base, &long), Err(UrlProblem::TooLong(l)) if l > MAX_URL_LEN));
        assert!(
            UrlProblem::Scheme("ftp".into())
                .to_string()
                .contains("ftp:")
        );
    }

    #[test]
    fn remembered_results_are_the_general_ones() {
        // References of every shape, against bases of several origins
        // (user info, ports, schemes) and paths, asked in turns so that
        // results are remembered, looked up and forgotten.
        let bases = [
            "https://example.com/dir/page.html",
            "https://example.com/other/deeper/x?q=1",
            "http://example.com/dir/page.html",
            "https://example.com:8443/dir/",
            "https://user:pw@example.com/dir/",
            "https://user@example.com/",
            "https://xn--bcher-kva.example/a/b",
            "http://127.0.0.1:8080/p/1.html",
            "http://[::1]/a",
        ];
        let hrefs = [
            "/p/123.html",
            "/",
            "/a/../b/./c",
            "/%7euser/%2f%41",
            "/q?x=%3d&y=%7E",
            "/q?",
            "/frag#top",
            "/a b",
            "/ü/€",
            "//other.example/x",
            "//EXAMPLE.com:443/y",
            "///triple",
            "/\\evil.example/",
            "\\\\evil.example/z",
            "\\back",
            "/\t/tab.example/",
            "/\n/x",
            "  /spaced  ",
            "/bad%zz",
            "//[::1",
            "relative.html",
            "../up",
            "?only=query",
            "#frag",
            "",
            "mailto:a@example.com",
        ];
        let long = format!("/{}", "a".repeat(MAX_URL_LEN));
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let base = Url::parse(bases[usize::try_from(x % 9).expect("small")]).expect("base");
            let i = usize::try_from((x >> 8) % (hrefs.len() as u64 + 1)).expect("small");
            let href = hrefs.get(i).copied().unwrap_or(&long);
            let trimmed = href.trim_matches(|c: char| c.is_ascii_whitespace());
            assert_eq!(
                normalize(&base, href),
                resolve(&base, trimmed),
                "{href:?} against {base}"
            );
        }
        // More references than are remembered: forgotten, then right again.
        let base = Url::parse(bases[0]).expect("base");
        for round in 0..2 {
            for i in 0..(MEMO_URLS + 10) {
                let href = format!("/p/{i}.html");
                assert_eq!(
                    normalize(&base, &href).map(String::from).as_deref(),
                    Ok(format!("https://example.com/p/{i}.html").as_str()),
                    "round {round}"
                );
            }
        }
    }

    #[test]
    fn normalising_twice_changes_nothing() {
        let base = Url::parse("http://example.com/a/").expect("base");
        for href in [
            "%7e/%2f?%41=%zz",
            "../../x/./y?",
            "//EXAMPLE.com:80/%E2%82%AC",
        ] {
            let once = normalize(&base, href).expect("url");
            let twice = normalize_url(once.clone()).expect("url");
            assert_eq!(once, twice, "{href}");
        }
    }
}
