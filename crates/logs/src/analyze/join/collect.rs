//! What a reading thread keeps of registered bots' requests for the join
//! with the crawl, and how a request becomes a [`Hit`].

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use botwarden_robots::RobotMatcher;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::site::{CrawlSite, profile_for};
use crate::record::Record;

/// Distinct URLs counted per URL and bot, in all reading threads (a URL
/// met by two threads counts twice); past this, verified bots' requests
/// for new URLs are counted only in their bot's totals, as capped.
pub const JOIN_URLS: u64 = 1_000_000;

/// Request times kept for the spacing of bots whose robots.txt group has
/// a `Crawl-delay`, in all reading threads (8 bytes each); past this,
/// times are counted as capped and the spacing is measured on the rest.
pub const DELAY_TIMES: u64 = 4_000_000;

/// The indexes of the verdict kinds the join tells apart.
const VERIFIED: u8 = 0;
const SPOOFED: u8 = 1;

/// The caps a run's reading threads share.
#[derive(Debug, Default)]
pub(crate) struct JoinCaps {
    urls: AtomicU64,
    times: AtomicU64,
    /// The most distinct URLs counted ([`JOIN_URLS`] unless the run says).
    url_cap: u64,
}

impl JoinCaps {
    pub(crate) fn new(url_cap: u64) -> JoinCaps {
        JoinCaps {
            url_cap,
            ..JoinCaps::default()
        }
    }

    fn take(counter: &AtomicU64, cap: u64) -> bool {
        counter.fetch_add(1, Ordering::Relaxed) < cap
    }
}

/// What a request is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A URL of one of the crawl's origins, in normal form, with the
    /// origin's index and the copy of robots.txt in force
    /// ([`CrawlSite::version_at`]).
    Url(Box<str>, u16, u16),
    /// A host that is no origin of the crawl.
    OtherHost,
    /// No path, or one that is not a URL of the origin.
    NoUrl,
}

/// One request of a registered bot, kept until its pair's verdict says
/// whose it is.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) target: Target,
    /// Unix seconds, or `i64::MIN`.
    pub(crate) time: i64,
    /// 0 when the log gave none.
    pub(crate) status: u16,
    pub(crate) bytes: u64,
    /// robots.txt disallowed it for the bot.
    pub(crate) disallowed: bool,
    /// The bot's group on that origin has a `Crawl-delay`.
    pub(crate) delayed: bool,
}

/// A status code's requests for one URL and bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatusSeen {
    pub(crate) code: u16,
    pub(crate) requests: u64,
    pub(crate) first: i64,
    pub(crate) last: i64,
}

/// One verified bot's requests for one URL.
#[derive(Debug, Clone, Default)]
pub(crate) struct UrlBot {
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
    pub(crate) last: Option<i64>,
    /// Requests per UTC day (days since the epoch), in any order.
    pub(crate) days: Vec<(i64, u64)>,
    pub(crate) statuses: Vec<StatusSeen>,
    pub(crate) disallowed: bool,
}

impl UrlBot {
    fn add(&mut self, hit: &Hit) {
        self.requests += 1;
        self.bytes += hit.bytes;
        self.disallowed |= hit.disallowed;
        let time = (hit.time != i64::MIN).then_some(hit.time);
        if let Some(t) = time {
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
            let day = t.div_euclid(86_400);
            match self.days.iter_mut().find(|(d, _)| *d == day) {
                Some(e) => e.1 += 1,
                None => self.days.push((day, 1)),
            }
        }
        let (first, last) = time.map_or((i64::MAX, i64::MIN), |t| (t, t));
        self.add_status(StatusSeen {
            code: hit.status,
            requests: 1,
            first,
            last,
        });
    }

    fn add_status(&mut self, s: StatusSeen) {
        match self.statuses.iter_mut().find(|e| e.code == s.code) {
            Some(e) => {
                e.requests += s.requests;
                e.first = e.first.min(s.first);
                e.last = e.last.max(s.last);
            }
            None => self.statuses.push(s),
        }
    }

    pub(crate) fn merge(&mut self, other: &UrlBot) {
        self.requests += other.requests;
        self.bytes += other.bytes;
        self.disallowed |= other.disallowed;
        self.last = match (self.last, other.last) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        for &(day, n) in &other.days {
            match self.days.iter_mut().find(|(d, _)| *d == day) {
                Some(e) => e.1 += n,
                None => self.days.push((day, n)),
            }
        }
        for &s in &other.statuses {
            self.add_status(s);
        }
    }
}

/// One bot's requests as the join counts them.
#[derive(Debug, Clone, Default)]
pub(crate) struct BotHits {
    /// Verified requests.
    pub(crate) verified: u64,
    /// Of those, requests robots.txt disallowed.
    pub(crate) disallowed: u64,
    /// Verified requests for hosts that are no origin of the crawl.
    pub(crate) other_host: u64,
    /// Verified requests with no URL of the origin.
    pub(crate) no_url: u64,
    /// Verified requests for URLs past [`JOIN_URLS`].
    pub(crate) capped: u64,
    /// Spoofed requests, and those robots.txt disallowed.
    pub(crate) spoofed: u64,
    pub(crate) spoofed_disallowed: u64,
    /// Requests whose verdict is neither (`unknown`, `unverifiable`).
    pub(crate) unconfirmed: u64,
}

impl BotHits {
    fn merge(&mut self, o: &BotHits) {
        self.verified += o.verified;
        self.disallowed += o.disallowed;
        self.other_host += o.other_host;
        self.no_url += o.no_url;
        self.capped += o.capped;
        self.spoofed += o.spoofed;
        self.spoofed_disallowed += o.spoofed_disallowed;
        self.unconfirmed += o.unconfirmed;
    }
}

/// What one reading thread (then the whole run) counted for the join.
#[derive(Debug)]
pub(crate) struct JoinAgg {
    caps: Arc<JoinCaps>,
    /// Per URL (normal form), each verified bot's requests.
    pub(crate) urls: HashMap<Box<str>, Vec<(u32, UrlBot)>>,
    /// Per claim.
    pub(crate) bots: HashMap<u32, BotHits>,
    /// Per (claim, origin, robots.txt copy) with a `Crawl-delay`, the
    /// verified requests' times.
    pub(crate) times: HashMap<(u32, u16, u16), Vec<i64>>,
    /// Times past [`DELAY_TIMES`].
    pub(crate) times_capped: u64,
    /// Verified (address, claim) pairs that requested a disallowed URL.
    pub(crate) offenders: HashSet<(IpAddr, u32)>,
}

impl JoinAgg {
    pub(crate) fn new(caps: Arc<JoinCaps>) -> JoinAgg {
        JoinAgg {
            caps,
            urls: HashMap::new(),
            bots: HashMap::new(),
            times: HashMap::new(),
            times_capped: 0,
            offenders: HashSet::new(),
        }
    }

    /// Counts a request of `claim` whose verdict kind is `kind` (an index
    /// into the analysis' kinds), from `ip` when the log gave one.
    pub(crate) fn add(&mut self, kind: u8, claim: u32, ip: Option<IpAddr>, hit: &Hit) {
        let bot = self.bots.entry(claim).or_default();
        match kind {
            VERIFIED => {}
            SPOOFED => {
                bot.spoofed += 1;
                bot.spoofed_disallowed += u64::from(hit.disallowed);
                return;
            }
            _ => {
                bot.unconfirmed += 1;
                return;
            }
        }
        bot.verified += 1;
        if hit.disallowed {
            bot.disallowed += 1;
            if let Some(ip) = ip {
                self.offenders.insert((ip, claim));
            }
        }
        let (url, origin, version) = match hit.target {
            Target::Url(ref url, origin, version) => (url, origin, version),
            Target::OtherHost => {
                bot.other_host += 1;
                return;
            }
            Target::NoUrl => {
                bot.no_url += 1;
                return;
            }
        };
        if hit.delayed && hit.time != i64::MIN {
            if JoinCaps::take(&self.caps.times, DELAY_TIMES) {
                self.times
                    .entry((claim, origin, version))
                    .or_default()
                    .push(hit.time);
            } else {
                self.times_capped += 1;
            }
        }
        let bots = match self.urls.get_mut(&**url) {
            Some(b) => b,
            None => {
                if !JoinCaps::take(&self.caps.urls, self.caps.url_cap) {
                    bot.capped += 1;
                    return;
                }
                self.urls.entry(url.clone()).or_default()
            }
        };
        let at = match bots.iter().position(|(c, _)| *c == claim) {
            Some(at) => at,
            None => {
                bots.push((claim, UrlBot::default()));
                bots.len() - 1
            }
        };
        bots[at].1.add(hit);
    }

    pub(crate) fn merge(&mut self, other: JoinAgg) {
        for (url, bots) in other.urls {
            let mine = self.urls.entry(url).or_default();
            for (claim, b) in bots {
                match mine.iter_mut().find(|(c, _)| *c == claim) {
                    Some((_, m)) => m.merge(&b),
                    None => mine.push((claim, b)),
                }
            }
        }
        for (claim, b) in other.bots {
            self.bots.entry(claim).or_default().merge(&b);
        }
        for (key, times) in other.times {
            self.times.entry(key).or_default().extend(times);
        }
        self.times_capped += other.times_capped;
        self.offenders.extend(other.offenders);
    }
}

/// A reading thread's view of the crawl: the matchers of the bots it met.
pub(crate) struct JoinReader {
    pub(crate) site: Arc<CrawlSite>,
    matchers: HashMap<(u32, u16, u16), (RobotMatcher, bool)>,
    scratch: String,
}

impl JoinReader {
    pub(crate) fn new(site: Arc<CrawlSite>) -> JoinReader {
        JoinReader {
            site,
            matchers: HashMap::new(),
            scratch: String::new(),
        }
    }

    /// The request `record` of `claim` as a hit; `bot` gives the claim's
    /// robots.txt tokens and operator the first time they are needed.
    pub(crate) fn hit(
        &mut self,
        claim: u32,
        record: &Record<'_>,
        bot: impl FnOnce() -> (Vec<String>, Option<String>),
    ) -> Hit {
        let mut hit = Hit {
            target: Target::NoUrl,
            time: record.time.map_or(i64::MIN, |t| t.unix),
            status: record.status.unwrap_or(0),
            bytes: record.bytes,
            disallowed: false,
            delayed: false,
        };
        let Some(origin) = self.site.origin_of(record.vhost) else {
            hit.target = Target::OtherHost;
            return hit;
        };
        let Some(path) = record.path else {
            return hit;
        };
        let o = &self.site.origins[origin as usize];
        if botwarden_store::normalize_text(&o.base, path, &mut self.scratch).is_err() {
            return hit;
        }
        let Some(rest) = self.scratch.strip_prefix(o.text.as_str()) else {
            // An absolute-form target for another host.
            hit.target = Target::OtherHost;
            return hit;
        };
        if !rest.starts_with('/') {
            hit.target = Target::OtherHost;
            return hit;
        }
        let site = &self.site;
        let version = site.version_at(hit.time);
        let (matcher, delayed) = self
            .matchers
            .entry((claim, origin, version))
            .or_insert_with(|| {
                let (tokens, operator) = bot();
                let m = site.matcher((origin, version), &tokens, profile_for(operator.as_deref()));
                let delayed = CrawlSite::crawl_delay(&m).is_some();
                (m, delayed)
            });
        hit.disallowed = !matcher.is_allowed(rest);
        hit.delayed = *delayed;
        hit.target = Target::Url(self.scratch.as_str().into(), origin, version);
        hit
    }
}
