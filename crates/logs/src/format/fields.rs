//! Field values: addresses, status codes, byte counts, request lines.

use std::net::IpAddr;

/// An IPv4 or IPv6 address, IPv6 optionally in brackets. Hostnames (from
/// `HostnameLookups On`), zones (`%eth0`) and ports are refused.
pub(crate) fn address(s: &str) -> Option<IpAddr> {
    let s = s
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(s);
    // The standard parser has no length limit of its own to worry about,
    // but a quick bound keeps junk cheap.
    if s.is_empty() || s.len() > 45 {
        return None;
    }
    s.parse().ok()
}

/// A field written as `-` (or left empty) is absent.
pub(crate) fn opt(s: &str) -> Option<&str> {
    if s == "-" || s.is_empty() {
        None
    } else {
        Some(s)
    }
}

/// Outcome of reading a status field: absent, a code, or junk.
pub(crate) fn status(s: &str) -> Result<Option<u16>, ()> {
    match s.as_bytes() {
        b"-" | b"" => Ok(None),
        &[a, b, c]
            if a.is_ascii_digit() && b.is_ascii_digit() && c.is_ascii_digit() && a != b'0' =>
        {
            Ok(Some(
                u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'),
            ))
        }
        _ => Err(()),
    }
}

/// A byte count: digits, or `-` for none (0).
pub(crate) fn bytes(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b == b"-" {
        return Some(0);
    }
    if b.is_empty() || b.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    Some(v)
}

/// Whether a byte may appear in a method token (RFC 9110 `tchar`).
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// Whether a field holds a raw control byte, which neither Apache nor
/// nginx ever writes (they escape them): the line is corrupt.
pub(crate) fn has_control(s: &str) -> bool {
    // Not short-circuiting, so that it vectorises.
    s.bytes()
        .fold(false, |found, c| found | ((c < 0x20) & (c != b'\t')))
}

/// The pieces of a request line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RequestLine<'a> {
    pub(crate) method: Option<&'a str>,
    pub(crate) path: Option<&'a str>,
    pub(crate) protocol: Option<&'a str>,
}

/// Splits `METHOD TARGET PROTOCOL`, best effort, never failing:
///
/// - `-`, an empty field or a single word (nginx logs `"HELP"` or a TLS
///   handshake's bytes as the request when it could not parse one) give
///   no pieces at all;
/// - a first word that is not a method token (escaped binary junk) gives
///   no pieces either;
/// - the protocol is the last word when it starts with `HTTP/`; otherwise
///   there is none (HTTP/0.9 `GET /path`) and the target runs to the end;
/// - the target is everything between, spaces included.
pub(crate) fn request_line(s: &str) -> RequestLine<'_> {
    let Some(sp) = memchr::memchr(b' ', s.as_bytes()) else {
        return RequestLine::default();
    };
    let method = &s[..sp];
    if method.is_empty() || method.len() > 32 || !method.bytes().all(is_tchar) {
        return RequestLine::default();
    }
    let rest = &s[sp + 1..];
    let (target, protocol) = match memchr::memrchr(b' ', rest.as_bytes()) {
        Some(last) if rest[last + 1..].starts_with("HTTP/") => {
            (&rest[..last], Some(&rest[last + 1..]))
        }
        _ => (rest, None),
    };
    RequestLine {
        method: Some(method),
        path: (!target.is_empty()).then_some(target),
        protocol,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        let r = request_line("GET /a b HTTP/1.1");
        assert_eq!(
            (r.method, r.path, r.protocol),
            (Some("GET"), Some("/a b"), Some("HTTP/1.1"))
        );
        let r = request_line("GET /");
        assert_eq!(
            (r.method, r.path, r.protocol),
            (Some("GET"), Some("/"), None)
        );
        assert_eq!(request_line("-"), RequestLine::default());
        assert_eq!(request_line("HELP"), RequestLine::default());
        assert_eq!(request_line("\\x16\\x03\\x01 x"), RequestLine::default());
        let r = request_line("GET  HTTP/1.0");
        assert_eq!(
            (r.method, r.path, r.protocol),
            (Some("GET"), None, Some("HTTP/1.0"))
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(status("200"), Ok(Some(200)));
        assert_eq!(status("-"), Ok(None));
        assert_eq!(status("099"), Err(()));
        assert_eq!(status("2000"), Err(()));
        assert_eq!(bytes("-"), Some(0));
        assert_eq!(bytes("18446744073709551615"), None);
        assert_eq!(
            bytes("9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        assert_eq!(bytes("1x"), None);
    }
}
