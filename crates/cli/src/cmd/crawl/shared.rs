//! One crawl shared by many workers: `botwarden crawl --workers N
//! [--redis URL]`, `crawl worker`, `crawl merge`, `crawl status`,
//! `crawl reseed`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_crawl::{
    Coordinator, CoordinatorConfig, CrawlConfig, CrawlEnd, Identity, LocalCoordinator, StopSignal,
    WorkerConfig, Workers, crawl_worker, crawl_workers, stored_frontier,
};
use botwarden_fetch::Fetcher;
use botwarden_scale::{Outage, Patience, RedisCoordinator};
use botwarden_store::{Store, merge_stores};
use clap::Args;
use url::Url;

use super::options::{Politeness, runtime, stop_on_signal};
use crate::args::RedisAccess;
use crate::format::Format;

/// Arguments of `botwarden crawl worker`.
#[derive(Debug, Args)]
pub(super) struct WorkerArgs {
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

/// Arguments of `botwarden crawl merge`.
#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The merged store (a new file).
    out: PathBuf,
    /// The workers' stores, of one crawl.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// The crawl on Redis that `crawl status` and `crawl reseed` read or
/// seed.
#[derive(Debug, Args)]
pub(super) struct RedisCrawl {
    /// The Redis that holds the crawl.
    #[arg(long, value_name = "URL")]
    redis: String,
    #[command(flatten)]
    redis_access: RedisAccess,
    /// The crawl's name (the start URL's host unless the workers were
    /// given another).
    #[arg(long, value_name = "NAME")]
    crawl: String,
}

impl RedisCrawl {
    /// The crawl's coordinator, which runs no worker (the crawl's
    /// settings are its own); each read bounded by `wait` when given.
    fn coordinator(
        &self,
        runtime: &tokio::runtime::Runtime,
        wait: Option<Duration>,
    ) -> Result<RedisCoordinator> {
        let target = self.redis_access.target(&self.redis)?;
        let config = CoordinatorConfig::of(&CrawlConfig::default(), Duration::from_secs(60));
        Ok(match wait {
            Some(wait) => runtime
                .block_on(RedisCoordinator::open_within(
                    &target,
                    &self.crawl,
                    config,
                    wait,
                ))?
                .with_call_timeout(wait),
            None => runtime.block_on(RedisCoordinator::open(&target, &self.crawl, config))?,
        })
    }
}

/// Arguments of `botwarden crawl status`.
#[derive(Debug, Args)]
pub(super) struct StatusArgs {
    #[command(flatten)]
    on: RedisCrawl,
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
pub(super) struct ReseedArgs {
    #[command(flatten)]
    on: RedisCrawl,
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
fn tell_outage(worker: String) -> impl Fn(&Outage) + Send + Sync + 'static {
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

/// Where a crawl is shared on Redis, and how long its workers wait Redis
/// out.
struct OnRedis<'a> {
    /// The Redis URL(s).
    url: &'a str,
    access: &'a RedisAccess,
    /// The crawl's name.
    crawl: &'a str,
    /// How long to wait out Redis not answering.
    wait: Duration,
}

impl OnRedis<'_> {
    /// The crawl's coordinator on Redis for `worker` (named in what it
    /// says of an outage), stopping on `stop`.
    fn coordinator(
        &self,
        runtime: &tokio::runtime::Runtime,
        config: CoordinatorConfig,
        worker: String,
        stop: &StopSignal,
    ) -> Result<RedisCoordinator> {
        let target = self.access.target(self.url)?;
        Ok(runtime
            .block_on(RedisCoordinator::open(&target, self.crawl, config))?
            .with_patience(
                Patience {
                    give_up: self.wait,
                    ..Patience::default()
                },
                tell_outage(worker),
            )
            .with_stop(stop.clone()))
    }
}

/// What `crawl --workers N [--redis URL]` was asked.
pub(super) struct Shared<'a> {
    pub(super) redis: Option<&'a str>,
    pub(super) redis_access: &'a RedisAccess,
    pub(super) crawl: Option<&'a str>,
    pub(super) workers: usize,
    pub(super) concurrency: usize,
    pub(super) lease: Duration,
    /// How long to wait out Redis not answering.
    pub(super) redis_wait: Duration,
}

impl Shared<'_> {
    /// The coordinator the workers share: on Redis, or in this process.
    fn coordinator(
        &self,
        start: &Url,
        config: &CrawlConfig,
        runtime: &tokio::runtime::Runtime,
        stop: &StopSignal,
    ) -> Result<Box<dyn Coordinator>> {
        let config = CoordinatorConfig::of(config, self.lease);
        let Some(url) = self.redis else {
            return Ok(Box::new(LocalCoordinator::new(config)));
        };
        let name = self.crawl.map_or_else(|| crawl_name(start), str::to_owned);
        let redis = OnRedis {
            url,
            access: self.redis_access,
            crawl: &name,
            wait: self.redis_wait,
        };
        Ok(Box::new(redis.coordinator(
            runtime,
            config,
            default_worker_name(),
            stop,
        )?))
    }
}

/// `crawl --workers N [--redis URL]`: N workers in this process, on Redis
/// or on the in-process coordinator, each with its own store beside `db`;
/// their stores merged into `db` (and removed) when they are done.
#[allow(clippy::print_stderr)]
pub(super) fn run_workers(
    shared: &Shared<'_>,
    start: &Url,
    config: &CrawlConfig,
    fetcher: &Fetcher,
    db: &Path,
    runtime: &tokio::runtime::Runtime,
    stop: &StopSignal,
) -> Result<(Store, CrawlEnd)> {
    let coordinator = shared.coordinator(start, config, runtime, stop)?;
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
        stop_on_signal(stop);
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
pub(super) fn worker(args: &WorkerArgs) -> Result<ExitCode> {
    let start =
        Url::parse(args.url.trim()).with_context(|| format!("'{}' is not a URL", args.url))?;
    let p = &args.politeness;
    let identity = Identity {
        info_url: p.info_url.clone(),
        ..Identity::default()
    };
    let fetcher = p.fetcher(&identity).build()?;
    let config = p.config(identity);
    if args.db.exists() {
        bail!(
            "{} already exists: a worker writes a new store (`crawl merge` joins them)",
            args.db.display()
        );
    }
    let runtime = runtime()?;
    let name = args.crawl.clone().unwrap_or_else(|| crawl_name(&start));
    let lease = Duration::from_secs(args.lease.max(1));
    let worker = WorkerConfig {
        name: args.name.clone().unwrap_or_else(default_worker_name),
        concurrency: args.concurrency.max(1),
        renew_every: lease / 3,
        ..WorkerConfig::default()
    };
    let stop = StopSignal::new();
    let redis = OnRedis {
        url: &args.redis,
        access: &args.redis_access,
        crawl: &name,
        wait: Duration::from_secs(args.redis_wait),
    };
    let coordinator = redis.coordinator(
        &runtime,
        CoordinatorConfig::of(&config, lease),
        worker.name.clone(),
        &stop,
    )?;
    let store = Store::create(&args.db)?;
    let (_, end) = runtime.block_on(async {
        stop_on_signal(&stop);
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
pub(super) fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let merged = merge_stores(&args.out, &args.inputs)?;
    println!("{}: {merged}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `botwarden crawl reseed`.
#[allow(clippy::print_stdout)]
pub(super) fn reseed(args: &ReseedArgs) -> Result<ExitCode> {
    let frontier = stored_frontier(&args.stores)?;
    let runtime = runtime()?;
    let coordinator = args.on.coordinator(&runtime, None)?;
    let r = runtime.block_on(coordinator.reseed(&frontier))?;
    println!(
        "crawl {}: re-seeded from {} store(s): {r}; \
         start the workers again with new stores, then merge all the stores",
        args.on.crawl,
        args.stores.len(),
    );
    Ok(ExitCode::SUCCESS)
}

/// `botwarden crawl status`: exit 1 when state was lost or a part could
/// not be read (said on standard error).
#[allow(clippy::print_stderr)]
pub(super) fn status(args: &StatusArgs) -> Result<ExitCode> {
    let runtime = runtime()?;
    let coordinator = args.on.coordinator(&runtime, Some(STATUS_WAIT))?;
    let mut out = std::io::stdout().lock();
    if args.clear {
        let n = runtime.block_on(coordinator.clear())?;
        writeln!(out, "crawl {}: {n} key(s) removed", args.on.crawl)?;
        return Ok(ExitCode::SUCCESS);
    }
    let s = runtime.block_on(coordinator.status())?;
    args.format.write(&mut out, &s)?;
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
