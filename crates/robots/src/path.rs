//! From a URL to the path robots.txt rules are compared with, and the
//! percent-encoding forms of [`PathForm`].

use std::borrow::Cow;

use crate::profile::PathForm;
use crate::swar;

/// The path, parameters and query of a URL, without the fragment, as rules
/// are matched against: `https://a.example/b?c#d` gives `/b?c`.
///
/// A bare path is returned as it is (less any fragment); anything without a
/// path gives `/`; a result starting with `?` or `;` gets a leading `/`.
/// This is what google/robotstxt's `GetPathParamsQuery` computes.
#[must_use]
pub fn path_of(url: &str) -> Cow<'_, str> {
    let b = url.as_bytes();
    // Most URLs asked about start with `https://` or `http://`: the path
    // is the first `/`, `?` or `;` after it, up to the first `#`, unless a
    // `#` comes first.
    let scheme_end = if b.starts_with(b"https://") {
        8
    } else if b.starts_with(b"http://") {
        7
    } else {
        0
    };
    if scheme_end > 0 {
        // The path starts at the first `/`, `?` or `;` after the scheme,
        // unless a `#` comes first; it ends at the next `#`. A URL of up to
        // 64 bytes is read as two bit masks, longer ones searched.
        let (p, end) = match swar::masks(b, PATH_OR_FRAGMENT, b'#') {
            Some([ends_host, hash]) => {
                let from = |mask: u64, at: usize| {
                    (mask & u64::MAX.checked_shl(at as u32).unwrap_or(0)).trailing_zeros() as usize
                };
                let p = from(ends_host, scheme_end);
                (p, from(hash, p + 1).min(b.len()))
            }
            None => {
                let p = first_of(b, scheme_end, PATH_OR_FRAGMENT).unwrap_or(b.len());
                (p, if p < b.len() { fragment(b, p + 1) } else { p })
            }
        };
        if p >= b.len() || b[p] == b'#' {
            return Cow::Borrowed("/");
        }
        let path = &url[p..end];
        return if b[p] == b'/' {
            Cow::Borrowed(path)
        } else {
            Cow::Owned(format!("/{path}"))
        };
    }
    let from = if b.starts_with(b"//") { 2 } else { 0 };
    // A scheme ends at the first `://`, unless a path, parameter or query
    // character comes before it: then `://` is part of the path. The first
    // such character is the `/` of `://` exactly when there is a scheme. A
    // fragment before the path leaves no path.
    let early = match first_of(b, from, PATH_OR_FRAGMENT) {
        Some(i) if b[i] != b'#' => i,
        _ => return Cow::Borrowed("/"),
    };
    let scheme =
        early > from && b[early] == b'/' && b[early - 1] == b':' && b.get(early + 1) == Some(&b'/');
    let path_start = if scheme {
        match first_of(b, early + 2, PATH_OR_FRAGMENT) {
            Some(i) if b[i] != b'#' => i,
            _ => return Cow::Borrowed("/"),
        }
    } else {
        early
    };
    // No `#` comes before the path (the scans above stop at one).
    let path = &url[path_start..fragment(b, path_start)];
    if b[path_start] == b'/' {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(format!("/{path}"))
    }
}

/// Where the fragment of `url` starts (its first `#` at or after `from`),
/// or its end: a block at a time for the usual short path, by `memchr`
/// for long ones.
#[inline]
fn fragment(url: &[u8], from: usize) -> usize {
    if url.len() - from > 64 {
        memchr::memchr(b'#', &url[from..]).map_or(url.len(), |i| i + from)
    } else {
        swar::first_of(url, from, url.len(), [b'#']).unwrap_or(url.len())
    }
}

/// What ends a URL's scheme and host: a path, parameter, query or fragment
/// character.
const PATH_OR_FRAGMENT: [u8; 4] = [b'/', b'?', b';', b'#'];

/// The first of `needles` in `bytes` at or after `from`.
#[inline]
fn first_of(bytes: &[u8], from: usize, needles: [u8; 4]) -> Option<usize> {
    swar::first_of(bytes, from, bytes.len(), needles)
}

const fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

const fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn push_escaped(out: &mut Vec<u8>, b: u8) {
    out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
}

/// The escape at `i`, if `bytes[i..]` starts with `%` and two hex digits.
fn escape_at(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i) != Some(&b'%') {
        return None;
    }
    let hi = hex_val(*bytes.get(i + 1)?)?;
    let lo = hex_val(*bytes.get(i + 2)?)?;
    Some(hi << 4 | lo)
}

/// Whether `bytes` needs work under `form` (otherwise it is already in that
/// form and can be borrowed).
fn needs_work(bytes: &[u8], form: PathForm) -> bool {
    match form {
        PathForm::EscapePatterns | PathForm::Rfc3986 => has_escape_or_high(bytes),
        PathForm::DecodeAll => bytes.iter().any(|&b| !(is_unreserved(b) || b == b'/')),
    }
}

/// What a whole body holds, from one pass over it a word at a time, so
/// that readers can skip per-line and per-pattern checks it rules out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyBytes {
    /// A NUL byte.
    pub(crate) nul: bool,
    /// A `%` or a byte above 0x7F: patterns may need normalising.
    pub(crate) escape_or_high: bool,
}

impl BodyBytes {
    pub(crate) fn of(bytes: &[u8]) -> BodyBytes {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = ONES << 7;
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        let (mut nul, mut other) = (0u64, 0u64);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let w = u64::from_le_bytes(word);
            nul |= zero(w);
            other |= zero(w ^ (ONES * u64::from(b'%'))) | w;
        }
        let rest = chunks.remainder();
        BodyBytes {
            nul: nul & HIGH != 0 || rest.contains(&0),
            escape_or_high: other & HIGH != 0 || rest.iter().any(|&b| b == b'%' || b >= 0x80),
        }
    }

    /// Whether every pattern taken from this body is already in `form`.
    pub(crate) fn patterns_normal(self, form: PathForm) -> bool {
        !self.escape_or_high && form != PathForm::DecodeAll
    }
}

/// Whether `bytes` holds a `%` or a byte above 0x7F: one pass, a word at a
/// time (paths and patterns are short, so this beats two vector searches).
fn has_escape_or_high(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES << 7;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let x = w ^ (ONES * u64::from(b'%'));
        // A zero byte of `x` is a `%`.
        if (x.wrapping_sub(ONES) & !x | w) & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| b == b'%' || b >= 0x80)
}

/// Brings a rule's pattern to the profile's form.
#[must_use]
pub fn normalize_pattern(bytes: &[u8], form: PathForm) -> Cow<'_, [u8]> {
    normalize(bytes, form)
}

/// Brings a URL path to the profile's form. Under
/// [`PathForm::EscapePatterns`] the path is used as given.
#[must_use]
pub fn normalize_path(bytes: &[u8], form: PathForm) -> Cow<'_, [u8]> {
    if form == PathForm::EscapePatterns {
        return Cow::Borrowed(bytes);
    }
    normalize(bytes, form)
}

fn normalize(bytes: &[u8], form: PathForm) -> Cow<'_, [u8]> {
    if !needs_work(bytes, form) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 8);
    match form {
        PathForm::EscapePatterns | PathForm::Rfc3986 => {
            let decode_unreserved = form == PathForm::Rfc3986;
            let mut i = 0;
            while i < bytes.len() {
                let b = bytes[i];
                if let Some(v) = escape_at(bytes, i) {
                    if decode_unreserved && is_unreserved(v) {
                        out.push(v);
                    } else {
                        push_escaped(&mut out, v);
                    }
                    i += 3;
                } else {
                    if b >= 0x80 {
                        push_escaped(&mut out, b);
                    } else {
                        out.push(b);
                    }
                    i += 1;
                }
            }
        }
        PathForm::DecodeAll => {
            let keep = |out: &mut Vec<u8>, v: u8| {
                if is_unreserved(v) || v == b'/' {
                    out.push(v);
                } else {
                    push_escaped(out, v);
                }
            };
            let mut i = 0;
            while i < bytes.len() {
                match escape_at(bytes, i) {
                    // 1997 draft §3.2.2: `%2F` is not a path separator, so it
                    // stays encoded.
                    Some(b'/') => out.extend_from_slice(b"%2F"),
                    Some(v) => keep(&mut out, v),
                    None => {
                        keep(&mut out, bytes[i]);
                        i += 1;
                        continue;
                    }
                }
                i += 3;
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use botwarden_testdata::Xorshift;

    use super::*;

    #[test]
    fn paths_of_urls() {
        for (url, want) in [
            ("", "/"),
            ("http://www.example.com", "/"),
            ("http://www.example.com/", "/"),
            ("http://www.example.com/a", "/a"),
            ("http://www.example.com/a#b", "/a"),
            (
                "http://www.example.com/a/b?c=http://d.e/",
                "/a/b?c=http://d.e/",
            ),
            ("http://www.example.com/a/b;c?d=e#f", "/a/b;c?d=e"),
            ("a", "/"),
            ("a/", "/"),
            ("/a", "/a"),
            ("a/b", "/b"),
            ("example.com?a", "/?a"),
            ("example.com/a;b#c", "/a;b"),
            ("//a/b/c", "/b/c"),
            ("http://a.example#x/y", "/"),
            ("http:/a", "/a"),
            ("a:/b", "/b"),
            ("://x/y", "/y"),
            ("http://", "/"),
            ("http://a?b://c", "/?b://c"),
            ("mailto:x@y", "/"),
        ] {
            assert_eq!(path_of(url), want, "{url}");
        }
    }

    /// `path_of` as first written: one search per step.
    fn path_of_plainly(url: &str) -> String {
        let b = url.as_bytes();
        let from = if b.starts_with(b"//") { 2 } else { 0 };
        let path_char = |from: usize| {
            b[from..]
                .iter()
                .position(|c| b"/?;".contains(c))
                .map(|i| i + from)
        };
        let Some(early) = path_char(from) else {
            return "/".into();
        };
        let scheme = early > from
            && b[early] == b'/'
            && b[early - 1] == b':'
            && b.get(early + 1) == Some(&b'/');
        let path_start = if scheme {
            match path_char(early + 2) {
                Some(p) => p,
                None => return "/".into(),
            }
        } else {
            early
        };
        let hash = b[from..].iter().position(|&c| c == b'#').map(|i| i + from);
        if hash.is_some_and(|h| h < path_start) {
            return "/".into();
        }
        let path = &url[path_start..hash.unwrap_or(b.len())];
        if b[path_start] == b'/' {
            path.into()
        } else {
            format!("/{path}")
        }
    }

    #[test]
    fn path_of_agrees_with_its_plain_definition() {
        let alphabet = b"/?;#:ah";
        let mut rng = Xorshift::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200_000 {
            let x = rng.next_u64();
            let len = (x % 24) as usize;
            let mut y = x;
            let url: String = (0..len)
                .map(|_| {
                    y = y.rotate_left(3) ^ 0x5555;
                    char::from(alphabet[(y % alphabet.len() as u64) as usize])
                })
                .collect();
            assert_eq!(path_of(&url), path_of_plainly(&url), "{url:?}");
            let long = format!("https://example.com/{}{url}", "p".repeat(70));
            assert_eq!(path_of(&long), path_of_plainly(&long), "{long:?}");
            // The fast ways for `http://` and `https://` (bit masks of the
            // whole URL from 16 to 64 bytes, a search otherwise), with a
            // host that may end in any of the characters that end one.
            for scheme in ["https://", "http://"] {
                for times in 1..=3 {
                    let u = format!("{scheme}{}", url.repeat(times));
                    assert_eq!(path_of(&u), path_of_plainly(&u), "{u:?}");
                }
            }
        }
    }

    #[test]
    fn rfc3986_form_matches_the_rfc_table() {
        // RFC 9309 §2.2.2.
        let f = |s: &str| {
            String::from_utf8(normalize_path(s.as_bytes(), PathForm::Rfc3986).into_owned()).unwrap()
        };
        assert_eq!(f("/foo/bar?baz=quz"), "/foo/bar?baz=quz");
        assert_eq!(
            f("/foo/bar?baz=https://foo.bar"),
            "/foo/bar?baz=https://foo.bar"
        );
        assert_eq!(f("/foo/bar/ツ"), "/foo/bar/%E3%83%84");
        assert_eq!(f("/foo/bar/%E3%83%84"), "/foo/bar/%E3%83%84");
        assert_eq!(f("/foo/bar/%62%61%7A"), "/foo/bar/baz");
        assert_eq!(f("/a%2fb%2F"), "/a%2Fb%2F");
        assert_eq!(f("/100%"), "/100%");
    }

    #[test]
    fn body_bytes_in_every_position() {
        for len in 0..20 {
            let plain = vec![b'a'; len];
            let none = BodyBytes {
                nul: false,
                escape_or_high: false,
            };
            assert_eq!(BodyBytes::of(&plain), none);
            for at in 0..len {
                for (b, nul, other) in [
                    (0, true, false),
                    (b'%', false, true),
                    (0x80, false, true),
                    (0x01, false, false),
                    (0x25 ^ 0x01, false, false),
                ] {
                    let mut v = plain.clone();
                    v[at] = b;
                    let got = BodyBytes::of(&v);
                    assert_eq!(
                        (got.nul, got.escape_or_high),
                        (nul, other),
                        "{len} {at} {b}"
                    );
                }
            }
        }
        let plain = BodyBytes::of(b"/a/b.html");
        assert!(plain.patterns_normal(PathForm::EscapePatterns));
        assert!(plain.patterns_normal(PathForm::Rfc3986));
        assert!(!plain.patterns_normal(PathForm::DecodeAll));
    }

    #[test]
    fn escape_or_high_byte_in_every_position() {
        for len in 0..20 {
            let plain = vec![b'a'; len];
            assert!(!has_escape_or_high(&plain), "{len}");
            for at in 0..len {
                for b in [b'%', 0x80, 0xff] {
                    let mut v = plain.clone();
                    v[at] = b;
                    assert!(has_escape_or_high(&v), "{len} {at} {b}");
                }
                // Bytes next to `%` and to 0x80 are neither.
                for b in [b'$', b'&', 0x7f, 0x25 ^ 0x80 ^ 0x80, 0x05] {
                    let mut v = plain.clone();
                    v[at] = b;
                    assert_eq!(has_escape_or_high(&v), b == b'%', "{len} {at} {b}");
                }
            }
        }
    }

    #[test]
    fn google_escapes_patterns_only() {
        let p = normalize_pattern("/ツ/%aa".as_bytes(), PathForm::EscapePatterns);
        assert_eq!(&*p, b"/%E3%83%84/%AA");
        let u = normalize_path("/ツ".as_bytes(), PathForm::EscapePatterns);
        assert_eq!(&*u, "/ツ".as_bytes());
    }

    #[test]
    fn decode_all_form() {
        let f = |s: &str| {
            String::from_utf8(normalize_path(s.as_bytes(), PathForm::DecodeAll).into_owned())
                .unwrap()
        };
        assert_eq!(f("/a%3cd.html"), "/a%3Cd.html");
        assert_eq!(f("/%7ejoe/"), "/~joe/");
        assert_eq!(f("/a%2fb"), "/a%2Fb");
        assert_eq!(f("/a%00b"), "/a%00b");
        assert_eq!(f("/a?b"), "/a%3Fb");
    }
}
