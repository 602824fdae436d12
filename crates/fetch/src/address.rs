//! Which addresses are not fetched on a user's behalf.
//!
//! A service that fetches a URL a user names must not become a way into the
//! machine it runs on or the network behind it. [`restricted_kind`] says
//! whether an address is loopback, private, link-local, unique-local,
//! unspecified, broadcast, multicast, documentation, benchmarking, shared
//! (CGNAT) or reserved, looking through IPv4-mapped, IPv4-compatible,
//! IPv4-translated, NAT64 and 6to4 IPv6 forms to the IPv4 address inside.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not fetched unless private addresses are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressKind {
    /// `0.0.0.0/8`, `::`: "this host" or "this network".
    Unspecified,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918), and the
    /// deprecated IPv6 site-local `fec0::/10`.
    Private,
    /// `100.64.0.0/10`, carrier-grade NAT (RFC 6598).
    SharedCgnat,
    /// `169.254.0.0/16` (cloud metadata services live here), `fe80::/10`.
    LinkLocal,
    /// `fc00::/7` (RFC 4193).
    UniqueLocal,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`,
    /// `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`, `2001:2::/48` (RFC 2544, RFC 5180).
    Benchmarking,
    /// `255.255.255.255`.
    Broadcast,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `192.0.0.0/24`, `240.0.0.0/4`, `100::/64`, `2001::/23` and the local
    /// NAT64 prefix `64:ff9b:1::/48`: special-purpose, not a web server's.
    Reserved,
}

impl AddressKind {
    /// A short name: `loopback`, `private`, `link-local`, ...
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AddressKind::Unspecified => "unspecified",
            AddressKind::Loopback => "loopback",
            AddressKind::Private => "private",
            AddressKind::SharedCgnat => "shared (CGNAT)",
            AddressKind::LinkLocal => "link-local",
            AddressKind::UniqueLocal => "unique-local",
            AddressKind::Documentation => "documentation",
            AddressKind::Benchmarking => "benchmarking",
            AddressKind::Broadcast => "broadcast",
            AddressKind::Multicast => "multicast",
            AddressKind::Reserved => "reserved",
        }
    }

    /// The article its name takes: `an unspecified address`, `a private
    /// address`.
    #[must_use]
    pub const fn article(self) -> &'static str {
        match self {
            AddressKind::Unspecified => "an",
            _ => "a",
        }
    }
}

impl fmt::Display for AddressKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why `ip` is not fetched on a user's behalf, or `None` for an ordinary
/// public address.
///
/// ```
/// use std::net::IpAddr;
/// use botwarden_fetch::{AddressKind, restricted_kind};
///
/// let ip = |s: &str| s.parse::<IpAddr>().unwrap();
/// assert_eq!(restricted_kind(ip("127.0.0.1")), Some(AddressKind::Loopback));
/// assert_eq!(restricted_kind(ip("::ffff:10.1.2.3")), Some(AddressKind::Private));
/// assert_eq!(restricted_kind(ip("93.184.215.14")), None);
/// ```
#[must_use]
pub fn restricted_kind(ip: IpAddr) -> Option<AddressKind> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<AddressKind> {
    let [a, b, c, _] = ip.octets();
    let kind = match (a, b, c) {
        _ if ip.is_broadcast() => AddressKind::Broadcast,
        (0, _, _) => AddressKind::Unspecified,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => AddressKind::Private,
        (100, 64..=127, _) => AddressKind::SharedCgnat,
        (127, _, _) => AddressKind::Loopback,
        (169, 254, _) => AddressKind::LinkLocal,
        (192, 0, 0) => AddressKind::Reserved,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => AddressKind::Documentation,
        (198, 18..=19, _) => AddressKind::Benchmarking,
        (224..=239, _, _) => AddressKind::Multicast,
        (240..=255, _, _) => AddressKind::Reserved,
        _ => return None,
    };
    Some(kind)
}

fn v6_kind(ip: Ipv6Addr) -> Option<AddressKind> {
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    let kind = match s {
        [0, 0, 0, 0, 0, 0, 0, 0] => AddressKind::Unspecified,
        [0, 0, 0, 0, 0, 0, 0, 1] => AddressKind::Loopback,
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d).
        [0, 0, 0, 0, 0, 0xffff | 0, hi, lo] => return v4_kind(embedded(hi, lo)),
        // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765 SIIT).
        [0, 0, 0, 0, 0xffff, 0, hi, lo] => return v4_kind(embedded(hi, lo)),
        // NAT64, well-known prefix (RFC 6052).
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return v4_kind(embedded(hi, lo)),
        // 6to4 (RFC 3056): the IPv4 address follows the prefix.
        [0x2002, hi, lo, ..] => return v4_kind(embedded(hi, lo)),
        [0x64, 0xff9b, 1, ..] => AddressKind::Reserved,
        [0x100, 0, 0, 0, ..] => AddressKind::Reserved,
        [0x2001, 0xdb8, ..] => AddressKind::Documentation,
        [0x3fff, b, ..] if b < 0x1000 => AddressKind::Documentation,
        [0x2001, 2, 0, ..] => AddressKind::Benchmarking,
        [0x2001, b, ..] if b < 0x200 => AddressKind::Reserved,
        [a, ..] if a & 0xfe00 == 0xfc00 => AddressKind::UniqueLocal,
        [a, ..] if a & 0xffc0 == 0xfe80 => AddressKind::LinkLocal,
        [a, ..] if a & 0xffc0 == 0xfec0 => AddressKind::Private,
        [a, ..] if a & 0xff00 == 0xff00 => AddressKind::Multicast,
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_takes_its_article() {
        use AddressKind::*;
        for kind in [
            Unspecified,
            Loopback,
            Private,
            SharedCgnat,
            LinkLocal,
            UniqueLocal,
            Documentation,
            Benchmarking,
            Broadcast,
            Multicast,
            Reserved,
        ] {
            // `unique-local` is said with a consonant sound.
            let vowel = kind.name().starts_with(['a', 'e', 'i', 'o'])
                || (kind.name().starts_with('u') && !kind.name().starts_with("uni"));
            assert_eq!(kind.article(), if vowel { "an" } else { "a" }, "{kind}");
        }
    }

    #[test]
    fn kinds() {
        use AddressKind::*;
        let cases: &[(&str, Option<AddressKind>)] = &[
            ("0.0.0.0", Some(Unspecified)),
            ("0.1.2.3", Some(Unspecified)),
            ("127.0.0.1", Some(Loopback)),
            ("127.255.0.9", Some(Loopback)),
            ("10.0.0.1", Some(Private)),
            ("172.16.0.1", Some(Private)),
            ("172.31.255.255", Some(Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(Private)),
            ("100.64.0.1", Some(SharedCgnat)),
            ("100.127.255.254", Some(SharedCgnat)),
            ("100.128.0.1", None),
            ("169.254.169.254", Some(LinkLocal)),
            ("192.0.0.8", Some(Reserved)),
            ("192.0.2.1", Some(Documentation)),
            ("198.51.100.7", Some(Documentation)),
            ("203.0.113.9", Some(Documentation)),
            ("198.18.0.1", Some(Benchmarking)),
            ("198.19.255.1", Some(Benchmarking)),
            ("198.20.0.1", None),
            ("224.0.0.251", Some(Multicast)),
            ("240.0.0.1", Some(Reserved)),
            ("255.255.255.255", Some(Broadcast)),
            ("8.8.8.8", None),
            ("93.184.215.14", None),
            ("::", Some(Unspecified)),
            ("::1", Some(Loopback)),
            ("::ffff:127.0.0.1", Some(Loopback)),
            ("::ffff:192.168.0.1", Some(Private)),
            ("::ffff:8.8.8.8", None),
            ("::ffff:0:127.0.0.1", Some(Loopback)),
            ("::ffff:0:10.1.2.3", Some(Private)),
            ("::ffff:0:169.254.169.254", Some(LinkLocal)),
            ("::ffff:0:8.8.8.8", None),
            ("64:ff9b::10.1.2.3", Some(Private)),
            ("64:ff9b::7f00:1", Some(Loopback)),
            ("::10.0.0.1", Some(Private)),
            ("64:ff9b::169.254.169.254", Some(LinkLocal)),
            ("64:ff9b::8.8.8.8", None),
            ("64:ff9b:1::1", Some(Reserved)),
            ("2002:7f00:1::1", Some(Loopback)),
            ("2002:0808:0808::1", None),
            ("fc00::1", Some(UniqueLocal)),
            ("fd12:3456::1", Some(UniqueLocal)),
            ("fe80::1", Some(LinkLocal)),
            ("febf::1", Some(LinkLocal)),
            ("fec0::1", Some(Private)),
            ("ff02::1", Some(Multicast)),
            ("2001:db8::1", Some(Documentation)),
            ("3fff::1", Some(Documentation)),
            ("2001:2::1", Some(Benchmarking)),
            ("2001::1", Some(Reserved)),
            ("100::1", Some(Reserved)),
            ("2606:4700::1111", None),
            ("2001:4860:4860::8888", None),
        ];
        for (ip, want) in cases {
            let got = restricted_kind(ip.parse().expect("an address"));
            assert_eq!(got, *want, "{ip}");
        }
    }
}
