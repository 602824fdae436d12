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

use std::time::SystemTime;

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

/// The names of botwarden's two crawlers, as their registry entries and
/// the `services` of their range file name them, with the robots.txt
/// tokens of each.
const CRAWLERS: [(&str, &[&str]); 2] = [
    (
        "botwarden",
        &["botwarden", "botwarden-phone", "botwarden-tablet"],
    ),
    ("botwarden-essential", &["botwarden-essential"]),
];

/// Where an operator publishes what site owners need about its crawler,
/// and when: the crawler's page (the User-Agent's URL), the range file's
/// URL, and the time the files are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Publication<'a> {
    /// The page that explains the crawler.
    pub info_url: &'a str,
    /// Where the range file is served.
    pub ranges_url: &'a str,
    /// When the range file and the registry entry are made.
    pub now: SystemTime,
}

/// The default URL of the range file: `botwarden-ranges.json` beside the
/// crawler's page (`https://example.net/bot` → `https://example.net/botwarden-ranges.json`);
/// the page's URL itself when it cannot be read as one.
#[must_use]
pub fn default_ranges_url(info_url: &str) -> String {
    url::Url::parse(info_url)
        .and_then(|u| u.join("botwarden-ranges.json"))
        .map_or_else(|_| info_url.to_owned(), |u| u.to_string())
}

/// A registry entry (bottica format, with botwarden's fields) for the
/// operator's crawlers, so that `botwarden bots verify` verifies them: by
/// forward-confirmed reverse DNS under its host suffixes and by its
/// addresses (both, when both are given), or by the range file once
/// `botwarden bots update` has fetched it (refreshed daily, as JAFAR asks
/// of publishers); each fact's provenance is the crawler's page, confirmed
/// the day the entry is made.
#[must_use]
pub fn registry_entry(operator: &Operator, publication: &Publication<'_>) -> String {
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
        format!("[{}]", quoted.join(", "))
    };
    let networks: Vec<String> = operator.networks.iter().map(ToString::to_string).collect();
    let day = day_of(publication.now);
    let info = publication.info_url;
    let mut out = String::from("bots:\n");
    for (name, tokens) in CRAWLERS {
        let tokens: Vec<String> = tokens.iter().map(|t| (*t).to_owned()).collect();
        let mut records = vec![format!("{{source: \"{info}\", confirmed: {day}}}")];
        out.push_str(&format!("  - name: {name}\n"));
        out.push_str("    category: tool\n");
        out.push_str(&format!("    url: \"{info}\"\n"));
        out.push_str(&format!("    robots_tokens: {}\n", list(&tokens)));
        if !operator.hosts.is_empty() {
            out.push_str(&format!("    fcrdns_hosts: {}\n", list(&operator.hosts)));
            records.push(format!(
                "{{of: fcrdns_hosts, source: \"{info}\", confirmed: {day}}}"
            ));
        }
        if !networks.is_empty() {
            out.push_str(&format!("    cidr_list: {}\n", list(&networks)));
            out.push_str(&format!("    ranges_url: \"{}\"\n", publication.ranges_url));
            // The file is made again at least every 24 hours (JAFAR).
            out.push_str("    ranges_refresh: 1d\n");
            records.push(format!(
                "{{of: cidr_list, source: \"{info}\", confirmed: {day}}}"
            ));
            records.push(format!(
                "{{of: ranges_url, source: \"{info}\", confirmed: {day}}}"
            ));
        }
        out.push_str("    provenance:\n");
        for r in records {
            out.push_str(&format!("      - {r}\n"));
        }
    }
    out
}

/// The day of `now`, `YYYY-MM-DD`, in UTC.
fn day_of(now: SystemTime) -> String {
    jiff::Timestamp::try_from(now)
        .map(|t| t.strftime("%Y-%m-%d").to_string())
        .unwrap_or_else(|_| "1970-01-01".to_owned())
}

/// The operator's addresses as a range file in the JAFAR format
/// (draft-illyes-webbotauth-jafar, "A JSON-Based Format for Publishing IP
/// Ranges of Automated HTTP Clients"), for a registry's `ranges_url` and
/// the `client-ranges` link of the crawler's page ([`ranges_link`]):
///
/// - `formatVersion` `"1.0"` (the field of the draft's first version; later
///   versions give the version in the media type's `version` parameter and
///   ask consumers to ignore fields they do not know);
/// - `synctoken`, which changes whenever the prefixes or their services
///   do: the first 16 hexadecimal digits of the SHA-256 of the prefixes and
///   services, one a line;
/// - `creationTime`, `now` in UTC to the second (`2026-11-29T07:00:00Z`);
/// - `notes`, when the operator has host suffixes: that the addresses'
///   reverse DNS ends in them, forward-confirmed;
/// - `prefixes`: one object per block, with exactly one of `ipv4Prefix` and
///   `ipv6Prefix`, and `services`, the two crawlers that use it.
///
/// The file also reads as Google's format, which `botwarden bots update`
/// and the other consumers of crawler ranges read.
#[must_use]
pub fn ranges_json(operator: &Operator, now: SystemTime) -> String {
    let services: Vec<&str> = CRAWLERS.iter().map(|(name, _)| *name).collect();
    let services_json = format!("[\"{}\"]", services.join("\", \""));
    let mut canonical = String::new();
    let prefixes: Vec<String> = operator
        .networks
        .iter()
        .map(|n| {
            let key = if n.addr.is_ipv4() {
                "ipv4Prefix"
            } else {
                "ipv6Prefix"
            };
            canonical.push_str(&format!("{n} {}\n", services.join(",")));
            format!("    {{\"{key}\": \"{n}\", \"services\": {services_json}}}")
        })
        .collect();
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
    let synctoken: String = digest.as_ref()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let created = jiff::Timestamp::try_from(now)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned());
    let mut out = String::from("{\n  \"formatVersion\": \"1.0\",\n");
    out.push_str(&format!("  \"synctoken\": \"{synctoken}\",\n"));
    out.push_str(&format!("  \"creationTime\": \"{created}\",\n"));
    if !operator.hosts.is_empty() {
        let notes = format!(
            "The reverse DNS names of these addresses end in {}, and resolve back to them.",
            operator.hosts.join(" or ")
        );
        out.push_str(&format!(
            "  \"notes\": {},\n",
            serde_json::to_string(&notes).unwrap_or_default()
        ));
    }
    if prefixes.is_empty() {
        out.push_str("  \"prefixes\": []\n}\n");
    } else {
        out.push_str(&format!(
            "  \"prefixes\": [\n{}\n  ]\n}}\n",
            prefixes.join(",\n")
        ));
    }
    out
}

/// How to serve the range file and link it from the crawler's page with
/// the `client-ranges` relation (draft-illyes-webbotauth-cbcp, "Crawler
/// best practices": an HTML `<link>` in the page's head, or an HTTP `Link`
/// header of the page), as lines to paste: comments, the element, the
/// header.
#[must_use]
pub fn ranges_link(publication: &Publication<'_>) -> String {
    let url = publication.ranges_url;
    let html = botwarden_text::HtmlText(url);
    format!(
        "\
# Serve the range file at {url}
# with Content-Type application/jafar+json and caching headers (Cache-Control,
# ETag or Last-Modified); make it again when the addresses change, and at
# least every 24 hours. Link it from the crawler's page, {info},
# in the page's <head>:
<link rel=\"client-ranges\" href=\"{html}\">
# or as an HTTP header of that page:
Link: <{url}>; rel=\"client-ranges\"
",
        info = publication.info_url
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

    /// An operator with a host suffix and a block of each family.
    fn operator() -> Operator {
        Operator {
            hosts: vec!["crawl.example.net".into()],
            networks: vec![
                "203.0.113.0/24".parse().expect("v4"),
                "2001:db8::/48".parse().expect("v6"),
            ],
        }
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs)
    }

    #[test]
    fn entries_and_ranges_for_the_operator() {
        let op = operator();
        let publication = Publication {
            info_url: "https://example.net/bot",
            ranges_url: &default_ranges_url("https://example.net/bot"),
            // 2026-11-29T07:06:40Z
            now: at(1_795_936_000),
        };
        assert_eq!(
            publication.ranges_url,
            "https://example.net/botwarden-ranges.json"
        );
        let yaml = registry_entry(&op, &publication);
        for want in [
            "  - name: botwarden\n",
            "fcrdns_hosts: [\"crawl.example.net\"]",
            "cidr_list: [\"203.0.113.0/24\", \"2001:db8::/48\"]",
            "    ranges_url: \"https://example.net/botwarden-ranges.json\"\n",
            "      - {of: ranges_url, source: \"https://example.net/bot\", confirmed: 2026-11-29}\n",
        ] {
            assert!(yaml.contains(want), "{want} in {yaml}");
        }
        // The robots lines name every token of every chain.
        let lines = robots_lines();
        for t in ["botwarden-phone", "botwarden-tablet", "botwarden-essential"] {
            assert!(lines.contains(t), "{t}");
        }
        let link = ranges_link(&publication);
        assert!(
            link.contains("\n<link rel=\"client-ranges\" href=\"https://example.net/botwarden-ranges.json\">\n"),
            "{link}"
        );
        assert!(
            link.contains(
                "\nLink: <https://example.net/botwarden-ranges.json>; rel=\"client-ranges\"\n"
            ),
            "{link}"
        );
    }

    #[test]
    fn the_range_file_is_jafar() {
        let op = operator();
        let text = ranges_json(&op, at(1_795_936_000));
        let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(doc["formatVersion"], "1.0");
        assert_eq!(doc["creationTime"], "2026-11-29T07:06:40Z");
        let token = doc["synctoken"].as_str().expect("a synctoken");
        assert!(
            token.len() == 16 && token.bytes().all(|b| b.is_ascii_hexdigit()),
            "{token}"
        );
        assert!(
            doc["notes"]
                .as_str()
                .is_some_and(|n| n.contains("crawl.example.net")),
            "{text}"
        );
        let prefixes = doc["prefixes"].as_array().expect("prefixes");
        assert_eq!(prefixes.len(), 2);
        for (p, (key, value)) in prefixes.iter().zip([
            ("ipv4Prefix", "203.0.113.0/24"),
            ("ipv6Prefix", "2001:db8::/48"),
        ]) {
            // Exactly one of the two keys, and the crawlers that use it.
            let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys.iter().filter(|k| k.ends_with("Prefix")).count(), 1);
            assert_eq!(p[key], value);
            assert_eq!(
                p["services"],
                serde_json::json!(["botwarden", "botwarden-essential"])
            );
        }
        // Consumers of Google's format read it, and so does the registry's
        // feed reader.
        let feed = botwarden_verify::Feed::parse_google_json(
            "https://example.net/r.json",
            text.as_bytes(),
        )
        .expect("a feed");
        assert_eq!(feed.prefixes.len(), 2);
        assert_eq!(feed.version(), "2026-11-29T07:06:40Z");
        // The synctoken changes with the prefixes, not with the time.
        let later = ranges_json(&op, at(1_796_022_400));
        let token_of = |t: &str| {
            serde_json::from_str::<serde_json::Value>(t).unwrap()["synctoken"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(token_of(&later), token);
        let fewer = Operator {
            hosts: Vec::new(),
            networks: op.networks[..1].to_vec(),
        };
        let other = ranges_json(&fewer, at(1_795_936_000));
        assert_ne!(token_of(&other), token);
        assert!(!other.contains("notes"), "{other}");
        // No address: an empty list, as the format allows.
        let none = ranges_json(&Operator::default(), at(1_795_936_000));
        let doc: serde_json::Value = serde_json::from_str(&none).expect("JSON");
        assert_eq!(doc["prefixes"], serde_json::json!([]));
    }
}
