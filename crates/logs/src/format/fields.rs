//! Field values: addresses, status codes, byte counts, request lines.

use std::net::IpAddr;

use crate::record::Client;

/// An IPv4 or IPv6 address as servers and proxies write it: IPv6
/// optionally in brackets, with a port after the brackets (`[2001:db8::1]:443`)
/// or after an IPv4 address (`192.0.2.1:51234`), and a zone (`fe80::1%eth0`).
/// The port and zone are dropped.
pub(crate) fn address(s: &str) -> Option<IpAddr> {
    // A quick bound keeps junk cheap (the longest form is a bracketed
    // IPv4-mapped address with a zone and a port).
    if s.is_empty() || s.len() > 80 {
        return None;
    }
    if let Ok(ip) = s.parse() {
        return Some(ip);
    }
    // The address, and whether what followed it was a valid port (or
    // nothing).
    let (host, port_ok) = match s.strip_prefix('[') {
        Some(rest) => {
            let (inside, after) = rest.split_once(']')?;
            (
                inside,
                after.is_empty() || after.strip_prefix(':').is_some_and(is_port),
            )
        }
        None => match s.rsplit_once(':') {
            // One colon: IPv4 and a port. More: IPv6, which has no port
            // without brackets.
            Some((h, p)) if !h.contains(':') => (h, is_port(p)),
            _ => (s, true),
        },
    };
    if !port_ok {
        return None;
    }
    let host = match host.split_once('%') {
        Some((ip, zone)) if !zone.is_empty() && ip.contains(':') => ip,
        Some(_) => return None,
        None => host,
    };
    host.parse().ok()
}

fn is_port(p: &str) -> bool {
    p.bytes().all(|c| c.is_ascii_digit()) && p.parse::<u16>().is_ok()
}

/// A client as a log names it: an [`address`], or else a host name (what
/// Apache writes in `%h` with `HostnameLookups On`, from reverse DNS):
/// labels of letters, digits, `-` and `_` joined by dots, at least two
/// labels (or `localhost`), at least one letter, at most 253 bytes, with
/// an optional final dot. A lone word is not taken for a name: it is far
/// more often the start of a line that is no request at all.
pub(crate) fn client(s: &str) -> Option<Client<'_>> {
    if let Some(ip) = address(s) {
        return Some(Client::Addr(ip));
    }
    is_host_name(s).then_some(Client::Name(s))
}

fn is_host_name(s: &str) -> bool {
    let name = s.strip_suffix('.').unwrap_or(s);
    if name.is_empty() || name.len() > 253 {
        return false;
    }
    if !name.contains('.') && !name.eq_ignore_ascii_case("localhost") {
        return false;
    }
    let mut letter = false;
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return false;
        }
        for c in label.bytes() {
            match c {
                b'a'..=b'z' | b'A'..=b'Z' => letter = true,
                b'0'..=b'9' | b'-' | b'_' => {}
                _ => return false,
            }
        }
    }
    letter
}

/// A field written as `-` (or left empty) is absent.
pub(crate) fn opt(s: &str) -> Option<&str> {
    if s == "-" || s.is_empty() {
        None
    } else {
        Some(s)
    }
}

/// Outcome of reading a status field: absent (`-` or empty), a code, or
/// junk. A code is three digits, or a lone `0`: besides 100–599, logs hold
/// `000` or `0` (the client left before a response) and nonstandard codes
/// up to 999.
pub(crate) fn status(s: &str) -> Result<Option<u16>, ()> {
    match s.as_bytes() {
        b"-" | b"" => Ok(None),
        b"0" => Ok(Some(0)),
        &[a, b, c] if a.is_ascii_digit() && b.is_ascii_digit() && c.is_ascii_digit() => Ok(Some(
            u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'),
        )),
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
/// - a first word that is not a method token with a letter (escaped binary
///   junk, ELB's `- - -`), or raw control bytes anywhere (servers escape
///   them: the field is mangled), give no pieces either;
/// - the protocol is the last word when it starts with `HTTP/`; otherwise
///   there is none (HTTP/0.9 `GET /path`) and the target runs to the end;
/// - the target is everything between, spaces included.
pub(crate) fn request_line(s: &str) -> RequestLine<'_> {
    if has_control(s) {
        return RequestLine::default();
    }
    let Some(sp) = memchr::memchr(b' ', s.as_bytes()) else {
        return RequestLine::default();
    };
    let method = &s[..sp];
    if method.is_empty()
        || method.len() > 32
        || !method.bytes().all(is_tchar)
        || !method.bytes().any(|c| c.is_ascii_alphabetic())
    {
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
        assert_eq!(request_line("\u{16}\u{3}\u{1} x"), RequestLine::default());
        assert_eq!(
            request_line("GET /a\u{0}b HTTP/1.1"),
            RequestLine::default()
        );
        assert_eq!(request_line("- - - "), RequestLine::default());
        let r = request_line("GET  HTTP/1.0");
        assert_eq!(
            (r.method, r.path, r.protocol),
            (Some("GET"), None, Some("HTTP/1.0"))
        );
    }

    #[test]
    fn addresses_as_servers_write_them() {
        let a = |s: &str| address(s).map(|ip| ip.to_string());
        for (text, ip) in [
            ("192.0.2.1", "192.0.2.1"),
            ("192.0.2.1:51234", "192.0.2.1"),
            ("2001:db8::1", "2001:db8::1"),
            ("[2001:db8::1]", "2001:db8::1"),
            ("[2001:db8::1]:443", "2001:db8::1"),
            ("fe80::1%eth0", "fe80::1"),
            ("[fe80::1%25eth0]:80", "fe80::1"),
            ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
        ] {
            assert_eq!(a(text).as_deref(), Some(ip), "{text}");
        }
        for bad in [
            "",
            "-",
            "192.0.2.1:",
            "192.0.2.1:123456",
            "192.0.2.1:65536",
            "192.0.2.1:x",
            "192.0.2.1%eth0",
            "[2001:db8::1]443",
            "[2001:db8::1]:",
            "2001:db8::1%",
            "300.1.2.3",
            "example.com:80",
        ] {
            assert_eq!(a(bad), None, "{bad}");
        }
    }

    #[test]
    fn host_names_are_clients() {
        assert_eq!(
            client("crawl-66-249-66-1.googlebot.com"),
            Some(Client::Name("crawl-66-249-66-1.googlebot.com"))
        );
        assert_eq!(client("localhost."), Some(Client::Name("localhost.")));
        assert_eq!(
            client("dial_up-7.example.net"),
            Some(Client::Name("dial_up-7.example.net"))
        );
        assert_eq!(
            client("192.0.2.1"),
            Some(Client::Addr("192.0.2.1".parse().expect("an address")))
        );
        let long = format!("{}.com", "a".repeat(64));
        for bad in [
            "-",
            "",
            "1.2.3.4.5",
            "300.1.2.3",
            "a..b",
            ".a",
            "a b",
            "example.com:80",
            "\\x16\\x03",
            "ex*ample.com",
            "this",
            "printer.",
            long.as_str(),
        ] {
            assert_eq!(client(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(status("200"), Ok(Some(200)));
        assert_eq!(status("-"), Ok(None));
        assert_eq!(status("000"), Ok(Some(0)));
        assert_eq!(status("0"), Ok(Some(0)));
        assert_eq!(status("099"), Ok(Some(99)));
        assert_eq!(status("2000"), Err(()));
        assert_eq!(status("20"), Err(()));
        assert_eq!(status("2x0"), Err(()));
        assert_eq!(status("+20"), Err(()));
        assert_eq!(bytes("-"), Some(0));
        assert_eq!(bytes("18446744073709551615"), None);
        assert_eq!(
            bytes("9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        assert_eq!(bytes("1x"), None);
    }
}
