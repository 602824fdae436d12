//! The seam for a verdict cache shared by many processes: the
//! [`Verifier`](crate::Verifier) asks it after its own cache misses and
//! before DNS, joins a lookup another process has in flight, and fills it
//! after a lookup. This crate knows no such store; `botwarden-scale`
//! implements one on Redis. Without one ([`VerifierConfig::shared`]
//! `None`, the default) nothing changes.
//!
//! Only verdicts that need DNS go through the shared cache: those decided
//! by address lists and published ranges take microseconds to work out,
//! less than any round trip.
//!
//! [`VerifierConfig::shared`]: crate::VerifierConfig::shared

use std::fmt;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::verdict::{Evidence, Method, Verdict};

/// A boxed future borrowing the store, as the seam's methods return.
pub type SharedFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The answer to [`SharedVerdicts::try_lock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedLock {
    /// This process looks the address up; the others wait for its verdict.
    Acquired,
    /// Another process is looking it up: wait for its verdict.
    Held,
    /// The store cannot say (down, slow): look it up without waiting.
    Unavailable,
}

/// Counters and state of a shared verdict store, for metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SharedStats {
    /// Verdicts found in the store.
    pub hits: u64,
    /// Verdicts looked for and not found.
    pub misses: u64,
    /// Verdicts another process was working out, waited for and found.
    pub joins: u64,
    /// Calls that failed or took too long (each one also marks the store
    /// down until it answers again).
    pub errors: u64,
    /// Calls skipped because the store was down.
    pub skipped: u64,
    /// Whether the store answers now.
    pub up: bool,
    /// Reads answered, and their total time in microseconds (for a mean).
    pub reads: u64,
    /// The total time of `reads`, in microseconds.
    pub read_micros: u64,
    /// Reads answered within 0.25, 0.5, 1, 2.5, 5 and 10 ms (cumulative,
    /// as Prometheus histogram buckets).
    pub read_buckets: [u64; 6],
}

/// The upper bounds of [`SharedStats::read_buckets`], in seconds.
pub const READ_BUCKETS: [f64; 6] = [0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01];

/// A verdict store shared by many processes.
///
/// Every method must answer quickly whatever the store's state: a store
/// that is down or slow answers `None`, [`SharedLock::Unavailable`] or
/// nothing, and counts it, rather than make a request wait.
pub trait SharedVerdicts: Send + Sync + fmt::Debug {
    /// The stored verdict on `ip` claiming `bot`, and how long it stays
    /// fresh; `None` when there is none or the store cannot answer.
    fn get<'a>(&'a self, ip: IpAddr, bot: &'a str)
    -> SharedFuture<'a, Option<(Verdict, Duration)>>;

    /// Stores `verdict` for `ttl` and releases this process's lock on the
    /// lookup, if it holds one. May return before the store has it.
    fn put<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
        verdict: &'a Verdict,
        ttl: Duration,
    ) -> SharedFuture<'a, ()>;

    /// Claims the lookup of `ip` as `bot` for at most `ttl`, so that other
    /// processes wait for this one's verdict instead of asking DNS too.
    fn try_lock<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
        ttl: Duration,
    ) -> SharedFuture<'a, SharedLock>;

    /// Waits at most `longest` for the verdict on `ip` as `bot` that
    /// another process holding the lock is working out; `None` when none
    /// came (the caller then looks it up itself).
    fn wait<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
        longest: Duration,
    ) -> SharedFuture<'a, Option<(Verdict, Duration)>>;

    /// The counters.
    fn stats(&self) -> SharedStats;
}

/// The version of [`encode_verdict`]'s form; a store puts it in its keys, so
/// processes of different versions never read each other's verdicts.
pub const WIRE_VERSION: u32 = 1;

/// A verdict as stored: compact JSON, fields left out when empty.
#[derive(Serialize, Deserialize)]
struct Wire {
    /// `verified`, `spoofed`, `unknown`, `unverifiable` or `not-a-bot`.
    k: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    b: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    r: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    m: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    e: Option<WireEvidence>,
}

#[derive(Serialize, Deserialize)]
struct WireEvidence {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ptr: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    fwd: Vec<IpAddr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    matched: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    feed: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<String>,
}

/// A verdict in the stored form (compact JSON). A request signature's
/// evidence is not kept: verdicts by address never carry one.
#[must_use]
pub fn encode_verdict(verdict: &Verdict) -> Vec<u8> {
    let evidence = verdict.evidence().map(|e| WireEvidence {
        ptr: e.ptr_names.clone(),
        name: e.confirmed_name.clone(),
        fwd: e.forward.clone(),
        matched: e.matched.clone(),
        prefix: e.published_prefix.clone(),
        feed: e.feed.clone(),
        version: e.feed_version.clone(),
    });
    let wire = Wire {
        k: verdict.kind().to_owned(),
        b: verdict.bot().unwrap_or_default().to_owned(),
        r: verdict.reason().unwrap_or_default().to_owned(),
        m: match verdict {
            Verdict::Verified { methods, .. } => {
                methods.iter().map(|m| m.as_str().to_owned()).collect()
            }
            _ => Vec::new(),
        },
        e: evidence,
    };
    serde_json::to_vec(&wire).unwrap_or_default()
}

/// A verdict from its stored form.
///
/// # Errors
/// The bytes are not a verdict of this form, with what is wrong.
pub fn decode_verdict(bytes: &[u8]) -> Result<Verdict, String> {
    let wire: Wire = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let evidence = || {
        wire.e
            .as_ref()
            .map_or_else(Evidence::default, |e| Evidence {
                ptr_names: e.ptr.clone(),
                confirmed_name: e.name.clone(),
                forward: e.fwd.clone(),
                matched: e.matched.clone(),
                published_prefix: e.prefix.clone(),
                feed: e.feed.clone(),
                feed_version: e.version.clone(),
                signature: None,
            })
    };
    Ok(match wire.k.as_str() {
        "not-a-bot" => Verdict::NotABot,
        "verified" => Verdict::Verified {
            bot: wire.b.clone(),
            methods: wire
                .m
                .iter()
                .map(|m| method(m).ok_or_else(|| format!("unknown method {m:?}")))
                .collect::<Result<_, _>>()?,
            evidence: evidence(),
        },
        "spoofed" => Verdict::Spoofed {
            bot: wire.b.clone(),
            reason: wire.r.clone(),
            evidence: evidence(),
        },
        "unknown" => Verdict::Unknown {
            bot: wire.b.clone(),
            reason: wire.r.clone(),
            evidence: evidence(),
        },
        "unverifiable" => Verdict::Unverifiable {
            bot: wire.b.clone(),
            reason: wire.r.clone(),
        },
        other => return Err(format!("unknown verdict kind {other:?}")),
    })
}

fn method(name: &str) -> Option<Method> {
    [
        Method::PublishedRanges,
        Method::Fcrdns,
        Method::IpList,
        Method::IpRanges,
        Method::CidrList,
        Method::WebBotAuth,
    ]
    .into_iter()
    .find(|m| m.as_str() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_verdict_comes_back_as_it_went() {
        let evidence = Evidence {
            ptr_names: vec!["crawl-66-249-66-1.googlebot.com".to_owned()],
            confirmed_name: Some("crawl-66-249-66-1.googlebot.com".to_owned()),
            forward: vec!["66.249.66.1".parse().expect("an address")],
            matched: vec!["cidr_list 66.249.64.0/19".to_owned()],
            published_prefix: Some("66.249.66.0/27".to_owned()),
            feed: Some("https://feeds.example/g.json".to_owned()),
            feed_version: Some("2026-11-01T00:00:00".to_owned()),
            signature: None,
        };
        let verdicts = [
            Verdict::NotABot,
            Verdict::Verified {
                bot: "Googlebot".to_owned(),
                methods: vec![Method::CidrList, Method::Fcrdns],
                evidence: evidence.clone(),
            },
            Verdict::Spoofed {
                bot: "Googlebot".to_owned(),
                reason: "no PTR record".to_owned(),
                evidence: Evidence::default(),
            },
            Verdict::Unknown {
                bot: "Googlebot".to_owned(),
                reason: "timeout".to_owned(),
                evidence,
            },
            Verdict::Unverifiable {
                bot: "Somebot".to_owned(),
                reason: "no method".to_owned(),
            },
        ];
        for v in verdicts {
            assert_eq!(decode_verdict(&encode_verdict(&v)), Ok(v));
        }
    }

    #[test]
    fn bad_stored_verdicts_are_errors_that_say_why() {
        assert_eq!(
            decode_verdict(br#"{"k":"maybe"}"#),
            Err("unknown verdict kind \"maybe\"".to_owned())
        );
        assert_eq!(
            decode_verdict(br#"{"k":"verified","m":["telepathy"]}"#),
            Err("unknown method \"telepathy\"".to_owned())
        );
        assert!(decode_verdict(b"\x00\x01").is_err());
    }
}
