//! What goes over the wire: a pair in the stream, a verdict in the bucket
//! (both JSON, described in `crates/scale/docs/nats.md`).

use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use botwarden_logs::{Listed, Pair, standing};
use botwarden_verify::{Evidence, Method, Verdict};
use serde::{Deserialize, Serialize};

/// A pair as published to the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairMessage {
    /// The client address.
    pub ip: IpAddr,
    /// The registry name of the bot it claimed.
    pub bot: String,
    /// The bot's category, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The time of the pair's first request, Unix seconds: the verifier
    /// verifies as of then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_of: Option<i64>,
}

impl PairMessage {
    /// The message for a pair the analysis hands out.
    #[must_use]
    pub fn of(pair: &Pair) -> PairMessage {
        PairMessage {
            ip: pair.ip.to_canonical(),
            bot: pair.bot.clone(),
            category: pair.category.clone(),
            as_of: pair.as_of.map(unix_seconds),
        }
    }

    /// The time to verify as of.
    #[must_use]
    pub fn as_of_time(&self) -> Option<SystemTime> {
        let secs = Duration::from_secs(self.as_of?.unsigned_abs());
        if self.as_of? >= 0 {
            UNIX_EPOCH.checked_add(secs)
        } else {
            UNIX_EPOCH.checked_sub(secs)
        }
    }
}

/// A verdict as the bucket holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictRecord {
    /// The client address.
    pub ip: IpAddr,
    /// The bot claimed.
    pub bot: String,
    /// `verified`, `spoofed`, `unknown` or `unverifiable`.
    pub verdict: String,
    /// The methods that verified it (`fcrdns`, `published_ranges`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<String>,
    /// Why, for every verdict but `verified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it was verified, Unix milliseconds.
    pub verified_at: u64,
    /// Until when it stands, Unix milliseconds.
    pub expires: u64,
}

impl VerdictRecord {
    /// The record of a verdict made at `now_ms`, standing for `ttl`.
    #[must_use]
    pub fn new(ip: IpAddr, bot: &str, verdict: &Verdict, now_ms: u64, ttl: Duration) -> Self {
        let methods = match verdict {
            Verdict::Verified { methods, .. } => {
                methods.iter().map(|m| m.as_str().to_owned()).collect()
            }
            _ => Vec::new(),
        };
        VerdictRecord {
            ip: ip.to_canonical(),
            bot: verdict.bot().unwrap_or(bot).to_owned(),
            verdict: verdict.kind().to_owned(),
            methods,
            reason: verdict.reason().map(str::to_owned),
            verified_at: now_ms,
            expires: now_ms.saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)),
        }
    }

    /// Reads a record.
    ///
    /// # Errors
    /// The bytes are not a record.
    pub fn from_json(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The record as JSON.
    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Whether it no longer stands at `now_ms`.
    #[must_use]
    pub fn expired(&self, now_ms: u64) -> bool {
        self.expires <= now_ms
    }

    /// The verdict, as far as the record keeps it: kind, bot, methods and
    /// reason (the evidence stays with the verifier that found it).
    #[must_use]
    pub fn to_verdict(&self) -> Verdict {
        let bot = self.bot.clone();
        let reason = self.reason.clone().unwrap_or_default();
        match self.verdict.as_str() {
            "verified" => Verdict::Verified {
                bot,
                methods: self.methods.iter().filter_map(|m| method(m)).collect(),
                evidence: Evidence::default(),
            },
            "spoofed" => Verdict::Spoofed {
                bot,
                reason,
                evidence: Evidence::default(),
            },
            "unverifiable" => Verdict::Unverifiable { bot, reason },
            "not-a-bot" => Verdict::NotABot,
            other => Verdict::Unknown {
                bot,
                reason: if other == "unknown" {
                    reason
                } else {
                    format!("a verdict this version does not know: {other}")
                },
                evidence: Evidence::default(),
            },
        }
    }

    /// How the exports list it; `None` for an `unknown` verdict.
    #[must_use]
    pub fn listed(&self) -> Option<Listed> {
        Some(Listed {
            ip: self.ip,
            bot: self.bot.clone(),
            standing: standing(&self.to_verdict())?,
        })
    }
}

fn method(name: &str) -> Option<Method> {
    Some(match name {
        "published_ranges" => Method::PublishedRanges,
        "fcrdns" => Method::Fcrdns,
        "ip_list" => Method::IpList,
        "ip_ranges" => Method::IpRanges,
        "cidr_list" => Method::CidrList,
        "web_bot_auth" => Method::WebBotAuth,
        _ => return None,
    })
}

/// Now, in Unix milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}
