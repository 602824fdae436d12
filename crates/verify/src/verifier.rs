//! The verifier: from an address and the bot it claims to be, a
//! [`Verdict`], using the registry's methods, published ranges and
//! forward-confirmed reverse DNS, with a verdict cache in front.
//!
//! The rules, per bot:
//! - an address in the bot's published ranges (`ranges_url`) is verified by
//!   that alone: the operator says those are its crawler's addresses;
//! - otherwise every bottica verifier the entry has (`ip_list`,
//!   `ip_ranges`, `cidr_list`, `fcrdns_hosts`) must pass; the address lists
//!   are checked first, so DNS is asked only when they pass;
//! - a DNS failure or timeout, or DNS turned off, gives `unknown`, never
//!   `spoofed`;
//! - a bot with no method gives `unverifiable`, as does a bot whose only
//!   method is a feed of which no copy is known;
//! - verified [as of](Verifier::verify_as_of) a time well before a feed was
//!   made (an old log's request: more than a week by default), an address
//!   outside the feed is `unknown`, not `spoofed`: the feed cannot tell
//!   which addresses the bot used then;
//! - a client known only by a host name (a log written with Apache's
//!   `HostnameLookups On`) is `unverifiable` ([`Verifier::verify_name`]).
//!
//! A request (address, User-Agent) gets its verdict in one place for every
//! front end: [`Claim::of`] reads what the User-Agent claims, and
//! [`Verifier::verify_claim`] (or [`Verifier::check_request`], both steps)
//! turns the claim into a verdict.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime};

use crate::classify::{Classification, Classifier};
use crate::dns::{Clock, DnsConfig, Fcrdns, FcrdnsChecker, HostRule, SystemClock};
use crate::error::Error;
use crate::ipset::{IpSet, IpSetBuilder, ListId, normalize};
use crate::registry::{Bot, Feed, Registry};
use crate::shared::{SharedLock, SharedVerdicts};
use crate::verdict::{Evidence, Method, Verdict};

/// Settings of a [`Verifier`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VerifierConfig {
    /// How to ask DNS; `None` verifies by addresses and published ranges
    /// only, and bots that need DNS come out `unknown`.
    pub dns: Option<DnsConfig>,
    /// How long a verified or spoofed verdict is reused. The DNS answers
    /// under it are cached by their own TTLs, so this only bounds how long
    /// a verdict outlives them. Default 60 s.
    pub verdict_ttl: Duration,
    /// How long an `unknown` verdict is reused; zero for not at all.
    /// Default 5 s.
    pub unknown_ttl: Duration,
    /// Most verdicts kept. Default 100,000.
    pub cache_capacity: usize,
    /// Where cache expiry reads the time.
    pub clock: Arc<dyn Clock>,
    /// How long before its version a published feed still speaks for
    /// ([`Verifier::verify_as_of`]): ranges change slowly, and feeds are
    /// re-made often (Google's daily), so yesterday's log is judged by
    /// this morning's feed. Default 7 days.
    pub feed_grace: Duration,
    /// A verdict cache shared with other processes, asked after this
    /// verifier's own cache misses and before DNS (see [`SharedVerdicts`]).
    /// Default none.
    pub shared: Option<Arc<dyn SharedVerdicts>>,
    /// How long a lookup claimed in the shared cache stays claimed, and so
    /// the longest another process waits for its verdict before looking
    /// the address up itself. Default 5 s (a PTR and a forward lookup, each
    /// of at most the DNS timeout, 2 s by default).
    pub shared_lock_ttl: Duration,
}

impl Default for VerifierConfig {
    fn default() -> VerifierConfig {
        VerifierConfig {
            dns: Some(DnsConfig::default()),
            verdict_ttl: Duration::from_secs(60),
            unknown_ttl: Duration::from_secs(5),
            cache_capacity: 100_000,
            clock: Arc::new(SystemClock),
            feed_grace: Duration::from_secs(7 * 24 * 3600),
            shared: None,
            shared_lock_ttl: Duration::from_secs(5),
        }
    }
}

impl VerifierConfig {
    /// The defaults without DNS.
    #[must_use]
    pub fn offline() -> VerifierConfig {
        VerifierConfig {
            dns: None,
            ..VerifierConfig::default()
        }
    }

    /// The defaults, asking the given DNS configuration.
    #[must_use]
    pub fn with_dns(dns: DnsConfig) -> VerifierConfig {
        VerifierConfig {
            dns: Some(dns),
            ..VerifierConfig::default()
        }
    }
}

/// What the verifier knows of one bot.
#[derive(Debug)]
struct Plan {
    /// The address lists of the entry, each of which must contain the address.
    lists: Vec<(Method, ListId)>,
    /// The FCrDNS rule, when the entry has `fcrdns_hosts`.
    rule: Option<HostRule>,
    /// The published feed's list, when a copy of the feed is known.
    feed: Option<ListId>,
}

/// How far a verdict gets without DNS.
enum Step {
    /// Decided.
    Done(Verdict),
    /// The address lists pass; reverse DNS decides.
    Dns {
        methods: Vec<Method>,
        evidence: Evidence,
    },
}

/// Counters of the verdict cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerdictStats {
    /// Verdicts answered from the cache.
    pub hits: u64,
    /// Verdicts worked out.
    pub misses: u64,
}

type Key = (IpAddr, u32);

/// Verdicts by (address, bot); a fast hasher, as the keys are not chosen
/// by an attacker who sees the hashes (the seed is random per process).
#[derive(Debug, Default)]
struct Cache {
    map: HashMap<Key, (Arc<Verdict>, Instant), foldhash::fast::RandomState>,
}

/// Verifies addresses against a registry. Cheap to share (`&self` methods,
/// `Send + Sync`); one verifier's cache serves every caller.
#[derive(Debug)]
pub struct Verifier {
    registry: Arc<Registry>,
    plans: Vec<Plan>,
    index: HashMap<String, u32>,
    lists: IpSet,
    /// The bots each list serves (a feed may serve several).
    list_bots: HashMap<ListId, Vec<u32>>,
    dns: Option<FcrdnsChecker>,
    config: VerifierConfig,
    cache: RwLock<Cache>,
    hits: AtomicU64,
    misses: AtomicU64,
    /// The bots by the key URLs of their `signature_agents`.
    pub(crate) agents: HashMap<String, u32>,
}

/// What a request's User-Agent claims, as verification reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// A bot by name (one of the registry's, or one the caller names): its
    /// address is verified.
    Bot {
        /// The bot's name.
        name: String,
        /// Its category in the registry, if it has one.
        category: Option<String>,
    },
    /// A crawler or library the registry does not know, named by the
    /// product token that carries its identity ([`Classifier::client_name`])
    /// or else by its category: `unverifiable` without a lookup.
    Unregistered {
        /// The client's name.
        name: String,
        /// Its category (`crawler`, `library`).
        category: String,
    },
    /// Not a bot: a browser or an app.
    NotABot,
}

impl Claim {
    /// The claim of a request asked about: `bot` by name when given (it
    /// stands for the User-Agent), else what `ua` claims, else no bot.
    #[must_use]
    pub fn asked(classifier: &Classifier, ua: Option<&str>, bot: Option<&str>) -> Claim {
        match (bot, ua) {
            (Some(bot), _) => Claim::Bot {
                name: bot.to_owned(),
                category: None,
            },
            (None, Some(ua)) => Claim::of(classifier, ua),
            (None, None) => Claim::NotABot,
        }
    }

    /// What `ua` claims, by `classifier`.
    #[must_use]
    pub fn of(classifier: &Classifier, ua: &str) -> Claim {
        Claim::classified(classifier, ua, &classifier.classify(ua))
    }

    /// What `ua` claims, `class` being its classification by `classifier`
    /// (for a caller that has it already: not classified again).
    #[must_use]
    pub fn classified(classifier: &Classifier, ua: &str, class: &Classification<'_>) -> Claim {
        if let Some(bot) = class.bot {
            return Claim::Bot {
                name: bot.name.to_owned(),
                category: class.category.map(str::to_owned),
            };
        }
        if !class.is_bot() {
            return Claim::NotABot;
        }
        let category = class
            .category
            .unwrap_or(crate::classify::CRAWLER_CATEGORY)
            .to_owned();
        let name = classifier
            .client_name(ua)
            .map_or_else(|| category.clone(), std::borrow::Cow::into_owned);
        Claim::Unregistered { name, category }
    }
}

impl Verifier {
    /// The verdict on a request: from `address`, with the User-Agent `ua`
    /// (if any), or claiming `bot` by name (which then stands for the
    /// User-Agent). With neither, the address is
    /// [identified](Verifier::identify) among the bots that could use it.
    /// This is `bots verify`'s answer, and the log analysis's per request.
    pub async fn check_request(
        &self,
        classifier: &Classifier,
        address: IpAddr,
        ua: Option<&str>,
        bot: Option<&str>,
    ) -> Arc<Verdict> {
        let claim = match (bot, ua) {
            (Some(bot), _) => Claim::Bot {
                name: bot.to_owned(),
                category: None,
            },
            (None, Some(ua)) => Claim::of(classifier, ua),
            (None, None) => return self.identify(address).await,
        };
        self.verify_claim(address, &claim, None).await
    }

    /// The verdict on a claim from `address`; with `as_of`, a bot is
    /// verified as of that time ([`Verifier::verify_as_of`]).
    pub async fn verify_claim(
        &self,
        address: IpAddr,
        claim: &Claim,
        as_of: Option<SystemTime>,
    ) -> Arc<Verdict> {
        match claim {
            Claim::Bot { name: bot, .. } => match as_of {
                Some(at) => self.verify_as_of(address, bot, at).await,
                None => self.verify(address, bot).await,
            },
            Claim::Unregistered { name, category } => {
                Arc::new(Verdict::unregistered(name, Some(category)))
            }
            Claim::NotABot => Arc::new(Verdict::NotABot),
        }
    }

    /// A verifier over `registry`.
    ///
    /// # Errors
    /// A bot's `fcrdns_hosts` or `rdns_masks` are not valid host names (the
    /// registry's own checks make this rare), or the DNS resolver cannot be
    /// set up.
    pub fn new(registry: Arc<Registry>, config: VerifierConfig) -> Result<Verifier, Error> {
        let mut b = IpSetBuilder::new();
        let mut plans = Vec::with_capacity(registry.bots().len());
        let mut index = HashMap::new();
        let mut list_bots: HashMap<ListId, Vec<u32>> = HashMap::new();
        for (i, bot) in registry.bots().iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            let p = plan(&mut b, &registry, bot)?;
            for list in p.lists.iter().map(|&(_, l)| l).chain(p.feed) {
                list_bots.entry(list).or_default().push(id);
            }
            plans.push(p);
            index.insert(bot.name.clone(), id);
        }
        let dns = config.dns.clone().map(FcrdnsChecker::new).transpose()?;
        let agents = crate::webbotauth::agent_index(&registry);
        Ok(Verifier {
            registry,
            plans,
            index,
            lists: b.build(),
            list_bots,
            dns,
            config,
            cache: RwLock::new(Cache::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            agents,
        })
    }

    /// The registry.
    #[must_use]
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The DNS checker, when DNS is on.
    #[must_use]
    pub fn dns(&self) -> Option<&FcrdnsChecker> {
        self.dns.as_ref()
    }

    /// The shared verdict cache, when there is one.
    #[must_use]
    pub fn shared(&self) -> Option<&dyn SharedVerdicts> {
        self.config.shared.as_deref()
    }

    /// The verdict cache's counters.
    #[must_use]
    pub fn stats(&self) -> VerdictStats {
        VerdictStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// The cached verdict for `ip` as `bot`, if fresh. Lets a caller avoid
    /// an `await` for the common case.
    #[must_use]
    pub fn cached(&self, ip: IpAddr, bot: &str) -> Option<Arc<Verdict>> {
        let id = *self.index.get(bot)?;
        self.lookup((normalize(ip), id))
    }

    fn lookup(&self, key: Key) -> Option<Arc<Verdict>> {
        let now = self.config.clock.now();
        let found = {
            let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
            cache
                .map
                .get(&key)
                .filter(|(_, until)| *until > now)
                .map(|(v, _)| v.clone())
        };
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// How long a verdict is reused: the same rule here and in the shared
    /// cache.
    fn ttl_of(&self, verdict: &Verdict) -> Duration {
        match verdict {
            Verdict::Unknown { .. } => self.config.unknown_ttl,
            _ => self.config.verdict_ttl,
        }
    }

    /// Keeps a verdict worked out here.
    fn store(&self, key: Key, verdict: &Arc<Verdict>) {
        self.misses.fetch_add(1, Ordering::Relaxed);
        self.keep(key, verdict, self.ttl_of(verdict));
    }

    /// Keeps a verdict for `ttl`.
    fn keep(&self, key: Key, verdict: &Arc<Verdict>, ttl: Duration) {
        let now = self.config.clock.now();
        if ttl.is_zero() || self.config.cache_capacity == 0 {
            return;
        }
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        if ttl.is_zero() || self.config.cache_capacity == 0 {
            return;
        }
        if cache.map.len() >= self.config.cache_capacity {
            cache.map.retain(|_, (_, until)| *until > now);
            if cache.map.len() >= self.config.cache_capacity {
                // Still full of live verdicts: keep the younger half.
                let mut ages: Vec<Instant> = cache.map.values().map(|(_, u)| *u).collect();
                ages.sort_unstable();
                let cut = ages[ages.len() / 2];
                cache.map.retain(|_, (_, until)| *until > cut);
            }
        }
        cache.map.insert(key, (verdict.clone(), now + ttl));
    }

    /// The verdict on `ip` claiming to be the bot named `bot` (by exact
    /// name, else ignoring ASCII case).
    pub async fn verify(&self, ip: IpAddr, bot: &str) -> Arc<Verdict> {
        let ip = normalize(ip);
        let id = match self.index.get(bot) {
            Some(&id) => id,
            None => match self
                .registry
                .find(bot)
                .and_then(|b| self.index.get(&b.name))
            {
                Some(&id) => id,
                None => {
                    return Arc::new(Verdict::Unverifiable {
                        bot: bot.to_owned(),
                        reason: "no bot of that name in the registry".to_owned(),
                    });
                }
            },
        };
        let key = (ip, id);
        if let Some(v) = self.lookup(key) {
            return v;
        }
        let verdict = match self.decide(ip, id as usize) {
            Step::Done(v) => v,
            Step::Dns { methods, evidence } => match &self.config.shared {
                Some(shared) => {
                    return self.shared_verdict(&**shared, key, methods, evidence).await;
                }
                None => self.dns_verdict(ip, id as usize, methods, evidence).await,
            },
        };
        let verdict = Arc::new(verdict);
        self.store(key, &verdict);
        verdict
    }

    /// A verdict that needs DNS, through the shared cache: the stored
    /// verdict if there is one; else, when another process is looking the
    /// address up, its verdict once stored (waiting at most
    /// [`VerifierConfig::shared_lock_ttl`]); else this process's own
    /// lookup, stored for the others.
    async fn shared_verdict(
        &self,
        shared: &dyn SharedVerdicts,
        key: Key,
        methods: Vec<Method>,
        evidence: Evidence,
    ) -> Arc<Verdict> {
        let (ip, id) = key;
        let bot = self.registry.bots()[id as usize].name.as_str();
        let found = |(v, ttl): (Verdict, Duration)| {
            let v = Arc::new(v);
            self.keep(key, &v, ttl.min(self.ttl_of(&v)));
            v
        };
        if let Some(hit) = shared.get(ip, bot).await {
            return found(hit);
        }
        let lock_ttl = self.config.shared_lock_ttl;
        if shared.try_lock(ip, bot, lock_ttl).await == SharedLock::Held
            && let Some(hit) = shared.wait(ip, bot, lock_ttl).await
        {
            return found(hit);
        }
        let verdict = Arc::new(self.dns_verdict(ip, id as usize, methods, evidence).await);
        self.store(key, &verdict);
        shared.put(ip, bot, &verdict, self.ttl_of(&verdict)).await;
        verdict
    }

    /// The verdict on `ip` claiming to be `bot` for a request made at
    /// `as_of` (for logs: the request's time).
    ///
    /// The same as [`Verifier::verify`], except when `as_of` is earlier
    /// than the version of the feed that decides (its creation time, else
    /// when it was fetched) by more than [`VerifierConfig::feed_grace`]: an
    /// address a bot verified by its published ranges alone is not in, is
    /// then [`Verdict::Unknown`] with a reason naming both dates instead of
    /// spoofed, as the bot may well have used it then. Verdicts reached by reverse DNS or by the registry's address
    /// lists, and addresses inside the feed, are as [`Verifier::verify`]
    /// gives them; so are feeds whose version is not a time.
    pub async fn verify_as_of(&self, ip: IpAddr, bot: &str, as_of: SystemTime) -> Arc<Verdict> {
        let verdict = self.verify(ip, bot).await;
        let Verdict::Spoofed {
            bot: name,
            evidence,
            ..
        } = &*verdict
        else {
            return verdict;
        };
        let Some(&id) = self.index.get(name.as_str()) else {
            return verdict;
        };
        let entry = &self.registry.bots()[id as usize];
        if entry.has_verifier() || self.plans[id as usize].feed.is_none() {
            return verdict;
        }
        let Some(feed) = self.feed_after(entry, as_of) else {
            return verdict;
        };
        Arc::new(Verdict::Unknown {
            bot: name.clone(),
            reason: format!(
                "{ip} is not in its published ranges ({}, {}), but that list is newer than \
                 the request ({}): it cannot tell which addresses the bot used then",
                feed.url,
                feed.version(),
                time_text(as_of)
            ),
            evidence: Evidence {
                feed: Some(feed.url.clone()),
                feed_version: Some(feed.version().to_owned()),
                ..evidence.clone()
            },
        })
    }

    /// The published feed of the bot named `bot` when it is newer than
    /// `as_of` by more than [`VerifierConfig::feed_grace`]: a log from
    /// before that time was written when the feed may have listed other
    /// addresses. `None` for a bot without a feed, with no copy of it, or
    /// whose feed version is not a time.
    #[must_use]
    pub fn feed_newer_than(&self, bot: &str, as_of: SystemTime) -> Option<&Feed> {
        let bot = self.registry.get(bot).or_else(|| self.registry.find(bot))?;
        self.feed_after(bot, as_of)
    }

    fn feed_after(&self, bot: &Bot, as_of: SystemTime) -> Option<&Feed> {
        let feed = self.registry.ranges().get(bot.ranges_url.as_deref()?)?;
        let made = feed_time(feed)?;
        let judged_until = as_of.checked_add(self.config.feed_grace)?;
        (made > judged_until).then_some(feed)
    }

    /// The verdict on a client a log names by host name instead of by
    /// address (Apache's `%h` with `HostnameLookups On`), claiming to be
    /// `bot`: [`Verdict::Unverifiable`], with the reason. Published ranges,
    /// address lists and forward-confirmed reverse DNS all start from the
    /// address, which such a log does not keep; a name can be made up by
    /// whoever controls the reverse zone of the address.
    #[must_use]
    pub fn verify_name(&self, host: &str, bot: &str) -> Verdict {
        let Some(entry) = self.registry.get(bot).or_else(|| self.registry.find(bot)) else {
            return Verdict::Unverifiable {
                bot: bot.to_owned(),
                reason: "no bot of that name in the registry".to_owned(),
            };
        };
        Verdict::Unverifiable {
            bot: entry.name.clone(),
            reason: format!(
                "the log names the client {host:?} instead of giving its address \
                 (HostnameLookups): verification needs the address; log %a, or turn \
                 HostnameLookups off"
            ),
        }
    }

    /// The bots `ip` may belong to, when nothing says which bot it claims
    /// to be: those whose address lists or published ranges hold it, then
    /// (with DNS) those whose `fcrdns_hosts` and masks accept one of its PTR
    /// names. Bots with `fcrdns_hosts: []` are never guessed from DNS.
    pub async fn candidates(&self, ip: IpAddr) -> Vec<&str> {
        let ip = normalize(ip);
        let mut ids: Vec<u32> = Vec::new();
        for list in self.lists.lookup_ids(ip) {
            for &id in self.list_bots.get(&list).into_iter().flatten() {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        if let Some(dns) = &self.dns {
            let names = dns.check(ip, &HostRule::any_host()).await;
            for (i, plan) in self.plans.iter().enumerate() {
                let id = u32::try_from(i).unwrap_or(u32::MAX);
                let Some(rule) = &plan.rule else { continue };
                if rule.suffixes().next().is_none() || ids.contains(&id) {
                    continue;
                }
                if names.ptr_names().iter().any(|n| rule.allows(n)) {
                    ids.push(id);
                }
            }
        }
        ids.iter()
            .map(|&id| self.registry.bots()[id as usize].name.as_str())
            .collect()
    }

    /// The verdict on `ip` when nothing says which bot it claims to be: the
    /// first candidate (see [`Verifier::candidates`]) that verifies, else
    /// the first candidate's verdict, else [`Verdict::NotABot`].
    pub async fn identify(&self, ip: IpAddr) -> Arc<Verdict> {
        let mut first = None;
        for bot in self.candidates(ip).await {
            let verdict = self.verify(ip, bot).await;
            if matches!(*verdict, Verdict::Verified { .. }) {
                return verdict;
            }
            first.get_or_insert(verdict);
        }
        first.unwrap_or_else(|| Arc::new(Verdict::NotABot))
    }

    /// The verdict on `ip` as the bot `id`, as far as it can be decided
    /// without DNS.
    fn decide(&self, ip: IpAddr, id: usize) -> Step {
        let bot = &self.registry.bots()[id];
        let plan = &self.plans[id];
        let name = bot.name.clone();
        let mut evidence = Evidence::default();
        // Published ranges verify by themselves.
        if let Some(feed) = plan.feed
            && self.lists.list_contains(feed, ip)
        {
            let url = bot.ranges_url.clone().unwrap_or_default();
            if let Some(f) = self.registry.ranges().get(&url) {
                evidence.published_prefix = f
                    .prefixes
                    .iter()
                    .find(|c| c.contains(ip))
                    .map(|c| format!("{}/{}", c.network, c.len));
                evidence.feed_version = Some(f.version().to_owned());
            }
            evidence.feed = Some(url);
            return Step::Done(Verdict::Verified {
                bot: name,
                methods: vec![Method::PublishedRanges],
                evidence,
            });
        }
        if !bot.has_verifier() {
            return Step::Done(match plan.feed {
                Some(_) => Verdict::Spoofed {
                    bot: name,
                    reason: format!("{ip} is not in its published ranges{}", {
                        let url = bot.ranges_url.as_deref().unwrap_or_default();
                        let version = self.registry.ranges().get(url).map_or("", |f| f.version());
                        format!(" ({url}, {version})")
                    }),
                    evidence,
                },
                None if bot.ranges_url.is_some() => Verdict::Unverifiable {
                    bot: name,
                    reason: "no copy of its published ranges; run `botwarden bots update`"
                        .to_owned(),
                },
                None => Verdict::Unverifiable {
                    bot: name,
                    reason: "the registry has no verification method for it".to_owned(),
                },
            });
        }
        // Every address list must contain the address.
        let mut methods = Vec::new();
        for &(method, list) in &plan.lists {
            if !self.lists.list_contains(list, ip) {
                return Step::Done(Verdict::Spoofed {
                    bot: name,
                    reason: format!("{ip} is not in its {method}{}", self.not_published(bot)),
                    evidence,
                });
            }
            evidence.matched.extend(matched_entries(bot, method, ip));
            methods.push(method);
        }
        if plan.rule.is_none() {
            return Step::Done(Verdict::Verified {
                bot: name,
                methods,
                evidence,
            });
        }
        if self.dns.is_none() {
            return Step::Done(Verdict::Unknown {
                bot: name,
                reason: match bot.ranges_url.as_deref() {
                    Some(url) => format!(
                        "{ip} is not in its published ranges ({url}, {}); DNS is off, so reverse DNS could not decide",
                        self.registry
                            .ranges()
                            .get(url)
                            .map_or("no copy", |f| f.version())
                    ),
                    None => {
                        "DNS is off, and it is verified by forward-confirmed reverse DNS".to_owned()
                    }
                },
                evidence,
            });
        }
        Step::Dns { methods, evidence }
    }

    /// `; not in its published ranges either (URL, version)` for a bot
    /// with a feed, else nothing: the end of a spoofed verdict's reason.
    fn not_published(&self, bot: &Bot) -> String {
        bot.ranges_url.as_ref().map_or(String::new(), |url| {
            let version = self
                .registry
                .ranges()
                .get(url)
                .map_or("no copy", |f| f.version());
            format!("; not in its published ranges either ({url}, {version})")
        })
    }

    /// The verdict by reverse DNS, once the address lists have passed
    /// ([`Step::Dns`]).
    async fn dns_verdict(
        &self,
        ip: IpAddr,
        id: usize,
        mut methods: Vec<Method>,
        mut evidence: Evidence,
    ) -> Verdict {
        let bot = &self.registry.bots()[id];
        let name = bot.name.clone();
        let (Some(dns), Some(rule)) = (&self.dns, &self.plans[id].rule) else {
            return Verdict::Unknown {
                bot: name,
                reason: "DNS is off, and it is verified by forward-confirmed reverse DNS"
                    .to_owned(),
                evidence,
            };
        };
        let outcome = dns.check(ip, rule).await;
        evidence.ptr_names = outcome.ptr_names().to_vec();
        match outcome {
            Fcrdns::Confirmed {
                name: ptr, forward, ..
            } => {
                evidence.confirmed_name = Some(ptr);
                evidence.forward = forward;
                methods.push(Method::Fcrdns);
                Verdict::Verified {
                    bot: name,
                    methods,
                    evidence,
                }
            }
            Fcrdns::Failed { reason, .. } => Verdict::Spoofed {
                bot: name,
                reason: format!("{reason}{}", self.not_published(bot)),
                evidence,
            },
            Fcrdns::Unknown { reason, .. } => Verdict::Unknown {
                bot: name,
                reason: reason.to_string(),
                evidence,
            },
        }
    }
}

/// When a feed was made (its creation time, else its fetch time), when
/// that is an RFC 3339 time or one without an offset (taken as UTC, as
/// Google writes `2024-04-25T23:00:50.000000`).
fn feed_time(feed: &Feed) -> Option<SystemTime> {
    let text = feed.created.as_deref().or(feed.fetched.as_deref())?;
    let ts = match text.parse::<jiff::Timestamp>() {
        Ok(ts) => ts,
        Err(_) => text
            .parse::<jiff::civil::DateTime>()
            .ok()?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp(),
    };
    Some(SystemTime::from(ts))
}

/// A time as RFC 3339 in UTC, to the second.
fn time_text(t: SystemTime) -> String {
    jiff::Timestamp::try_from(t)
        .ok()
        .and_then(|ts| ts.round(jiff::Unit::Second).ok())
        .map_or_else(|| format!("{t:?}"), |ts| ts.to_string())
}

/// The entries of `method` in the bot's entry that contain `ip`, as text.
fn matched_entries(bot: &Bot, method: Method, ip: IpAddr) -> Vec<String> {
    match method {
        Method::IpList => bot
            .ip_list
            .iter()
            .flatten()
            .filter(|&&a| a == ip)
            .map(|a| format!("ip_list {a}"))
            .collect(),
        Method::IpRanges => bot
            .ip_ranges
            .iter()
            .flatten()
            .filter(|r| r.min <= ip && ip <= r.max && r.min.is_ipv4() == ip.is_ipv4())
            .map(|r| format!("ip_ranges {}-{}", r.min, r.max))
            .collect(),
        Method::CidrList => bot
            .cidr_list
            .iter()
            .flatten()
            .filter(|c| c.contains(ip))
            .map(|c| format!("cidr_list {}/{}", c.network, c.len))
            .collect(),
        Method::PublishedRanges | Method::Fcrdns | Method::WebBotAuth => Vec::new(),
    }
}

fn plan(b: &mut IpSetBuilder, registry: &Registry, bot: &Bot) -> Result<Plan, Error> {
    let mut lists = Vec::new();
    if let Some(ips) = &bot.ip_list {
        let list = b.list(&format!("{}\tip_list", bot.name));
        for &ip in ips {
            b.insert_ip(list, ip);
        }
        lists.push((Method::IpList, list));
    }
    if let Some(ranges) = &bot.ip_ranges {
        let list = b.list(&format!("{}\tip_ranges", bot.name));
        for r in ranges {
            b.insert_range(list, r.min, r.max);
        }
        lists.push((Method::IpRanges, list));
    }
    if let Some(cidrs) = &bot.cidr_list {
        let list = b.list(&format!("{}\tcidr_list", bot.name));
        for &c in cidrs {
            b.insert_cidr(list, c);
        }
        lists.push((Method::CidrList, list));
    }
    let feed = match bot
        .ranges_url
        .as_deref()
        .and_then(|u| registry.ranges().get(u))
    {
        Some(f) => {
            let list = b.list(&format!("feed\t{}", f.url));
            for &c in &f.prefixes {
                b.insert_cidr(list, c);
            }
            Some(list)
        }
        None => None,
    };
    let rule = match &bot.fcrdns_hosts {
        Some(hosts) => Some(HostRule::new(hosts, &bot.rdns_masks)?),
        None => None,
    };
    Ok(Plan { lists, rule, feed })
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use botwarden_testdata::dns::{TestDns, Zone};

    use super::*;
    use crate::registry::RegistryBuilder;

    const FEED: &str = "https://feeds.example/bots.json";

    /// A feed made on 2026-11-01 (no offset: UTC), read by a bot that
    /// has only it and by one that also has reverse DNS.
    fn registry(created: &str) -> Arc<Registry> {
        let mut b = RegistryBuilder::new();
        b.add_registry(
            "test.yaml",
            "bots:\n  - name: Feedbot\n    ranges_url: https://feeds.example/bots.json\n  \
             - name: Dnsbot\n    fcrdns_hosts: [dnsbot.example]\n    \
             ranges_url: https://feeds.example/bots.json\n  \
             - name: Listbot\n    cidr_list: [203.0.113.0/24]\n    \
             ranges_url: https://feeds.example/bots.json\n",
        );
        let body = format!(r#"{{{created} "prefixes": [{{"ipv4Prefix": "192.0.2.0/28"}}]}}"#);
        b.ranges_mut().insert(
            crate::registry::Feed::parse_google_json(FEED, body.as_bytes()).expect("a feed"),
        );
        let (registry, problems) = b.build();
        Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")))
    }

    fn at(unix: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(unix)
    }

    /// 2015-05-17T10:05:03Z, and 2027-01-01T00:00:00Z.
    const OLD: u64 = 1_431_857_103;
    const LATER: u64 = 1_798_761_600;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[tokio::test]
    async fn old_requests_outside_the_ranges_are_unknown_not_spoofed() {
        let v = Verifier::new(
            registry(r#""creationTime": "2026-11-01T00:00:00","#),
            VerifierConfig::offline(),
        )
        .expect("a verifier");
        let outside = ip("198.51.100.7");
        // Today, and after the feed was made: spoofed.
        assert_eq!(v.verify(outside, "Feedbot").await.kind(), "spoofed");
        assert_eq!(
            v.verify_as_of(outside, "Feedbot", at(LATER)).await.kind(),
            "spoofed"
        );
        // Before: the feed cannot tell.
        let old = v.verify_as_of(outside, "Feedbot", at(OLD)).await;
        let Verdict::Unknown {
            bot,
            reason,
            evidence,
        } = &*old
        else {
            panic!("{old}");
        };
        assert_eq!(bot, "Feedbot");
        assert_eq!(
            reason,
            "198.51.100.7 is not in its published ranges (https://feeds.example/bots.json, \
             2026-11-01T00:00:00), but that list is newer than the request \
             (2015-05-17T10:05:03Z): it cannot tell which addresses the bot used then"
        );
        assert_eq!(evidence.feed.as_deref(), Some(FEED));
        assert_eq!(
            evidence.feed_version.as_deref(),
            Some("2026-11-01T00:00:00")
        );
        // The cached verdict for today is untouched.
        assert_eq!(v.verify(outside, "Feedbot").await.kind(), "spoofed");
        // Inside the ranges: verified, whenever.
        assert_eq!(
            v.verify_as_of(ip("192.0.2.3"), "Feedbot", at(OLD))
                .await
                .kind(),
            "verified"
        );
        // The registry's own address lists have no date: they decide.
        assert_eq!(
            v.verify_as_of(outside, "Listbot", at(OLD)).await.kind(),
            "spoofed"
        );
        assert_eq!(
            v.feed_newer_than("Feedbot", at(OLD))
                .map(|f| f.url.as_str()),
            Some(FEED)
        );
        assert_eq!(
            v.feed_newer_than("feedbot", at(OLD))
                .map(|f| f.url.as_str()),
            Some(FEED)
        );
        assert!(v.feed_newer_than("Feedbot", at(LATER)).is_none());
        assert!(v.feed_newer_than("Nobot", at(OLD)).is_none());
    }

    #[tokio::test]
    async fn reverse_dns_verdicts_do_not_depend_on_the_date() {
        // No PTR record at all: NXDOMAIN.
        let dns = TestDns::start(Zone::new()).await;
        let mut config = crate::dns::DnsConfig::with_nameserver(dns.addr());
        config.timeout = Duration::from_secs(2);
        let v = Verifier::new(
            registry(r#""creationTime": "2026-11-01T00:00:00+00:00","#),
            VerifierConfig::with_dns(config),
        )
        .expect("a verifier");
        let verdict = v.verify_as_of(ip("198.51.100.8"), "Dnsbot", at(OLD)).await;
        assert_eq!(verdict.kind(), "spoofed", "{verdict}");
        assert!(
            verdict
                .reason()
                .is_some_and(|r| r.starts_with("no PTR record for 198.51.100.8")),
            "{verdict}"
        );
    }

    #[tokio::test]
    async fn a_feed_speaks_for_the_week_before_it() {
        let mut config = VerifierConfig::offline();
        let v = Verifier::new(
            registry(r#""creationTime": "2026-11-01T00:00:00","#),
            config.clone(),
        )
        .expect("a verifier");
        let outside = ip("198.51.100.7");
        // 2026-11-01T00:00:00Z, less three days and eight days.
        let made = 1_793_491_200;
        let day = 86_400;
        assert_eq!(
            v.verify_as_of(outside, "Feedbot", at(made - 3 * day))
                .await
                .kind(),
            "spoofed"
        );
        assert!(v.feed_newer_than("Feedbot", at(made - 3 * day)).is_none());
        assert_eq!(
            v.verify_as_of(outside, "Feedbot", at(made - 8 * day))
                .await
                .kind(),
            "unknown"
        );
        // Without grace, a second before the feed is too early.
        config.feed_grace = Duration::ZERO;
        let strict = Verifier::new(
            registry(r#""creationTime": "2026-11-01T00:00:00","#),
            config,
        )
        .expect("a verifier");
        assert_eq!(
            strict
                .verify_as_of(outside, "Feedbot", at(made - 1))
                .await
                .kind(),
            "unknown"
        );
        assert_eq!(
            strict
                .verify_as_of(outside, "Feedbot", at(made))
                .await
                .kind(),
            "spoofed"
        );
    }

    #[tokio::test]
    async fn a_feed_without_a_date_judges_every_request() {
        // Neither a creation time nor a fetch time: undated.
        let v = Verifier::new(registry(""), VerifierConfig::offline()).expect("a verifier");
        assert_eq!(
            v.verify_as_of(ip("198.51.100.7"), "Feedbot", at(OLD))
                .await
                .kind(),
            "spoofed"
        );
        assert!(v.feed_newer_than("Feedbot", at(OLD)).is_none());
        // A fetch time stands for the creation time.
        let mut feed = v.registry().ranges().get(FEED).expect("the feed").clone();
        feed.fetched = Some("2026-11-20T13:05:07Z".to_owned());
        let mut b = RegistryBuilder::new();
        b.add_registry(
            "test.yaml",
            "bots:\n  - name: Feedbot\n    ranges_url: https://feeds.example/bots.json\n",
        );
        b.ranges_mut().insert(feed);
        let registry = Arc::new(b.build().0.expect("a registry"));
        let v = Verifier::new(registry, VerifierConfig::offline()).expect("a verifier");
        assert_eq!(
            v.verify_as_of(ip("198.51.100.7"), "Feedbot", at(OLD))
                .await
                .kind(),
            "unknown"
        );
    }

    #[test]
    fn host_names_are_unverifiable_with_the_reason() {
        let v = Verifier::new(
            registry(r#""creationTime": "2026-11-01T00:00:00","#),
            VerifierConfig::offline(),
        )
        .expect("a verifier");
        let verdict = v.verify_name("crawl-66-249-66-1.googlebot.com", "dnsbot");
        assert_eq!(
            verdict,
            Verdict::Unverifiable {
                bot: "Dnsbot".to_owned(),
                reason: "the log names the client \"crawl-66-249-66-1.googlebot.com\" instead \
                         of giving its address (HostnameLookups): verification needs the \
                         address; log %a, or turn HostnameLookups off"
                    .to_owned(),
            }
        );
        assert_eq!(v.verify_name("a.example", "Nobot").kind(), "unverifiable");
    }
}
