//! Addresses written the way web servers print the client address.

use std::net::IpAddr;

/// The text Apache httpd gives `%{REMOTE_ADDR}` for this client address.
///
/// This is the name of the address's file in the ACAP tree and the key in
/// the RewriteMap, where the server compares text, not addresses:
///
/// - IPv4: dotted decimal, `192.0.2.1`.
/// - IPv6: lowercase hexadecimal, leading zeros of each group dropped, the
///   first longest run of two or more zero groups written `::` (RFC 5952):
///   `2001:db8::1`, `::1`, `::`.
/// - IPv4-mapped IPv6 (`::ffff:192.0.2.1`): the IPv4 address, `192.0.2.1`.
///   APR strips the `::ffff:` prefix when it prints a client address.
/// - IPv4-compatible IPv6 (the first six groups zero, the seventh not):
///   `::192.0.2.1`, as APR's `inet_ntop` prints it. (Deprecated; no real
///   client has one.)
///
/// nginx prints `$remote_addr` the same way except for IPv4-mapped
/// addresses, which it keeps as `::ffff:192.0.2.1` (only seen on a
/// `listen [::]:80 ipv6only=off` socket), and for `::x` addresses whose last
/// group has a nonzero high byte, which it prints dotted. The nginx
/// snippet matches addresses with `geo`, which compares binary addresses, so
/// neither difference matters there.
#[must_use]
pub fn remote_addr_text(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let groups = v6.segments();
            if groups[..6].iter().all(|&g| g == 0) && groups[6] != 0 {
                let [.., a, b, c, d] = v6.octets();
                format!("::{a}.{b}.{c}.{d}")
            } else {
                v6.to_string()
            }
        }
    }
}
