//! Checking a request's Web Bot Auth signature.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::base::{RequestParts, signature_base};
use super::failure::SignatureFailure;
use super::fields::{
    Agent, AgentKind, SignatureInput, parse_agent, parse_signature_input, signature_bytes,
};
use super::keys::{KeyOwner, KeyRing, PublicKey};

/// The tag of Web Bot Auth signatures.
pub const WEB_BOT_AUTH_TAG: &str = "web-bot-auth";

/// How signatures are checked.
#[derive(Debug, Clone)]
pub struct SignatureConfig {
    /// How far `created` may be in the future and `expires` in the past
    /// (clocks differ): 60 s unless set.
    pub clock_skew: Duration,
    /// The longest validity (`expires - created`) accepted; `None`: any.
    pub max_validity: Option<Duration>,
    /// How many nonces are remembered at most; past that the ones that
    /// expire first are forgotten (and counted).
    pub max_nonces: usize,
    /// Whether nonces are remembered to refuse replays (true unless set).
    /// Off for requests read back from a log: they were served already,
    /// in an order the reading does not keep.
    pub remember_nonces: bool,
}

impl Default for SignatureConfig {
    fn default() -> SignatureConfig {
        SignatureConfig {
            clock_skew: Duration::from_secs(60),
            max_validity: None,
            max_nonces: 1 << 20,
            remember_nonces: true,
        }
    }
}

/// What a valid signature showed, kept in the verdict's evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignatureEvidence {
    /// The signature's label (`sig1`).
    pub label: String,
    /// The `keyid`: the key's JWK thumbprint.
    pub keyid: String,
    /// The key's algorithm (`ed25519`, `rsa-pss-sha512`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alg: Option<&'static str>,
    /// `created`, seconds since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<i64>,
    /// `expires`, seconds since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<i64>,
    /// The nonce, if the signature has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// The covered components, as identifiers (`"@authority"`).
    pub components: Vec<String>,
    /// The signature agent, if the request named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<Agent>,
    /// Whose key verified it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_owner: Option<KeyOwner>,
}

/// The outcome of checking a request's signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureCheck {
    /// The request has no signature fields.
    Unsigned,
    /// A Web Bot Auth signature verified.
    Valid(SignatureEvidence),
    /// The signature is not valid: the request is spoofed.
    Invalid {
        /// Why.
        failure: SignatureFailure,
        /// What was read of the signature, when it got that far.
        evidence: Option<SignatureEvidence>,
    },
    /// The keys could not be had (directory unreachable or not fetched):
    /// nothing can be concluded.
    Undecided {
        /// Why, in a sentence.
        reason: String,
        /// What was read of the signature.
        evidence: SignatureEvidence,
    },
}

impl SignatureCheck {
    /// `unsigned`, `valid`, `invalid` or `undecided`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            SignatureCheck::Unsigned => "unsigned",
            SignatureCheck::Valid(_) => "valid",
            SignatureCheck::Invalid { .. } => "invalid",
            SignatureCheck::Undecided { .. } => "undecided",
        }
    }
}

/// The verdict on a signed request as a JSON object, the same wherever it
/// is answered (`bots verify --header … --format json`, `POST
/// /api/v1/verify`): `bots verify`'s fields, the address possibly null,
/// and the signature check's outcome.
#[derive(Debug, Serialize)]
pub struct SignedVerdictJson<'a> {
    ip: Option<std::net::IpAddr>,
    user_agent: Option<&'a str>,
    bot: Option<&'a str>,
    verdict: &'static str,
    method: Option<String>,
    reason: Option<&'a str>,
    signature: &'static str,
    evidence: Option<&'a crate::Evidence>,
}

impl<'a> SignedVerdictJson<'a> {
    /// The document of `verdict` on a request from `ip` (written as
    /// [`normalize`](crate::normalize) writes it) with `user_agent`,
    /// whose signature check was `check`.
    #[must_use]
    pub fn new(
        ip: Option<std::net::IpAddr>,
        user_agent: Option<&'a str>,
        verdict: &'a crate::Verdict,
        check: &SignatureCheck,
    ) -> SignedVerdictJson<'a> {
        SignedVerdictJson {
            ip: ip.map(crate::normalize),
            user_agent,
            bot: verdict.bot(),
            verdict: verdict.kind(),
            method: verdict.method(),
            reason: verdict.reason(),
            signature: check.kind(),
            evidence: verdict.evidence(),
        }
    }
}

/// Counters of a [`SignatureVerifier`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SignatureStats {
    /// Checks made.
    pub checks: u64,
    /// Signatures that verified.
    pub valid: u64,
    /// Signatures that did not.
    pub invalid: u64,
    /// Checks left undecided (keys unavailable).
    pub undecided: u64,
    /// Nonces forgotten before they expired because the cache was full.
    pub nonces_evicted: u64,
}

#[derive(Debug, Default)]
struct Nonces {
    /// `(keyid, nonce)` → when it may be forgotten (seconds).
    seen: HashMap<(String, String), i64>,
}

/// Checks Web Bot Auth signatures (HTTP Message Signatures, RFC 9421,
/// tagged `web-bot-auth`) against the keys of a [`KeyRing`], remembering
/// nonces to refuse replays. One is shared by every request; it is
/// `Sync`.
#[derive(Debug)]
pub struct SignatureVerifier {
    config: SignatureConfig,
    nonces: Mutex<Nonces>,
    checks: AtomicU64,
    valid: AtomicU64,
    invalid: AtomicU64,
    undecided: AtomicU64,
    evicted: AtomicU64,
}

impl Default for SignatureVerifier {
    fn default() -> SignatureVerifier {
        SignatureVerifier::new(SignatureConfig::default())
    }
}

fn unix(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

fn secs(d: Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX)
}

impl SignatureVerifier {
    /// A verifier with this configuration.
    #[must_use]
    pub fn new(config: SignatureConfig) -> SignatureVerifier {
        SignatureVerifier {
            config,
            nonces: Mutex::new(Nonces::default()),
            checks: AtomicU64::new(0),
            valid: AtomicU64::new(0),
            invalid: AtomicU64::new(0),
            undecided: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
        }
    }

    /// The counters so far.
    #[must_use]
    pub fn stats(&self) -> SignatureStats {
        SignatureStats {
            checks: self.checks.load(Ordering::Relaxed),
            valid: self.valid.load(Ordering::Relaxed),
            invalid: self.invalid.load(Ordering::Relaxed),
            undecided: self.undecided.load(Ordering::Relaxed),
            nonces_evicted: self.evicted.load(Ordering::Relaxed),
        }
    }

    /// The signature agents the request's Web Bot Auth signatures name:
    /// the key URLs ([`Agent::keys_url`]) to fetch and put in the
    /// [`KeyRing`] before [`check`](SignatureVerifier::check). Empty for a
    /// request without signatures or agents. Agents the draft has ignored
    /// ([`Agent::ignored`]) are left out: their keys are never fetched.
    ///
    /// # Errors
    ///
    /// The [`SignatureFailure`] that makes the signature invalid whatever
    /// the keys (a field that cannot be read, no `web-bot-auth` tag).
    pub fn agents(&self, req: &RequestParts<'_>) -> Result<Vec<Agent>, SignatureFailure> {
        let Some((inputs, _)) = tagged_inputs(req)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for input in &inputs {
            if let Some(a) = agent_of(req, input)?
                && a.ignored.is_none()
            {
                out.push(a);
            }
        }
        Ok(out)
    }

    /// Checks the request's Web Bot Auth signature at time `now` with the
    /// keys of `keys`. With several signatures tagged `web-bot-auth`, the
    /// first that verifies wins; if none does, the first one's outcome is
    /// given.
    pub fn check(&self, req: &RequestParts<'_>, keys: &KeyRing, now: SystemTime) -> SignatureCheck {
        self.checks.fetch_add(1, Ordering::Relaxed);
        let outcome = match tagged_inputs(req) {
            Ok(None) => SignatureCheck::Unsigned,
            Err(failure) => SignatureCheck::Invalid {
                failure,
                evidence: None,
            },
            Ok(Some((inputs, sig_field))) => {
                let mut first = None;
                let mut found = None;
                for input in &inputs {
                    let o = self.check_one(req, input, &sig_field, keys, unix(now));
                    if matches!(o, SignatureCheck::Valid(_)) {
                        found = Some(o);
                        break;
                    }
                    first.get_or_insert(o);
                }
                found.or(first).unwrap_or(SignatureCheck::Unsigned)
            }
        };
        let counter = match &outcome {
            SignatureCheck::Unsigned => None,
            SignatureCheck::Valid(_) => Some(&self.valid),
            SignatureCheck::Invalid { .. } => Some(&self.invalid),
            SignatureCheck::Undecided { .. } => Some(&self.undecided),
        };
        if let Some(c) = counter {
            c.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }

    fn check_one(
        &self,
        req: &RequestParts<'_>,
        input: &SignatureInput,
        sig_field: &str,
        keys: &KeyRing,
        now: i64,
    ) -> SignatureCheck {
        let mut evidence = SignatureEvidence {
            label: input.label.clone(),
            keyid: input.keyid.clone().unwrap_or_default(),
            alg: None,
            created: input.created,
            expires: input.expires,
            nonce: input.nonce.clone(),
            components: input
                .components
                .iter()
                .map(|c| c.identifier.clone())
                .collect(),
            agent: None,
            key_owner: None,
        };
        let invalid = |failure, evidence: &SignatureEvidence| SignatureCheck::Invalid {
            failure,
            evidence: Some(evidence.clone()),
        };
        let agent = match agent_of(req, input) {
            Ok(a) => a,
            Err(f) => return invalid(f, &evidence),
        };
        evidence.agent.clone_from(&agent);
        if let Err(f) = self.profile(req, input, now) {
            return invalid(f, &evidence);
        }
        let keyid = evidence.keyid.clone();
        let (owner, key) = match find_key(keys, agent.as_ref(), &keyid) {
            Found::Key(owner, key) => (owner, key),
            Found::Failure(f) => return invalid(f, &evidence),
            Found::Undecided(reason) => {
                return SignatureCheck::Undecided { reason, evidence };
            }
        };
        evidence.alg = Some(key.algorithm().as_str());
        evidence.key_owner = Some(owner.clone());
        if let Err(f) = verify_with(req, input, sig_field, key, Some(now)) {
            return invalid(f, &evidence);
        }
        if let Some(nonce) = &input.nonce
            && self.config.remember_nonces
        {
            let until = input
                .expires
                .unwrap_or(now)
                .saturating_add(secs(self.config.clock_skew));
            if !self.remember(&keyid, nonce, until, now) {
                return invalid(
                    SignatureFailure::Replayed {
                        nonce: nonce.clone(),
                    },
                    &evidence,
                );
            }
        }
        SignatureCheck::Valid(evidence)
    }

    /// The Web Bot Auth profile's requirements, before any key is looked up.
    fn profile(
        &self,
        req: &RequestParts<'_>,
        input: &SignatureInput,
        now: i64,
    ) -> Result<(), SignatureFailure> {
        let created = input.created.ok_or(SignatureFailure::MissingParameter {
            parameter: "created",
        })?;
        let expires = input.expires.ok_or(SignatureFailure::MissingParameter {
            parameter: "expires",
        })?;
        if input.keyid.is_none() {
            return Err(SignatureFailure::MissingParameter { parameter: "keyid" });
        }
        if expires < created {
            return Err(SignatureFailure::BadValidity {
                created,
                expires,
                max: None,
            });
        }
        if let Some(max) = self.config.max_validity
            && expires - created > secs(max)
        {
            return Err(SignatureFailure::BadValidity {
                created,
                expires,
                max: Some(max.as_secs()),
            });
        }
        let skew = secs(self.config.clock_skew);
        if created > now.saturating_add(skew) {
            return Err(SignatureFailure::NotYetValid { created, now });
        }
        if expires < now.saturating_sub(skew) {
            return Err(SignatureFailure::Expired { expires, now });
        }
        // architecture-04 lets `@target-uri`, which holds the authority,
        // stand for `@authority`.
        if !input
            .components
            .iter()
            .any(|c| c.name == "@authority" || c.name == "@target-uri")
        {
            return Err(SignatureFailure::NotCovered {
                component: "@authority (or @target-uri)",
            });
        }
        if req
            .headers()
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("signature-agent"))
            && !input.components.iter().any(|c| c.name == "signature-agent")
        {
            return Err(SignatureFailure::NotCovered {
                component: "signature-agent",
            });
        }
        Ok(())
    }

    /// Records a nonce until `until`; false if it was already there.
    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> bool {
        let mut n = self
            .nonces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (keyid.to_owned(), nonce.to_owned());
        if let Some(&t) = n.seen.get(&key)
            && t >= now
        {
            return false;
        }
        if n.seen.len() >= self.config.max_nonces {
            n.seen.retain(|_, t| *t >= now);
        }
        if n.seen.len() >= self.config.max_nonces.max(1) {
            // Forget the half that expires first.
            let mut times: Vec<i64> = n.seen.values().copied().collect();
            let mid = times.len() / 2;
            let (_, &mut cut, _) = times.select_nth_unstable(mid);
            let before = n.seen.len();
            n.seen.retain(|_, t| *t > cut);
            self.evicted
                .fetch_add((before - n.seen.len()) as u64, Ordering::Relaxed);
        }
        n.seen.insert(key, until);
        true
    }
}

/// The `Signature-Input` members tagged `web-bot-auth`; `None` for a
/// request without signature fields.
#[allow(clippy::type_complexity)]
fn tagged_inputs(
    req: &RequestParts<'_>,
) -> Result<Option<(Vec<SignatureInput>, String)>, SignatureFailure> {
    let input = req.header_value("signature-input");
    let sig = req.header_value("signature");
    let input = match (input, sig) {
        (None, None) => return Ok(None),
        (Some(_), None) => return Err(SignatureFailure::MissingField { field: "Signature" }),
        (None, Some(_)) => {
            return Err(SignatureFailure::MissingField {
                field: "Signature-Input",
            });
        }
        (Some(i), Some(s)) => (i, s),
    };
    let (input, sig_field) = input;
    let all = parse_signature_input(&input)?;
    let found: Vec<String> = all
        .iter()
        .map(|i| i.tag.clone().unwrap_or_else(|| "none".to_owned()))
        .collect();
    let tagged: Vec<SignatureInput> = all
        .into_iter()
        .filter(|i| i.tag.as_deref() == Some(WEB_BOT_AUTH_TAG))
        .collect();
    if tagged.is_empty() {
        return Err(SignatureFailure::WrongTag { found });
    }
    Ok(Some((tagged, sig_field)))
}

fn agent_of(
    req: &RequestParts<'_>,
    input: &SignatureInput,
) -> Result<Option<Agent>, SignatureFailure> {
    let Some(value) = req.header_value("signature-agent") else {
        return Ok(None);
    };
    let key = input
        .components
        .iter()
        .find(|c| c.name == "signature-agent")
        .and_then(|c| c.key.as_deref());
    parse_agent(&value, &input.label, key).map(Some)
}

enum Found<'k> {
    Key(&'k KeyOwner, &'k PublicKey),
    Failure(SignatureFailure),
    Undecided(String),
}

fn find_key<'k>(keys: &'k KeyRing, agent: Option<&Agent>, keyid: &str) -> Found<'k> {
    match agent {
        Some(agent) if agent.ignored.is_some() => match keys
            .by_keyid(keyid)
            .find(|(o, _)| !matches!(o, KeyOwner::Directory(_)))
        {
            Some((o, k)) => Found::Key(o, k),
            None => Found::Undecided(format!(
                "signature agent {} is ignored ({}), and no key of the registry has the id {keyid}",
                agent.uri,
                agent.ignored.as_deref().unwrap_or_default()
            )),
        },
        Some(agent) => {
            let url = agent.keys_url.as_str();
            match keys.directory(url) {
                None => Found::Undecided(format!(
                    "the keys of signature agent {} ({url}) were not fetched",
                    agent.uri
                )),
                Some(Err(why)) => Found::Undecided(format!(
                    "the keys of signature agent {} could not be had: {why}",
                    agent.uri
                )),
                Some(Ok(set)) => match keys
                    .by_keyid(keyid)
                    .find(|(o, _)| matches!(o, KeyOwner::Directory(u) if u == url))
                {
                    Some((o, k)) => Found::Key(o, k),
                    None => Found::Failure(SignatureFailure::UnknownKey {
                        keyid: keyid.to_owned(),
                        source: match agent.kind {
                            AgentKind::Directory => format!("the key directory {url}"),
                            AgentKind::JwksUri => format!("the JWK Set {url}"),
                            AgentKind::Card => format!("the agent card {url}"),
                        },
                        skipped: set.skipped().to_vec(),
                    }),
                },
            }
        }
        None => match keys.by_keyid(keyid).next() {
            Some((o, k)) => Found::Key(o, k),
            None => Found::Undecided(format!(
                "the request names no signature agent and no known key has the id {keyid}"
            )),
        },
    }
}

/// The RFC 9421 checks of one signature with one key: algorithm, key
/// validity, signature base and the signature itself.
fn verify_with(
    req: &RequestParts<'_>,
    input: &SignatureInput,
    sig_field: &str,
    key: &PublicKey,
    now: Option<i64>,
) -> Result<(), SignatureFailure> {
    if let Some(alg) = &input.alg
        && alg != key.algorithm().as_str()
    {
        return Err(SignatureFailure::AlgorithmMismatch {
            alg: alg.clone(),
            key: key.algorithm().as_str(),
        });
    }
    let (nbf, exp) = key.validity();
    if let Some(now) = now
        && (nbf.is_some_and(|t| now < t) || exp.is_some_and(|t| now > t))
    {
        return Err(SignatureFailure::KeyNotValid {
            keyid: key.thumbprint().to_owned(),
        });
    }
    let sig = signature_bytes(sig_field, &input.label)?;
    let base = signature_base(req, &input.components, &input.params_line)?;
    if key.verifies(base.as_bytes(), &sig) {
        Ok(())
    } else {
        Err(SignatureFailure::BadSignature)
    }
}

/// Verifies the HTTP message signature `label` of a request with `key`, by
/// RFC 9421 alone: no Web Bot Auth profile (tag, required components,
/// `keyid` as thumbprint), no time checks, no nonce memory.
///
/// # Errors
///
/// The [`SignatureFailure`]: a field that cannot be read, no such label, a
/// component missing, or a signature that does not match.
pub fn verify_message_signature(
    req: &RequestParts<'_>,
    label: &str,
    key: &PublicKey,
) -> Result<(), SignatureFailure> {
    let input = req
        .header_value("signature-input")
        .ok_or(SignatureFailure::MissingField {
            field: "Signature-Input",
        })?;
    let inputs = parse_signature_input(&input)?;
    let input =
        inputs
            .iter()
            .find(|i| i.label == label)
            .ok_or_else(|| SignatureFailure::Malformed {
                field: "Signature-Input",
                reason: format!("no member {label}"),
            })?;
    let sig_field = req
        .header_value("signature")
        .ok_or(SignatureFailure::MissingField { field: "Signature" })?;
    verify_with(req, input, &sig_field, key, None)
}
