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
//! The crawler reads links with [`normalize_text`]: most of a site's
//! links are plain (`/p/123.html`, `next.html`) and are written out
//! without parsing, exactly as the parser would write them (a test
//! compares the two on every reference of up to four characters of an
//! alphabet of the troublesome ones); the others that resolve the same
//! way against every page of an origin are parsed once and remembered.

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
    resolve(base, trim(href))
}

/// What [`normalize`] gives, as text, written into `out` (cleared first):
/// the crawler's way to read a page's links, most of which it has met
/// before and needs only as text, to look up.
///
/// A plain reference, a path of letters, digits, `/ - . _ ~` with no `.`
/// or `..` segment, and maybe a query of URL-safe characters (`/p/7.html`,
/// `next.html`, `/search?q=a&page=2`), is written out beside its base's
/// scheme and authority (and directory, for a relative path) without
/// parsing: the URL parser would copy it as it is. Any other reference
/// is parsed; a path-absolute or scheme-relative one (`/x`, `//host/x`,
/// and `\` for `/`, as the URL standard reads it in `http` and `https`
/// URLs) takes only the base's scheme and authority, so its result is
/// remembered under them, per thread, for the origin last asked about.
///
/// # Errors
/// As [`normalize`].
pub fn normalize_text(base: &Url, href: &str, out: &mut String) -> Result<(), UrlProblem> {
    out.clear();
    let href = trim(href);
    if plain(base, href, out) {
        return if out.len() > MAX_URL_LEN {
            Err(UrlProblem::TooLong(out.len()))
        } else {
            Ok(())
        };
    }
    out.clear();
    if !href.starts_with(['/', '\\']) {
        out.push_str(resolve(base, href)?.as_str());
        return Ok(());
    }
    let authority = &base[..Position::BeforePath];
    MEMO.with_borrow_mut(|memo| {
        if memo.authority != authority {
            memo.authority.clear();
            memo.authority.push_str(authority);
            memo.urls.clear();
        }
        if let Some(url) = memo.urls.get(href) {
            out.push_str(url);
            return Ok(());
        }
        let url = resolve(base, href)?;
        if memo.urls.len() >= MEMO_URLS {
            memo.urls.clear();
        }
        memo.urls.insert(href.into(), url.as_str().into());
        out.push_str(url.as_str());
        Ok(())
    })
}

/// A link's reference without the white space around it.
fn trim(href: &str) -> &str {
    href.trim_matches(|c: char| c.is_ascii_whitespace())
}

/// Writes a plain reference ([`normalize_text`]) resolved against `base`
/// into `out`; `false`, with `out` in any state, for any other.
fn plain(base: &Url, href: &str, out: &mut String) -> bool {
    if !matches!(base.scheme(), "http" | "https") {
        return false;
    }
    // The fragment never reaches the server.
    let href = href.split_once('#').map_or(href, |(h, _)| h);
    let (path, query) = match href.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (href, None),
    };
    let path_byte =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~');
    // Characters a query keeps as they are (an empty query is dropped by
    // the normal form: not plain).
    let query_byte = |b: u8| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'/'
                    | b'='
                    | b'&'
                    | b'+'
                    | b','
                    | b';'
                    | b':'
                    | b'@'
                    | b'!'
                    | b'$'
                    | b'*'
                    | b'('
                    | b')'
            )
    };
    if path.is_empty()
        || path.starts_with("//")
        || !path.bytes().all(path_byte)
        || path.split('/').any(|s| s == "." || s == "..")
        || query.is_some_and(|q| q.is_empty() || !q.bytes().all(query_byte))
    {
        return false;
    }
    out.push_str(&base[..Position::BeforePath]);
    if !path.starts_with('/') {
        // A relative path replaces what follows the base path's last `/`;
        // the base's directory is kept as it is written, so it must hold
        // no escapes the normal form would rewrite.
        let dir = base.path();
        let dir = &dir[..dir.rfind('/').map_or(0, |i| i + 1)];
        if dir.is_empty() || dir.contains('%') {
            return false;
        }
        out.push_str(dir);
    }
    out.push_str(path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    true
}

/// The most results [`normalize_text`] remembers (per thread): about a
/// quarter of a megabyte. When full it forgets them all and starts again.
const MEMO_URLS: usize = 4096;

/// Results of [`normalize_text`] for references that depend on their
/// base's scheme and authority only.
#[derive(Default)]
struct Memo {
    /// The base's `scheme://userinfo@host:port` the results are for.
    authority: String,
    /// The reference (trimmed) and its normal form.
    urls: foldhash::HashMap<Box<str>, Box<str>>,
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
    use botwarden_testdata::Xorshift;

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
        let mut rng = Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5_000 {
            let x = rng.next_u64();
            let base = Url::parse(bases[usize::try_from(x % 9).expect("small")]).expect("base");
            let i = usize::try_from((x >> 8) % (hrefs.len() as u64 + 1)).expect("small");
            let href = hrefs.get(i).copied().unwrap_or(&long);
            let trimmed = href.trim_matches(|c: char| c.is_ascii_whitespace());
            assert_eq!(
                text(&base, href),
                resolve(&base, trimmed).map(String::from),
                "{href:?} against {base}"
            );
        }
        // More references than are remembered (escapes: not plain, so
        // parsed and remembered): forgotten, then right again.
        let base = Url::parse(bases[0]).expect("base");
        for round in 0..2 {
            for i in 0..(MEMO_URLS + 10) {
                let href = format!("/p/{i}%7e.html");
                assert_eq!(
                    text(&base, &href).as_deref(),
                    Ok(format!("https://example.com/p/{i}~.html").as_str()),
                    "round {round}"
                );
            }
        }
    }

    fn text(base: &Url, href: &str) -> Result<String, UrlProblem> {
        let mut out = String::from("left over");
        normalize_text(base, href, &mut out).map(|()| out)
    }

    #[test]
    fn plain_references_are_written_as_the_parser_writes_them() {
        // Every reference of up to four characters of an alphabet of the
        // characters that make a reference not plain, or plain only in
        // part (dots, slashes, escapes, queries, fragments, a scheme's
        // colon, white space, a backslash, a quote), against bases whose
        // directory is plain, escaped, or the root, and one whose scheme
        // is not crawled: the text is what the parser gives, or the same
        // problem.
        const ALPHABET: &[u8] = b"/.a?#%7e:=\\ '-Z";
        let bases: Vec<Url> = [
            "https://example.com/dir/page.html?q=1#f",
            "http://u@example.com:8080/d%7e/x",
            "https://example.com/",
            "ftp://example.com/dir/",
        ]
        .iter()
        .map(|b| Url::parse(b).expect("base"))
        .collect();
        let mut plain_seen = 0;
        let mut href = Vec::new();
        let mut count = 0u64;
        let n = ALPHABET.len() as u64;
        for len in 0..=4u32 {
            for mut k in 0..n.pow(len) {
                href.clear();
                for _ in 0..len {
                    href.push(ALPHABET[usize::try_from(k % n).expect("small")]);
                    k /= n;
                }
                let href = std::str::from_utf8(&href).expect("ASCII");
                for base in &bases {
                    let mut out = String::new();
                    if plain(base, href.trim(), &mut out) {
                        plain_seen += 1;
                    }
                    assert_eq!(
                        text(base, href),
                        normalize(base, href).map(String::from),
                        "{href:?} against {base}"
                    );
                    count += 1;
                }
            }
        }
        assert!(count > 200_000, "{count} references");
        assert!(plain_seen > 1_000, "{plain_seen} plain ones");
        // Longer plain ones, and the length limit.
        let base = &bases[0];
        for href in [
            "/p/12345.html",
            "next/page-2.html",
            "/search?q=a&page=2&sort=(new)",
            "/a//b/",
            "/.well-known/x",
            "...",
            "/a/.../b",
        ] {
            let mut out = String::new();
            assert!(plain(base, href, &mut out), "{href}");
            assert_eq!(text(base, href), normalize(base, href).map(String::from));
        }
        let long = format!("/{}", "a".repeat(MAX_URL_LEN));
        assert_eq!(
            text(base, &long),
            Err(UrlProblem::TooLong(MAX_URL_LEN + 20))
        );
        assert_eq!(text(base, &long), normalize(base, &long).map(String::from));
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
