//! `botwarden bots update`: refresh the published IP ranges.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_fetch::{Error, Fetcher};
use botwarden_scale::{RedisFeeds, Timeouts};
use botwarden_verify::{Feed, FeedStore, MAX_FEED_BYTES, Registry};
use clap::Args;

use super::registry::RegistryArgs;
use crate::args::RedisAccess;

/// Arguments of `botwarden bots update`.
#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    #[command(flatten)]
    registry: RegistryArgs,
    /// Allow feeds on loopback and private addresses (refused by default).
    #[arg(long)]
    allow_private: bool,
    /// Seconds allowed for each feed.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// Share the feeds through Redis or Valkey (one URL, or a cluster's
    /// several comma-separated): a copy another node fetched less than
    /// --shared-max-age ago is taken instead of fetching; a fetched copy
    /// is stored there for the others.
    #[arg(long, value_name = "URLS")]
    redis: Option<String>,
    #[command(flatten)]
    redis_access: RedisAccess,
    /// Seconds a copy in Redis is taken instead of fetching (with --redis).
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    shared_max_age: u64,
}

/// What became of one feed.
enum Outcome {
    Updated(Feed),
    /// Taken from Redis, fetched by another node.
    Shared(Feed),
    Failed(String),
}

pub(crate) fn run(args: &UpdateArgs) -> Result<ExitCode> {
    let Some(store) = args.registry.feed_store() else {
        bail!("no ranges directory: pass --ranges-dir or set BOTWARDEN_RANGES_DIR or HOME");
    };
    let registry = args.registry.load()?;
    // Each feed once, with the bots it serves.
    let mut feeds: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for bot in registry.bots() {
        if let Some(url) = &bot.ranges_url {
            feeds.entry(url).or_default().push(&bot.name);
        }
    }
    store.create()?;
    let fetcher = Fetcher::builder()
        .allow_private(args.allow_private)
        .max_bytes(MAX_FEED_BYTES)
        .timeout(Duration::from_secs(args.timeout.max(1)));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let urls: Vec<&str> = feeds.keys().copied().collect();
    let redis = args
        .redis
        .as_deref()
        .map(|urls| args.redis_access.target(urls))
        .transpose()?;
    let outcomes: Vec<Outcome> = runtime.block_on(async {
        let fetcher = fetcher.build()?;
        let shared = match redis {
            Some(target) => {
                let mut timeouts = Timeouts::default();
                timeouts.write = Duration::from_secs(5);
                Some(RedisFeeds::connect(target, timeouts).await)
            }
            None => None,
        };
        let max_age = Duration::from_secs(args.shared_max_age);
        let jobs = urls
            .iter()
            .map(|url| update_one(&fetcher, url, &store, shared.as_ref(), max_age));
        let outcomes = futures_util::future::join_all(jobs).await;
        if let Some(shared) = &shared
            && !shared.is_up()
        {
            #[allow(clippy::print_stderr)]
            {
                eprintln!(
                    "botwarden: warning: redis {} did not answer: feeds fetched here and not shared",
                    shared.target().describe()
                );
            }
        }
        Ok::<_, Error>(outcomes)
    })?;
    let failed = report(&registry, &feeds, &urls, outcomes)?;
    writeln!(
        std::io::stdout().lock(),
        "{} feeds, {failed} failed; stored in {}",
        urls.len(),
        store.dir().display()
    )?;
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes a line for each feed's outcome, beside the copy it replaces or
/// keeps; the number that failed.
fn report(
    registry: &Registry,
    feeds: &BTreeMap<&str, Vec<&str>>,
    urls: &[&str],
    outcomes: Vec<Outcome>,
) -> Result<usize> {
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for (url, outcome) in urls.iter().zip(outcomes) {
        let bots = feeds[url].join(", ");
        let before = registry.ranges().get(url);
        match outcome {
            Outcome::Updated(feed) => {
                let was = before.map_or_else(
                    || "new".to_owned(),
                    |f| format!("was {} prefixes of {}", f.prefixes.len(), f.version()),
                );
                writeln!(
                    out,
                    "updated\t{url}\t{} prefixes of {} ({was})\t{bots}",
                    feed.prefixes.len(),
                    feed.version()
                )?;
            }
            Outcome::Shared(feed) => {
                writeln!(
                    out,
                    "shared\t{url}\t{} prefixes of {} (fetched {} by another node)\t{bots}",
                    feed.prefixes.len(),
                    feed.version(),
                    feed.fetched.as_deref().unwrap_or("?")
                )?;
            }
            Outcome::Failed(reason) => {
                failed += 1;
                let kept = before.map_or_else(
                    || "no copy".to_owned(),
                    |f| format!("keeping {} prefixes of {}", f.prefixes.len(), f.version()),
                );
                writeln!(out, "failed\t{url}\t{reason} ({kept})\t{bots}")?;
            }
        }
    }
    Ok(failed)
}

/// One feed: a fresh enough copy from Redis, else fetched (and offered to
/// Redis).
async fn update_one(
    fetcher: &Fetcher,
    url: &str,
    store: &FeedStore,
    shared: Option<&RedisFeeds>,
    max_age: Duration,
) -> Outcome {
    let Some(shared) = shared else {
        return fetch_one(fetcher, url, store).await.0;
    };
    if let Some(Some(copy)) = shared.get(url).await
        && copy
            .fetched
            .parse::<jiff::Timestamp>()
            .is_ok_and(|t| jiff::Timestamp::now().duration_since(t).unsigned_abs() <= max_age)
    {
        match store.store(url, &copy.body, &copy.fetched) {
            Ok(feed) => return Outcome::Shared(feed),
            // A copy that does not read is fetched again.
            Err(e) => {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!(
                        "botwarden: warning: the copy of {url} in redis: {}; fetching it",
                        crate::cmd::with_causes(&e)
                    );
                }
            }
        }
    }
    let (outcome, body) = fetch_one(fetcher, url, store).await;
    if let (Outcome::Updated(feed), Some(body)) = (&outcome, body) {
        let _ = shared.offer(feed, &body).await;
    }
    outcome
}

/// One feed fetched and stored here; with the body as fetched when it
/// was stored.
async fn fetch_one(fetcher: &Fetcher, url: &str, store: &FeedStore) -> (Outcome, Option<Vec<u8>>) {
    let fail = |reason: String| (Outcome::Failed(reason), None);
    let report = match fetcher.fetch(url).await {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if let Some(e) = &report.error {
        return fail(e.to_string());
    }
    match report.status {
        Some(200) => {}
        Some(s) => return fail(format!("HTTP {s}")),
        None => return fail("no answer".to_owned()),
    }
    if report.truncated {
        return fail("the feed is larger than 16 MiB".to_owned());
    }
    let fetched = jiff::Timestamp::now().to_string();
    match store.store(url, &report.body, &fetched) {
        Ok(feed) => (Outcome::Updated(feed), Some(report.body.to_vec())),
        Err(e) => fail(crate::cmd::with_causes(&e)),
    }
}
