//! One crawl shared by many workers: `botwarden crawl --workers N
//! [--redis URL]`, `crawl worker`, `crawl merge`, `crawl status`.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_crawl::{
    Coordinator, CoordinatorConfig, CrawlConfig, CrawlEnd, FrontierConfig, Identity,
    LocalCoordinator, StopSignal, ThrottleConfig, WorkerConfig, Workers, crawl_worker,
    crawl_workers,
};
use botwarden_fetch::Fetcher;
use botwarden_scale::{Patience, RedisCoordinator};
use botwarden_store::{Store, merge_stores};
use clap::Args;
use regex::Regex;
use url::Url;

use super::crawl::{ScopeArg, fetcher_for, runtime};
use crate::args::RedisAccess;
use crate::format::Format;

/// Arguments of `botwarden crawl worker`.
#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// Where the crawl starts: every worker of one crawl is given the same
    /// URL and politeness options (the first worker's hold for a host).
    url: String,
    /// The Redis that holds the crawl (several URLs, comma-separated: a
    /// cluster).
    #[arg(long, value_name = "URL")]
    redis: String,
    #[command(flatten)]
    redis_access: RedisAccess,
    /// The crawl's name in Redis (default: the start URL's host).
    #[arg(long, value_name = "NAME")]
    crawl: Option<String>,
    /// This worker's store (a new SQLite file); `crawl merge` joins the
    /// workers' stores.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// This worker's name, unique in the crawl (default: HOST-PID).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Requests in flight from this worker, at most.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    /// Seconds a leased URL stays with a worker that does not finish it
    /// (it died) before returning to the frontier.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    lease: u64,
    /// Seconds to wait out Redis not answering (said on standard error
    /// every 5 s) before giving up with exit code 1.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    redis_wait: u64,
    #[command(flatten)]
    politeness: Politeness,
}

/// The options every worker of a crawl shares.
#[derive(Debug, Args)]
pub(crate) struct Politeness {
    /// Queue at most this many URLs (the whole crawl).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_urls: u64,
    /// Follow links at most this deep from the start URL.
    #[arg(long, value_name = "D", default_value_t = 50)]
    max_depth: u32,
    /// Requests in flight to a host, at most, across all workers.
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    parallel: u32,
    /// Milliseconds between two requests to a host, at least, across all
    /// workers (a site's Crawl-delay raises it).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    delay: u64,
    /// Which URLs belong: the start URL's host, or its registrable domain.
    #[arg(long, value_enum, default_value_t = ScopeArg::Host)]
    scope: ScopeArg,
    /// Only URLs matching this regular expression.
    #[arg(long, value_name = "RE")]
    include: Option<Regex>,
    /// No URL matching this regular expression.
    #[arg(long, value_name = "RE")]
    exclude: Option<Regex>,
    /// Follow links marked nofollow (they are recorded either way).
    #[arg(long)]
    follow_nofollow: bool,
    /// The page that explains the crawler, in its User-Agent.
    #[arg(long, value_name = "URL", default_value = botwarden_crawl::DEFAULT_INFO_URL)]
    info_url: String,
    /// Allow loopback and private addresses (refused by default).
    #[arg(long)]
    allow_private: bool,
    /// Seconds for one request, body included.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// Bytes of a page kept, after decompression.
    #[arg(long, value_name = "N", default_value_t = 10 * 1024 * 1024)]
    max_bytes: usize,
    /// The name server that resolves the site's names (ADDR:PORT).
    #[arg(long, value_name = "ADDR:PORT")]
    nameserver: Option<SocketAddr>,
}

/// Arguments of `botwarden crawl merge`.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The merged store (a new file).
    out: PathBuf,
    /// The workers' stores, of one crawl.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// Arguments of `botwarden crawl status`.
#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// The Redis that holds the crawl.
    #[arg(long, value_name = "URL")]
    redis: String,
    #[command(flatten)]
    redis_access: RedisAccess,
    /// The crawl's name (the start URL's host unless the workers were
    /// given another).
    #[arg(long, value_name = "NAME")]
    crawl: String,
    /// Forget the crawl instead: remove its keys (to crawl the site anew).
    #[arg(long)]
    clear: bool,
    /// Output format.
    #[arg(long, default_value = "text",
          value_parser = Format::parser("For people", "One JSON object"))]
    format: Format,
}

/// Arguments of `botwarden crawl reseed`.
#[derive(Debug, Args)]
pub(crate) struct ReseedArgs {
    /// The Redis that holds the crawl.
    #[arg(long, value_name = "URL")]
    redis: String,
    #[command(flatten)]
    redis_access: RedisAccess,
    /// The crawl's name (the start URL's host unless the workers were
    /// given another).
    #[arg(long, value_name = "NAME")]
    crawl: String,
    /// Every worker's store of the crawl (those of workers that died
    /// too): their URLs become the seen-set, those still queued the
    /// queue.
    #[arg(required = true)]
    stores: Vec<PathBuf>,
}

/// How long `crawl status` waits for any one read.
const STATUS_WAIT: Duration = Duration::from_millis(400);

/// Redis not answering, while a worker waits it out.
#[allow(clippy::print_stderr)]
fn tell_outage(worker: String) -> impl Fn(&botwarden_scale::Outage) + Send + Sync + 'static {
    move |o| {
        eprintln!(
            "botwarden: worker {worker} of crawl {}: {o}; waiting",
            o.crawl
        );
    }
}

/// The default crawl name: the start URL's `host[:port]`.
fn crawl_name(start: &Url) -> String {
    match start.port() {
        Some(p) => format!("{}:{p}", start.host_str().unwrap_or("site")),
        None => start.host_str().unwrap_or("site").to_owned(),
    }
}

/// `HOST-PID`: a worker name unique on a network of machines.
fn default_worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".into());
    format!("{host}-{}", std::process::id())
}

/// What `crawl --workers N [--redis URL]` was asked.
pub(crate) struct Shared<'a> {
    pub(crate) redis: Option<&'a str>,
    pub(crate) redis_access: &'a RedisAccess,
    pub(crate) crawl: Option<&'a str>,
    pub(crate) workers: usize,
    pub(crate) concurrency: usize,
    pub(crate) lease: Duration,
    /// How long to wait out Redis not answering.
    pub(crate) redis_wait: Duration,
}

/// `crawl --workers N [--redis URL]`: N workers in this process, on Redis
/// or on the in-process coordinator, each with its own store beside `db`;
/// their stores merged into `db` (and removed) when they are done.
#[allow(clippy::print_stderr)]
pub(crate) fn run_workers(
    shared: &Shared<'_>,
    start: &Url,
    config: &CrawlConfig,
    fetcher: &Fetcher,
    db: &Path,
    runtime: &tokio::runtime::Runtime,
    stop: &StopSignal,
) -> Result<(Store, CrawlEnd)> {
    let coordinator_config = CoordinatorConfig::of(config, shared.lease);
    let coordinator: Arc<dyn Coordinator> = match shared.redis {
        Some(url) => {
            let name = shared
                .crawl
                .map_or_else(|| crawl_name(start), str::to_owned);
            let target = shared.redis_access.target(url)?;
            Arc::new(
                runtime
                    .block_on(RedisCoordinator::open(&target, &name, coordinator_config))?
                    .with_patience(
                        Patience {
                            give_up: shared.redis_wait,
                            ..Patience::default()
                        },
                        tell_outage(default_worker_name()),
                    )
                    .with_stop(stop.clone()),
            )
        }
        None => Arc::new(LocalCoordinator::new(coordinator_config)),
    };
    let workers = Workers {
        count: shared.workers,
        worker: WorkerConfig {
            name: default_worker_name(),
            concurrency: shared.concurrency,
            renew_every: shared.lease / 3,
            ..WorkerConfig::default()
        },
    };
    let (store, ended) = runtime.block_on(async {
        let on_signal = stop.clone();
        tokio::spawn(async move {
            super::stop_signal().await;
            on_signal.stop();
        });
        crawl_workers(
            coordinator.as_ref(),
            start,
            config,
            &workers,
            fetcher,
            db,
            stop,
        )
        .await
    })?;
    if ended.merged.duplicate_pages > 0 {
        eprintln!(
            "botwarden: {} page(s) were fetched twice (a lease ran out) and kept once",
            ended.merged.duplicate_pages
        );
    }
    Ok((store, ended.end))
}

/// `botwarden crawl worker`.
#[allow(clippy::print_stderr)]
pub(crate) fn worker(args: &WorkerArgs) -> Result<ExitCode> {
    let start =
        Url::parse(args.url.trim()).with_context(|| format!("'{}' is not a URL", args.url))?;
    let p = &args.politeness;
    let identity = Identity {
        info_url: p.info_url.clone(),
        ..Identity::default()
    };
    let config = CrawlConfig {
        identity: identity.clone(),
        frontier: FrontierConfig {
            scope: p.scope.into(),
            max_urls: p.max_urls,
            max_depth: p.max_depth,
            include: p.include.clone(),
            exclude: p.exclude.clone(),
            ..FrontierConfig::default()
        },
        throttle: ThrottleConfig {
            min_delay: Duration::from_millis(p.delay),
            max_parallel: p.parallel,
            ..ThrottleConfig::default()
        },
        follow_nofollow: p.follow_nofollow,
        ..CrawlConfig::default()
    };
    let fetcher = fetcher_for(
        &identity,
        p.allow_private,
        p.timeout,
        p.max_bytes,
        p.nameserver,
    )?
    .build()?;
    if args.db.exists() {
        bail!(
            "{} already exists: a worker writes a new store (`crawl merge` joins them)",
            args.db.display()
        );
    }
    let runtime = runtime()?;
    let name = args.crawl.clone().unwrap_or_else(|| crawl_name(&start));
    let lease = Duration::from_secs(args.lease.max(1));
    let worker_name = args.name.clone().unwrap_or_else(default_worker_name);
    let stop = StopSignal::new();
    let target = args.redis_access.target(&args.redis)?;
    let coordinator = runtime
        .block_on(RedisCoordinator::open(
            &target,
            &name,
            CoordinatorConfig::of(&config, lease),
        ))?
        .with_patience(
            Patience {
                give_up: Duration::from_secs(args.redis_wait),
                ..Patience::default()
            },
            tell_outage(worker_name.clone()),
        )
        .with_stop(stop.clone());
    let store = Store::create(&args.db)?;
    let worker = WorkerConfig {
        name: worker_name,
        concurrency: args.concurrency.max(1),
        renew_every: lease / 3,
        ..WorkerConfig::default()
    };
    let (_, end) = runtime.block_on(async {
        let on_signal = stop.clone();
        tokio::spawn(async move {
            super::stop_signal().await;
            on_signal.stop();
        });
        crawl_worker(
            &coordinator,
            &start,
            &config,
            &worker,
            &fetcher,
            store,
            &stop,
            |_| {},
        )
        .await
    })?;
    runtime.shutdown_background();
    eprintln!(
        "botwarden: worker {} of crawl {name}: {}; store: {}",
        worker.name,
        end.stats,
        args.db.display()
    );
    Ok(if end.stopped {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// `botwarden crawl merge`.
#[allow(clippy::print_stdout)]
pub(crate) fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let merged = merge_stores(&args.out, &args.inputs)?;
    println!("{}: {merged}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `botwarden crawl reseed`.
#[allow(clippy::print_stdout)]
pub(crate) fn reseed(args: &ReseedArgs) -> Result<ExitCode> {
    let frontier = botwarden_crawl::stored_frontier(&args.stores)?;
    let runtime = runtime()?;
    let target = args.redis_access.target(&args.redis)?;
    let coordinator = runtime.block_on(RedisCoordinator::open(
        &target,
        &args.crawl,
        CoordinatorConfig::of(&CrawlConfig::default(), Duration::from_secs(60)),
    ))?;
    let r = runtime.block_on(coordinator.reseed(&frontier))?;
    println!(
        "crawl {}: re-seeded from {} store(s): {r}; \
         start the workers again with new stores, then merge all the stores",
        args.crawl,
        args.stores.len(),
    );
    Ok(ExitCode::SUCCESS)
}

/// `botwarden crawl status`: exit 1 when state was lost or a part could
/// not be read (said on standard error).
#[allow(clippy::print_stderr)]
pub(crate) fn status(args: &StatusArgs) -> Result<ExitCode> {
    let runtime = runtime()?;
    let target = args.redis_access.target(&args.redis)?;
    let coordinator = runtime
        .block_on(RedisCoordinator::open_within(
            &target,
            &args.crawl,
            CoordinatorConfig::of(&CrawlConfig::default(), Duration::from_secs(60)),
            STATUS_WAIT,
        ))?
        .with_call_timeout(STATUS_WAIT);
    let mut out = std::io::stdout().lock();
    if args.clear {
        let n = runtime.block_on(coordinator.clear())?;
        writeln!(out, "crawl {}: {n} key(s) removed", args.crawl)?;
        return Ok(ExitCode::SUCCESS);
    }
    let s = runtime.block_on(coordinator.status())?;
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &s)?;
            writeln!(out)?;
        }
        Format::Text => write!(out, "{s}")?,
    }
    out.flush().context("cannot write to standard output")?;
    for lost in &s.lost {
        eprintln!(
            "botwarden: crawl {}: shared state lost: {lost}; stop every worker, then `botwarden \
             crawl reseed` with all their stores",
            s.crawl
        );
    }
    for unread in &s.unread {
        eprintln!("botwarden: crawl {}: not read: {unread}", s.crawl);
    }
    if s.is_absent() {
        eprintln!(
            "botwarden: crawl {}: Redis holds nothing of it: never started, cleared with \
             --clear, or its shared state lost with a node that came back empty (then \
             `botwarden crawl reseed` with all the workers' stores)",
            s.crawl
        );
    }
    Ok(if s.is_whole() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
