//! Who the crawler says it is: its robots.txt product tokens, its
//! User-Agent, and the lines a site owner writes to address it.
//!
//! Two crawlers, as the seed crawler has them:
//! - the **full crawler**, token `botwarden`; on the phone and tablet
//!   platforms it reads `botwarden-phone` or `botwarden-tablet` first and
//!   falls back to `botwarden`, then to `*`;
//! - the **essential crawler** (`--essential`), token `botwarden-essential`,
//!   then `*`. It is another robot, not a platform of the full crawler: a
//!   site that shuts the full crawler out does not shut it out, and it has
//!   no platforms.
//!
//! The User-Agent names the crawler, its platform, its version and the
//! token to use in robots.txt, with a URL that explains it:
//! `botwarden full crawler/phone 0.1.0 (refer to in robots.txt as
//! botwarden-phone; +https://…)`.
//!
//! On a site whose ownership is verified, a crawl may obey another token
//! chain ([`Simulation`](crate::Simulation), `--as`); the User-Agent is
//! still this identity's.

use botwarden_robots::TokenChain;

/// The page that explains the crawler, unless configured (`--info-url`):
/// the project's repository address, which an operator replaces with a
/// page of their own.
pub const DEFAULT_INFO_URL: &str = "https://example.invalid/botwarden/crawler";

/// The device a crawl fetches for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Platform {
    /// A desktop browser's view.
    #[default]
    Web,
    /// A phone's.
    Phone,
    /// A tablet's.
    Tablet,
}

impl Platform {
    /// `web`, `phone` or `tablet`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Web => "web",
            Platform::Phone => "phone",
            Platform::Tablet => "tablet",
        }
    }
}

/// Which of the two crawlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CrawlerKind {
    /// The full crawler (`botwarden`).
    #[default]
    Full,
    /// The essential crawler (`botwarden-essential`).
    Essential,
}

/// The crawler's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Which crawler.
    pub kind: CrawlerKind,
    /// For which platform (the essential crawler has only `web`).
    pub platform: Platform,
    /// The version in the User-Agent.
    pub version: String,
    /// The URL in the User-Agent.
    pub info_url: String,
}

impl Default for Identity {
    fn default() -> Self {
        Identity {
            kind: CrawlerKind::Full,
            platform: Platform::Web,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            info_url: DEFAULT_INFO_URL.to_owned(),
        }
    }
}

impl Identity {
    /// The robots.txt tokens it obeys, most specific first (`*` is not
    /// listed: every chain falls back to it).
    #[must_use]
    pub fn tokens(&self) -> Vec<String> {
        match (self.kind, self.platform) {
            (CrawlerKind::Essential, _) => vec!["botwarden-essential".to_owned()],
            (CrawlerKind::Full, Platform::Web) => vec!["botwarden".to_owned()],
            (CrawlerKind::Full, p) => {
                vec![format!("botwarden-{}", p.as_str()), "botwarden".to_owned()]
            }
        }
    }

    /// The token chain robots.txt is read with.
    #[must_use]
    pub fn chain(&self) -> TokenChain {
        TokenChain::new(self.tokens())
    }

    /// The token written in the User-Agent (the most specific).
    #[must_use]
    pub fn token(&self) -> String {
        self.tokens().swap_remove(0)
    }

    /// The User-Agent header.
    #[must_use]
    pub fn user_agent(&self) -> String {
        let name = match self.kind {
            CrawlerKind::Full => "botwarden full crawler",
            CrawlerKind::Essential => "botwarden essential crawler",
        };
        let platform = match (self.kind, self.platform) {
            (CrawlerKind::Full, Platform::Phone) => "/phone",
            (CrawlerKind::Full, Platform::Tablet) => "/tablet",
            _ => "",
        };
        format!(
            "{name}{platform} {} (refer to in robots.txt as {}; +{})",
            self.version,
            self.token(),
            self.info_url
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(kind: CrawlerKind, platform: Platform) -> Identity {
        Identity {
            kind,
            platform,
            version: "1.2.3".into(),
            info_url: "https://example.net/bot".into(),
        }
    }

    #[test]
    fn chains_and_user_agents() {
        let cases = [
            (
                id(CrawlerKind::Full, Platform::Web),
                vec!["botwarden"],
                "botwarden full crawler 1.2.3 (refer to in robots.txt as botwarden; +https://example.net/bot)",
            ),
            (
                id(CrawlerKind::Full, Platform::Phone),
                vec!["botwarden-phone", "botwarden"],
                "botwarden full crawler/phone 1.2.3 (refer to in robots.txt as botwarden-phone; +https://example.net/bot)",
            ),
            (
                id(CrawlerKind::Full, Platform::Tablet),
                vec!["botwarden-tablet", "botwarden"],
                "botwarden full crawler/tablet 1.2.3 (refer to in robots.txt as botwarden-tablet; +https://example.net/bot)",
            ),
            (
                id(CrawlerKind::Essential, Platform::Phone),
                vec!["botwarden-essential"],
                "botwarden essential crawler 1.2.3 (refer to in robots.txt as botwarden-essential; +https://example.net/bot)",
            ),
        ];
        for (identity, tokens, ua) in cases {
            assert_eq!(identity.tokens(), tokens);
            assert_eq!(identity.user_agent(), ua);
            assert_eq!(identity.chain().tokens(), tokens.as_slice());
        }
    }

    #[test]
    fn the_chain_falls_back_through_botwarden_to_the_star() {
        use botwarden_robots::{Profile, RobotMatcher};
        let body = "User-agent: *\nDisallow: /\n\nUser-agent: botwarden\nDisallow: /private\n";
        let phone = id(CrawlerKind::Full, Platform::Phone).chain();
        let m = RobotMatcher::parse(body, &Profile::RFC9309, &phone);
        assert!(m.is_allowed("/public"));
        assert!(!m.is_allowed("/private/x"));
        let essential = id(CrawlerKind::Essential, Platform::Web).chain();
        let m = RobotMatcher::parse(body, &Profile::RFC9309, &essential);
        assert!(!m.is_allowed("/public"));
    }
}

/// Where an operator's crawler runs: what a site owner needs to verify it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Operator {
    /// Host-name suffixes of the crawler's addresses, whose reverse DNS
    /// points into them and back (`crawl.example.net`).
    pub hosts: Vec<String>,
    /// The crawler's addresses and networks, as CIDR blocks.
    pub networks: Vec<Network>,
}

/// An address block (`203.0.113.0/24`, `2001:db8::/48`; one address is a
/// block of one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    /// The first address.
    pub addr: std::net::IpAddr,
    /// The prefix length.
    pub prefix: u8,
}

impl std::str::FromStr for Network {
    type Err = String;

    fn from_str(text: &str) -> Result<Network, String> {
        let text = text.trim();
        let (addr, prefix) = match text.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (text, None),
        };
        let addr: std::net::IpAddr = addr
            .parse()
            .map_err(|_| format!("'{text}' is not an address or a CIDR block"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("'{text}': the prefix must be 0 to {max}"))?,
        };
        let network = Network { addr, prefix };
        if network.first() != addr {
            return Err(format!(
                "'{text}' has host bits set: the block is {}/{prefix}",
                network.first()
            ));
        }
        Ok(network)
    }
}

impl Network {
    /// The block's first address.
    #[must_use]
    pub fn first(&self) -> std::net::IpAddr {
        use std::net::IpAddr;
        match self.addr {
            IpAddr::V4(a) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                IpAddr::V4((u32::from(a) & mask).into())
            }
            IpAddr::V6(a) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                IpAddr::V6((u128::from(a) & mask).into())
            }
        }
    }
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// The robots.txt lines that address each of botwarden's crawlers, as a
/// site owner would write them (an example to adapt).
#[must_use]
pub fn robots_lines() -> String {
    "\
# botwarden's crawlers read the most specific group that names them:
#   botwarden-phone, then botwarden, then *   (the full crawler on phones)
#   botwarden-tablet, then botwarden, then *  (on tablets)
#   botwarden, then *                         (on the web)
#   botwarden-essential, then *               (the essential crawler)
User-agent: botwarden
Disallow: /private/

User-agent: botwarden-phone
Disallow: /private/
Disallow: /desktop-only/

User-agent: botwarden-essential
Allow: /
"
    .to_owned()
}

/// A registry entry (bottica format, with botwarden's fields) for the
/// operator's crawlers, so that `botwarden bots verify` verifies them.
#[must_use]
pub fn registry_entry(operator: &Operator, info_url: &str) -> String {
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
        format!("[{}]", quoted.join(", "))
    };
    let networks: Vec<String> = operator.networks.iter().map(ToString::to_string).collect();
    let mut out = String::from("bots:\n");
    for (name, tokens) in [
        (
            "botwarden",
            vec![
                "botwarden".to_owned(),
                "botwarden-phone".to_owned(),
                "botwarden-tablet".to_owned(),
            ],
        ),
        (
            "botwarden-essential",
            vec!["botwarden-essential".to_owned()],
        ),
    ] {
        out.push_str(&format!("  - name: {name}\n"));
        out.push_str("    category: tool\n");
        out.push_str(&format!("    url: \"{info_url}\"\n"));
        out.push_str(&format!("    robots_tokens: {}\n", list(&tokens)));
        if !operator.hosts.is_empty() {
            out.push_str(&format!("    fcrdns_hosts: {}\n", list(&operator.hosts)));
        }
        if !networks.is_empty() {
            out.push_str(&format!("    cidr_list: {}\n", list(&networks)));
        }
    }
    out
}

/// The operator's addresses as a range list in Google's format
/// (`{"creationTime": …, "prefixes": [{"ipv4Prefix": …}]}`), for a
/// registry's `ranges_url`.
#[must_use]
pub fn ranges_json(operator: &Operator, creation_time: &str) -> String {
    let prefixes: Vec<String> = operator
        .networks
        .iter()
        .map(|n| {
            let key = if n.addr.is_ipv4() {
                "ipv4Prefix"
            } else {
                "ipv6Prefix"
            };
            format!("    {{\"{key}\": \"{n}\"}}")
        })
        .collect();
    format!(
        "{{\n  \"creationTime\": \"{creation_time}\",\n  \"prefixes\": [\n{}\n  ]\n}}\n",
        prefixes.join(",\n")
    )
}

#[cfg(test)]
mod operator_tests {
    use super::*;

    #[test]
    fn networks_are_read_checked_and_written() {
        for (text, want) in [
            ("203.0.113.0/24", "203.0.113.0/24"),
            ("203.0.113.7", "203.0.113.7/32"),
            ("2001:db8::/48", "2001:db8::/48"),
            (" 2001:db8::1 ", "2001:db8::1/128"),
        ] {
            let n: Network = text.parse().expect(text);
            assert_eq!(n.to_string(), want);
        }
        for bad in [
            "203.0.113.7/24",
            "203.0.113.0/33",
            "example.com",
            "::/129",
            "",
        ] {
            assert!(bad.parse::<Network>().is_err(), "{bad}");
        }
    }

    #[test]
    fn entries_and_ranges_for_the_operator() {
        let op = Operator {
            hosts: vec!["crawl.example.net".into()],
            networks: vec![
                "203.0.113.0/24".parse().expect("v4"),
                "2001:db8::/48".parse().expect("v6"),
            ],
        };
        let yaml = registry_entry(&op, "https://example.net/bot");
        assert!(yaml.contains("  - name: botwarden\n"), "{yaml}");
        assert!(
            yaml.contains("fcrdns_hosts: [\"crawl.example.net\"]"),
            "{yaml}"
        );
        assert!(
            yaml.contains("cidr_list: [\"203.0.113.0/24\", \"2001:db8::/48\"]"),
            "{yaml}"
        );
        let json = ranges_json(&op, "2026-11-23T00:00:00Z");
        assert!(
            json.contains("{\"ipv4Prefix\": \"203.0.113.0/24\"}"),
            "{json}"
        );
        assert!(
            json.contains("{\"ipv6Prefix\": \"2001:db8::/48\"}"),
            "{json}"
        );
        // The robots lines name every token of every chain.
        let lines = robots_lines();
        for t in ["botwarden-phone", "botwarden-tablet", "botwarden-essential"] {
            assert!(lines.contains(t), "{t}");
        }
    }
}
