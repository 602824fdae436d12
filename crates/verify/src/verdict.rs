//! Verdicts: whether a request comes from the crawler it claims to be, with
//! the evidence (DESIGN §3.2).

use std::fmt;
use std::net::IpAddr;

use serde::Serialize;

/// How a bot was verified (or would have been).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The operator's published IP ranges (`ranges_url`).
    PublishedRanges,
    /// Forward-confirmed reverse DNS (`fcrdns_hosts`).
    Fcrdns,
    /// The registry's `ip_list`.
    IpList,
    /// The registry's `ip_ranges`.
    IpRanges,
    /// The registry's `cidr_list`.
    CidrList,
    /// A Web Bot Auth request signature, with a key of the bot's
    /// `signature_agents` or `signature_keys`.
    WebBotAuth,
}

impl Method {
    /// The name used in output (`published_ranges`, `fcrdns`, …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Method::PublishedRanges => "published_ranges",
            Method::Fcrdns => "fcrdns",
            Method::IpList => "ip_list",
            Method::IpRanges => "ip_ranges",
            Method::CidrList => "cidr_list",
            Method::WebBotAuth => "web_bot_auth",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What was found on the way to a verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Every PTR name of the address (when DNS was asked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ptr_names: Vec<String>,
    /// The PTR name that was forward-confirmed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed_name: Option<String>,
    /// The forward (A and AAAA) addresses of the confirmed name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forward: Vec<IpAddr>,
    /// The registry entries that matched the address (`cidr_list
    /// 66.249.64.0/19`, `ip_list 192.0.2.1`, `ip_ranges a–b`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
    /// The published prefix that contained the address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_prefix: Option<String>,
    /// The feed of that prefix (its URL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed: Option<String>,
    /// The feed's version: its creation time, else when it was fetched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed_version: Option<String>,
    /// The request's Web Bot Auth signature, as far as it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<crate::webbotauth::SignatureEvidence>,
}

/// The verdict on one `(ip, user agent)` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The request does not claim to be a crawler.
    NotABot,
    /// The address belongs to the bot, by every method its entry requires
    /// (or by its published ranges).
    Verified {
        /// The bot.
        bot: String,
        /// The methods that verified it.
        methods: Vec<Method>,
        /// What they found.
        evidence: Evidence,
    },
    /// The address definitively does not belong to the bot.
    Spoofed {
        /// The bot claimed.
        bot: String,
        /// Why, in a sentence.
        reason: String,
        /// What was found.
        evidence: Evidence,
    },
    /// Nothing could be concluded (a DNS failure or timeout, or DNS not
    /// allowed): never to be read as spoofed.
    Unknown {
        /// The bot claimed.
        bot: String,
        /// Why, in a sentence.
        reason: String,
        /// What was found.
        evidence: Evidence,
    },
    /// The registry has no method to verify this bot, or it is a crawler
    /// the registry does not know.
    Unverifiable {
        /// The bot (or crawler family) claimed.
        bot: String,
        /// Why it cannot be verified.
        reason: String,
    },
}

impl Verdict {
    /// The verdict on any address that claims a crawler the registry does
    /// not know: `unverifiable`, named by the client's name (or its
    /// category), since nothing says which addresses it uses.
    #[must_use]
    pub fn unregistered(name: &str, category: Option<&str>) -> Verdict {
        let category = category.unwrap_or(crate::classify::CRAWLER_CATEGORY);
        Verdict::Unverifiable {
            bot: name.to_owned(),
            reason: format!("a {category} the registry does not know"),
        }
    }

    /// `not-a-bot`, `verified`, `spoofed`, `unknown` or `unverifiable`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::NotABot => "not-a-bot",
            Verdict::Verified { .. } => "verified",
            Verdict::Spoofed { .. } => "spoofed",
            Verdict::Unknown { .. } => "unknown",
            Verdict::Unverifiable { .. } => "unverifiable",
        }
    }

    /// The bot claimed, if any.
    #[must_use]
    pub fn bot(&self) -> Option<&str> {
        match self {
            Verdict::NotABot => None,
            Verdict::Verified { bot, .. }
            | Verdict::Spoofed { bot, .. }
            | Verdict::Unknown { bot, .. }
            | Verdict::Unverifiable { bot, .. } => Some(bot),
        }
    }

    /// The reason, for every verdict but `verified` and `not-a-bot`.
    #[must_use]
    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::Spoofed { reason, .. }
            | Verdict::Unknown { reason, .. }
            | Verdict::Unverifiable { reason, .. } => Some(reason),
            Verdict::NotABot | Verdict::Verified { .. } => None,
        }
    }

    /// The methods, joined by `+` (`fcrdns+cidr_list`), for a verified bot.
    #[must_use]
    pub fn method(&self) -> Option<String> {
        match self {
            Verdict::Verified { methods, .. } => Some(
                methods
                    .iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join("+"),
            ),
            _ => None,
        }
    }

    /// The evidence, if any was gathered.
    #[must_use]
    pub fn evidence(&self) -> Option<&Evidence> {
        match self {
            Verdict::Verified { evidence, .. }
            | Verdict::Spoofed { evidence, .. }
            | Verdict::Unknown { evidence, .. } => Some(evidence),
            Verdict::NotABot | Verdict::Unverifiable { .. } => None,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        if let Some(bot) = self.bot() {
            write!(f, " {bot}")?;
        }
        if let Some(m) = self.method() {
            write!(f, " by {m}")?;
        }
        if let Some(r) = self.reason() {
            write!(f, ": {r}")?;
        }
        Ok(())
    }
}

/// A verdict as a JSON object, the same wherever it is answered (`bots
/// verify --format json`, `GET /api/v1/verify`): `ip`, `user_agent`,
/// `bot`, `verdict`, `method`, `reason` and `evidence`, in that order.
/// [`SignedVerdictJson`](crate::SignedVerdictJson) is its kin for a signed
/// request.
#[derive(Debug, Serialize)]
pub struct VerdictJson<'a> {
    ip: IpAddr,
    user_agent: Option<&'a str>,
    bot: Option<&'a str>,
    verdict: &'static str,
    method: Option<String>,
    reason: Option<&'a str>,
    evidence: Option<&'a Evidence>,
}

impl<'a> VerdictJson<'a> {
    /// The document of `verdict` on a request from `ip` (written as
    /// [`normalize`](crate::normalize) writes it) with `user_agent`.
    #[must_use]
    pub fn new(ip: IpAddr, user_agent: Option<&'a str>, verdict: &'a Verdict) -> VerdictJson<'a> {
        VerdictJson {
            ip: crate::normalize(ip),
            user_agent,
            bot: verdict.bot(),
            verdict: verdict.kind(),
            method: verdict.method(),
            reason: verdict.reason(),
            evidence: verdict.evidence(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_json_has_the_documented_fields_in_order() {
        let verified = Verdict::Verified {
            bot: "Searchbot".to_owned(),
            methods: vec![Method::Fcrdns],
            evidence: Evidence {
                confirmed_name: Some("crawl-1.searchbot.example".to_owned()),
                ..Evidence::default()
            },
        };
        let ip: IpAddr = "::ffff:192.0.2.200".parse().expect("address");
        let doc = VerdictJson::new(ip, Some("Searchbot/2.1"), &verified);
        assert_eq!(
            serde_json::to_string(&doc).expect("JSON"),
            r#"{"ip":"192.0.2.200","user_agent":"Searchbot/2.1","bot":"Searchbot","verdict":"verified","method":"fcrdns","reason":null,"evidence":{"confirmed_name":"crawl-1.searchbot.example"}}"#
        );
        let doc = VerdictJson::new(ip, None, &Verdict::NotABot);
        assert_eq!(
            serde_json::to_string(&doc).expect("JSON"),
            r#"{"ip":"192.0.2.200","user_agent":null,"bot":null,"verdict":"not-a-bot","method":null,"reason":null,"evidence":null}"#
        );
    }
}
