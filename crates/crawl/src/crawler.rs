//! The crawl: from a start URL to every accessible URL of its site, each
//! request judged by robots.txt, nofollow and the throttle first, every
//! result written to the store.
//!
//! One task schedules; requests and robots.txt fetches run concurrently
//! beside it (a slow robots.txt holds only its origin's URLs); one thread
//! writes the store. A request whose task panics is recorded as a page
//! with the error, never lost. For each URL the frontier gives (first met,
//! first fetched):
//!
//! 1. **robots.txt** of its origin (scheme, host, port), fetched once
//!    through the availability machine of RFC 9309 and kept for
//!    [`CrawlConfig::robots_ttl`]. `4xx` allows everything; `5xx` and
//!    network errors disallow everything *for now*: the origin's URLs wait
//!    and robots.txt is fetched again after the policy's retry interval
//!    (or `Retry-After`), up to [`CrawlConfig::robots_attempts`] times;
//!    after that they are skipped with the reason. Never is a robots.txt
//!    that could not be read treated as allow-all.
//! 2. **The two readings**: the URL is decided under `rfc9309` (relaxed)
//!    for the identity's token chain, which is what the crawl obeys, and
//!    under `strict` (the 1994 standard and 1997 draft, first match); a
//!    URL blocked under either, or decided differently, is recorded with
//!    both deciding lines. On a site whose ownership is verified, a
//!    [`Simulation`] ([`CrawlConfig::simulation`]) replaces the token
//!    chain, the obeyed reading (another profile instead of `rfc9309`) or
//!    the file itself (the site's robots.txt is then not asked for); the
//!    availability policy stays RFC 9309's and the User-Agent botwarden's.
//! 3. **Politeness** per host ([`Throttle`]): at most `parallel` requests
//!    in flight and `delay` between the starts of two requests; the delay
//!    is never below `Crawl-delay` (capped at
//!    [`CrawlConfig::max_crawl_delay`]); a `429` or `503` with
//!    `Retry-After` pauses the host that long (at most
//!    [`CrawlConfig::max_pause`]) and the URL is asked again, up to
//!    [`CrawlConfig::retries`] times.
//! 4. **The page**: one request, redirects not followed (the target is
//!    queued like a link, at the same depth: a redirect is not a click,
//!    and a refresh of at most [`crate::INSTANT_REFRESH`] seconds is a
//!    redirect); an HTML answer's links, canonical, hreflang and later
//!    refresh targets are admitted at depth + 1,
//!    unless the page says `nofollow` (meta or `X-Robots-Tag` for any
//!    token of the chain) or the link's `rel` does, in which case they are
//!    recorded and not followed ([`CrawlConfig::follow_nofollow`] follows
//!    them).
//!
//! Stopping ([`StopSignal`]) schedules nothing more and waits for the
//! requests in flight; every result is written before the crawl returns.
//! A crawl that was killed resumes from its store: only the requests that
//! were in flight, and those answered in the last [`COMMIT_WINDOW`]
//! (20 ms) before the kill, are made again.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use botwarden_robots::{
    Availability, AvailabilityPolicy, Cause, Profile, Reason, RobotMatcher, RobotsTxt, TokenChain,
};
use std::future::Future;

use botwarden_fetch::{Error as FetchError, Fetcher, PageResponse, link_header_canonicals};
use botwarden_store::{
    Batch, BodyHash, Error as StoreError, LinkRecord, NewUrl, PageRecord, RobotsFileRecord,
    RobotsRecord, Skip, Store, StoredRobots, TextReading, ThrottleRecord, UrlState,
    VerificationRecord, normalize, normalize_text, normalize_url,
};
use tokio::task::{self, JoinSet};
use tokio::time::Instant;
use url::Url;

use crate::directives::PageDirectives;
use crate::error::Error;
use crate::frontier::{Admitted, Frontier, FrontierConfig, Queued};
use crate::html::{self, HtmlFacts, LinkElement};
use crate::identity::Identity;
use crate::ownership::Simulation;
use crate::sitemap::{SitemapKind, parse_sitemap};
use crate::throttle::{Adjustment, Direction, Throttle, ThrottleConfig};

/// How to crawl.
#[derive(Debug, Clone)]
pub struct CrawlConfig {
    /// Who the crawler is.
    pub identity: Identity,
    /// Scope and limits.
    pub frontier: FrontierConfig,
    /// The throttling rule; its `min_delay` is the configured delay and
    /// its `max_parallel` the configured parallelism.
    pub throttle: ThrottleConfig,
    /// Follow links marked nofollow (they are recorded either way).
    pub follow_nofollow: bool,
    /// `Crawl-delay` is obeyed up to this.
    pub max_crawl_delay: Duration,
    /// A `Retry-After` pauses a host at most this long.
    pub max_pause: Duration,
    /// A URL answered `429` or `503` is asked again this many times.
    pub retries: u32,
    /// An origin's robots.txt is fetched again after this long.
    pub robots_ttl: Duration,
    /// An origin whose robots.txt cannot be read is tried this many times.
    pub robots_attempts: u32,
    /// Read the sitemaps the start origin's robots.txt names (`Sitemap:`
    /// lines). Off by default: a crawl follows links.
    pub robots_sitemaps: bool,
    /// More sitemaps to read (`--sitemap`).
    pub sitemaps: Vec<Url>,
    /// Sitemap files read at most (indexes included).
    pub max_sitemaps: usize,
    /// Read the verified site's robots.txt another way (`--as`,
    /// `--profile`, `--robots-file`); the site must be the start URL's
    /// origin. Other origins are read as usual.
    pub simulation: Option<Simulation>,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            identity: Identity::default(),
            frontier: FrontierConfig::default(),
            throttle: ThrottleConfig::default(),
            follow_nofollow: false,
            max_crawl_delay: Duration::from_secs(30),
            max_pause: Duration::from_secs(600),
            retries: 2,
            robots_ttl: Duration::from_secs(24 * 3600),
            robots_attempts: 3,
            robots_sitemaps: false,
            sitemaps: Vec::new(),
            max_sitemaps: 100,
            simulation: None,
        }
    }
}

/// Asks a running crawl to stop (Ctrl-C): nothing new is requested, the
/// requests in flight are finished and written, and every wait (a host's
/// delay or pause, a robots.txt to ask again) ends at once.
#[derive(Debug, Clone, Default)]
pub struct StopSignal(Arc<StopInner>);

#[derive(Debug, Default)]
struct StopInner {
    raised: AtomicBool,
    woken: tokio::sync::Notify,
}

impl StopSignal {
    /// A signal not raised.
    #[must_use]
    pub fn new() -> Self {
        StopSignal::default()
    }

    /// Raises it, and wakes whoever waits for it.
    pub fn stop(&self) {
        self.0.raised.store(true, Ordering::SeqCst);
        self.0.woken.notify_waiters();
    }

    /// Whether it was raised.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.0.raised.load(Ordering::SeqCst)
    }

    /// Returns once it is raised.
    pub async fn raised(&self) {
        loop {
            // Made before the check, so a stop between the two still wakes it.
            let woken = self.0.woken.notified();
            if self.is_stopped() {
                return;
            }
            woken.await;
        }
    }
}

/// Where a crawl is, for a progress display.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Pages fetched (answers and failures) in this run.
    pub fetched: u64,
    /// URLs waiting.
    pub waiting: u64,
    /// URLs met.
    pub known: u64,
    /// Failed requests and error statuses (the throttle's indicators).
    pub errors: u64,
    /// The start URL's host's current delay.
    pub delay: Duration,
    /// Its current parallelism.
    pub parallel: u32,
    /// Requests in flight.
    pub in_flight: u32,
}

/// How a crawl ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlEnd {
    /// Pages fetched in this run.
    pub fetched: u64,
    /// Whether it stopped with URLs left: on request, or because some
    /// were held ([`CrawlEnd::held`]).
    pub stopped: bool,
    /// URLs still queued (a resumed crawl fetches them).
    pub left: u64,
    /// Why URLs were held, still queued, by the crawl's own settings
    /// ([`RobotsRead::Held`]): one line per origin, with how many.
    pub held: Vec<String>,
}

/// An origin's robots.txt, as the crawl reads it.
pub(crate) enum RobotsState {
    /// Read: the two readings.
    Ready {
        relaxed: Box<RobotMatcher>,
        strict: Box<RobotMatcher>,
        txt: Box<RobotsTxt>,
        /// `None`: no rules (full allow); `Some(false)`: full disallow.
        blanket: Option<bool>,
        why: String,
        fetched: Instant,
    },
    /// Not readable now: try again at `retry`.
    Waiting { retry: Instant, attempts: u32 },
    /// Not readable after every attempt.
    Failed { why: String },
    /// Not asked because of this crawl's own settings (a refused address,
    /// a certificate authority not trusted): the origin's URLs are held,
    /// still queued, until the crawl is resumed with other settings.
    Held { why: String },
    /// Being fetched, beside the requests: the origin's URLs wait.
    Fetching,
}

impl RobotsState {
    /// The `Crawl-delay` obeyed (at most [`CrawlConfig::max_crawl_delay`]).
    pub(crate) fn crawl_delay(&self, config: &CrawlConfig) -> Option<Duration> {
        let RobotsState::Ready { relaxed, .. } = self else {
            return None;
        };
        relaxed.crawl_delay().map(|delay| {
            Duration::from_secs_f64(delay.value.clamp(0.0, 86_400.0)).min(config.max_crawl_delay)
        })
    }

    /// Judges a URL under both readings: records the decision when either
    /// blocks it or they differ, and the skip when the obeyed one blocks
    /// it. Whether it may be fetched. Only for a `Ready` state.
    pub(crate) fn judge(&self, id: u64, url: &Url, batch: &mut Batch) -> bool {
        let RobotsState::Ready {
            relaxed,
            strict,
            txt,
            blanket,
            why,
            ..
        } = self
        else {
            return false;
        };
        let target = path_and_query(url);
        let r = relaxed.check(&target);
        let s = strict.check(&target);
        if !r.allowed || !s.allowed || r.allowed != s.allowed {
            batch.robots.push(RobotsRecord {
                url_id: id,
                relaxed_allowed: r.allowed,
                relaxed_line: rule_line(r.reason),
                relaxed_rule: rule_text(relaxed, txt, r.reason),
                strict_allowed: s.allowed,
                strict_line: rule_line(s.reason),
                strict_rule: rule_text(strict, txt, s.reason),
            });
        }
        if !r.allowed {
            let detail = match (rule_line(r.reason), rule_text(relaxed, txt, r.reason)) {
                (Some(line), Some(rule)) => format!("{rule} (line {line})"),
                _ if *blanket == Some(false) => why.clone(),
                _ => "disallowed".to_owned(),
            };
            batch.states.push((
                id,
                UrlState::Skipped,
                Some(Skip {
                    reason: "robots",
                    detail,
                }),
            ));
        }
        r.allowed
    }
}

/// Politeness state of one host.
struct Host {
    throttle: Throttle,
    in_flight: u32,
    next_start: Instant,
    paused_until: Instant,
}

/// How long the writer gathers answers before it commits them: the
/// answers of this last moment are, with the requests in flight, what a
/// crawl killed outright asks again when it resumes.
pub const COMMIT_WINDOW: Duration = Duration::from_millis(20);

pub(crate) struct Done {
    pub(crate) q: Queued,
    pub(crate) result: Result<(PageResponse, Reading), FetchError>,
}

/// What the fetch task reads of a page beside fetching it, off the
/// scheduler's thread: the body's hash and, for a successful HTML answer,
/// its links and directives.
pub(crate) struct Reading {
    hash: Option<u64>,
    html: Option<Result<HtmlFacts, Error>>,
}

impl Reading {
    pub(crate) fn of(page: &PageResponse, hash: BodyHash, text: TextReading) -> Reading {
        let html = (!page.is_redirect()
            && page.status.is_some_and(|s| (200..300).contains(&s))
            && page.is_html())
        .then(|| html::extract_with(&page.body, page.charset.as_deref(), text));
        Reading {
            hash: (!page.body.is_empty()).then(|| hash_body(hash, &page.body)),
            html,
        }
    }
}

/// The page requests in flight, each task with its URL, so that a task
/// that panics does not take its URL with it.
#[derive(Default)]
pub(crate) struct InFlight {
    tasks: JoinSet<Done>,
    urls: HashMap<task::Id, Queued>,
}

/// How a request's task ended.
pub(crate) enum Joined {
    /// It answered (a failed request is an answer too).
    Answer(Box<Done>),
    /// The task itself failed (a panic): the URL and what happened.
    Lost(Queued, String),
}

impl InFlight {
    pub(crate) fn spawn(
        &mut self,
        q: Queued,
        request: impl Future<Output = Result<(PageResponse, Reading), FetchError>> + Send + 'static,
    ) {
        let url = q.clone();
        let handle = self.tasks.spawn(async move {
            let result = request.await;
            Done { q, result }
        });
        self.urls.insert(handle.id(), url);
    }

    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The next request to end; `None` when none is in flight.
    pub(crate) async fn next(&mut self) -> Option<Joined> {
        loop {
            match self.tasks.join_next_with_id().await? {
                Ok((id, done)) => {
                    self.urls.remove(&id);
                    return Some(Joined::Answer(Box::new(done)));
                }
                Err(e) => {
                    if let Some(q) = self.urls.remove(&e.id()) {
                        return Some(Joined::Lost(q, task_failure(e)));
                    }
                }
            }
        }
    }
}

/// What became of a task that did not return.
fn task_failure(e: task::JoinError) -> String {
    if !e.is_panic() {
        return "its task was cancelled".to_owned();
    }
    let panic = e.into_panic();
    let message = panic
        .downcast_ref::<&str>()
        .map(|m| (*m).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    match message {
        Some(m) => format!("its task panicked: {m}"),
        None => "its task panicked".to_owned(),
    }
}

/// Records a URL whose request was lost inside the crawler: fetched, with
/// the error, so that nothing is lost silently.
pub(crate) fn record_lost(batch: &mut Batch, q: &Queued, why: &str) {
    batch.pages.push(PageRecord {
        url_id: q.id,
        fetched_at: now_text(),
        error: Some(format!("the request failed inside the crawler: {why}")),
        ..PageRecord::default()
    });
    batch.states.push((q.id, UrlState::Fetched, None));
}

/// What woke the scheduler.
enum Event {
    Page(Joined),
    Robots(Result<(task::Id, Box<(RobotsState, Batch)>), task::JoinError>),
    Tick,
    Nothing,
}

/// Runs a crawl (module docs). A fresh store starts at `start`; a resumed
/// one (`resume`) continues where its crawl stopped, `start` ignored.
/// `progress` is called after every answer. Returns the store and how the
/// crawl ended.
///
/// # Errors
/// [`Error::Store`] when the store fails (or holds no crawl to resume),
/// [`Error::InvalidUrl`](botwarden_fetch::Error::InvalidUrl) for a start URL that is not one,
/// [`Error::Ownership`] when the simulation's site is not the start URL's
/// or a resumed crawl is asked to read robots.txt otherwise than it did;
/// failures of requests are results,
/// written to the store.
pub async fn crawl(
    start: &Url,
    config: &CrawlConfig,
    fetcher: &Fetcher,
    store: Store,
    resume: bool,
    stop: &StopSignal,
    mut progress: impl FnMut(&Progress),
) -> Result<(Store, CrawlEnd), Error> {
    let chain = config.identity.chain();
    let path = store.path().display().to_string();
    let mut batch = Batch::default();
    let mut robots: HashMap<String, RobotsState> = HashMap::new();
    let (body_hash, text_reading) = readings(&store, resume)?;
    let (start, mut frontier) = if resume {
        resumed(config, &store, &path, &chain, &mut batch, &mut robots)?
    } else {
        let readings = (body_hash, text_reading);
        let at = Begin {
            start,
            fetcher,
            chain: &chain,
            config,
        };
        begun(&at, &store, readings, &mut batch, &mut robots).await?
    };
    batch.meta.push(("state".into(), "running".into()));

    // The writer: one thread, one transaction per message batch.
    let (tx, rx) = mpsc::channel::<Batch>();
    let writer = spawn_writer(store, rx);

    let mut hosts: HashMap<String, Host> = HashMap::new();
    let mut deferred: Vec<Queued> = Vec::new();
    let mut retries: HashMap<u64, u32> = HashMap::new();
    let mut running = InFlight::default();
    // robots.txt fetches, beside the requests, each with its origin.
    let mut robots_tasks: JoinSet<Box<(RobotsState, Batch)>> = JoinSet::new();
    let mut robots_origins: HashMap<task::Id, String> = HashMap::new();
    let mut stats = Progress::default();
    let start_host = host_key(&start);
    // URLs held by the crawl's own settings, and why, by origin.
    let mut held: Vec<Queued> = Vec::new();
    let mut held_why: Vec<(String, String)> = Vec::new();

    loop {
        let now = Instant::now();
        // URLs of origins whose robots.txt is due again come back.
        return_due(&mut deferred, &robots, &mut frontier, now);
        let mut wake: Option<Instant> = None;
        while !stop.is_stopped() {
            let Some(q) = frontier.pop() else { break };
            let Ok(url) = Url::parse(&q.url) else {
                batch.states.push((
                    q.id,
                    UrlState::Skipped,
                    Some(Skip {
                        reason: "invalid",
                        detail: "not a URL".into(),
                    }),
                ));
                continue;
            };
            let origin = origin_key(&url);
            // robots.txt is fetched in a task of its own: a slow one holds
            // only its origin's URLs.
            if let Some(attempts) = robots_due(robots.get(&origin), config, now) {
                robots.insert(origin.clone(), RobotsState::Fetching);
                let (url, fetcher, chain, config) =
                    (url.clone(), fetcher.clone(), chain.clone(), config.clone());
                let handle = robots_tasks.spawn(async move {
                    let mut batch = Batch::default();
                    let state =
                        fetch_robots_state(&url, &fetcher, &chain, &config, attempts, &mut batch)
                            .await;
                    Box::new((state, batch))
                });
                robots_origins.insert(handle.id(), origin.clone());
            }
            let Some(state) = robots.get(&origin) else {
                deferred.push(q);
                continue;
            };
            let host = hosts.entry(host_key(&url)).or_insert_with(|| Host {
                throttle: Throttle::new(
                    config.throttle,
                    config.throttle.min_delay,
                    config.throttle.max_parallel,
                ),
                in_flight: 0,
                next_start: now,
                paused_until: now,
            });
            match state {
                RobotsState::Fetching => {
                    deferred.push(q);
                    continue;
                }
                RobotsState::Waiting { retry, .. } => {
                    wake = Some(wake.map_or(*retry, |w| w.min(*retry)));
                    deferred.push(q);
                    continue;
                }
                RobotsState::Failed { why } => {
                    batch.states.push((
                        q.id,
                        UrlState::Skipped,
                        Some(Skip {
                            reason: "robots-unavailable",
                            detail: why.clone(),
                        }),
                    ));
                    continue;
                }
                RobotsState::Held { why } => {
                    if !held_why.iter().any(|(o, _)| *o == origin) {
                        held_why.push((origin.clone(), why.clone()));
                    }
                    held.push(q);
                    continue;
                }
                ready @ RobotsState::Ready { .. } => {
                    if let Some(d) = ready.crawl_delay(config) {
                        host.throttle.raise_floor(d);
                    }
                    if !ready.judge(q.id, &url, &mut batch) {
                        continue;
                    }
                }
            }
            let gate = host.next_start.max(host.paused_until);
            if host.in_flight >= host.throttle.parallel() || gate > now {
                if host.in_flight < host.throttle.parallel() {
                    wake = Some(wake.map_or(gate, |w| w.min(gate)));
                }
                frontier.put_back(q);
                break;
            }
            host.in_flight += 1;
            host.next_start = now + host.throttle.delay();
            let fetcher = fetcher.clone();
            running.spawn(q, async move {
                fetcher.fetch_page(url).await.map(|page| {
                    let reading = Reading::of(&page, body_hash, text_reading);
                    (page, reading)
                })
            });
        }

        // URLs waiting for their robots.txt wake the loop when it is due.
        if !deferred.is_empty() {
            for state in robots.values() {
                if let RobotsState::Waiting { retry, .. } = state {
                    wake = Some(wake.map_or(*retry, |w| w.min(*retry)));
                }
            }
        }
        if stop.is_stopped() {
            // What is left stays queued in the store: a robots.txt being
            // read is asked again on resume.
            robots_tasks.abort_all();
        }
        // Requests in flight are counted here, with every request that may
        // start started: after an answer one slot is always free for a
        // moment, so a count taken then is one short.
        stats.in_flight = u32::try_from(running.len()).unwrap_or(u32::MAX);

        let idle = running.is_empty()
            && robots_tasks.is_empty()
            && (frontier.waiting() == 0 || stop.is_stopped());
        if idle && (deferred.is_empty() || stop.is_stopped()) {
            break;
        }

        // Wait for an answer, a robots.txt, or the moment a host may be
        // asked again.
        let event = tokio::select! {
            Some(joined) = running.next() => Event::Page(joined),
            Some(fetched) = robots_tasks.join_next_with_id() => Event::Robots(fetched),
            () = sleep_until_some(wake), if wake.is_some() => Event::Tick,
            () = stop.raised(), if !stop.is_stopped() => Event::Tick,
            else => Event::Nothing,
        };
        match event {
            Event::Page(Joined::Answer(done)) => {
                let key = Url::parse(&done.q.url).map(|u| host_key(&u)).ok();
                if let Some(host) = key.and_then(|k| hosts.get_mut(&k)) {
                    host.in_flight = host.in_flight.saturating_sub(1);
                    stats.fetched += 1;
                    handle(
                        *done,
                        host,
                        &mut frontier,
                        &mut batch,
                        &mut retries,
                        &mut stats,
                        &chain,
                        config,
                    );
                }
            }
            Event::Page(Joined::Lost(q, why)) => {
                let key = Url::parse(&q.url).map(|u| host_key(&u)).ok();
                if let Some(host) = key.and_then(|k| hosts.get_mut(&k)) {
                    host.in_flight = host.in_flight.saturating_sub(1);
                }
                stats.fetched += 1;
                stats.errors += 1;
                record_lost(&mut batch, &q, &why);
            }
            Event::Robots(Ok((id, fetched))) => {
                let (state, more) = *fetched;
                if let Some(origin) = robots_origins.remove(&id) {
                    robots.insert(origin, state);
                }
                merge(&mut batch, more);
            }
            Event::Robots(Err(e)) => {
                if let Some(origin) = robots_origins.remove(&e.id()) {
                    if e.is_cancelled() {
                        // Stopped while it was read: asked again on resume.
                        robots.remove(&origin);
                    } else {
                        let why = format!("robots.txt could not be read: {}", task_failure(e));
                        robots.insert(origin, RobotsState::Failed { why });
                    }
                }
            }
            Event::Tick => {}
            // Nothing in flight and nothing to wait for, yet not done: a
            // moment's pause rather than a busy loop.
            Event::Nothing => tokio::time::sleep(Duration::from_millis(10)).await,
        }
        stats.waiting = (frontier.waiting() + deferred.len() + held.len()) as u64;
        stats.known = frontier.known() as u64;
        if let Some(h) = hosts.get(&start_host) {
            stats.delay = h.throttle.delay();
            stats.parallel = h.throttle.parallel();
        }
        progress(&stats);
        // Every answer goes to the writer at once (it joins what queues
        // up into one transaction): a crawl killed at any moment loses
        // only the requests in flight and the answers not yet committed.
        flush(&tx, &mut batch);
    }

    let left = (frontier.waiting() + deferred.len() + held.len()) as u64;
    // Finished only when nothing is left for reasons of the site: URLs
    // held by the crawl's own settings leave it stopped, to be resumed.
    let stopped = (stop.is_stopped() || !held.is_empty()) && left > 0;
    let held = held_lines(&held, &held_why);
    batch.meta.push((
        "state".into(),
        if stopped { "stopped" } else { "finished" }.into(),
    ));
    batch.meta.push(("held".into(), held.join("\n")));
    batch.meta.push(("ended_at".into(), now_text()));
    flush(&tx, &mut batch);
    drop(tx);
    let store = join_writer(writer, &path)?;
    Ok((
        store,
        CrawlEnd {
            fetched: stats.fetched,
            stopped,
            left,
            held,
        },
    ))
}

/// How the crawl's body hashes and SimHash text are read: a new crawl's
/// by [`BodyHash::NEW`] and [`TextReading::Scan`], a resumed one's as its
/// store's pages were.
fn readings(store: &Store, resume: bool) -> Result<(BodyHash, TextReading), Error> {
    if !resume {
        return Ok((BodyHash::NEW, TextReading::Scan));
    }
    let body_hash = BodyHash::of_store(store.meta(BodyHash::META)?.as_deref());
    // A resumed crawl reads the SimHash's text as its store's pages were.
    let text_reading = TextReading::of_store(store.meta(TextReading::META)?.as_deref());
    Ok((body_hash, text_reading))
}

/// The start and frontier of a resumed crawl, from its store: every URL
/// known again, the reading checked, the robots.txt files read before.
fn resumed(
    config: &CrawlConfig,
    store: &Store,
    path: &str,
    chain: &TokenChain,
    batch: &mut Batch,
    robots: &mut HashMap<String, RobotsState>,
) -> Result<(Url, Frontier), Error> {
    let seed = store.meta("seed")?.ok_or_else(|| no_seed(path))?;
    let start = Url::parse(&seed).map_err(|_| no_seed(path))?;
    let mut frontier = Frontier::new(&start, config.frontier.clone());
    for u in store.urls()? {
        if u.state == UrlState::Skipped && u.skip_reason.as_deref() == Some("nofollow") {
            frontier.restore_unfollowed(u.id, &u.url, u.depth);
        } else {
            let refused = u.state == UrlState::Skipped
                && u.skip_reason
                    .as_deref()
                    .is_some_and(|r| Frontier::REFUSALS.contains(&r));
            frontier.restore(u.id, &u.url, u.depth, u.state == UrlState::Queued, refused);
        }
    }
    check_reading(&start, config, store, true)?;
    if let Some(sim) = &config.simulation {
        batch.verifications.push(verification_record(sim));
    }
    for stored in store.robots_files()? {
        if let Some((url, read)) = stored_robots(&stored, config) {
            robots.insert(
                stored.origin.clone(),
                robots_state(&url, read, chain, config),
            );
        }
    }
    Ok((start, frontier))
}

/// What a new crawl starts from: its start URL, and how it reads.
struct Begin<'a> {
    start: &'a Url,
    fetcher: &'a Fetcher,
    chain: &'a TokenChain,
    config: &'a CrawlConfig,
}

/// The start and frontier of a new crawl: the start URL admitted, the
/// crawl's meta, the reading checked, and the sitemaps read (those of the
/// start origin's robots.txt when asked) before the first page.
async fn begun(
    at: &Begin<'_>,
    store: &Store,
    (body_hash, text_reading): (BodyHash, TextReading),
    batch: &mut Batch,
    robots: &mut HashMap<String, RobotsState>,
) -> Result<(Url, Frontier), Error> {
    let Begin {
        start,
        fetcher,
        chain,
        config,
    } = *at;
    let start = normalize_url(start.clone()).map_err(|e| {
        Error::Fetch(FetchError::InvalidUrl {
            url: start.to_string(),
            reason: e.to_string(),
        })
    })?;
    let mut frontier = Frontier::new(&start, config.frontier.clone());
    let admitted = frontier.admit(&start, 0);
    record_new(batch, &start, 0, "seed", &admitted);
    batch.meta = vec![
        ("seed".into(), start.to_string()),
        ("started_at".into(), now_text()),
        ("user_agent".into(), config.identity.user_agent()),
        ("tokens".into(), config.identity.tokens().join(" ")),
        (BodyHash::META.into(), body_hash.name().into()),
        (TextReading::META.into(), text_reading.name().into()),
    ];
    check_reading(&start, config, store, false)?;
    if let Some(sim) = &config.simulation {
        batch.verifications.push(verification_record(sim));
        batch.meta.extend(reading_meta(sim, chain));
    }
    let mut sitemaps = config.sitemaps.clone();
    if config.robots_sitemaps {
        let origin = origin_key(&start);
        let state = ensure_robots(robots, &origin, &start, fetcher, chain, config, batch).await;
        if let RobotsState::Ready { txt, .. } = state {
            let all = botwarden_robots::Robots::new(txt, &Profile::RFC9309);
            sitemaps.extend(all.sitemaps().filter_map(|s| start.join(s.value).ok()));
        }
    }
    if !sitemaps.is_empty() {
        let read = read_sitemaps(sitemaps, fetcher, config, &mut frontier, batch).await;
        batch.meta.push(("sitemaps".into(), read));
    }
    Ok((start, frontier))
}

/// The store's writer: one thread, one transaction per message batch.
fn spawn_writer(
    store: Store,
    rx: mpsc::Receiver<Batch>,
) -> std::thread::JoinHandle<Result<Store, Error>> {
    std::thread::spawn(move || -> Result<Store, Error> {
        let mut store = store;
        store.defer_indexes()?;
        while let Ok(mut b) = rx.recv() {
            // Join what arrives within COMMIT_WINDOW into one transaction:
            // each commit rewrites the pages it touched, so a transaction
            // per answer would write the same pages again and again.
            let due = std::time::Instant::now() + COMMIT_WINDOW;
            while let Some(left) = due.checked_duration_since(std::time::Instant::now()) {
                match rx.recv_timeout(left) {
                    Ok(more) => merge(&mut b, more),
                    Err(_) => break,
                }
            }
            store.write(&b)?;
        }
        store.build_indexes()?;
        Ok(store)
    })
}

/// The store, once the writer has written everything it was sent.
fn join_writer(
    writer: std::thread::JoinHandle<Result<Store, Error>>,
    path: &str,
) -> Result<Store, Error> {
    writer.join().unwrap_or_else(|_| {
        Err(Error::Store(StoreError {
            path: path.into(),
            message: "the store's writer stopped unexpectedly".into(),
        }))
    })
}

/// Puts back in the frontier the deferred URLs of origins whose robots.txt
/// is no longer being read nor waited for.
fn return_due(
    deferred: &mut Vec<Queued>,
    robots: &HashMap<String, RobotsState>,
    frontier: &mut Frontier,
    now: Instant,
) {
    if deferred.is_empty() {
        return;
    }
    let due = |q: &Queued| {
        let origin = Url::parse(&q.url)
            .map(|u| origin_key(&u))
            .unwrap_or_default();
        !matches!(robots.get(&origin), Some(RobotsState::Waiting { retry, .. }) if *retry > now)
            && !matches!(robots.get(&origin), Some(RobotsState::Fetching))
    };
    let (ready, wait): (Vec<Queued>, Vec<Queued>) = deferred.drain(..).partition(due);
    *deferred = wait;
    for q in ready.into_iter().rev() {
        frontier.put_back(q);
    }
}

/// One line per origin whose URLs the crawl's own settings held: how many,
/// and why.
fn held_lines(held: &[Queued], held_why: &[(String, String)]) -> Vec<String> {
    held_why
        .iter()
        .map(|(origin, why)| {
            let n = held
                .iter()
                .filter(|q| Url::parse(&q.url).is_ok_and(|u| origin_key(&u) == *origin))
                .count();
            format!("{n} URL(s) of {origin} held: {why}")
        })
        .collect()
}

/// The reading of an origin's robots.txt that a resumed crawl takes from
/// its store instead of asking again: a file read and parsed (or a full
/// allow) within [`CrawlConfig::robots_ttl`]. Nothing else is taken: a
/// failure or a full disallow (a server error) is asked again, and the
/// operator's file comes from the simulation.
fn stored_robots(stored: &StoredRobots, config: &CrawlConfig) -> Option<(Url, RobotsRead)> {
    if stored.source != "site" {
        return None;
    }
    let url = Url::parse(&stored.origin).ok()?;
    let at: jiff::Timestamp = stored.fetched_at.parse().ok()?;
    let age = jiff::Timestamp::now().duration_since(at);
    let age = Duration::try_from(age).ok()?;
    if age >= config.robots_ttl {
        return None;
    }
    let body = match stored.availability.as_str() {
        "parse" => botwarden_fetch::utf8_body(&stored.body).into_owned(),
        "full-allow" => Vec::new(),
        _ => return None,
    };
    let why = format!(
        "robots.txt {} as fetched at {} (kept in the store)",
        stored.availability, stored.fetched_at
    );
    Some((
        url,
        RobotsRead::Ready {
            body,
            blanket: None,
            why,
        },
    ))
}

/// Reads sitemaps (indexes lead to more, up to `max_sitemaps` files) and
/// admits their URLs at depth 1, found by `sitemap`. Returns one line per
/// sitemap file: URL, kind, URLs read, URLs over the limit, error.
async fn read_sitemaps(
    mut todo: Vec<Url>,
    fetcher: &Fetcher,
    config: &CrawlConfig,
    frontier: &mut Frontier,
    batch: &mut Batch,
) -> String {
    let mut done: Vec<String> = Vec::new();
    let mut lines = String::new();
    todo.reverse();
    while let Some(url) = todo.pop() {
        if done.len() >= config.max_sitemaps || done.contains(&url.to_string()) {
            continue;
        }
        done.push(url.to_string());
        let (sitemap, error) = match fetcher.fetch_url(url.clone()).await {
            Ok(r) if r.status.is_some_and(|s| (200..300).contains(&s)) => {
                let mut map = parse_sitemap(&r.body);
                // A body cut at --max-bytes is read as far as it goes,
                // and said to be cut, whatever the XML read so far.
                if r.truncated {
                    let cut = format!(
                        "cut at --max-bytes after {} bytes: the URLs after them are not read",
                        r.body.len()
                    );
                    map.error = Some(match map.error.take() {
                        Some(e) => format!("{cut} ({e})"),
                        None => cut,
                    });
                }
                let err = map.error.clone();
                (Some(map), err)
            }
            Ok(r) => (
                None,
                Some(r.error.map_or_else(
                    || {
                        format!(
                            "answered {}",
                            r.status.map_or_else(String::new, |s| s.to_string())
                        )
                    },
                    |e| e.to_string(),
                )),
            ),
            Err(e) => (None, Some(e.to_string())),
        };
        let (kind, count, dropped) = match &sitemap {
            Some(m) => (
                match m.kind {
                    SitemapKind::UrlSet => "urlset",
                    SitemapKind::Index => "index",
                    SitemapKind::Unknown => "not a sitemap",
                },
                m.locs.len(),
                m.dropped,
            ),
            None => ("unread", 0, 0),
        };
        let _ = writeln!(
            lines,
            "{url}\t{kind}\t{count}\t{dropped}\t{}",
            error.unwrap_or_default().replace(['\t', '\n'], " ")
        );
        let Some(map) = sitemap else { continue };
        for loc in &map.locs {
            let Ok(u) = Url::parse(loc)
                .map_err(|_| ())
                .and_then(|u| normalize_url(u).map_err(|_| ()))
            else {
                continue;
            };
            match map.kind {
                SitemapKind::Index => todo.push(u),
                _ => {
                    let admitted = frontier.admit(&u, 1);
                    record_new(batch, &u, 1, "sitemap", &admitted);
                    batch.sitemap_entries.push((admitted.id(), url.to_string()));
                }
            }
        }
    }
    lines
}

/// The facts of a simulated reading kept in `meta`.
fn reading_meta(sim: &Simulation, chain: &TokenChain) -> Vec<(String, String)> {
    let tokens = sim.tokens.as_ref().unwrap_or(chain).tokens().join(" ");
    vec![
        ("robots_origin".into(), sim.site().origin().to_owned()),
        ("robots_tokens".into(), tokens),
        ("robots_profile".into(), sim.profile.name.to_owned()),
        ("robots_source".into(), sim.source()),
    ]
}

fn verification_record(sim: &Simulation) -> VerificationRecord {
    let site = sim.site();
    VerificationRecord {
        origin: site.origin().to_owned(),
        method: site.method().as_str(),
        url: site.url().to_owned(),
        verified_at: site.at().to_owned(),
        token_fingerprint: site.fingerprint().to_owned(),
    }
}

/// A simulation applies to the start URL's site only; a resumed crawl
/// reads robots.txt as it did when it started.
fn check_reading(
    start: &Url,
    config: &CrawlConfig,
    store: &Store,
    resume: bool,
) -> Result<(), Error> {
    let origin = origin_key(start);
    if let Some(sim) = &config.simulation
        && sim.site().origin() != origin
    {
        return Err(Error::Ownership {
            origin,
            message: format!(
                "the ownership verified is of {}, not of the start URL's site",
                sim.site().origin()
            ),
        });
    }
    if !resume {
        return Ok(());
    }
    let chain = config.identity.chain();
    let mut want = config
        .simulation
        .as_ref()
        .map(|s| reading_meta(s, &chain))
        .unwrap_or_default();
    let mut had = Vec::new();
    for key in [
        "robots_origin",
        "robots_tokens",
        "robots_profile",
        "robots_source",
    ] {
        if let Some(v) = store.meta(key)? {
            had.push((key.to_owned(), v));
        }
    }
    want.sort();
    had.sort();
    if want != had {
        let show = |facts: &[(String, String)]| {
            if facts.is_empty() {
                return "botwarden's own reading".to_owned();
            }
            let list: Vec<String> = facts
                .iter()
                .filter(|(k, _)| k != "robots_origin")
                .map(|(k, v)| format!("{}: {v}", k.trim_start_matches("robots_")))
                .collect();
            list.join(", ")
        };
        return Err(Error::Ownership {
            origin,
            message: format!(
                "the crawl in {} read robots.txt with {}; it cannot be resumed with {}",
                store.path().display(),
                show(&had),
                show(&want)
            ),
        });
    }
    Ok(())
}

/// The error of a store that holds no crawl to resume.
fn no_seed(path: &str) -> Error {
    Error::Store(StoreError {
        path: path.into(),
        message: "not a crawl to resume (no seed recorded)".into(),
    })
}

/// Sleeps until `at`; forever when there is none.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Whether an origin's robots.txt is to be fetched now, and if so how many
/// attempts were made before.
fn robots_due(state: Option<&RobotsState>, config: &CrawlConfig, now: Instant) -> Option<u32> {
    let (due, attempts) = match state {
        None => (true, 0),
        Some(RobotsState::Ready { fetched, .. }) => {
            (now.duration_since(*fetched) >= config.robots_ttl, 0)
        }
        Some(RobotsState::Waiting {
            retry, attempts, ..
        }) => (*retry <= now, *attempts),
        Some(RobotsState::Failed { .. } | RobotsState::Held { .. } | RobotsState::Fetching) => {
            (false, 0)
        }
    };
    due.then_some(attempts)
}

/// Makes sure the origin's robots.txt is known (fetching it if needed) and
/// returns its state.
async fn ensure_robots<'a>(
    robots: &'a mut HashMap<String, RobotsState>,
    origin: &str,
    url: &Url,
    fetcher: &Fetcher,
    chain: &TokenChain,
    config: &CrawlConfig,
    batch: &mut Batch,
) -> &'a RobotsState {
    if let Some(attempts) = robots_due(robots.get(origin), config, Instant::now()) {
        let state = fetch_robots_state(url, fetcher, chain, config, attempts, batch).await;
        robots.insert(origin.to_owned(), state);
    }
    robots.get(origin).expect("inserted above")
}

async fn fetch_robots_state(
    url: &Url,
    fetcher: &Fetcher,
    chain: &TokenChain,
    config: &CrawlConfig,
    attempts: u32,
    batch: &mut Batch,
) -> RobotsState {
    let read = read_robots(url, fetcher, config, attempts, batch).await;
    robots_state(url, read, chain, config)
}

/// What became of an origin's robots.txt, in a form that can be kept
/// elsewhere (a coordinator shares it between workers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsRead {
    /// Read: the text obeyed (the file, an empty one for full allow, or a
    /// full disallow), whether it is a blanket rule, and why.
    Ready {
        /// The rules obeyed.
        body: Vec<u8>,
        /// `None`: the file's rules; `Some(false)`: full disallow.
        blanket: Option<bool>,
        /// What was fetched and decided.
        why: String,
    },
    /// Not readable now: ask again after `after`; `attempts` made.
    Waiting {
        /// How long to wait.
        after: Duration,
        /// Attempts made so far.
        attempts: u32,
    },
    /// Not readable after every attempt.
    Failed {
        /// Why.
        why: String,
    },
    /// Not asked because of the crawl's own settings ([`Error::is_own_configuration`]):
    /// says nothing about the site, is never shared nor recorded as the
    /// origin's robots.txt, and holds the origin's URLs queued.
    Held {
        /// Why.
        why: String,
    },
}

/// The crawl's reading of an origin's robots.txt from what was read.
pub(crate) fn robots_state(
    url: &Url,
    read: RobotsRead,
    chain: &TokenChain,
    config: &CrawlConfig,
) -> RobotsState {
    let origin = origin_key(url);
    let sim = config
        .simulation
        .as_ref()
        .filter(|s| s.site().origin() == origin);
    let chain = sim.and_then(|s| s.tokens.as_ref()).unwrap_or(chain);
    let profile = sim.map_or(&Profile::RFC9309, |s| s.profile);
    match read {
        RobotsRead::Ready { body, blanket, why } => {
            let txt = RobotsTxt::parse(body);
            RobotsState::Ready {
                relaxed: Box::new(RobotMatcher::new(&txt, profile, chain)),
                strict: Box::new(RobotMatcher::new(&txt, &Profile::STRICT, chain)),
                txt: Box::new(txt),
                blanket,
                why,
                fetched: Instant::now(),
            }
        }
        RobotsRead::Waiting { after, attempts } => RobotsState::Waiting {
            retry: Instant::now() + after,
            attempts,
        },
        RobotsRead::Failed { why } => RobotsState::Failed { why },
        RobotsRead::Held { why } => RobotsState::Held { why },
    }
}

/// Fetches an origin's robots.txt (or takes the simulation's file) and
/// decides what it means; the file's record goes to `batch`.
pub(crate) async fn read_robots(
    url: &Url,
    fetcher: &Fetcher,
    config: &CrawlConfig,
    attempts: u32,
    batch: &mut Batch,
) -> RobotsRead {
    let origin = origin_key(url);
    let sim = config
        .simulation
        .as_ref()
        .filter(|s| s.site().origin() == origin);
    let ready = |body: &[u8], blanket: Option<bool>, why: String| RobotsRead::Ready {
        body: body.to_vec(),
        blanket,
        why,
    };
    if let Some((label, body)) = sim.and_then(|s| s.robots_file.as_ref()) {
        // The operator's file, for a verified site: the site's is not
        // asked for.
        batch.robots_files.push(RobotsFileRecord {
            origin,
            fetched_at: now_text(),
            status: None,
            availability: Availability::Parse.name().into(),
            error: None,
            body: Some(body.clone()),
            source: "file",
            redirects: 0,
            truncated: false,
        });
        return ready(
            &botwarden_fetch::utf8_body(body),
            None,
            format!("robots.txt from the file {label}"),
        );
    }
    let fetched = match fetcher.fetch_robots(url.as_str()).await {
        Ok(f) => f,
        Err(e) if e.is_own_configuration() => return held(&e),
        Err(e) => {
            batch.robots_files.push(RobotsFileRecord {
                origin,
                fetched_at: now_text(),
                status: None,
                availability: "failed".into(),
                error: Some(e.to_string()),
                body: None,
                source: "site",
                redirects: 0,
                truncated: false,
            });
            return RobotsRead::Failed {
                why: format!("robots.txt could not be requested: {e}"),
            };
        }
    };
    if let Some(e) = fetched
        .report
        .error
        .as_ref()
        .filter(|e| e.is_own_configuration())
    {
        return held(e);
    }
    let decision = fetched.decide(&AvailabilityPolicy::RFC9309);
    let status = fetched.report.status;
    let error = fetched.report.error.as_ref().map(ToString::to_string);
    let why = format!(
        "robots.txt {}: {} ({})",
        status.map_or_else(|| "unanswered".to_owned(), |s| format!("answered {s}")),
        decision.availability,
        decision.reason
    );
    batch.robots_files.push(RobotsFileRecord {
        origin,
        fetched_at: now_text(),
        status,
        availability: decision.availability.name().into(),
        error,
        body: (!fetched.report.body.is_empty()).then(|| fetched.report.body.clone()),
        source: "site",
        redirects: u32::try_from(
            fetched
                .report
                .hops
                .iter()
                .filter(|h| h.status.is_some_and(|s| (300..400).contains(&s)))
                .count(),
        )
        .unwrap_or(u32::MAX),
        truncated: fetched.report.truncated,
    });
    // A server error or no answer disallows everything only for now: the
    // origin's URLs wait and robots.txt is asked again.
    let unreachable = match decision.reason.cause {
        Cause::Timeout | Cause::NetworkError => true,
        Cause::Status(s) | Cause::MissingAlso5xx { status: s, .. } => s >= 500,
        _ => false,
    };
    match decision.availability {
        Availability::FullDisallow if unreachable && attempts + 1 < config.robots_attempts => {
            RobotsRead::Waiting {
                after: decision.refetch_after.min(config.max_pause),
                attempts: attempts + 1,
            }
        }
        Availability::FullDisallow if unreachable => RobotsRead::Failed {
            why: format!("{why}; gave up after {} attempts", config.robots_attempts),
        },
        Availability::Parse => ready(&fetched.report.utf8_body(), None, why),
        Availability::FullAllow => ready(b"", None, why),
        Availability::FullDisallow => ready(b"User-agent: *\nDisallow: /\n", Some(false), why),
        Availability::RetryLater(_) | Availability::UseCached
            if attempts + 1 < config.robots_attempts =>
        {
            let after = match decision.availability {
                Availability::RetryLater(a) => a,
                _ => decision.refetch_after,
            };
            RobotsRead::Waiting {
                after: after.min(config.max_pause),
                attempts: attempts + 1,
            }
        }
        Availability::RetryLater(_) | Availability::UseCached => RobotsRead::Failed {
            why: format!("{why}; gave up after {} attempts", config.robots_attempts),
        },
    }
}

/// The reading of a robots.txt not asked because of the crawl's own
/// settings: nothing is recorded of the origin (a good record stays).
fn held(e: &FetchError) -> RobotsRead {
    let hint = match e {
        FetchError::Refused { .. } => "; allow it with --allow-private if it is meant",
        FetchError::Network { .. } => "; trust its certificate authority with --ca-cert",
        _ => "",
    };
    RobotsRead::Held {
        why: format!("robots.txt was not asked for: {e}{hint}"),
    }
}

/// Takes in one answer.
#[allow(clippy::too_many_arguments)]
fn handle(
    done: Done,
    host: &mut Host,
    frontier: &mut Frontier,
    batch: &mut Batch,
    retries: &mut HashMap<u64, u32>,
    stats: &mut Progress,
    chain: &TokenChain,
    config: &CrawlConfig,
) {
    let Done { q, result } = done;
    let (page, reading) = match result {
        Ok(answer) => answer,
        Err(e) => {
            // Nothing was sent: a refused address (a redirect into a
            // private network, say).
            batch.states.push((
                q.id,
                UrlState::Skipped,
                Some(Skip {
                    reason: "refused",
                    detail: e.to_string(),
                }),
            ));
            return;
        }
    };
    let outcome = page.outcome();
    if outcome.is_indicator() {
        stats.errors += 1;
    }
    if let Some(a) = host.throttle.record(outcome) {
        batch
            .throttle
            .push(throttle_record(page.url.host_str().unwrap_or_default(), &a));
    }
    if let Some(pause) = pause_of(&page, config) {
        host.paused_until = host.paused_until.max(Instant::now() + pause);
        let n = retries.entry(q.id).or_insert(0);
        if *n < config.retries {
            *n += 1;
            frontier.put_back(q);
            return;
        }
    }
    take_page(&q, &page, reading, frontier, batch, chain, config);
}

/// The record of a throttle adjustment on `host`.
pub(crate) fn throttle_record(host: &str, a: &Adjustment) -> ThrottleRecord {
    ThrottleRecord {
        at: now_text(),
        host: host.to_owned(),
        request: a.request,
        indicators: a.indicators,
        window: a.requests_in_window,
        direction: match a.direction {
            Direction::Slower => "slower",
            Direction::Faster => "faster",
        },
        delay_ms: (millis(a.delay.0), millis(a.delay.1)),
        parallel: a.parallel,
    }
}

/// How long a `429` or `503` pauses its host (`Retry-After`, else 5 s, at
/// most [`CrawlConfig::max_pause`]); `None` for other answers.
pub(crate) fn pause_of(page: &PageResponse, config: &CrawlConfig) -> Option<Duration> {
    matches!(page.status, Some(429 | 503)).then(|| {
        page.retry_after
            .as_ref()
            .and_then(|r| r.delay)
            .unwrap_or(Duration::from_secs(5))
            .min(config.max_pause)
    })
}

/// Where the URLs a page leads to are admitted: the crawl's [`Frontier`],
/// or a worker's local one whose new URLs go to its coordinator.
pub(crate) trait Admission {
    /// The id of a URL (in normal form) met before, when admitting it
    /// again changes nothing (`followed`: through a link that is
    /// followed); `None` when it must be admitted.
    fn known_id(&self, url: &str, followed: bool) -> Option<u64>;
    /// A followed URL at `depth`.
    fn admit(&mut self, url: &Url, depth: u32) -> Admitted;
    /// A URL met through nofollow.
    fn admit_unfollowed(&mut self, url: &Url, depth: u32, skip: Skip) -> Admitted;
}

impl Admission for Frontier {
    fn known_id(&self, url: &str, followed: bool) -> Option<u64> {
        Frontier::known_id(self, url, followed)
    }

    fn admit(&mut self, url: &Url, depth: u32) -> Admitted {
        Frontier::admit(self, url, depth)
    }

    fn admit_unfollowed(&mut self, url: &Url, depth: u32, skip: Skip) -> Admitted {
        Frontier::admit_unfollowed(self, url, depth, skip)
    }
}

/// What the store keeps of an answer before its body is read: status or
/// error, timings, sizes, type, charset, hash and headers.
fn page_record(q: &Queued, page: &PageResponse, reading: &Reading) -> PageRecord {
    PageRecord {
        url_id: q.id,
        fetched_at: now_text(),
        status: page.status,
        error: page.error.as_ref().map(ToString::to_string),
        elapsed_ms: page.elapsed.as_secs_f64() * 1e3,
        ttfb_ms: page.ttfb.map(|t| t.as_secs_f64() * 1e3),
        bytes: page.body.len() as u64,
        truncated: page.truncated,
        content_type: page.media_type.clone(),
        charset: page.charset.clone(),
        content_hash: reading.hash.map(|h| format!("{h:016x}")),
        x_robots_tag: (!page.x_robots_tag.is_empty()).then(|| page.x_robots_tag.join(" | ")),
        body_read: page.body_read,
        content_length: page.content_length,
        http_version: page.http_version.map(str::to_owned),
        dns_ms: page.dns.map(|t| t.as_secs_f64() * 1e3),
        connect_ms: page.connect.map(|t| t.as_secs_f64() * 1e3),
        download_ms: page.download.map(|t| t.as_secs_f64() * 1e3),
        header_charset: page.charset.clone(),
        ..PageRecord::default()
    }
}

/// Records an answered page: its record, its links (admitted), its
/// directives.
pub(crate) fn take_page<A: Admission>(
    q: &Queued,
    page: &PageResponse,
    reading: Reading,
    frontier: &mut A,
    batch: &mut Batch,
    chain: &TokenChain,
    config: &CrawlConfig,
) {
    let base = page.url.clone();
    let mut record = page_record(q, page, &reading);
    // A page of the simulated site is read for the simulated chain's meta
    // names and X-Robots-Tag prefixes (`<meta name="googlebot">`).
    let chain = config
        .simulation
        .as_ref()
        .filter(|s| s.site().origin() == origin_key(&page.url))
        .and_then(|s| s.tokens.as_ref())
        .unwrap_or(chain);
    let mut directives = PageDirectives::new();
    for value in &page.x_robots_tag {
        directives.add_header(value, chain.tokens());
    }
    let mut position = 0u32;
    // Each link's normal form, written into one buffer: most links lead
    // to URLs met before, and need no more than their text.
    let mut text = String::new();
    let mut link = |batch: &mut Batch,
                    frontier: &mut A,
                    against: &Url,
                    href: &str,
                    kind: &'static str,
                    anchor: Option<String>,
                    rel: Option<String>,
                    follow: Result<u32, String>| {
        let pos = position;
        position += 1;
        // An empty `href` leads back to the page itself: kept as written,
        // not as a link to the page, so that it can be reported.
        let normalized = !href.is_empty() && normalize_text(against, href, &mut text).is_ok();
        // A link of the page's body that leads to the page itself (`#top`,
        // its own URL, an empty `href`) is no link of the site's graph.
        let same_page = matches!(kind, "a" | "area" | "iframe")
            && (href.is_empty() || (normalized && text == q.url));
        let known = normalized
            .then(|| frontier.known_id(&text, follow.is_ok()))
            .flatten();
        if let Some(id) = known {
            batch.links.push(LinkRecord {
                source: q.id,
                target: Some(id),
                target_text: None,
                kind,
                anchor,
                rel,
                followed: follow.is_ok(),
                position: pos,
                same_page,
            });
            return;
        }
        // A URL met for the first time: resolved again, as a `Url`, for
        // the frontier's checks (cheaper than parsing the whole text).
        let target = match normalized.then(|| normalize(against, href).ok()).flatten() {
            Some(t) => t,
            None => {
                batch.links.push(LinkRecord {
                    source: q.id,
                    target: None,
                    target_text: Some(href.chars().take(2048).collect()),
                    kind,
                    anchor,
                    rel,
                    followed: false,
                    position: pos,
                    same_page,
                });
                return;
            }
        };
        // A redirect's target is met at the depth it is admitted at.
        let depth = follow.as_ref().map_or(q.depth + 1, |d| *d);
        let (admitted, followed) = match follow {
            Ok(depth) => (frontier.admit(&target, depth), true),
            Err(why) => (
                frontier.admit_unfollowed(
                    &target,
                    q.depth + 1,
                    Skip {
                        reason: "nofollow",
                        detail: why,
                    },
                ),
                false,
            ),
        };
        record_new(batch, &target, depth, found_by(kind), &admitted);
        batch.links.push(LinkRecord {
            source: q.id,
            target: Some(admitted.id()),
            target_text: None,
            kind,
            anchor,
            rel,
            followed,
            position: pos,
            same_page,
        });
    };
    if page.is_redirect() {
        if let Some(loc) = page.location.as_deref() {
            if let Ok(t) = normalize(&base, loc) {
                record.location = Some(t.to_string());
            }
            link(
                batch,
                frontier,
                &base,
                loc,
                "redirect",
                None,
                None,
                Ok(q.depth),
            );
        }
    } else if let Some(read) = reading.html {
        match read {
            // The page was fetched but not read: say so with the page.
            Err(e) => record.error = Some(e.to_string()),
            Ok(mut facts) => {
                for m in &facts.metas {
                    directives.add_meta(&m.name, &m.content, chain.tokens());
                }
                record.title = facts.title.clone();
                record.charset = Some(facts.encoding.to_owned());
                record_facts(&mut record, &facts, page, &base);
                let page_nofollow = directives
                    .nofollow()
                    .map(|d| format!("nofollow in {} on {}", d.origin, base));
                let base_url = facts.base_url(&base);
                let next = q.depth + 1;
                let follow = |rel_words: &str| -> Result<u32, String> {
                    if config.follow_nofollow {
                        return Ok(next);
                    }
                    if let Some(why) = &page_nofollow {
                        return Err(why.clone());
                    }
                    if !rel_words.is_empty() {
                        return Err(format!("rel=\"{rel_words}\" on {base}"));
                    }
                    Ok(next)
                };
                // The refresh first: one made at once is a redirect, whose
                // target is met at the page's depth before a link of the
                // page can reach it one click further.
                let refresh = match facts.refresh.as_deref() {
                    Some(r) => Some((&base_url, r)),
                    None => page.refresh.as_deref().map(|r| (&base, r)),
                };
                if let Some((against, content)) = refresh
                    && let Some(target) = html::refresh_target(content)
                {
                    // A refresh made at once is a redirect: followed
                    // whatever the page's nofollow, at the page's depth.
                    let instant = take_refresh(&mut record, against, content, target);
                    let follow = if instant { Ok(q.depth) } else { follow("") };
                    link(
                        batch, frontier, against, target, "refresh", None, None, follow,
                    );
                }
                for l in std::mem::take(&mut facts.links) {
                    let words = l.rel.words();
                    let kind = match l.element {
                        LinkElement::A => "a",
                        LinkElement::Area => "area",
                        LinkElement::Frame => "iframe",
                    };
                    link(
                        batch,
                        frontier,
                        &base_url,
                        &l.href,
                        kind,
                        (!l.anchor.is_empty()).then_some(l.anchor),
                        (!words.is_empty()).then(|| words.clone()),
                        follow(&words),
                    );
                }
                // An HTML canonical is relative to the document's base URL,
                // a `Link` header's to the page's.
                let canonicals: Vec<(&Url, String)> = facts
                    .canonicals
                    .iter()
                    .map(|c| (&base_url, c.clone()))
                    .chain(
                        link_header_canonicals(&page.link)
                            .into_iter()
                            .map(|c| (&base, c)),
                    )
                    .collect();
                if let Some((against, c)) = canonicals.first()
                    && let Ok(t) = normalize(against, c)
                {
                    record.canonical = Some(t.to_string());
                }
                for (against, c) in &canonicals {
                    link(
                        batch,
                        frontier,
                        against,
                        c,
                        "canonical",
                        None,
                        None,
                        follow(""),
                    );
                }
                for a in &facts.alternates {
                    link(
                        batch,
                        frontier,
                        &base_url,
                        &a.href,
                        "hreflang",
                        Some(a.hreflang.clone()),
                        None,
                        follow(""),
                    );
                }
            }
        }
    } else if let Some(content) = page.refresh.as_deref()
        && let Some(target) = html::refresh_target(content)
    {
        let instant = take_refresh(&mut record, &base, content, target);
        let depth = if instant { q.depth } else { q.depth + 1 };
        link(
            batch,
            frontier,
            &base,
            target,
            "refresh",
            None,
            None,
            Ok(depth),
        );
    }
    let now = SystemTime::now();
    record.noindex = directives.noindex_at(now).map(|d| d.origin.to_string());
    record.nofollow = directives.nofollow().map(|d| d.origin.to_string());
    batch.pages.push(record);
    batch.states.push((q.id, UrlState::Fetched, None));
}

/// Records a refresh that names a URL (`content` as written, `target`
/// its URL): its target, its delay, and for one made at once
/// ([`html::INSTANT_REFRESH`]) its target resolved as the page's
/// `location`, as a redirect's. Returns whether it is made at once.
fn take_refresh(record: &mut PageRecord, against: &Url, content: &str, target: &str) -> bool {
    record.refresh = Some(target.to_owned());
    record.refresh_delay = html::refresh_delay(content);
    let instant = record
        .refresh_delay
        .is_some_and(|d| d <= html::INSTANT_REFRESH);
    if instant && let Ok(t) = normalize(against, target) {
        record.location = Some(t.to_string());
    }
    instant
}

/// What the audit reads of an HTML page, beside its links and directives.
fn record_facts(record: &mut PageRecord, facts: &HtmlFacts, page: &PageResponse, base: &Url) {
    let descriptions: Vec<&html::Meta> = facts
        .metas
        .iter()
        .filter(|m| m.name.trim().eq_ignore_ascii_case("description"))
        .collect();
    record.description_count = Some(u32::try_from(descriptions.len()).unwrap_or(u32::MAX));
    record.description = descriptions
        .first()
        .map(|m| m.content.split_whitespace().collect::<Vec<_>>().join(" "));
    record.h1 = facts.h1.clone();
    record.h1_count = Some(facts.h1_count);
    record.canonical_count = Some(u32::try_from(facts.canonicals.len()).unwrap_or(u32::MAX));
    record.canonical_written = facts.canonicals.first().cloned();
    record.canonical_outside_head = Some(facts.canonicals_outside_head);
    record.canonical_header = link_header_canonicals(&page.link)
        .first()
        .and_then(|c| normalize(base, c).ok())
        .map(|u| u.to_string());
    record.base_href = facts.base.clone();
    record.base_count = Some(facts.base_count);
    record.meta_charset = facts.meta_charset.clone();
    record.bom = encoding_rs::Encoding::for_bom(&page.body).map(|(e, _)| e.name().to_owned());
    record.simhash = facts.simhash;
    let robots: Vec<String> = facts
        .metas
        .iter()
        .filter(|m| {
            let n = m.name.trim();
            n.eq_ignore_ascii_case("robots") || n.eq_ignore_ascii_case("botwarden")
        })
        .map(|m| format!("{}: {}", m.name.trim(), m.content.trim()))
        .collect();
    record.robots_meta = (!robots.is_empty()).then(|| robots.join(" | "));
    // Set on every HTML page read: a store of schema 5 read it.
    record.head_ignored_count = Some(facts.head_ignored_count);
    if let Some(b) = &facts.head_break {
        record.head_break = Some(b.element.clone());
        record.head_break_line = Some(b.line);
        record.head_ignored = (!facts.head_ignored.is_empty()).then(|| {
            let lines: Vec<String> = facts
                .head_ignored
                .iter()
                .map(|p| format!("{} (line {})", p.what, p.line))
                .collect();
            lines.join("\n")
        });
    }
    if base.scheme() == "https" {
        record.mixed_active = Some(facts.insecure_active);
        record.mixed_passive = Some(facts.insecure_passive);
        record.mixed_examples = (!facts.insecure.is_empty()).then(|| {
            let lines: Vec<String> = facts
                .insecure
                .iter()
                .map(|i| format!("{} {} (line {})", i.element, i.url, i.line))
                .collect();
            lines.join("\n")
        });
    }
}

fn found_by(kind: &str) -> &'static str {
    match kind {
        "redirect" => "redirect",
        "canonical" => "canonical",
        "hreflang" => "hreflang",
        "refresh" => "refresh",
        _ => "link",
    }
}

/// Records a URL met for the first time (or promoted) in the batch.
pub(crate) fn record_new(
    batch: &mut Batch,
    url: &Url,
    depth: u32,
    found_by: &'static str,
    a: &Admitted,
) {
    match a {
        Admitted::Queued(id) => batch.new_urls.push(NewUrl {
            id: *id,
            url: url.to_string(),
            depth,
            found_by,
            state: UrlState::Queued,
            skip: None,
        }),
        Admitted::Skipped(id, skip) => batch.new_urls.push(NewUrl {
            id: *id,
            url: url.to_string(),
            depth,
            found_by,
            state: UrlState::Skipped,
            skip: Some(skip.clone()),
        }),
        Admitted::Promoted(id) => batch.states.push((*id, UrlState::Queued, None)),
        Admitted::Known(_) => {}
    }
}

fn flush(tx: &mpsc::Sender<Batch>, batch: &mut Batch) {
    if !batch.is_empty() {
        // The writer ends only when this side hangs up or fails; a failure
        // is reported when it is joined.
        let _ = tx.send(std::mem::take(batch));
    }
}

fn merge(into: &mut Batch, more: Batch) {
    into.new_urls.extend(more.new_urls);
    into.states.extend(more.states);
    into.pages.extend(more.pages);
    into.links.extend(more.links);
    into.robots.extend(more.robots);
    into.robots_files.extend(more.robots_files);
    into.throttle.extend(more.throttle);
    into.verifications.extend(more.verifications);
    into.meta.extend(more.meta);
    into.sitemap_entries.extend(more.sitemap_entries);
}

fn rule_line(reason: Reason) -> Option<u32> {
    match reason {
        Reason::Rule { line, .. } => Some(line),
        _ => None,
    }
}

fn rule_text(m: &RobotMatcher, txt: &RobotsTxt, reason: Reason) -> Option<String> {
    match reason {
        Reason::Rule { index, .. } => Some(m.rule_as_written(txt, index)),
        _ => None,
    }
}

/// `scheme://host[:port]`.
pub(crate) fn origin_key(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// `host[:port]` (both schemes share the host's politeness).
pub(crate) fn host_key(url: &Url) -> String {
    match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    }
}

/// The path and query, as robots.txt rules see them.
fn path_and_query(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `bytes`' hash of the kind `hash`.
fn hash_body(hash: BodyHash, bytes: &[u8]) -> u64 {
    match hash {
        BodyHash::Xxh3 => xxhash_rust::xxh3::xxh3_64(bytes),
        BodyHash::Sha256 => {
            let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
            let mut head = [0u8; 8];
            head.copy_from_slice(&digest.as_ref()[..8]);
            u64::from_be_bytes(head)
        }
        BodyHash::Fnv1a => fnv1a(bytes),
    }
}

/// 64-bit FNV-1a: a stable hash of a body, to find duplicate pages.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub(crate) fn now_text() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_hashes_are_the_published_ones() {
        // XXH3-64("") = 2d06800538d394c2, XXH3-64("abc") = 78af5f94892f3950
        // (xxHash's own sanity checks); SHA-256("abc") = ba7816bf 8f01cfea …;
        // FNV-1a 64("a") = af63dc4c8601ec8c.
        assert_eq!(hash_body(BodyHash::Xxh3, b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(hash_body(BodyHash::Xxh3, b"abc"), 0x78af_5f94_892f_3950);
        assert_eq!(hash_body(BodyHash::Sha256, b"abc"), 0xba78_16bf_8f01_cfea);
        assert_eq!(hash_body(BodyHash::Fnv1a, b"a"), 0xaf63_dc4c_8601_ec8c);
        for kind in [BodyHash::Xxh3, BodyHash::Sha256, BodyHash::Fnv1a] {
            assert_eq!(BodyHash::of_store(Some(kind.name())), kind);
        }
        assert_eq!(BodyHash::of_store(None), BodyHash::Fnv1a);
    }

    fn queued(id: u64) -> Queued {
        Queued {
            id,
            url: format!("https://example.com/{id}"),
            depth: 1,
        }
    }

    #[tokio::test]
    async fn a_request_whose_task_panics_is_recorded_not_lost() {
        let mut running = InFlight::default();
        running.spawn(queued(1), async { panic!("broken parser") });
        running.spawn(queued(2), async {
            Err(FetchError::InvalidUrl {
                url: "x".into(),
                reason: "an answer, if a failed one".into(),
            })
        });
        let mut lost = Vec::new();
        let mut answered = Vec::new();
        while let Some(joined) = running.next().await {
            match joined {
                Joined::Lost(q, why) => lost.push((q, why)),
                Joined::Answer(done) => answered.push(done.q.id),
            }
        }
        assert!(running.is_empty() && running.urls.is_empty());
        assert_eq!(answered, [2]);
        assert_eq!(lost.len(), 1);
        let (q, why) = &lost[0];
        assert_eq!(q, &queued(1));
        assert_eq!(why, "its task panicked: broken parser");

        let mut batch = Batch::default();
        record_lost(&mut batch, q, why);
        assert_eq!(batch.pages.len(), 1);
        assert_eq!(batch.pages[0].url_id, 1);
        assert_eq!(batch.pages[0].status, None);
        assert_eq!(
            batch.pages[0].error.as_deref(),
            Some("the request failed inside the crawler: its task panicked: broken parser")
        );
        assert_eq!(batch.states, [(1, UrlState::Fetched, None)]);
    }
}
