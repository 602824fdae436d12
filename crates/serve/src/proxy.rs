//! Trusted proxies and the client's address they pass on
//! (`X-Forwarded-For` and its kin).

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, HeaderName};
use botwarden_verify::Cidr;

/// A trusted proxy entry: an address or a CIDR block.
pub(crate) fn parse_proxy(text: &str) -> Result<Cidr, String> {
    let text = text.trim();
    let cidr = if text.contains('/') {
        text.to_owned()
    } else {
        match text.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => format!("{text}/32"),
            Ok(IpAddr::V6(_)) => format!("{text}/128"),
            Err(_) => return Err("not an address or CIDR block".to_owned()),
        }
    };
    Cidr::parse(&cidr).map_err(|e| e.to_string())
}

/// Where the client's address came from, or why it is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Client {
    Known(IpAddr),
    /// A trusted proxy's header held no address.
    Unreadable,
}

/// The trusted proxies (`trusted_proxies`) and the header they write the
/// client's address in (`client_header`).
pub(crate) struct Proxies {
    trusted: Vec<Cidr>,
    header: HeaderName,
}

impl Proxies {
    /// The proxies of `trusted` (entries that are not an address or CIDR
    /// block are passed over: the configuration's check refuses them).
    pub(crate) fn new(trusted: &[String], header: HeaderName) -> Proxies {
        Proxies {
            trusted: trusted.iter().filter_map(|p| parse_proxy(p).ok()).collect(),
            header,
        }
    }

    /// Whether `peer` is a trusted proxy.
    pub(crate) fn is_trusted(&self, peer: IpAddr) -> bool {
        let peer = botwarden_verify::normalize(peer);
        self.trusted.iter().any(|c| c.contains(peer))
    }

    /// The client's address: from the configured header when the peer is
    /// a trusted proxy, else the peer's. The header's addresses (its lines
    /// in order, each a comma-separated list) are read from the right:
    /// trusted proxies are passed over and the first that is not one is
    /// the client, whatever comes before it (a client may write anything
    /// there; only what the proxies appended is believed). An entry that
    /// is not an address before the client is found makes the header
    /// unreadable; when every address is a trusted proxy, the left-most is
    /// the client.
    pub(crate) fn client(&self, peer: IpAddr, headers: &HeaderMap) -> Client {
        if !self.is_trusted(peer) {
            return Client::Known(peer);
        }
        let mut values = headers.get_all(&self.header).iter().rev().peekable();
        if values.peek().is_none() {
            // The proxy sent no header: the request is its own.
            return Client::Known(peer);
        }
        let mut leftmost = None;
        for entry in values.flat_map(|v| v.as_bytes().rsplit(|b| *b == b',')) {
            let Some(ip) = std::str::from_utf8(entry).ok().and_then(parse_address) else {
                return Client::Unreadable;
            };
            if !self.is_trusted(ip) {
                return Client::Known(ip);
            }
            leftmost = Some(ip);
        }
        leftmost.map_or(Client::Unreadable, Client::Known)
    }

    /// The client's address as [`Proxies::client`] reads it, or the
    /// peer's when a trusted proxy's header holds none: whom a request's
    /// costs are charged to.
    pub(crate) fn client_or_peer(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        self.client(peer, headers).or(peer)
    }
}

impl Client {
    /// The client's address, or `peer` when it is not known.
    pub(crate) fn or(self, peer: IpAddr) -> IpAddr {
        match self {
            Client::Known(ip) => ip,
            Client::Unreadable => peer,
        }
    }
}

/// An address as proxies write it: bare, in brackets, or with a port.
fn parse_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Some(addr.ip());
    }
    text.strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|t| t.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn addresses_as_proxies_write_them() {
        let v4 = ip("192.0.2.1");
        let v6 = ip("2001:db8::1");
        assert_eq!(parse_address(" 192.0.2.1 "), Some(v4));
        assert_eq!(parse_address("192.0.2.1:5555"), Some(v4));
        assert_eq!(parse_address("[2001:db8::1]"), Some(v6));
        assert_eq!(parse_address("[2001:db8::1]:443"), Some(v6));
        assert_eq!(parse_address("2001:db8::1"), Some(v6));
        assert_eq!(parse_address("unknown"), None);
        assert_eq!(parse_address(""), None);
    }

    #[test]
    fn the_client_is_the_first_address_from_the_right_not_a_proxy() {
        let proxies = Proxies::new(
            &["127.0.0.1".to_owned(), "10.0.0.0/8".to_owned()],
            HeaderName::from_static("x-forwarded-for"),
        );
        let with = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for v in values {
                headers.append("x-forwarded-for", v.parse().expect("value"));
            }
            headers
        };
        let proxy = ip("127.0.0.1");
        // Not from a proxy: the peer, whatever the header says.
        let stranger = ip("198.51.100.7");
        assert_eq!(
            proxies.client(stranger, &with(&["192.0.2.1"])),
            Client::Known(stranger)
        );
        // From a proxy without the header: the proxy's own request.
        assert_eq!(proxies.client(proxy, &with(&[])), Client::Known(proxy));
        assert_eq!(
            proxies.client(proxy, &with(&["6.6.6.6, 192.0.2.1, 10.1.2.3"])),
            Client::Known(ip("192.0.2.1"))
        );
        assert_eq!(
            proxies.client(proxy, &with(&["192.0.2.1", "10.1.2.3"])),
            Client::Known(ip("192.0.2.1"))
        );
        assert_eq!(
            proxies.client(proxy, &with(&["10.9.9.9, 10.1.2.3"])),
            Client::Known(ip("10.9.9.9"))
        );
        assert_eq!(
            proxies.client(proxy, &with(&["192.0.2.1, junk"])),
            Client::Unreadable
        );
        assert_eq!(proxies.client_or_peer(proxy, &with(&["junk"])), proxy);
        assert!(proxies.is_trusted(ip("::ffff:127.0.0.1")));
        assert!(parse_proxy("not an address").is_err());
    }
}
