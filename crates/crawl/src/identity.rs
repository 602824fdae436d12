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
