//! One crawl shared by many workers: the seam between a worker and the
//! state the workers share.
//!
//! A [`Coordinator`] holds what [`crawl`](crate::crawl) keeps in its own
//! memory — the frontier, the seen-set, each host's politeness (delay,
//! parallelism, the throttle's error window, pauses) and the robots.txt
//! cache — so that several workers, in one process or on many machines,
//! crawl one site as one polite crawler would. A worker
//! ([`crawl_worker`]) asks it for URLs it may fetch *now* (a [`Lease`]
//! each), fetches them, writes pages and links to its own store, offers
//! the URLs it found, and then reports each lease finished. A lease not
//! finished in time (the worker died) returns to the frontier, so a worker
//! that dies loses nothing: what it committed is in its store, what it did
//! not is fetched again by another.
//!
//! [`LocalCoordinator`] is the in-process coordinator, built of the
//! crawler's own [`Frontier`] and [`Throttle`]; `botwarden-scale` has one
//! on Redis. The stores of the workers are merged into one by
//! [`merge_stores`](botwarden_store::merge_stores).
//!
//! The order that makes a dead worker lose nothing: a page's new URLs are
//! offered, then the page is committed to the worker's store, then its
//! lease is finished. A worker killed between the commit and the finish
//! has its URL fetched once more by another worker (the merge keeps one
//! page per URL).

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use botwarden_fetch::Fetcher;
use botwarden_robots::TokenChain;
use botwarden_store::{
    Batch, BodyHash, Error as StoreError, NewUrl, Skip, Store, TextReading, UrlState,
};
use tokio::time::Instant;
use url::Url;

use crate::crawler::{CrawlConfig, StopSignal};
use crate::error::Error;
use crate::frontier::{Admitted, Frontier, FrontierConfig, Queued};
use crate::pipeline::{
    Answer, InFlight, Joined, Readings, RobotsRead, RobotsState, Verdict, claimed_url, host_key,
    now_text, origin_key, read_robots, record_lost, record_new, robots_state, start_meta,
    start_url, throttle_record,
};
use crate::throttle::{Adjustment, Outcome, Throttle, ThrottleConfig};

/// What a coordinator's methods return.
pub type CoordinatorFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// A URL a worker may fetch now; it holds it until it finishes it or the
/// lease runs out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The URL.
    pub url: String,
    /// Its depth.
    pub depth: u32,
    /// Times it was answered `429`/`503` and asked again.
    pub attempts: u32,
    /// Its host (`host[:port]`): the politeness it counts against.
    pub host: String,
    /// What identifies the lease to its coordinator.
    pub token: String,
}

/// What a worker got from [`Coordinator::claim`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claim {
    /// URLs to fetch now.
    pub leases: Vec<Lease>,
    /// When a host held back by its delay or pause may be asked again.
    pub wait: Option<Duration>,
}

/// A URL a worker found and offers to the frontier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// The URL (normalized).
    pub url: String,
    /// Its depth.
    pub depth: u32,
    /// Its host (`host[:port]`).
    pub host: String,
}

/// What the coordinator made of an offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offered {
    /// New: queued.
    Queued,
    /// Seen before (by any worker).
    Known,
    /// Not queued: a limit of the whole crawl (`max-urls`, `trap` for too
    /// many queries on one path).
    Refused(Skip),
}

/// How a lease ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// A request was made: its outcome counts in the host's error window
    /// (`None`: it failed inside the worker); a `429`/`503` pauses the
    /// host.
    Fetched {
        /// The answer's outcome.
        outcome: Option<Outcome>,
        /// How long the host pauses.
        pause: Option<Duration>,
    },
    /// Answered `429`/`503`: counted, the host paused, the URL asked again
    /// later (first in its host's queue).
    Retry {
        /// The answer's outcome.
        outcome: Outcome,
        /// How long the host pauses.
        pause: Duration,
    },
    /// Not requested: robots.txt or the address refused it.
    Skipped,
    /// Not requested now (its robots.txt is being read, or will be
    /// later): back to the front of the queue; the host paused that long.
    Release {
        /// How long the host pauses.
        pause: Option<Duration>,
    },
}

/// An origin's robots.txt as the coordinator knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsLookup {
    /// Read by some worker.
    Known(RobotsRead),
    /// Not read (or due again): this worker is to read it, after
    /// `attempts` attempts, and [`Coordinator::put_robots`] it.
    Fetch {
        /// Attempts made before.
        attempts: u32,
    },
    /// Another worker is reading it.
    Wait,
}

/// A worker's progress, as it reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Requests answered (and failed) by this worker.
    pub fetched: u64,
    /// Of those, the throttle's indicators of trouble.
    pub errors: u64,
    /// Leases skipped (robots.txt, refused addresses).
    pub skipped: u64,
    /// Requests in flight.
    pub in_flight: u32,
    /// Whether the worker ended.
    pub ended: bool,
}

impl std::fmt::Display for WorkerStats {
    /// `N fetched, N errors, N skipped`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} fetched, {} errors, {} skipped",
            self.fetched, self.errors, self.skipped
        )
    }
}

/// The state workers share (module docs). Every method is one atomic step
/// for the hosts it touches: two workers never get the same URL, and a
/// host's delay and parallelism hold across workers.
pub trait Coordinator: Send + Sync {
    /// What the coordinator is, for messages (a Redis URL, `in-process`).
    fn name(&self) -> String;

    /// Joins the crawl that starts at `seed`, queueing the seed if the
    /// crawl is new. Returns the crawl's seed (another one when the crawl
    /// was started elsewhere with another).
    fn start<'a>(&'a self, seed: &'a Url) -> CoordinatorFuture<'a, String>;

    /// Up to `max` URLs `worker` may fetch now, counted against their
    /// hosts' delay and parallelism; leases that ran out return to the
    /// frontier first.
    fn claim<'a>(&'a self, worker: &'a str, max: usize) -> CoordinatorFuture<'a, Claim>;

    /// Offers found URLs; one answer per offer, in order.
    fn offer(&self, offers: Vec<Offer>) -> CoordinatorFuture<'_, Vec<Offered>>;

    /// Ends a lease. Returns the throttle's adjustment of the host, if the
    /// outcome made one.
    fn finish<'a>(
        &'a self,
        worker: &'a str,
        lease: &'a Lease,
        how: Finish,
    ) -> CoordinatorFuture<'a, Option<Adjustment>>;

    /// The robots.txt of `origin` (on `host`), or the turn to read it.
    fn robots<'a>(
        &'a self,
        worker: &'a str,
        host: &'a str,
        origin: &'a str,
    ) -> CoordinatorFuture<'a, RobotsLookup>;

    /// Keeps what was read of `origin`'s robots.txt for every worker;
    /// `floor` (its `Crawl-delay`) raises the host's delay.
    fn put_robots<'a>(
        &'a self,
        host: &'a str,
        origin: &'a str,
        read: RobotsRead,
        floor: Option<Duration>,
    ) -> CoordinatorFuture<'a, ()>;

    /// Extends the leases `worker` holds on requests still in flight by
    /// a lease's time from now, so that a slow answer keeps its URL. A
    /// lease that ran out already (and went to another worker) stays
    /// lost.
    fn renew<'a>(&'a self, worker: &'a str, leases: &'a [Lease]) -> CoordinatorFuture<'a, ()>;

    /// Records a worker's progress (for `crawl status`).
    fn report<'a>(&'a self, worker: &'a str, stats: WorkerStats) -> CoordinatorFuture<'a, ()>;

    /// Whether nothing is queued or leased: the crawl is done.
    fn is_finished(&self) -> CoordinatorFuture<'_, bool>;
}

/// How a coordinator runs the crawl: the same scope, limits and throttle
/// rule as a single crawl, and how long a lease lasts.
#[derive(Debug, Clone)]
pub struct CoordinatorConfig {
    /// Limits of the whole crawl (`max_urls`, `max_queries_per_path`).
    pub frontier: FrontierConfig,
    /// Each host's throttling rule (the configured delay and parallelism
    /// are its `min_delay` and `max_parallel`).
    pub throttle: ThrottleConfig,
    /// A lease not finished within this returns to the frontier.
    pub lease: Duration,
    /// An origin's robots.txt is read again after this long.
    pub robots_ttl: Duration,
    /// A worker reading robots.txt holds the turn at most this long.
    pub robots_turn: Duration,
}

impl CoordinatorConfig {
    /// The coordinator's settings for a crawl configured so, leases of
    /// `lease`.
    #[must_use]
    pub fn of(config: &CrawlConfig, lease: Duration) -> CoordinatorConfig {
        CoordinatorConfig {
            frontier: config.frontier.clone(),
            throttle: config.throttle,
            lease,
            robots_ttl: config.robots_ttl,
            robots_turn: Duration::from_secs(60).max(lease),
        }
    }
}

/// The in-process coordinator: the crawler's [`Frontier`] (seen-set,
/// queue, limits) and one [`Throttle`] per host behind a mutex, for
/// workers in one process.
#[derive(Debug)]
pub struct LocalCoordinator {
    config: CoordinatorConfig,
    state: Mutex<Local>,
}

#[derive(Debug, Default)]
struct Local {
    seed: Option<String>,
    frontier: Option<Frontier>,
    attempts: HashMap<String, u32>,
    hosts: HashMap<String, LocalHost>,
    leases: HashMap<String, (Lease, Instant)>,
    next_token: u64,
    robots: HashMap<String, (RobotsEntry, Instant)>,
    turns: HashMap<String, Instant>,
    workers: HashMap<String, WorkerStats>,
}

#[derive(Debug, Clone)]
enum RobotsEntry {
    Read(RobotsRead),
    WaitUntil(Instant, u32),
}

#[derive(Debug)]
struct LocalHost {
    throttle: Throttle,
    in_flight: u32,
    next: Instant,
    paused: Instant,
}

/// How many queued URLs a claim looks at past hosts that must wait.
const CLAIM_SCAN: usize = 256;

impl LocalCoordinator {
    /// An empty coordinator.
    #[must_use]
    pub fn new(config: CoordinatorConfig) -> LocalCoordinator {
        LocalCoordinator {
            config,
            state: Mutex::new(Local::default()),
        }
    }

    /// The progress each worker reported last.
    #[must_use]
    pub fn workers(&self) -> HashMap<String, WorkerStats> {
        self.lock().workers.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Local> {
        // A worker that panicked holding the lock left whole steps: each
        // method changes the state only once it cannot fail.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn host<'a>(&self, hosts: &'a mut HashMap<String, LocalHost>, key: &str) -> &'a mut LocalHost {
        let now = Instant::now();
        let t = self.config.throttle;
        hosts.entry(key.to_owned()).or_insert_with(|| LocalHost {
            throttle: Throttle::new(t, t.min_delay, t.max_parallel),
            in_flight: 0,
            next: now,
            paused: now,
        })
    }

    fn requeue(&self, s: &mut Local, lease: &Lease) {
        if let Some(f) = s.frontier.as_mut() {
            let id = f.id_of(&lease.url).unwrap_or_default();
            f.put_back(Queued {
                id,
                url: lease.url.clone(),
                depth: lease.depth,
            });
        }
    }
}

fn host_of(url: &str) -> String {
    Url::parse(url).map(|u| host_key(&u)).unwrap_or_default()
}

impl Coordinator for LocalCoordinator {
    fn name(&self) -> String {
        "in-process coordinator".into()
    }

    fn start<'a>(&'a self, seed: &'a Url) -> CoordinatorFuture<'a, String> {
        Box::pin(async move {
            let mut s = self.lock();
            if let Some(known) = &s.seed {
                return Ok(known.clone());
            }
            let mut frontier = Frontier::new(seed, self.config.frontier.clone());
            frontier.admit(seed, 0);
            s.frontier = Some(frontier);
            s.seed = Some(seed.to_string());
            Ok(seed.to_string())
        })
    }

    fn claim<'a>(&'a self, _worker: &'a str, max: usize) -> CoordinatorFuture<'a, Claim> {
        Box::pin(async move {
            let now = Instant::now();
            let mut guard = self.lock();
            let s = &mut *guard;
            let expired: Vec<String> = s
                .leases
                .iter()
                .filter(|(_, (_, until))| *until <= now)
                .map(|(t, _)| t.clone())
                .collect();
            for token in expired {
                if let Some((lease, _)) = s.leases.remove(&token) {
                    let h = self.host(&mut s.hosts, &lease.host);
                    h.in_flight = h.in_flight.saturating_sub(1);
                    self.requeue(s, &lease);
                }
            }
            let mut claim = Claim::default();
            let Some(frontier) = s.frontier.as_mut() else {
                return Ok(claim);
            };
            let mut held = Vec::new();
            while claim.leases.len() < max && held.len() < CLAIM_SCAN {
                let Some(q) = frontier.pop() else { break };
                let key = host_of(&q.url);
                let h = self.host(&mut s.hosts, &key);
                let gate = h.next.max(h.paused);
                if h.in_flight >= h.throttle.parallel() || gate > now {
                    if h.in_flight < h.throttle.parallel() {
                        let w = gate - now;
                        claim.wait = Some(claim.wait.map_or(w, |x| x.min(w)));
                    }
                    held.push(q);
                    continue;
                }
                h.in_flight += 1;
                h.next = now + h.throttle.delay();
                s.next_token += 1;
                let lease = Lease {
                    attempts: s.attempts.get(&q.url).copied().unwrap_or(0),
                    url: q.url,
                    depth: q.depth,
                    host: key,
                    token: s.next_token.to_string(),
                };
                s.leases.insert(
                    lease.token.clone(),
                    (lease.clone(), now + self.config.lease),
                );
                claim.leases.push(lease);
            }
            for q in held.into_iter().rev() {
                frontier.put_back(q);
            }
            Ok(claim)
        })
    }

    fn offer(&self, offers: Vec<Offer>) -> CoordinatorFuture<'_, Vec<Offered>> {
        Box::pin(async move {
            let mut s = self.lock();
            let Some(frontier) = s.frontier.as_mut() else {
                return Err(Error::Coordinator {
                    coordinator: self.name(),
                    message: "URLs offered before the crawl started".into(),
                });
            };
            let mut answers = Vec::with_capacity(offers.len());
            for o in offers {
                let Ok(url) = Url::parse(&o.url) else {
                    answers.push(Offered::Refused(Skip {
                        reason: "invalid",
                        detail: "not a URL".into(),
                    }));
                    continue;
                };
                answers.push(match frontier.admit(&url, o.depth) {
                    Admitted::Queued(_) | Admitted::Promoted(_) => Offered::Queued,
                    Admitted::Known(_) => Offered::Known,
                    Admitted::Skipped(_, skip) => Offered::Refused(skip),
                });
            }
            Ok(answers)
        })
    }

    fn finish<'a>(
        &'a self,
        worker: &'a str,
        lease: &'a Lease,
        how: Finish,
    ) -> CoordinatorFuture<'a, Option<Adjustment>> {
        Box::pin(async move {
            let _ = worker;
            let now = Instant::now();
            let mut guard = self.lock();
            let s = &mut *guard;
            if s.leases.remove(&lease.token).is_none() {
                // Ran out and went back to the frontier: another worker
                // has it now.
                return Ok(None);
            }
            let h = self.host(&mut s.hosts, &lease.host);
            h.in_flight = h.in_flight.saturating_sub(1);
            let (outcome, pause) = match how {
                Finish::Fetched { outcome, pause } => (outcome, pause),
                Finish::Retry { outcome, pause } => (Some(outcome), Some(pause)),
                Finish::Skipped => (None, None),
                Finish::Release { pause } => (None, pause),
            };
            if let Some(p) = pause {
                h.paused = h.paused.max(now + p);
            }
            let adjustment = outcome.and_then(|o| h.throttle.record(o));
            match how {
                Finish::Retry { .. } => {
                    *s.attempts.entry(lease.url.clone()).or_insert(0) += 1;
                    self.requeue(s, lease);
                }
                Finish::Release { .. } => self.requeue(s, lease),
                Finish::Fetched { .. } | Finish::Skipped => {
                    s.attempts.remove(&lease.url);
                }
            }
            Ok(adjustment)
        })
    }

    fn robots<'a>(
        &'a self,
        _worker: &'a str,
        _host: &'a str,
        origin: &'a str,
    ) -> CoordinatorFuture<'a, RobotsLookup> {
        Box::pin(async move {
            let now = Instant::now();
            let mut s = self.lock();
            let attempts = match s.robots.get(origin) {
                Some((RobotsEntry::Read(read), until)) if *until > now => {
                    return Ok(RobotsLookup::Known(read.clone()));
                }
                Some((RobotsEntry::WaitUntil(at, attempts), _)) if *at > now => {
                    return Ok(RobotsLookup::Known(RobotsRead::Waiting {
                        after: *at - now,
                        attempts: *attempts,
                    }));
                }
                Some((RobotsEntry::WaitUntil(_, attempts), _)) => *attempts,
                _ => 0,
            };
            if s.turns.get(origin).is_some_and(|until| *until > now) {
                return Ok(RobotsLookup::Wait);
            }
            s.turns
                .insert(origin.to_owned(), now + self.config.robots_turn);
            Ok(RobotsLookup::Fetch { attempts })
        })
    }

    fn put_robots<'a>(
        &'a self,
        host: &'a str,
        origin: &'a str,
        read: RobotsRead,
        floor: Option<Duration>,
    ) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            let now = Instant::now();
            let mut guard = self.lock();
            let s = &mut *guard;
            s.turns.remove(origin);
            let entry = match read {
                RobotsRead::Waiting { after, attempts } => {
                    (RobotsEntry::WaitUntil(now + after, attempts), now + after)
                }
                read => (RobotsEntry::Read(read), now + self.config.robots_ttl),
            };
            s.robots.insert(origin.to_owned(), entry);
            if let Some(f) = floor {
                self.host(&mut s.hosts, host).throttle.raise_floor(f);
            }
            Ok(())
        })
    }

    fn renew<'a>(&'a self, _worker: &'a str, leases: &'a [Lease]) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            let until = Instant::now() + self.config.lease;
            let mut s = self.lock();
            for lease in leases {
                if let Some((_, end)) = s.leases.get_mut(&lease.token) {
                    *end = until;
                }
            }
            Ok(())
        })
    }

    fn report<'a>(&'a self, worker: &'a str, stats: WorkerStats) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            self.lock().workers.insert(worker.to_owned(), stats);
            Ok(())
        })
    }

    fn is_finished(&self) -> CoordinatorFuture<'_, bool> {
        Box::pin(async move {
            let s = self.lock();
            Ok(s.leases.is_empty() && s.frontier.as_ref().is_none_or(|f| f.waiting() == 0))
        })
    }
}

/// Who a worker is and how much it does at once.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Its name: unique among the crawl's workers (leases and progress
    /// are kept under it).
    pub name: String,
    /// Requests in flight at most (each host's parallelism holds too).
    pub concurrency: usize,
    /// How long it waits before asking again when it got nothing.
    pub poll: Duration,
    /// How often it reports its progress to the coordinator (its
    /// heartbeat: `crawl status` calls a worker silent for ten of these
    /// dead).
    pub report_every: Duration,
    /// How often it renews the leases of its requests in flight: well
    /// within a lease (a third of it), so that a slow answer keeps its
    /// URL.
    pub renew_every: Duration,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            name: "worker".into(),
            concurrency: 8,
            poll: Duration::from_millis(50),
            report_every: Duration::from_secs(1),
            renew_every: Duration::from_secs(20),
        }
    }
}

/// How a worker ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerEnd {
    /// Its progress.
    pub stats: WorkerStats,
    /// Whether it stopped on request before the crawl was done.
    pub stopped: bool,
}

/// One worker of a shared crawl (module docs): fetches what `coordinator`
/// leases it, writes to `store` (a new one), until the crawl is done or
/// `stop` is raised. Every worker is given the same start URL and
/// configuration. `progress` is called after every answer.
///
/// # Errors
/// [`Error::Coordinator`] when the coordinator fails or the crawl started
/// elsewhere at another URL, or when the configuration asks for what a
/// worker does not do (sitemaps, a simulated reading);
/// [`Error::Store`] when the store fails; [`Error::InvalidUrl`](botwarden_fetch::Error::InvalidUrl) for a
/// start URL that is not one.
#[allow(clippy::too_many_arguments)]
pub async fn crawl_worker(
    coordinator: &dyn Coordinator,
    start: &Url,
    config: &CrawlConfig,
    worker: &WorkerConfig,
    fetcher: &Fetcher,
    mut store: Store,
    stop: &StopSignal,
    mut progress: impl FnMut(&WorkerStats),
) -> Result<(Store, WorkerEnd), Error> {
    let refuse = |message: String| Error::Coordinator {
        coordinator: coordinator.name(),
        message,
    };
    if config.simulation.is_some() || config.robots_sitemaps || !config.sitemaps.is_empty() {
        return Err(refuse(
            "a shared crawl follows links and reads robots.txt as botwarden: sitemaps and \
             simulated readings are for a single crawl"
                .into(),
        ));
    }
    let start = start_url(start)?;
    let seed = coordinator.start(&start).await?;
    if seed != start.as_str() {
        return Err(refuse(format!(
            "the crawl there started at {seed}, not at {start}"
        )));
    }
    let readings = Readings {
        hash: BodyHash::NEW,
        text: TextReading::Scan,
    };
    let frontier = begin_store(&start, config, worker, coordinator, readings, &mut store)?;
    let mut w = Worker {
        coordinator,
        config,
        worker,
        fetcher,
        stop,
        store,
        chain: config.identity.chain(),
        readings,
        frontier,
        batch: Batch::default(),
        robots: HashMap::new(),
        running: InFlight::default(),
        leases: HashMap::new(),
        pending: Vec::new(),
        held: None,
        stats: WorkerStats::default(),
        reported: Instant::now(),
        renewed: Instant::now(),
        // A worker whose requests are all slow still wakes this often: to
        // report (its heartbeat) and to renew its leases.
        heartbeat: worker
            .report_every
            .min(worker.renew_every)
            .max(Duration::from_millis(10)),
        concurrency: worker.concurrency.max(1),
    };
    loop {
        let (claimed, wait) = w.claim().await?;
        // What was decided is committed before its leases are finished.
        w.settle().await?;
        if w.running.is_empty()
            && !claimed
            && (stop.is_stopped() || coordinator.is_finished().await?)
        {
            break;
        }
        if let Some(joined) = w.next(wait).await {
            w.answer(joined).await?;
            w.settle().await?;
        }
        w.keep_up(&mut progress).await?;
    }
    w.end().await
}

/// The worker's own frontier, the seed in it, and the worker's first
/// facts written to its store.
fn begin_store(
    start: &Url,
    config: &CrawlConfig,
    worker: &WorkerConfig,
    coordinator: &dyn Coordinator,
    readings: Readings,
    store: &mut Store,
) -> Result<Frontier, Error> {
    // The worker's own frontier: ids in its store, URLs it met (offered
    // once), and the checks of scope, depth and traps that need no one
    // else; the limits of the whole crawl are the coordinator's.
    let mut frontier = Frontier::new(
        start,
        FrontierConfig {
            max_urls: u64::MAX,
            max_queries_per_path: u32::MAX,
            ..config.frontier.clone()
        },
    );
    let mut batch = Batch::default();
    let admitted = frontier.admit(start, 0);
    record_new(&mut batch, start, 0, "seed", &admitted);
    // The coordinator queued the seed.
    let _ = frontier.pop();
    batch.meta = start_meta(start, config, readings);
    batch.meta.extend([
        ("worker".into(), worker.name.clone()),
        ("coordinator".into(), coordinator.name()),
        ("state".into(), "running".into()),
    ]);
    store.defer_indexes()?;
    store.write(&batch)?;
    Ok(frontier)
}

/// A worker under way: what its loop keeps from one turn to the next.
struct Worker<'a> {
    coordinator: &'a dyn Coordinator,
    config: &'a CrawlConfig,
    worker: &'a WorkerConfig,
    fetcher: &'a Fetcher,
    stop: &'a StopSignal,
    store: Store,
    chain: TokenChain,
    readings: Readings,
    frontier: Frontier,
    /// What is committed next.
    batch: Batch,
    robots: HashMap<String, RobotsState>,
    running: InFlight,
    /// The leases of the requests in flight, by URL id.
    leases: HashMap<u64, Lease>,
    /// Leases decided, finished once the batch is committed.
    pending: Vec<(Lease, Finish)>,
    /// Why this worker's own settings kept it from a robots.txt, if they did.
    held: Option<String>,
    stats: WorkerStats,
    reported: Instant,
    renewed: Instant,
    heartbeat: Duration,
    concurrency: usize,
}

impl Worker<'_> {
    /// Claims what this worker may fetch now, and starts it. Returns
    /// whether anything was claimed, and how long to wait for more.
    async fn claim(&mut self) -> Result<(bool, Duration), Error> {
        let mut wait = self.worker.poll;
        let mut claimed = false;
        if !self.stop.is_stopped() && self.running.len() < self.concurrency {
            let claim = self
                .coordinator
                .claim(&self.worker.name, self.concurrency - self.running.len())
                .await?;
            if let Some(w) = claim.wait {
                wait = wait.min(w.max(Duration::from_millis(1)));
            }
            for lease in claim.leases {
                claimed = true;
                self.start_lease(lease).await?;
            }
        }
        Ok((claimed, wait))
    }

    /// Takes one lease: judged by its robots.txt (read first if need be),
    /// then requested, skipped or released.
    async fn start_lease(&mut self, lease: Lease) -> Result<(), Error> {
        let (id, new) = self.frontier.adopt(&lease.url);
        if new {
            self.batch.new_urls.push(NewUrl {
                id,
                url: lease.url.clone(),
                depth: lease.depth,
                found_by: "claimed",
                state: UrlState::Queued,
                skip: None,
            });
        }
        let Some(url) = claimed_url(id, &lease.url, &mut self.batch) else {
            self.pending.push((lease, Finish::Skipped));
            return Ok(());
        };
        let origin = origin_key(&url);
        let ttl = self.config.robots_ttl;
        let lease = if self.robots.get(&origin).is_some_and(|s| s.is_fresh(ttl)) {
            lease
        } else {
            match self.look_up_robots(lease, &url, &origin).await? {
                Some(lease) => lease,
                None => return Ok(()),
            }
        };
        self.judge(lease, id, url, &origin);
        Ok(())
    }

    /// Asks the coordinator for `origin`'s robots.txt, and reads it when
    /// it is this worker's turn. Returns the lease when it is to be judged
    /// now; otherwise it is released.
    async fn look_up_robots(
        &mut self,
        lease: Lease,
        url: &Url,
        origin: &str,
    ) -> Result<Option<Lease>, Error> {
        let (config, chain) = (self.config, &self.chain);
        let lookup = self
            .coordinator
            .robots(&self.worker.name, &lease.host, origin)
            .await?;
        let read = match lookup {
            RobotsLookup::Known(read) => {
                let state = robots_state(url, read, chain, config);
                self.robots.insert(origin.to_owned(), state);
                return Ok(Some(lease));
            }
            RobotsLookup::Fetch { attempts } => {
                read_robots(url, self.fetcher, config, attempts, &mut self.batch).await
            }
            RobotsLookup::Wait => {
                let pause = Some(self.worker.poll);
                self.pending.push((lease, Finish::Release { pause }));
                return Ok(None);
            }
        };
        if let RobotsRead::Held { why } = &read {
            // This worker's own settings, not the site's: nothing is
            // shared, the URL goes back, and the worker stops.
            self.held.get_or_insert_with(|| why.clone());
            self.stop.stop();
            self.pending.push((lease, Finish::Release { pause: None }));
            return Ok(None);
        }
        let state = robots_state(url, read.clone(), chain, config);
        let floor = state.crawl_delay(config);
        self.coordinator
            .put_robots(&lease.host, origin, read, floor)
            .await?;
        self.robots.insert(origin.to_owned(), state);
        // Reading robots.txt took time since the lease's turn was counted:
        // the URL is leased again, so that its request keeps the delay.
        self.pending.push((lease, Finish::Release { pause: None }));
        Ok(None)
    }

    /// Judges a lease by its origin's robots.txt as this worker knows it:
    /// requested, skipped, or released to wait.
    fn judge(&mut self, lease: Lease, id: u64, url: Url, origin: &str) {
        let state = self.robots.get(origin).unwrap_or(&RobotsState::Fetching);
        let how = match state.verdict(id, &url, &mut self.batch) {
            Verdict::Waiting(retry) => Finish::Release {
                pause: Some(retry.saturating_duration_since(Instant::now())),
            },
            Verdict::Reading | Verdict::Held(_) => Finish::Release {
                pause: Some(self.worker.poll),
            },
            Verdict::Skipped => {
                self.stats.skipped += 1;
                Finish::Skipped
            }
            Verdict::Fetch => {
                let q = Queued {
                    id,
                    url: lease.url.clone(),
                    depth: lease.depth,
                };
                self.leases.insert(id, lease);
                self.running.fetch(q, url, self.fetcher, self.readings);
                return;
            }
        };
        self.pending.push((lease, how));
    }

    /// The next request to end, if one ends before the loop is to turn
    /// again; every wait ends at once on a stop.
    async fn next(&mut self, wait: Duration) -> Option<Joined> {
        let stop = self.stop;
        if self.running.is_empty() {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = stop.raised(), if !stop.is_stopped() => {}
            }
            None
        } else if self.running.len() >= self.concurrency || stop.is_stopped() {
            tokio::select! {
                j = self.running.next() => j,
                () = tokio::time::sleep(self.heartbeat) => None,
            }
        } else {
            tokio::select! {
                j = self.running.next() => j,
                () = tokio::time::sleep(wait) => None,
                () = stop.raised(), if !stop.is_stopped() => None,
            }
        }
    }

    /// Commits the batch, then finishes the leases it decided; the
    /// throttle's adjustments go into the next batch.
    async fn settle(&mut self) -> Result<(), Error> {
        self.store.write(&self.batch)?;
        self.batch = Batch::default();
        for (lease, how) in self.pending.drain(..) {
            let adjustment = self
                .coordinator
                .finish(&self.worker.name, &lease, how)
                .await?;
            if let Some(a) = adjustment {
                let host = Url::parse(&lease.url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                    .unwrap_or_default();
                self.batch.throttle.push(throttle_record(&host, &a));
            }
        }
        Ok(())
    }

    /// Takes in one answer: the page and its links, the new URLs offered.
    async fn answer(&mut self, joined: Joined) -> Result<(), Error> {
        let done = match joined {
            Joined::Answer(done) => *done,
            Joined::Lost(q, why) => {
                self.stats.fetched += 1;
                self.stats.errors += 1;
                record_lost(&mut self.batch, &q, &why);
                if let Some(lease) = self.leases.remove(&q.id) {
                    let how = Finish::Fetched {
                        outcome: None,
                        pause: None,
                    };
                    self.pending.push((lease, how));
                }
                return Ok(());
            }
        };
        let Some(lease) = self.leases.remove(&done.q.id) else {
            return Ok(());
        };
        let Some(answer) = Answer::of(done, &mut self.batch, self.config) else {
            self.stats.skipped += 1;
            self.pending.push((lease, Finish::Skipped));
            return Ok(());
        };
        self.stats.fetched += 1;
        let (outcome, pause) = (answer.outcome, answer.pause);
        if outcome.is_indicator() {
            self.stats.errors += 1;
        }
        if let Some(pause) = pause
            && answer.retry(lease.attempts, self.config)
        {
            self.pending.push((lease, Finish::Retry { outcome, pause }));
            return Ok(());
        }
        answer.take(
            &mut self.frontier,
            &mut self.batch,
            &self.chain,
            self.config,
        );
        self.offer_found().await?;
        let how = Finish::Fetched {
            outcome: Some(outcome),
            pause,
        };
        self.pending.push((lease, how));
        Ok(())
    }

    /// Offers the URLs the last page led to; those the crawl refuses are
    /// recorded as skipped.
    async fn offer_found(&mut self) -> Result<(), Error> {
        let mut offers = Vec::new();
        let mut ids = Vec::new();
        while let Some(found) = self.frontier.pop() {
            let host = Url::parse(&found.url)
                .map(|u| host_key(&u))
                .unwrap_or_default();
            ids.push(found.id);
            offers.push(Offer {
                url: found.url,
                depth: found.depth,
                host,
            });
        }
        if !offers.is_empty() {
            let answers = self.coordinator.offer(offers).await?;
            for (id, answer) in ids.into_iter().zip(answers) {
                if let Offered::Refused(skip) = answer {
                    self.batch.states.push((id, UrlState::Skipped, Some(skip)));
                }
            }
        }
        Ok(())
    }

    /// Renews the leases in flight and reports progress, each when due.
    async fn keep_up(&mut self, progress: &mut impl FnMut(&WorkerStats)) -> Result<(), Error> {
        let name = &self.worker.name;
        if self.renewed.elapsed() >= self.worker.renew_every {
            if !self.leases.is_empty() {
                let held: Vec<Lease> = self.leases.values().cloned().collect();
                self.coordinator.renew(name, &held).await?;
            }
            self.renewed = Instant::now();
        }
        self.stats.in_flight = u32::try_from(self.running.len()).unwrap_or(u32::MAX);
        progress(&self.stats);
        if self.reported.elapsed() >= self.worker.report_every {
            self.coordinator.report(name, self.stats).await?;
            self.reported = Instant::now();
        }
        Ok(())
    }

    /// Ends the worker: its last facts committed, its store's indexes
    /// built, its end reported.
    async fn end(mut self) -> Result<(Store, WorkerEnd), Error> {
        let coordinator = self.coordinator;
        let stopped = self.stop.is_stopped() && !coordinator.is_finished().await?;
        self.batch.meta.push((
            "state".into(),
            if stopped { "stopped" } else { "finished" }.into(),
        ));
        self.batch.meta.push(("ended_at".into(), now_text()));
        self.store.write(&self.batch)?;
        self.store.build_indexes()?;
        let mut stats = self.stats;
        stats.in_flight = 0;
        stats.ended = true;
        coordinator.report(&self.worker.name, stats).await?;
        if let Some(why) = self.held {
            return Err(Error::Coordinator {
                coordinator: coordinator.name(),
                message: format!(
                    "worker {} stopped, its URLs returned to the crawl: {why}",
                    self.worker.name
                ),
            });
        }
        Ok((self.store, WorkerEnd { stats, stopped }))
    }
}

/// What the workers' stores of a shared crawl hold: every URL they met,
/// and which of them no worker fetched or judged yet. It seeds the
/// coordinator again when the coordinator lost its state
/// ([`stored_frontier`], `botwarden crawl reseed`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredFrontier {
    /// The crawl's start URL, which every store records.
    pub seed: String,
    /// Every URL of the stores, once, in the order of their first store.
    pub urls: Vec<FrontierUrl>,
}

/// One URL of a [`StoredFrontier`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontierUrl {
    /// The URL.
    pub url: String,
    /// Its host (`host[:port]`): the politeness it counts against.
    pub host: String,
    /// The least depth any store gives it.
    pub depth: u32,
    /// Whether it is still to be fetched: queued in a store, fetched in
    /// none and skipped in none (a `nofollow` skip excepted: another page
    /// may link to it plainly).
    pub queued: bool,
}

impl StoredFrontier {
    /// URLs still to be fetched.
    #[must_use]
    pub fn queued(&self) -> usize {
        self.urls.iter().filter(|u| u.queued).count()
    }
}

/// Reads the frontier of a shared crawl back from its workers' stores
/// (all of them, the ones of workers that died included).
///
/// # Errors
/// [`Error::Store`] when a store cannot be read, records no seed, or
/// records another seed than the first store (naming the store).
pub fn stored_frontier(stores: &[PathBuf]) -> Result<StoredFrontier, Error> {
    #[derive(Default)]
    struct Seen {
        depth: u32,
        queued: bool,
        done: bool,
    }
    let mut seed: Option<(String, &PathBuf)> = None;
    let mut order: Vec<String> = Vec::new();
    let mut urls: BTreeMap<String, Seen> = BTreeMap::new();
    for path in stores {
        let store = Store::open(path)?;
        let this = store.meta("seed")?.ok_or_else(|| {
            Error::Store(StoreError {
                path: path.clone(),
                message: "not a crawl (no seed recorded)".into(),
            })
        })?;
        match &seed {
            Some((first, from)) if *first != this => {
                return Err(Error::Store(StoreError {
                    path: path.clone(),
                    message: format!("a crawl of {this}, not of {first} as {} is", from.display()),
                }));
            }
            Some(_) => {}
            None => seed = Some((this, path)),
        }
        for u in store.urls()? {
            let entry = urls.entry(u.url.clone()).or_insert_with(|| {
                order.push(u.url.clone());
                Seen {
                    depth: u.depth,
                    ..Seen::default()
                }
            });
            entry.depth = entry.depth.min(u.depth);
            match u.state {
                UrlState::Queued => entry.queued = true,
                UrlState::Fetched => entry.done = true,
                UrlState::Skipped => {
                    entry.done |= u.skip_reason.as_deref() != Some("nofollow");
                }
            }
        }
    }
    let Some((seed, _)) = seed else {
        return Ok(StoredFrontier::default());
    };
    let urls = order
        .into_iter()
        .filter_map(|url| {
            let seen = urls.remove(&url)?;
            let host = Url::parse(&url).map(|u| host_key(&u)).ok()?;
            Some(FrontierUrl {
                host,
                depth: seen.depth,
                queued: seen.queued && !seen.done,
                url,
            })
        })
        .collect();
    Ok(StoredFrontier { seed, urls })
}
