//! Web Bot Auth key directories, fetched and cached: what a signed
//! request's `Signature-Agent` points at.
//!
//! `botwarden-verify` never fetches; it says which key URLs a request
//! needs ([`SignatureVerifier::agents`]) and reads what was fetched
//! ([`KeySet::from_directory`]). [`KeyDirectories`] does the fetching in
//! between, through a [`Fetcher`] (so with its address guard), checks the
//! directory response's own signature when it has one, and caches by the
//! response's caching headers.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use botwarden_verify::{
    Agent, AgentCard, AgentKind, CardKeys, DirectoryResponse, DirectorySignature, KeyRing, KeySet,
    RequestParts, SignatureVerifier, check_directory_response,
};
use reqwest::header::{self, HeaderMap};
use serde::Serialize;
use url::Url;

use crate::error::Error;
use crate::fetch::{Fetcher, chain, check_scheme, header_str, parse_url, send_error};

/// The `Accept` of a directory request: the drafts' media type first, then
/// the ones older and deployed directories are served with.
const ACCEPT: &str = "application/http-message-signatures-directory+json, \
                      application/jwk-set+json;q=0.9, application/json;q=0.8";

/// How directories are fetched and kept.
#[derive(Debug, Clone, Copy)]
pub struct KeyDirConfig {
    /// The shortest time a fetched directory is kept, whatever its headers
    /// say (`no-cache`, `no-store`, `max-age=0`): 5 minutes, so that a
    /// busy signer's requests do not each cost a fetch.
    pub min_ttl: Duration,
    /// The longest: 24 hours, so that a key taken out of a directory stops
    /// verifying within a day.
    pub max_ttl: Duration,
    /// How long a directory without `Cache-Control: max-age` or `Expires` is
    /// kept: 1 hour.
    pub default_ttl: Duration,
    /// How long a failure (unreachable, not a directory, bad signature) is
    /// remembered before the next try: 1 minute.
    pub failure_ttl: Duration,
    /// The largest directory read: 64 KiB.
    pub max_bytes: usize,
    /// How many directories are kept at most; past that, expired ones are
    /// dropped, and if none has expired the new one is not kept (counted).
    pub max_entries: usize,
    /// The tolerance on a directory signature's `created` and `expires`.
    pub clock_skew: Duration,
}

impl Default for KeyDirConfig {
    fn default() -> KeyDirConfig {
        KeyDirConfig {
            min_ttl: Duration::from_secs(300),
            max_ttl: Duration::from_secs(86_400),
            default_ttl: Duration::from_secs(3600),
            failure_ttl: Duration::from_secs(60),
            max_bytes: 64 * 1024,
            max_entries: 10_000,
            clock_skew: Duration::from_secs(60),
        }
    }
}

/// One directory as fetched (or as it failed).
#[derive(Debug, Clone)]
pub struct DirectoryFetch {
    /// The URL asked for.
    pub url: String,
    /// The keys, or why there are none (in a sentence).
    pub keys: Result<Arc<KeySet>, String>,
    /// The directory response's own signature (`Unsigned` for a failure).
    pub signature: DirectorySignature,
    /// How long it is kept.
    pub ttl: Duration,
    /// When it was fetched.
    pub fetched: SystemTime,
}

#[derive(Debug)]
struct Cached {
    fetch: Arc<DirectoryFetch>,
    until: Instant,
}

type Slot = Arc<tokio::sync::Mutex<Option<Cached>>>;

/// Counters of a [`KeyDirectories`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KeyDirStats {
    /// Directories (and cards, and `jwks_uri` sets) fetched.
    pub fetches: u64,
    /// Answers from the cache.
    pub cache_hits: u64,
    /// Fetches that gave no keys.
    pub failures: u64,
    /// Fetched directories not kept because the cache was full.
    pub not_kept: u64,
    /// Signature agents not fetched because they are not allowed
    /// ([`AllowedAgents`]).
    pub not_allowed: u64,
    /// Directories not fetched because the caller's budget was spent
    /// ([`KeyDirectories::key_ring_allowed`]).
    pub over_budget: u64,
}

/// The signature agents whose key directories may be fetched, by the URL
/// fetched: an origin's well-known directory
/// (`/.well-known/http-message-signatures-directory`), or a directory URL
/// the operator chose (a registry entry's `signature_agents`).
///
/// A signed request names its agent itself, so without such a list anyone
/// who can have a request checked chooses what is fetched: any URL, path
/// and query included. With it, only these URLs ever are, whatever the
/// request says, and always as directories (an agent card's URL is not
/// one).
#[derive(Debug, Clone, Default)]
pub struct AllowedAgents {
    urls: HashSet<String>,
}

impl AllowedAgents {
    /// None allowed.
    #[must_use]
    pub fn new() -> AllowedAgents {
        AllowedAgents::default()
    }

    /// Allows the well-known key directory of `origin` (`https://host`,
    /// `http://host:port`, with or without a final `/`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUrl`] for text that is not an http(s) origin: a
    /// path, query, fragment or user name makes it more than one.
    pub fn allow_origin(&mut self, origin: &str) -> Result<(), Error> {
        let invalid = |reason: &str| Error::InvalidUrl {
            url: origin.to_owned(),
            reason: reason.to_owned(),
        };
        let mut url = Url::parse(origin.trim()).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return Err(invalid("not an http or https origin"));
        }
        if !(url.path().is_empty() || url.path() == "/")
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(invalid(
                "an origin has no path, query or fragment (its well-known directory is fetched)",
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("an origin has no user name or password"));
        }
        url.set_path(botwarden_verify::WELL_KNOWN_DIRECTORY);
        self.urls.insert(url.into());
        Ok(())
    }

    /// Allows the key directory at `url`, as the operator wrote it (a
    /// registry entry's agent, through `botwarden_verify::keys_url`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidUrl`] for text that is not an http(s) URL without
    /// a query or fragment.
    pub fn allow_directory(&mut self, url: &str) -> Result<(), Error> {
        let parsed = Url::parse(url).map_err(|e| Error::InvalidUrl {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
        if !matches!(parsed.scheme(), "http" | "https")
            || parsed.host().is_none()
            || parsed.query().is_some()
            || parsed.fragment().is_some()
        {
            return Err(Error::InvalidUrl {
                url: url.to_owned(),
                reason: "not an http or https URL without a query or fragment".to_owned(),
            });
        }
        self.urls.insert(parsed.into());
        Ok(())
    }

    /// How many directory URLs are allowed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether none is.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }

    /// The allowed URL to fetch for `agent`, if its keys are at one: the
    /// list's own text (the request's URL, normalized, only looked up),
    /// `None` for an agent card or a URL not on the list.
    #[must_use]
    pub fn directory_of(&self, agent: &Agent) -> Option<&str> {
        if agent.kind == AgentKind::Card {
            return None;
        }
        let url = Url::parse(&agent.keys_url).ok()?;
        self.urls.get(url.as_str()).map(String::as_str)
    }
}

/// Fetches Web Bot Auth key directories and keeps them as their caching
/// headers allow, within [`KeyDirConfig`]'s floor and ceiling. One is
/// shared by every request (it is `Sync`); concurrent requests for one URL
/// wait for a single fetch.
#[derive(Debug)]
pub struct KeyDirectories {
    fetcher: Fetcher,
    config: KeyDirConfig,
    slots: Mutex<HashMap<String, Slot>>,
    fetches: AtomicU64,
    hits: AtomicU64,
    failures: AtomicU64,
    not_kept: AtomicU64,
    not_allowed: AtomicU64,
    over_budget: AtomicU64,
}

impl KeyDirectories {
    /// Directories fetched with `fetcher` (its address guard and time limit
    /// apply; its body limit does not, `config.max_bytes` does).
    #[must_use]
    pub fn new(fetcher: Fetcher, config: KeyDirConfig) -> KeyDirectories {
        KeyDirectories {
            fetcher,
            config,
            slots: Mutex::new(HashMap::new()),
            fetches: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            not_kept: AtomicU64::new(0),
            not_allowed: AtomicU64::new(0),
            over_budget: AtomicU64::new(0),
        }
    }

    /// The counters so far.
    #[must_use]
    pub fn stats(&self) -> KeyDirStats {
        KeyDirStats {
            fetches: self.fetches.load(Ordering::Relaxed),
            cache_hits: self.hits.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            not_kept: self.not_kept.load(Ordering::Relaxed),
            not_allowed: self.not_allowed.load(Ordering::Relaxed),
            over_budget: self.over_budget.load(Ordering::Relaxed),
        }
    }

    /// The key ring to check `req` with: `base` (the registry's keys) and
    /// the key sets of the signature agents the request names, fetched or
    /// from the cache; an agent whose keys could not be had is recorded as
    /// unreachable, so that the check is undecided (`unknown`).
    pub async fn key_ring(
        &self,
        verifier: &SignatureVerifier,
        req: &RequestParts<'_>,
        base: &KeyRing,
    ) -> KeyRing {
        let mut ring = base.clone();
        // A request whose fields cannot be read fails the check whatever
        // the keys: nothing to fetch.
        let agents = verifier.agents(req).unwrap_or_default();
        for agent in agents {
            if ring.directory(&agent.keys_url).is_some() {
                continue;
            }
            let fetch = self.get(&agent.keys_url, agent.kind).await;
            match &fetch.keys {
                Ok(keys) => ring.insert_directory(&agent.keys_url, (**keys).clone()),
                Err(why) => ring.insert_unreachable(&agent.keys_url, why.clone()),
            }
        }
        ring
    }

    /// The key ring to check `req` with, fetching only what `allowed`
    /// allows and `budget` pays for: `base` (the registry's keys) and, for
    /// each signature agent the request names, the keys of its allowed
    /// directory URL ([`AllowedAgents::directory_of`]: the list's URL is
    /// fetched, never the request's), from the cache while fresh, else
    /// fetched if `budget()` says so (asked once per fetch, never for a
    /// cache hit). An agent not allowed, or not paid for, goes in the ring
    /// as unreachable with the reason, so that the check is undecided.
    pub async fn key_ring_allowed(
        &self,
        verifier: &SignatureVerifier,
        req: &RequestParts<'_>,
        base: &KeyRing,
        allowed: &AllowedAgents,
        mut budget: impl FnMut() -> bool,
    ) -> KeyRing {
        let mut ring = base.clone();
        let agents = verifier.agents(req).unwrap_or_default();
        for agent in agents {
            if ring.directory(&agent.keys_url).is_some() {
                continue;
            }
            let Some(url) = allowed.directory_of(&agent) else {
                self.not_allowed.fetch_add(1, Ordering::Relaxed);
                ring.insert_unreachable(
                    &agent.keys_url,
                    "not an agent whose directory is fetched here",
                );
                continue;
            };
            let fetch = match self.fresh(url) {
                Some(fetch) => fetch,
                None if budget() => self.get(url, AgentKind::Directory).await,
                None => {
                    self.over_budget.fetch_add(1, Ordering::Relaxed);
                    ring.insert_unreachable(
                        &agent.keys_url,
                        "not fetched: too many directory fetches for this client",
                    );
                    continue;
                }
            };
            match &fetch.keys {
                Ok(keys) => ring.insert_directory(&agent.keys_url, (**keys).clone()),
                Err(why) => ring.insert_unreachable(&agent.keys_url, why.clone()),
            }
        }
        ring
    }

    /// The keys at `url` if the cache holds them fresh (or a failure still
    /// remembered); never fetches, never waits for a fetch in flight.
    #[must_use]
    pub fn fresh(&self, url: &str) -> Option<Arc<DirectoryFetch>> {
        let slot = {
            let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.get(url)?)
        };
        let cached = slot.try_lock().ok()?;
        let c = cached.as_ref().filter(|c| c.until > Instant::now())?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(Arc::clone(&c.fetch))
    }

    /// The keys at `url`, read as `kind` says (a directory, a `jwks_uri`
    /// JWK Set, or an agent card and the keys it names), from the cache
    /// while they are fresh.
    pub async fn get(&self, url: &str, kind: AgentKind) -> Arc<DirectoryFetch> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(s) = slots.get(url) {
                Some(Arc::clone(s))
            } else {
                if slots.len() >= self.config.max_entries {
                    let now = Instant::now();
                    slots.retain(|_, s| {
                        s.try_lock()
                            .map_or(true, |c| c.as_ref().is_some_and(|c| c.until > now))
                    });
                }
                if slots.len() < self.config.max_entries {
                    let s: Slot = Arc::default();
                    slots.insert(url.to_owned(), Arc::clone(&s));
                    Some(s)
                } else {
                    None
                }
            }
        };
        let Some(slot) = slot else {
            self.not_kept.fetch_add(1, Ordering::Relaxed);
            return Arc::new(self.fetch(url, kind).await);
        };
        let mut cached = slot.lock().await;
        if let Some(c) = cached.as_ref()
            && c.until > Instant::now()
        {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Arc::clone(&c.fetch);
        }
        let fetch = Arc::new(self.fetch(url, kind).await);
        *cached = Some(Cached {
            fetch: Arc::clone(&fetch),
            until: Instant::now() + fetch.ttl,
        });
        fetch
    }

    /// Fetches and reads, without the cache.
    async fn fetch(&self, url: &str, kind: AgentKind) -> DirectoryFetch {
        let fetched = SystemTime::now();
        let outcome = match kind {
            AgentKind::Directory | AgentKind::JwksUri => self.fetch_directory(url).await,
            AgentKind::Card => self.fetch_card(url).await,
        };
        match outcome {
            Ok((keys, signature, ttl)) => DirectoryFetch {
                url: url.to_owned(),
                keys: Ok(Arc::new(keys)),
                signature,
                ttl,
                fetched,
            },
            Err(e) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                DirectoryFetch {
                    url: url.to_owned(),
                    keys: Err(e.to_string()),
                    signature: DirectorySignature::Unsigned,
                    ttl: self.config.failure_ttl,
                    fetched,
                }
            }
        }
    }

    async fn fetch_card(&self, url: &str) -> Result<(KeySet, DirectorySignature, Duration), Error> {
        let got = self.request(url).await?;
        let card = AgentCard::parse(&got.body, got.final_url.as_str()).map_err(|e| {
            Error::KeyDirectory {
                url: url.to_owned(),
                message: e.to_string(),
            }
        })?;
        match card.keys {
            CardKeys::Inline(keys) => Ok((keys, DirectorySignature::Unsigned, got.ttl)),
            CardKeys::Uri(uri) => {
                let (keys, signature, ttl) = Box::pin(self.fetch_directory(&uri)).await?;
                Ok((keys, signature, ttl.min(got.ttl)))
            }
        }
    }

    async fn fetch_directory(
        &self,
        url: &str,
    ) -> Result<(KeySet, DirectorySignature, Duration), Error> {
        let got = self.request(url).await?;
        let bad = |message: String| Error::KeyDirectory {
            url: url.to_owned(),
            message,
        };
        let final_url = got.final_url.as_str();
        let keys = KeySet::from_directory(&got.body, got.content_type.as_deref(), final_url)
            .map_err(|e| bad(e.to_string()))?;
        let headers: Vec<(&str, &str)> = got
            .headers
            .iter()
            .filter_map(|(n, v)| Some((n.as_str(), v.to_str().ok()?)))
            .collect();
        let response = DirectoryResponse {
            url: final_url,
            status: got.status,
            headers: &headers,
            body: &got.body,
        };
        let signature =
            check_directory_response(&keys, &response, SystemTime::now(), self.config.clock_skew)
                .map_err(|f| bad(format!("the directory response: {f}")))?;
        Ok((keys, signature, got.ttl))
    }

    /// One GET (a redirect is an error), the body read up to the limit.
    async fn request(&self, url: &str) -> Result<Got, Error> {
        let limit = self.fetcher.limits().timeout;
        match tokio::time::timeout(limit, self.request_within(url)).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                url: url.to_owned(),
                timeout: limit,
            }),
        }
    }

    async fn request_within(&self, url: &str) -> Result<Got, Error> {
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let current = parse_url(url)?;
        check_scheme(&current)?;
        if current.scheme() != "https" && !self.fetcher.allows_private() {
            // The protocol draft: a signature agent MUST be https. Plain
            // http is let through with `allow_private`, for loopback tests
            // and staging networks.
            return Err(Error::KeyDirectory {
                url: current.to_string(),
                message: "not https; key directories are fetched over https only \
                          (allow private addresses to fetch over http)"
                    .to_owned(),
            });
        }
        self.fetcher.check_literal(&current)?;
        let mut response = self
            .fetcher
            .client()
            .get(current.clone())
            .header(header::ACCEPT, ACCEPT)
            .send()
            .await
            .map_err(|e| send_error(&current, &e))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            // The protocol draft (-02 on): discovery MUST NOT follow
            // redirects, so a moved directory is not the agent's.
            let to = header_str(response.headers(), header::LOCATION)
                .map_or_else(|| "nowhere".to_owned(), |l| format!("`{l}`"));
            return Err(Error::KeyDirectory {
                url: current.to_string(),
                message: format!(
                    "HTTP {status} redirecting to {to}; key directories are not followed across redirects"
                ),
            });
        }
        if status != 200 {
            return Err(Error::KeyDirectory {
                url: current.to_string(),
                message: format!("HTTP {status}, not 200"),
            });
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| Error::Network {
            url: current.to_string(),
            message: format!("reading the body: {}", chain(&e)),
        })? {
            if body.len() + chunk.len() > self.config.max_bytes {
                return Err(Error::KeyDirectory {
                    url: current.to_string(),
                    message: format!(
                        "larger than {} bytes, the most a directory may be",
                        self.config.max_bytes
                    ),
                });
            }
            body.extend_from_slice(&chunk);
        }
        let headers = response.headers().clone();
        let ttl = freshness(&headers, SystemTime::now(), &self.config);
        Ok(Got {
            final_url: current,
            status,
            content_type: header_str(&headers, header::CONTENT_TYPE),
            headers,
            body,
            ttl,
        })
    }
}

/// Fetches the key directory at `url` as `botwarden bots check-agent`
/// reads it: one GET with the directory `Accept`, no redirect followed,
/// over http too (the report says what each verifier makes of it), the
/// body read up to `max_bytes` (and said when larger), within the
/// fetcher's time limit and address guard.
pub async fn observe_directory(
    fetcher: &Fetcher,
    url: &str,
    max_bytes: usize,
) -> botwarden_verify::DirectoryObservation {
    let limit = fetcher.limits().timeout;
    let response = match tokio::time::timeout(limit, observe(fetcher, url, max_bytes)).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err(Error::Timeout {
            url: url.to_owned(),
            timeout: limit,
        }
        .to_string()),
    };
    botwarden_verify::DirectoryObservation {
        url: url.to_owned(),
        response,
    }
}

async fn observe(
    fetcher: &Fetcher,
    url: &str,
    max_bytes: usize,
) -> Result<botwarden_verify::DirectoryHttp, Error> {
    let current = parse_url(url)?;
    check_scheme(&current)?;
    fetcher.check_literal(&current)?;
    let mut response = fetcher
        .client()
        .get(current.clone())
        .header(header::ACCEPT, ACCEPT)
        .send()
        .await
        .map_err(|e| send_error(&current, &e))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    let mut body = Vec::new();
    let mut over_limit = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| Error::Network {
        url: current.to_string(),
        message: format!("reading the body: {}", chain(&e)),
    })? {
        if body.len() + chunk.len() > max_bytes {
            over_limit = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(botwarden_verify::DirectoryHttp {
        status,
        headers,
        body,
        over_limit,
    })
}

struct Got {
    final_url: Url,
    status: u16,
    content_type: Option<String>,
    headers: HeaderMap,
    body: Vec<u8>,
    ttl: Duration,
}

/// How long a response may be kept, from `Cache-Control` (`max-age`, less
/// `Age`; `no-store`, `no-cache`: not at all), else `Expires` less `Date`
/// (or now), else the default; always within the floor and the ceiling.
pub fn freshness(headers: &HeaderMap, now: SystemTime, config: &KeyDirConfig) -> Duration {
    let age = header_str(headers, header::AGE)
        .and_then(|a| a.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let mut max_age = None;
    let mut no_store = false;
    for value in headers.get_all(header::CACHE_CONTROL) {
        let Ok(value) = value.to_str() else { continue };
        for directive in value.split(',') {
            let directive = directive.trim();
            let (name, arg) = match directive.split_once('=') {
                Some((n, a)) => (n.trim(), Some(a.trim().trim_matches('"'))),
                None => (directive, None),
            };
            if name.eq_ignore_ascii_case("no-store") || name.eq_ignore_ascii_case("no-cache") {
                no_store = true;
            } else if name.eq_ignore_ascii_case("max-age")
                && let Some(secs) = arg.and_then(|a| a.parse::<u64>().ok())
            {
                max_age = Some(secs.saturating_sub(age));
            }
        }
    }
    let ttl = if no_store {
        Duration::ZERO
    } else if let Some(secs) = max_age {
        Duration::from_secs(secs)
    } else if let Some(expires) = header_str(headers, header::EXPIRES) {
        // An Expires that cannot be read is in the past (RFC 9111 §5.3).
        let date = header_str(headers, header::DATE)
            .and_then(|d| httpdate::parse_http_date(&d).ok())
            .unwrap_or(now);
        httpdate::parse_http_date(&expires)
            .ok()
            .and_then(|e| e.duration_since(date).ok())
            .unwrap_or(Duration::ZERO)
    } else {
        config.default_ttl
    };
    ttl.clamp(config.min_ttl, config.max_ttl.max(config.min_ttl))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn ttl(pairs: &[(header::HeaderName, &str)]) -> u64 {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.append(n.clone(), HeaderValue::from_str(v).unwrap());
        }
        let now = httpdate::parse_http_date("Tue, 24 Nov 2026 00:00:00 GMT").unwrap();
        freshness(&h, now, &KeyDirConfig::default()).as_secs()
    }

    fn agent(keys_url: &str, kind: AgentKind) -> Agent {
        Agent {
            member: None,
            uri: keys_url.to_owned(),
            kind,
            reading: botwarden_verify::AgentReading::String,
            keys_url: keys_url.to_owned(),
            well_known: false,
            ignored: None,
        }
    }

    #[test]
    fn only_allowed_directory_urls_are_fetched() {
        let mut allowed = AllowedAgents::new();
        allowed.allow_origin("https://Crawler.Example").unwrap();
        allowed.allow_origin("http://127.0.0.1:8080/").unwrap();
        allowed
            .allow_directory("https://keys.example/dir.json")
            .unwrap();
        for bad in [
            "https://crawler.example/keys",
            "https://crawler.example/?x=1",
            "https://crawler.example/#f",
            "https://user@crawler.example",
            "ftp://crawler.example",
            "crawler.example",
        ] {
            assert!(allowed.allow_origin(bad).is_err(), "{bad}");
        }
        assert!(allowed.allow_directory("https://k.example/d?x=1").is_err());
        assert_eq!(allowed.len(), 3);
        let well_known = "https://crawler.example/.well-known/http-message-signatures-directory";
        assert_eq!(
            allowed.directory_of(&agent(
                "https://CRAWLER.example:443/.well-known/http-message-signatures-directory",
                AgentKind::Directory
            )),
            Some(well_known)
        );
        assert_eq!(
            allowed.directory_of(&agent(well_known, AgentKind::JwksUri)),
            Some(well_known)
        );
        assert_eq!(
            allowed.directory_of(&agent(
                "http://127.0.0.1:8080/.well-known/http-message-signatures-directory",
                AgentKind::Directory
            )),
            Some("http://127.0.0.1:8080/.well-known/http-message-signatures-directory")
        );
        for (url, kind) in [
            (well_known, AgentKind::Card),
            ("https://crawler.example/admin?x=1", AgentKind::Directory),
            (
                "https://crawler.example/.well-known/http-message-signatures-directory?x=1",
                AgentKind::Directory,
            ),
            (
                "http://127.0.0.1:8081/.well-known/http-message-signatures-directory",
                AgentKind::Directory,
            ),
            ("https://keys.example/other.json", AgentKind::Directory),
        ] {
            assert_eq!(allowed.directory_of(&agent(url, kind)), None, "{url}");
        }
    }

    #[test]
    fn caching_headers_within_the_floor_and_ceiling() {
        assert_eq!(
            ttl(&[(header::CACHE_CONTROL, "public, max-age=7200")]),
            7200
        );
        assert_eq!(
            ttl(&[
                (header::CACHE_CONTROL, "max-age=7200"),
                (header::AGE, "200")
            ]),
            7000
        );
        assert_eq!(ttl(&[(header::CACHE_CONTROL, "max-age=10")]), 300);
        assert_eq!(ttl(&[(header::CACHE_CONTROL, "max-age=9999999")]), 86_400);
        assert_eq!(ttl(&[(header::CACHE_CONTROL, "no-store")]), 300);
        assert_eq!(ttl(&[]), 3600);
        assert_eq!(
            ttl(&[
                (header::DATE, "Tue, 24 Nov 2026 00:00:00 GMT"),
                (header::EXPIRES, "Tue, 24 Nov 2026 02:00:00 GMT")
            ]),
            7200
        );
        assert_eq!(ttl(&[(header::EXPIRES, "0")]), 300);
        // max-age wins over Expires.
        assert_eq!(
            ttl(&[
                (header::CACHE_CONTROL, "max-age=900"),
                (header::EXPIRES, "Tue, 24 Nov 2026 02:00:00 GMT")
            ]),
            900
        );
    }
}
