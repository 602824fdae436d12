//! Asking the resources pages use (`crawl --resources`): each distinct
//! image, script and style sheet the crawled pages name
//! (`page_resources`, recorded by the crawl when [`CrawlConfig::resources`]
//! is on) is asked once whether it answers, with its type and size, so
//! that the audit can report broken and blocked resources and heavy
//! images.
//!
//! - **robots.txt first**: each resource URL is judged by its origin's
//!   robots.txt for the crawler's token chain, as a page is (RFC 9309,
//!   the same reading and simulation). A crawled origin's file is the one
//!   the crawl kept; another origin's (a CDN's) is fetched once, through
//!   the same availability rules. A disallowed resource is not asked: its
//!   row names the rule (`resources/blocked`).
//! - **The request**: `HEAD`; a `GET` follows when the `HEAD` is refused
//!   (`405`, `501`) or dropped, or when an image's answer gives no
//!   `Content-Length`; a `GET` reads at most [`ResourceConfig::max_bytes`]
//!   and counts them. Redirects are not followed (the status is
//!   recorded). Requests are signed when the crawl's are (`--sign-key`).
//! - **Politeness**: one request at a time per host, the crawl's delay
//!   between two (never below the origin's `Crawl-delay`, capped as the
//!   crawl caps it), the crawl's error-rate throttle per host, a `429` or
//!   `503` with `Retry-After` waited for (at most the crawl's longest
//!   pause) and asked again up to the crawl's retries; a few hosts at a
//!   time.
//! - **Stopping** ([`StopSignal`]): no request starts once it is raised;
//!   the resources not asked are not stored, and a later run asks them.
//! - **Bounds**: at most [`ResourceConfig::total`] resources per run; the
//!   ones left over are counted, not stored, so a later run (`--resume`)
//!   asks them. Answers are stored as they come, a few at a time: a run
//!   killed part-way loses none that was stored, and the next run asks
//!   only those not stored.

mod used;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant, SystemTime};

use botwarden_fetch::{Fetcher, RetryAfter, chain};
use botwarden_store::{Error as StoreError, ResourceKind, ResourceRecord, Store};
use botwarden_text::thousands;
use tokio::sync::mpsc;
use url::Url;

pub use used::UsedResource;
pub(crate) use used::record_used;
pub(crate) use used::used;

use crate::crawler::{CrawlConfig, StopSignal, stored_robots};
use crate::error::Error;
use crate::pipeline::{RobotsState, host_key, origin_key, read_robots, robots_state};
use crate::throttle::{Outcome, Throttle};

/// How resources are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceConfig {
    /// How long one request may take.
    pub timeout: Duration,
    /// The most of a body a `GET` reads (1 MiB): a larger resource is
    /// recorded as at least this big.
    pub max_bytes: u64,
    /// Resources asked per run at most.
    pub total: usize,
    /// Hosts asked at the same time.
    pub hosts_at_once: usize,
}

impl Default for ResourceConfig {
    fn default() -> Self {
        ResourceConfig {
            timeout: Duration::from_secs(10),
            max_bytes: 1 << 20,
            total: 10_000,
            hosts_at_once: 4,
        }
    }
}

/// What a run of resource requests did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourceSummary {
    /// Resources asked now (or found blocked).
    pub checked: u64,
    /// Of which answered `4xx`, `5xx` or nothing.
    pub broken: u64,
    /// Of which robots.txt keeps the crawler from (not asked).
    pub blocked: u64,
    /// Resources left for a later run: over [`ResourceConfig::total`].
    pub over_total_cap: u64,
    /// Resources an earlier run asked, not asked again.
    pub already_checked: u64,
    /// The cap ([`ResourceConfig::total`]).
    pub total: usize,
}

impl std::fmt::Display for ResourceSummary {
    /// `N resource(s) checked, N broken, N blocked by robots.txt; N left
    /// unchecked (over 10,000 in all); N checked before`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} resource(s) checked, {} broken, {} blocked by robots.txt; {} left unchecked \
             (over {} in all); {} checked before",
            self.checked,
            self.broken,
            self.blocked,
            self.over_total_cap,
            thousands(self.total as u64),
            self.already_checked
        )
    }
}

/// Records stored at once while answers come in.
const WRITE_EVERY: usize = 64;

/// One host's resources (host and port: both schemes share its
/// politeness, as the crawl's requests do), in the order pages name them.
struct Host {
    urls: Vec<(String, ResourceKind)>,
}

/// Asks the resources of the crawl in `store` that were not asked yet
/// (module docs), with the crawl's `crawl` settings (token chain,
/// robots.txt reading, politeness), and stores what they answered.
///
/// # Errors
/// [`Error::Store`] if the store cannot be read or written; the failures
/// of the requests are results, stored.
pub async fn check_resources(
    store: &mut Store,
    fetcher: &Fetcher,
    crawl: &CrawlConfig,
    config: &ResourceConfig,
    stop: &StopSignal,
) -> Result<ResourceSummary, Error> {
    let (already, rows) = to_check(store)?;
    let mut summary = ResourceSummary {
        already_checked: already,
        total: config.total,
        ..ResourceSummary::default()
    };
    let hosts = by_host(rows, config.total, &mut summary);
    let mut kept = kept_robots(store, crawl)?;
    let (tx, mut rx) = mpsc::unbounded_channel::<ResourceRecord>();
    let mut tasks = tokio::task::JoinSet::new();
    let mut pending = Vec::new();
    for host in hosts {
        while tasks.len() >= config.hosts_at_once.max(1) {
            receive(store, &mut rx, &mut pending, &mut summary, &mut tasks).await?;
        }
        let robots = host_robots(&host, fetcher, crawl, &mut kept).await;
        let asker = Asker {
            fetcher: fetcher.clone(),
            crawl: crawl.clone(),
            config: *config,
            tx: tx.clone(),
            stop: stop.clone(),
        };
        tasks.spawn(async move { asker.host(host, robots).await });
    }
    drop(tx);
    while !tasks.is_empty() {
        receive(store, &mut rx, &mut pending, &mut summary, &mut tasks).await?;
    }
    while let Ok(r) = rx.try_recv() {
        pending.push(r);
    }
    flush(store, &mut pending, &mut summary).map(|()| summary)
}

/// Waits for an answer or a host's end, storing answers a few at a time.
async fn receive(
    store: &mut Store,
    rx: &mut mpsc::UnboundedReceiver<ResourceRecord>,
    pending: &mut Vec<ResourceRecord>,
    summary: &mut ResourceSummary,
    tasks: &mut tokio::task::JoinSet<()>,
) -> Result<(), Error> {
    tokio::select! {
        Some(r) = rx.recv() => {
            pending.push(r);
            if pending.len() >= WRITE_EVERY {
                flush(store, pending, summary)?;
            }
        }
        Some(done) = tasks.join_next() => {
            if let Err(e) = done {
                // What the host's task had not sent is not stored: a later
                // run asks it; the run says it failed rather than go on.
                return Err(Error::Store(StoreError {
                    path: store.path().to_owned(),
                    message: format!("a resource check failed inside the crawler: {e}"),
                }));
            }
            flush(store, pending, summary)?;
        }
    }
    Ok(())
}

/// Stores the answers gathered and counts them.
fn flush(
    store: &mut Store,
    pending: &mut Vec<ResourceRecord>,
    summary: &mut ResourceSummary,
) -> Result<(), Error> {
    if pending.is_empty() {
        return Ok(());
    }
    store.write_resources(pending)?;
    for r in pending.iter() {
        summary.checked += 1;
        if r.blocked.is_some() {
            summary.blocked += 1;
        } else if r.status.is_none_or(|s| s >= 400) {
            summary.broken += 1;
        }
    }
    pending.clear();
    Ok(())
}

/// How many resources an earlier run stored, and those left to ask (each
/// URL once, with the kind its first page uses it as), in the order pages
/// name them.
fn to_check(store: &Store) -> Result<(u64, Vec<(String, ResourceKind)>), Error> {
    let fail = |e: rusqlite::Error| {
        Error::Store(StoreError {
            path: store.path().to_owned(),
            message: format!("cannot read the pages' resources: {e}"),
        })
    };
    let conn = store.connection();
    let already: i64 = conn
        .query_row("SELECT count(*) FROM resources", [], |r| r.get(0))
        .map_err(fail)?;
    let mut st = conn
        .prepare(
            "SELECT p.url, p.kind FROM page_resources p
             WHERE NOT EXISTS (SELECT 1 FROM resources r WHERE r.url = p.url)
             ORDER BY p.source_id, p.position",
        )
        .map_err(fail)?;
    let mut seen = HashSet::new();
    let mut rows = Vec::new();
    let mut query = st.query([]).map_err(fail)?;
    while let Some(row) = query.next().map_err(fail)? {
        let url: String = row.get(0).map_err(fail)?;
        let kind: String = row.get(1).map_err(fail)?;
        // A kind this build does not know is read as an image's.
        let kind = ResourceKind::of_store(&kind).unwrap_or(ResourceKind::Image);
        if seen.insert(url.clone()) {
            rows.push((url, kind));
        }
    }
    Ok((u64::try_from(already).unwrap_or(0), rows))
}

/// The resources grouped by host, in the order of discovery, at most
/// `total` in all (the rest counted in `summary`). A URL that does not
/// parse is counted as left (it was stored by the crawler, so this does
/// not happen).
fn by_host(
    rows: Vec<(String, ResourceKind)>,
    total: usize,
    summary: &mut ResourceSummary,
) -> Vec<Host> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut hosts: Vec<Host> = Vec::new();
    for (n, (text, kind)) in rows.into_iter().enumerate() {
        let parsed = Url::parse(&text);
        let (Ok(url), true) = (parsed, n < total) else {
            summary.over_total_cap += 1;
            continue;
        };
        let key = host_key(&url);
        let i = *index.entry(key).or_insert_with(|| {
            hosts.push(Host { urls: Vec::new() });
            hosts.len() - 1
        });
        hosts[i].urls.push((text, kind));
    }
    hosts
}

/// The robots.txt files the crawl kept, by origin, read as it read them.
fn kept_robots(store: &Store, crawl: &CrawlConfig) -> Result<HashMap<String, RobotsState>, Error> {
    let chain = crawl.identity.chain();
    let mut kept = HashMap::new();
    for stored in store.robots_files()? {
        if let Some((url, read)) = stored_robots(&stored, crawl) {
            kept.insert(
                stored.origin.clone(),
                robots_state(&url, read, &chain, crawl),
            );
        }
    }
    Ok(kept)
}

/// The robots.txt of each origin of a host's resources, by origin: the
/// one the crawl kept, or fetched now (once: a file that cannot be read
/// disallows the origin's resources).
async fn host_robots(
    host: &Host,
    fetcher: &Fetcher,
    crawl: &CrawlConfig,
    kept: &mut HashMap<String, RobotsState>,
) -> HashMap<String, RobotsState> {
    let mut robots = HashMap::new();
    for url in host.urls.iter().filter_map(|(u, _)| Url::parse(u).ok()) {
        let origin = origin_key(&url);
        if robots.contains_key(&origin) {
            continue;
        }
        let state = match kept.remove(&origin) {
            Some(state) => state,
            None => {
                let mut scratch = botwarden_store::Batch::default();
                let last = crawl.robots_attempts.saturating_sub(1);
                let read = read_robots(&url, fetcher, crawl, last, &mut scratch).await;
                robots_state(&url, read, &crawl.identity.chain(), crawl)
            }
        };
        robots.insert(origin, state);
    }
    robots
}

/// Why a request got no answer.
struct Failure {
    why: String,
    /// The connection closed or reset without an answer: maybe the
    /// method's fault, so a `GET` follows a `HEAD`.
    dropped: bool,
}

/// What one host's task needs.
struct Asker {
    fetcher: Fetcher,
    crawl: CrawlConfig,
    config: ResourceConfig,
    tx: mpsc::UnboundedSender<ResourceRecord>,
    stop: StopSignal,
}

impl Asker {
    /// Asks a host's resources one after the other, politely: the
    /// crawl's delay, never below a `Crawl-delay` of its origins.
    async fn host(self, host: Host, robots: HashMap<String, RobotsState>) {
        let floor = robots
            .values()
            .filter_map(|r| r.crawl_delay(&self.crawl))
            .fold(self.crawl.throttle.min_delay, Duration::max);
        let mut throttle = Throttle::new(self.crawl.throttle, floor, 1);
        let mut asked = false;
        for (text, kind) in host.urls {
            if self.stop.is_stopped() {
                // Not stored: a later run asks it.
                return;
            }
            let record = match unasked(&robots, text, kind) {
                Ok(record) => record,
                Err((text, kind)) => {
                    if asked {
                        self.wait(throttle.delay()).await;
                        if self.stop.is_stopped() {
                            return;
                        }
                    }
                    asked = true;
                    self.politely(&text, kind, &mut throttle).await
                }
            };
            if self.tx.send(record).is_err() {
                return;
            }
        }
    }

    /// Asks one resource, again after a `429` or `503` with `Retry-After`
    /// (waited for), up to the crawl's retries.
    async fn politely(
        &self,
        text: &str,
        kind: ResourceKind,
        throttle: &mut Throttle,
    ) -> ResourceRecord {
        let mut tries = 0;
        loop {
            let (record, retry_after) = self.ask(text, kind).await;
            throttle.record(outcome(&record));
            let wait = retry_after
                .filter(|_| matches!(record.status, Some(429 | 503)) && tries < self.crawl.retries);
            match wait {
                Some(d) if d <= self.crawl.max_pause && !self.stop.is_stopped() => {
                    tries += 1;
                    self.wait(d.max(throttle.delay())).await;
                }
                _ => return record,
            }
        }
    }

    /// Waits `delay`, or less when the run is asked to stop.
    async fn wait(&self, delay: Duration) {
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = self.stop.raised() => {}
        }
    }

    /// One resource's request(s), and the `Retry-After` it asked for.
    async fn ask(&self, text: &str, kind: ResourceKind) -> (ResourceRecord, Option<Duration>) {
        let started = Instant::now();
        let mut record = ResourceRecord {
            url: text.to_owned(),
            kind,
            checked_at: jiff::Timestamp::now().to_string(),
            method: Some("HEAD"),
            status: None,
            content_type: None,
            size: None,
            size_capped: false,
            blocked: None,
            error: None,
            elapsed_ms: None,
        };
        let url = match Url::parse(text) {
            Ok(u) => u,
            Err(e) => {
                record.error = Some(format!("not a URL: {e}"));
                return (record, None);
            }
        };
        if let Err(e) = self.fetcher.check_literal(&url) {
            record.error = Some(e.to_string());
            return (record, None);
        }
        let head = self.send(reqwest::Method::HEAD, &url).await;
        let again = match &head {
            Ok(r) => {
                matches!(r.status().as_u16(), 405 | 501)
                    || (kind == ResourceKind::Image
                        && r.status().is_success()
                        && !r.headers().contains_key(reqwest::header::CONTENT_LENGTH))
            }
            Err(f) => f.dropped,
        };
        let answer = if again {
            record.method = Some("GET");
            self.send(reqwest::Method::GET, &url).await
        } else {
            head
        };
        let retry_after = self.answered(&mut record, answer).await;
        record.elapsed_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
        (record, retry_after)
    }

    /// A request, signed when the crawl's are.
    async fn send(&self, method: reqwest::Method, url: &Url) -> Result<reqwest::Response, Failure> {
        let request = self.fetcher.request(method, url).map_err(|e| Failure {
            why: e.to_string(),
            dropped: false,
        })?;
        request
            .timeout(self.config.timeout)
            .send()
            .await
            .map_err(|e| Failure {
                dropped: !e.is_timeout() && !e.is_connect() && !e.is_builder(),
                why: if e.is_timeout() {
                    format!("timed out after {} s", self.config.timeout.as_secs_f64())
                } else {
                    chain(&e)
                },
            })
    }

    /// Fills `record` from the answer (reading a `GET`'s body up to the
    /// cap); the `Retry-After` it asked for.
    async fn answered(
        &self,
        record: &mut ResourceRecord,
        answer: Result<reqwest::Response, Failure>,
    ) -> Option<Duration> {
        let mut response = match answer {
            Ok(r) => r,
            Err(f) => {
                record.error = Some(f.why);
                return None;
            }
        };
        record.status = Some(response.status().as_u16());
        let headers = response.headers();
        record.content_type = headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned());
        let retry_after = headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| RetryAfter::parse(v, SystemTime::now()).delay);
        let length = headers
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        record.size = length;
        if record.method == Some("GET") && response.status().is_success() {
            let (read, capped, error) = read_capped(&mut response, self.config.max_bytes).await;
            record.size = Some(if capped {
                read
            } else {
                length.unwrap_or(read).max(read)
            });
            record.size_capped = capped;
            record.error = error;
        }
        retry_after
    }
}

/// Reads a body up to `cap` bytes: how many were read, whether there was
/// more, and why the reading stopped early.
async fn read_capped(response: &mut reqwest::Response, cap: u64) -> (u64, bool, Option<String>) {
    let mut read = 0u64;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                read += chunk.len() as u64;
                if read > cap {
                    return (cap, true, None);
                }
            }
            Ok(None) => return (read, false, None),
            Err(e) => return (read, false, Some(format!("body cut short: {}", chain(&e)))),
        }
    }
}

/// The record of a resource that is not to be asked: robots.txt keeps
/// the crawler from it (the rule), or the crawl's own settings do (a
/// refused address, an authority not trusted: an error, not a rule).
/// The resource back when it is to be asked.
fn unasked(
    robots: &HashMap<String, RobotsState>,
    text: String,
    kind: ResourceKind,
) -> Result<ResourceRecord, (String, ResourceKind)> {
    let judged = Url::parse(&text).ok().and_then(|u| {
        let state = robots.get(&origin_key(&u))?;
        Some((state, state.blocks(&u)?))
    });
    match judged {
        Some((RobotsState::Held { .. }, why)) => {
            let mut record = blocked(text, kind, String::new());
            record.blocked = None;
            record.error = Some(why);
            Ok(record)
        }
        Some((_, why)) => Ok(blocked(text, kind, why)),
        None => Err((text, kind)),
    }
}

/// A resource robots.txt keeps the crawler from: not asked.
fn blocked(url: String, kind: ResourceKind, why: String) -> ResourceRecord {
    ResourceRecord {
        url,
        kind,
        checked_at: jiff::Timestamp::now().to_string(),
        method: None,
        status: None,
        content_type: None,
        size: None,
        size_capped: false,
        blocked: Some(why),
        error: None,
        elapsed_ms: None,
    }
}

/// What the throttle counts of an answer.
fn outcome(record: &ResourceRecord) -> Outcome {
    match (record.status, record.error.as_deref()) {
        (Some(s), _) => Outcome::Status(s),
        (None, Some(e)) if e.starts_with("timed out") => Outcome::TimedOut,
        _ => Outcome::ConnectionFailed,
    }
}
