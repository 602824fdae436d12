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
use std::time::Duration;

use botwarden_fetch::Fetcher;
use botwarden_robots::{Profile, TokenChain};
use botwarden_store::{
    Batch, BodyHash, Error as StoreError, Store, StoredRobots, TextReading, UrlState,
    VerificationRecord, normalize_url,
};
use tokio::task::{self, JoinSet};
use tokio::time::Instant;
use url::Url;

use crate::error::Error;
use crate::frontier::{Frontier, FrontierConfig, Queued};
use crate::identity::Identity;
use crate::ownership::Simulation;
use crate::pipeline::{
    Answer, Done, InFlight, Joined, Readings, RobotsRead, RobotsState, Verdict, claimed_url,
    host_key, now_text, origin_key, read_robots, record_lost, record_new, robots_state, start_meta,
    start_url, task_failure, throttle_record,
};
use crate::render::RenderSetup;
use crate::sitemap::{SitemapKind, parse_sitemap};
use crate::throttle::{Throttle, ThrottleConfig};

mod rendering;

use rendering::{RenderEvent, Rendering};

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
    /// Record the images, scripts and style sheets each HTML page uses
    /// (`page_resources`), for [`crate::check_resources`] to ask after
    /// the crawl (`--resources`). Off by default.
    pub resources: bool,
    /// Render HTML pages in a browser as well (`--render`; [`crate::Renderer`]).
    pub render: Option<RenderSetup>,
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
            resources: false,
            render: None,
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

impl Progress {
    /// The progress line, at most `width` columns: what is least needed
    /// is left out first. `rate` is the pages a second of the last
    /// seconds; `stopping`, whether the crawl was asked to stop.
    #[must_use]
    pub fn line(&self, rate: f64, stopping: bool, width: usize) -> String {
        let mut parts = vec![
            format!("{} fetched", self.fetched),
            format!("{} queued", self.waiting),
            format!("{}/{} in flight", self.in_flight, self.parallel),
            format!("{rate:.1}/s"),
            format!("{} errors", self.errors),
            format!("delay {} ms", self.delay.as_millis()),
        ];
        let tail = if stopping { " - stopping" } else { "" };
        loop {
            let line = format!("{}{tail}", parts.join(", "));
            if line.chars().count() <= width || parts.len() <= 2 {
                return line;
            }
            parts.pop();
        }
    }
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

/// What woke the scheduler.
enum Event {
    Page(Joined),
    Render(RenderEvent),
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
    let readings = readings(&store, resume)?;
    let (start, frontier) = if resume {
        resumed(config, &store, &path, &chain, &mut batch, &mut robots)?
    } else {
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

    let mut run = Run {
        config,
        fetcher,
        stop,
        chain,
        readings,
        frontier,
        batch,
        robots,
        hosts: HashMap::new(),
        deferred: Vec::new(),
        retries: HashMap::new(),
        running: InFlight::default(),
        robots_tasks: JoinSet::new(),
        robots_origins: HashMap::new(),
        stats: Progress::default(),
        start_host: host_key(&start),
        held: Vec::new(),
        held_why: Vec::new(),
        rendering: config.render.clone().map(Rendering::new),
    };
    loop {
        let wake = run.schedule();
        if run.is_done() {
            break;
        }
        let event = run.next_event(wake).await;
        run.on_event(event).await;
        run.report(&mut progress);
        // Every answer goes to the writer at once (it joins what queues
        // up into one transaction): a crawl killed at any moment loses
        // only the requests in flight and the answers not yet committed.
        flush(&tx, &mut run.batch);
    }
    let end = run.end();
    flush(&tx, &mut run.batch);
    drop(tx);
    let store = join_writer(writer, &path)?;
    Ok((store, end))
}

/// A crawl under way: what its scheduler keeps from one event to the next.
struct Run<'a> {
    config: &'a CrawlConfig,
    fetcher: &'a Fetcher,
    stop: &'a StopSignal,
    chain: TokenChain,
    readings: Readings,
    frontier: Frontier,
    /// What goes to the writer next.
    batch: Batch,
    robots: HashMap<String, RobotsState>,
    hosts: HashMap<String, Host>,
    /// URLs waiting for their origin's robots.txt.
    deferred: Vec<Queued>,
    /// Times each URL was answered `429`/`503` and asked again.
    retries: HashMap<u64, u32>,
    running: InFlight,
    /// robots.txt fetches, beside the requests, each with its origin.
    robots_tasks: JoinSet<Box<(RobotsState, Batch)>>,
    robots_origins: HashMap<task::Id, String>,
    stats: Progress,
    start_host: String,
    /// URLs held by the crawl's own settings, and why, by origin.
    held: Vec<Queued>,
    held_why: Vec<(String, String)>,
    /// Pages rendered and the browser's requests (`--render`).
    rendering: Option<Rendering>,
}

impl Run<'_> {
    /// Starts every request that may start now; returns when the loop is
    /// to wake to start more, if no answer wakes it before.
    fn schedule(&mut self) -> Option<Instant> {
        let now = Instant::now();
        // URLs of origins whose robots.txt is due again come back.
        return_due(&mut self.deferred, &self.robots, &mut self.frontier, now);
        // The browser's requests first: the renders waiting for them hold
        // their pages.
        let mut wake: Option<Instant> = self.schedule_resources(now);
        while !self.stop.is_stopped() && !self.rendering.as_ref().is_some_and(Rendering::is_full) {
            let Some(q) = self.frontier.pop() else { break };
            if !self.take(q, now, &mut wake) {
                break;
            }
        }
        // URLs waiting for their robots.txt wake the loop when it is due.
        if !self.deferred.is_empty() {
            for state in self.robots.values() {
                if let RobotsState::Waiting { retry, .. } = state {
                    wake = Some(wake.map_or(*retry, |w| w.min(*retry)));
                }
            }
        }
        if self.stop.is_stopped() {
            // What is left stays queued in the store: a robots.txt being
            // read is asked again on resume.
            self.robots_tasks.abort_all();
        }
        // Requests in flight are counted here, with every request that may
        // start started: after an answer one slot is always free for a
        // moment, so a count taken then is one short.
        self.stats.in_flight = u32::try_from(self.running.len()).unwrap_or(u32::MAX);
        wake
    }

    /// Takes one URL from the frontier: judged, put off, or requested.
    /// Returns `false` when its host must wait (the URL is put back, and
    /// nothing more starts now).
    fn take(&mut self, q: Queued, now: Instant, wake: &mut Option<Instant>) -> bool {
        let Some(url) = claimed_url(q.id, &q.url, &mut self.batch) else {
            return true;
        };
        let origin = origin_key(&url);
        // robots.txt is fetched in a task of its own: a slow one holds
        // only its origin's URLs.
        if let Some(attempts) = robots_due(self.robots.get(&origin), self.config, now) {
            self.ask_robots(&origin, &url, attempts);
        }
        let Some(state) = self.robots.get(&origin) else {
            self.deferred.push(q);
            return true;
        };
        let throttle = self.config.throttle;
        let host = self.hosts.entry(host_key(&url)).or_insert_with(|| Host {
            throttle: Throttle::new(throttle, throttle.min_delay, throttle.max_parallel),
            in_flight: 0,
            next_start: now,
            paused_until: now,
        });
        if let Some(d) = state.crawl_delay(self.config) {
            host.throttle.raise_floor(d);
        }
        match state.verdict(q.id, &url, &mut self.batch) {
            Verdict::Fetch => {}
            Verdict::Skipped => return true,
            Verdict::Reading => {
                self.deferred.push(q);
                return true;
            }
            Verdict::Waiting(retry) => {
                *wake = Some(wake.map_or(retry, |w| w.min(retry)));
                self.deferred.push(q);
                return true;
            }
            Verdict::Held(why) => {
                if !self.held_why.iter().any(|(o, _)| *o == origin) {
                    self.held_why.push((origin.clone(), why.to_owned()));
                }
                self.held.push(q);
                return true;
            }
        }
        let gate = host.next_start.max(host.paused_until);
        if host.in_flight >= host.throttle.parallel() || gate > now {
            if host.in_flight < host.throttle.parallel() {
                *wake = Some(wake.map_or(gate, |w| w.min(gate)));
            }
            self.frontier.put_back(q);
            return false;
        }
        host.in_flight += 1;
        host.next_start = now + host.throttle.delay();
        self.running.fetch(q, url, self.fetcher, self.readings);
        true
    }

    /// Starts reading `origin`'s robots.txt (`attempts` made before) in a
    /// task of its own; its URLs wait meanwhile.
    fn ask_robots(&mut self, origin: &str, url: &Url, attempts: u32) {
        self.robots.insert(origin.to_owned(), RobotsState::Fetching);
        let (url, fetcher, chain, config) = (
            url.clone(),
            self.fetcher.clone(),
            self.chain.clone(),
            self.config.clone(),
        );
        let handle = self.robots_tasks.spawn(async move {
            let mut batch = Batch::default();
            let state =
                fetch_robots_state(&url, &fetcher, &chain, &config, attempts, &mut batch).await;
            Box::new((state, batch))
        });
        self.robots_origins.insert(handle.id(), origin.to_owned());
    }

    /// Whether the crawl is over: nothing in flight, and nothing left to
    /// start (or a stop asked for).
    fn is_done(&self) -> bool {
        let stopped = self.stop.is_stopped();
        let idle = self.running.is_empty()
            && self.robots_tasks.is_empty()
            && (self.frontier.waiting() == 0 || stopped);
        idle && (self.deferred.is_empty() || stopped)
            && !self.rendering.as_ref().is_some_and(Rendering::is_busy)
    }

    /// Waits for an answer, a robots.txt, or the moment a host may be
    /// asked again (`wake`).
    async fn next_event(&mut self, wake: Option<Instant>) -> Event {
        let stop = self.stop;
        tokio::select! {
            Some(joined) = self.running.next() => Event::Page(joined),
            Some(fetched) = self.robots_tasks.join_next_with_id() => Event::Robots(fetched),
            event = render_event(&mut self.rendering), if self.rendering.as_ref().is_some_and(Rendering::is_busy) => Event::Render(event),
            () = sleep_until_some(wake), if wake.is_some() => Event::Tick,
            () = stop.raised(), if !stop.is_stopped() => Event::Tick,
            else => Event::Nothing,
        }
    }

    /// Takes in what woke the loop.
    async fn on_event(&mut self, event: Event) {
        match event {
            Event::Page(Joined::Answer(done)) => self.on_answer(*done),
            Event::Page(Joined::Lost(q, why)) => {
                let key = Url::parse(&q.url).map(|u| host_key(&u)).ok();
                if let Some(host) = key.and_then(|k| self.hosts.get_mut(&k)) {
                    host.in_flight = host.in_flight.saturating_sub(1);
                }
                self.stats.fetched += 1;
                self.stats.errors += 1;
                record_lost(&mut self.batch, &q, &why);
            }
            Event::Robots(Ok((id, fetched))) => {
                let (state, more) = *fetched;
                if let Some(origin) = self.robots_origins.remove(&id) {
                    self.robots.insert(origin, state);
                }
                merge(&mut self.batch, more);
            }
            Event::Robots(Err(e)) => {
                if let Some(origin) = self.robots_origins.remove(&e.id()) {
                    if e.is_cancelled() {
                        // Stopped while it was read: asked again on resume.
                        self.robots.remove(&origin);
                    } else {
                        let why = format!("robots.txt could not be read: {}", task_failure(e));
                        self.robots.insert(origin, RobotsState::Failed { why });
                    }
                }
            }
            Event::Render(event) => self.on_render_event(event),
            Event::Tick => {}
            // Nothing in flight and nothing to wait for, yet not done: a
            // moment's pause rather than a busy loop.
            Event::Nothing => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }

    /// Takes in one answer: counted against its host, asked again after
    /// a `429` or `503` while retries are left, else taken in.
    fn on_answer(&mut self, done: Done) {
        let key = Url::parse(&done.q.url).map(|u| host_key(&u)).ok();
        let Some(host) = key.and_then(|k| self.hosts.get_mut(&k)) else {
            return;
        };
        host.in_flight = host.in_flight.saturating_sub(1);
        self.stats.fetched += 1;
        let Some(answer) = Answer::of(done, &mut self.batch, self.config) else {
            return;
        };
        if answer.outcome.is_indicator() {
            self.stats.errors += 1;
        }
        if let Some(a) = host.throttle.record(answer.outcome) {
            self.batch.throttle.push(throttle_record(answer.host(), &a));
        }
        if let Some(pause) = answer.pause {
            host.paused_until = host.paused_until.max(Instant::now() + pause);
            let n = self.retries.entry(answer.q.id).or_insert(0);
            if answer.retry(*n, self.config) {
                *n += 1;
                self.frontier.put_back(answer.q);
                return;
            }
        }
        if let Some(r) = self.rendering.as_mut()
            && Rendering::takes(&answer)
        {
            r.start(answer);
            return;
        }
        answer.take(
            &mut self.frontier,
            &mut self.batch,
            &self.chain,
            self.config,
        );
    }

    /// Tells `progress` where the crawl is.
    fn report(&mut self, progress: &mut impl FnMut(&Progress)) {
        let stats = &mut self.stats;
        stats.waiting = (self.frontier.waiting() + self.deferred.len() + self.held.len()) as u64;
        stats.known = self.frontier.known() as u64;
        if let Some(h) = self.hosts.get(&self.start_host) {
            stats.delay = h.throttle.delay();
            stats.parallel = h.throttle.parallel();
        }
        progress(stats);
    }

    /// How the crawl ended; its last facts go into the batch.
    fn end(&mut self) -> CrawlEnd {
        let left = (self.frontier.waiting() + self.deferred.len() + self.held.len()) as u64;
        // Finished only when nothing is left for reasons of the site: URLs
        // held by the crawl's own settings leave it stopped, to be resumed.
        let stopped = (self.stop.is_stopped() || !self.held.is_empty()) && left > 0;
        let held = held_lines(&self.held, &self.held_why);
        let meta = &mut self.batch.meta;
        meta.push((
            "state".into(),
            if stopped { "stopped" } else { "finished" }.into(),
        ));
        meta.push(("held".into(), held.join("\n")));
        meta.push(("ended_at".into(), now_text()));
        CrawlEnd {
            fetched: self.stats.fetched,
            stopped,
            left,
            held,
        }
    }
}

/// How the crawl's body hashes and SimHash text are read: a new crawl's
/// by [`BodyHash::NEW`] and [`TextReading::Scan`], a resumed one's as its
/// store's pages were.
fn readings(store: &Store, resume: bool) -> Result<Readings, Error> {
    if !resume {
        return Ok(Readings {
            hash: BodyHash::NEW,
            text: TextReading::Scan,
        });
    }
    Ok(Readings {
        hash: BodyHash::of_store(store.meta(BodyHash::META)?.as_deref()),
        // A resumed crawl reads the SimHash's text as its store's pages were.
        text: TextReading::of_store(store.meta(TextReading::META)?.as_deref()),
    })
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
    readings: Readings,
    batch: &mut Batch,
    robots: &mut HashMap<String, RobotsState>,
) -> Result<(Url, Frontier), Error> {
    let Begin {
        start,
        fetcher,
        chain,
        config,
    } = *at;
    let start = start_url(start)?;
    let mut frontier = Frontier::new(&start, config.frontier.clone());
    let admitted = frontier.admit(&start, 0);
    record_new(batch, &start, 0, "seed", &admitted);
    batch.meta = start_meta(&start, config, readings);
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
pub(crate) fn stored_robots(
    stored: &StoredRobots,
    config: &CrawlConfig,
) -> Option<(Url, RobotsRead)> {
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

/// The record of the verification a simulation stands on.
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
/// The next event of rendering, when there is rendering.
async fn render_event(rendering: &mut Option<Rendering>) -> RenderEvent {
    match rendering {
        Some(r) => r.next().await,
        None => std::future::pending().await,
    }
}

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

/// Reads an origin's robots.txt into the crawl's reading of it.
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

/// Sends the batch to the writer, if it holds anything.
fn flush(tx: &mpsc::Sender<Batch>, batch: &mut Batch) {
    if !batch.is_empty() {
        // The writer ends only when this side hangs up or fails; a failure
        // is reported when it is joined.
        let _ = tx.send(std::mem::take(batch));
    }
}

/// Adds `more` to `into`. Every field is named, so that a field added to
/// [`Batch`] cannot be dropped here unnoticed.
fn merge(into: &mut Batch, more: Batch) {
    let Batch {
        new_urls,
        states,
        pages,
        links,
        robots,
        robots_files,
        throttle,
        verifications,
        meta,
        sitemap_entries,
        usage,
        page_resources,
        renders,
        render_requests,
    } = more;
    into.new_urls.extend(new_urls);
    into.states.extend(states);
    into.pages.extend(pages);
    into.links.extend(links);
    into.robots.extend(robots);
    into.robots_files.extend(robots_files);
    into.throttle.extend(throttle);
    into.verifications.extend(verifications);
    into.meta.extend(meta);
    into.sitemap_entries.extend(sitemap_entries);
    into.usage.extend(usage);
    into.page_resources.extend(page_resources);
    into.renders.extend(renders);
    into.render_requests.extend(render_requests);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress() -> Progress {
        Progress {
            fetched: 1_234_567,
            waiting: 7_654_321,
            known: 9_000_000,
            errors: 12_345,
            delay: Duration::from_millis(2_500),
            parallel: 16,
            in_flight: 16,
        }
    }

    #[test]
    fn the_progress_line_fits_80_columns_and_keeps_the_counts() {
        for stopping in [false, true] {
            let line = progress().line(1234.56, stopping, 77);
            assert!(line.chars().count() <= 77, "{line}");
            assert!(
                line.starts_with("1234567 fetched, 7654321 queued, 16/16 in flight"),
                "{line}"
            );
            assert_eq!(line.ends_with(" - stopping"), stopping, "{line}");
        }
        let wide = progress().line(1234.56, false, 200);
        assert!(
            wide.ends_with("1234.6/s, 12345 errors, delay 2500 ms"),
            "{wide}"
        );
    }
}
