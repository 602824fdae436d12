//! `links/private-address`: links to `localhost` and private addresses.

use std::net::IpAddr;

use url::{Host, Url};

use crate::{Context, Finding, LINK_KINDS, OWN_ORIGINS};

declare_check! {
    /// ## What it finds
    /// Every URL that the site's pages link to (`<a>`, `<area>`, frames)
    /// whose host is `localhost` (or a name under `.localhost`), or an
    /// address of loopback (`127.0.0.0/8`, `::1`), a private network
    /// (`10/8`, `172.16/12`, `192.168/16`, `fc00::/7`), link-local
    /// (`169.254/16`, `fe80::/10`) or unspecified (`0.0.0.0`, `::`); one
    /// finding per URL, with the pages that link to it. Links to the
    /// origins the crawl itself fetched pages from are left out (a site
    /// crawled on a private network links to itself).
    ///
    /// ## Why it matters
    /// Such links work only on the author's machine or network: visitors
    /// get an error, and the link shows how the site was built (a
    /// development server, an internal tool).
    ///
    /// ## Fix
    /// Link to the public URL, or remove the link.
    "links/private-address", Warning, "links to localhost and private, loopback or link-local addresses"
}

/// Whether `url` is on `localhost` or a private, loopback, link-local or
/// unspecified address.
pub(crate) fn is_private(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(Host::Ipv4(ip)) => private_ip(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => private_ip(IpAddr::V6(ip)),
        None => false,
    }
}

fn private_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback() || v4.is_private() || v4.is_link_local() || v4.is_unspecified()
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return private_ip(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut st = cx.conn.prepare(&format!(
        "SELECT t.id, t.url FROM urls t
         WHERE t.id IN (SELECT target_id FROM links WHERE kind IN {LINK_KINDS} AND same_page = 0)
           AND NOT ({OWN_ORIGINS})
         ORDER BY t.id"
    ))?;
    let mut rows = st.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let (id, url): (i64, String) = (r.get(0)?, r.get(1)?);
        let Ok(parsed) = Url::parse(&url) else { continue };
        if is_private(&parsed) {
            let host = parsed.host_str().unwrap_or_default().to_owned();
            out.push(cx.linked_finding(id, url, format!("linked, on {host}"))?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_hosts_and_near_misses() {
        for u in [
            "http://localhost:3000/",
            "http://dev.localhost/",
            "http://127.0.0.1/",
            "http://10.1.2.3/",
            "http://172.31.0.1/",
            "http://192.168.1.1/",
            "http://169.254.0.1/",
            "http://0.0.0.0/",
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:192.168.0.1]/",
        ] {
            assert!(is_private(&Url::parse(u).unwrap()), "{u}");
        }
        for u in [
            "http://localhost.example/",
            "http://172.32.0.1/",
            "http://11.0.0.1/",
            "http://[2001:db8::1]/",
            "http://example.com/",
            "mailto:x@localhost",
        ] {
            assert!(!is_private(&Url::parse(u).unwrap()), "{u}");
        }
    }
}
