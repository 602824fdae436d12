//! `botwarden bots update`: refresh the published IP ranges.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_fetch::{Error, Fetcher};
use botwarden_scale::{RedisFeeds, Timeouts};
use botwarden_verify::{Feed, FeedStore, MAX_FEED_BYTES, RefreshPeriod, Registry};
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

/// A feed to refresh: the bots it serves, and its refresh period (the
/// shortest its bots state, else the default).
struct Target<'r> {
    bots: Vec<&'r str>,
    period: RefreshPeriod,
    /// Whether a bot states the period (`ranges_refresh`).
    stated: bool,
}

/// One feed fetched here: what became of it, the body when it was stored,
/// and where its URL moved for good (status, new URL), when it did.
struct Fetched {
    outcome: Outcome,
    body: Option<Vec<u8>>,
    moved: Option<(u16, String)>,
}

pub(crate) fn run(args: &UpdateArgs) -> Result<ExitCode> {
    let Some(store) = args.registry.feed_store() else {
        bail!("no ranges directory: pass --ranges-dir or set BOTWARDEN_RANGES_DIR or HOME");
    };
    let registry = args.registry.load()?;
    // Each feed once, with the bots it serves and its refresh period.
    let mut feeds: BTreeMap<&str, Target<'_>> = BTreeMap::new();
    for bot in registry.bots() {
        if let Some(url) = &bot.ranges_url {
            let target = feeds.entry(url).or_insert(Target {
                bots: Vec::new(),
                period: RefreshPeriod::DEFAULT,
                stated: false,
            });
            target.bots.push(&bot.name);
            if let Some(p) = bot.ranges_refresh {
                target.period = if target.stated {
                    target.period.min(p)
                } else {
                    p
                };
                target.stated = true;
            }
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
    let outcomes: Vec<Fetched> = runtime.block_on(async {
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
        let outcomes: Vec<Fetched> = futures_util::future::join_all(jobs).await;
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
    let counts = report(&registry, &feeds, &urls, outcomes)?;
    let mut also = String::new();
    if counts.moved > 0 {
        also.push_str(&format!(", {} moved", counts.moved));
    }
    if counts.stale > 0 {
        also.push_str(&format!(", {} stale", counts.stale));
    }
    writeln!(
        std::io::stdout().lock(),
        "{} feeds, {} failed{also}; stored in {}",
        urls.len(),
        counts.failed,
        store.dir().display()
    )?;
    Ok(if counts.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// How many feeds failed, moved, are stale.
#[derive(Default)]
struct Counts {
    failed: usize,
    moved: usize,
    stale: usize,
}

/// Writes a line for each feed's outcome, beside the copy it replaces or
/// keeps; then, for a feed whose URL moved for good, where to; and for a
/// feed older than its refresh period, that it is stale.
fn report(
    registry: &Registry,
    feeds: &BTreeMap<&str, Target<'_>>,
    urls: &[&str],
    outcomes: Vec<Fetched>,
) -> Result<Counts> {
    let mut out = std::io::stdout().lock();
    let mut counts = Counts::default();
    let now = std::time::SystemTime::now();
    for (url, fetched) in urls.iter().zip(outcomes) {
        let target = &feeds[url];
        let bots = target.bots.join(", ");
        let before = registry.ranges().get(url);
        // The copy in use after this run, and whether it is the operator's
        // own (fetched now) or one kept.
        let (copy, fresh) = match &fetched.outcome {
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
                (Some(feed), true)
            }
            Outcome::Shared(feed) => {
                writeln!(
                    out,
                    "shared\t{url}\t{} prefixes of {} (fetched {} by another node)\t{bots}",
                    feed.prefixes.len(),
                    feed.version(),
                    feed.fetched.as_deref().unwrap_or("?")
                )?;
                (Some(feed), true)
            }
            Outcome::Failed(reason) => {
                counts.failed += 1;
                let kept = before.map_or_else(
                    || "no copy".to_owned(),
                    |f| format!("keeping {} prefixes of {}", f.prefixes.len(), f.version()),
                );
                writeln!(out, "failed\t{url}\t{reason} ({kept})\t{bots}")?;
                (before, false)
            }
        };
        if let Some((status, to)) = &fetched.moved {
            counts.moved += 1;
            writeln!(
                out,
                "moved\t{url}\tpermanently ({status}) to {to}: record the new URL as the bots' ranges_url\t{bots}"
            )?;
        }
        if let Some(why) = copy.and_then(|c| staleness(c, fresh, target, now)) {
            counts.stale += 1;
            writeln!(out, "stale\t{url}\t{why}\t{bots}")?;
        }
    }
    Ok(counts)
}

/// Why `copy` of a feed is stale, if it is: a copy kept (the fetch failed)
/// older than the feed's refresh period; a copy fetched now whose own
/// `creationTime` is older than the period its bots state (an operator
/// that stopped updating the URL). Without a stated period a fetched copy
/// is never stale: many operators leave `creationTime` for months.
fn staleness(
    copy: &Feed,
    fresh: bool,
    target: &Target<'_>,
    now: std::time::SystemTime,
) -> Option<String> {
    let period = target.period;
    let of = if target.stated {
        format!("its refresh period, {period}")
    } else {
        format!("the default refresh period, {period}")
    };
    if fresh {
        if !target.stated {
            return None;
        }
        let age = now.duration_since(copy.created_at()?).ok()?;
        return period.is_stale(age).then(|| {
            format!(
                "the feed says it was made {} ago ({}), longer than {of} and a day: has the operator stopped updating this URL?",
                span(age),
                copy.version()
            )
        });
    }
    let age = copy.age(now)?;
    period.is_stale(age).then(|| {
        format!(
            "the copy kept is {} old ({}), older than {of} and a day: verification uses old ranges",
            span(age),
            copy.version()
        )
    })
}

/// A duration in whole days, or hours when under two days.
fn span(d: Duration) -> String {
    let hours = d.as_secs() / 3600;
    if hours < 48 {
        format!("{hours} hours")
    } else {
        format!("{} days", hours / 24)
    }
}

/// One feed: a fresh enough copy from Redis, else fetched (and offered to
/// Redis).
async fn update_one(
    fetcher: &Fetcher,
    url: &str,
    store: &FeedStore,
    shared: Option<&RedisFeeds>,
    max_age: Duration,
) -> Fetched {
    let Some(shared) = shared else {
        return fetch_one(fetcher, url, store).await;
    };
    if let Some(Some(copy)) = shared.get(url).await
        && copy
            .fetched
            .parse::<jiff::Timestamp>()
            .is_ok_and(|t| jiff::Timestamp::now().duration_since(t).unsigned_abs() <= max_age)
    {
        match store.store(url, &copy.body, &copy.fetched) {
            Ok(feed) => {
                return Fetched {
                    outcome: Outcome::Shared(feed),
                    body: None,
                    moved: None,
                };
            }
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
    let fetched = fetch_one(fetcher, url, store).await;
    if let (Outcome::Updated(feed), Some(body)) = (&fetched.outcome, &fetched.body) {
        let _ = shared.offer(feed, body).await;
    }
    fetched
}

/// One feed fetched and stored here, under the URL asked for: redirects
/// are followed (a permanent one is reported, for the registry to record
/// the new URL; a temporary one silently); with the body as fetched when
/// it was stored.
async fn fetch_one(fetcher: &Fetcher, url: &str, store: &FeedStore) -> Fetched {
    let fail = |reason: String, moved: Option<(u16, String)>| Fetched {
        outcome: Outcome::Failed(reason),
        body: None,
        moved,
    };
    let report = match fetcher.fetch(url).await {
        Ok(r) => r,
        Err(e) => return fail(e.to_string(), None),
    };
    let moved = report
        .moved_permanently()
        .map(|(status, to)| (status, to.to_string()));
    if let Some(e) = &report.error {
        return fail(e.to_string(), moved);
    }
    match report.status {
        Some(200) => {}
        Some(s) => return fail(format!("HTTP {s}"), moved),
        None => return fail("no answer".to_owned(), moved),
    }
    if report.truncated {
        return fail("the feed is larger than 16 MiB".to_owned(), moved);
    }
    let fetched = jiff::Timestamp::now().to_string();
    match store.store(url, &report.body, &fetched) {
        Ok(feed) => Fetched {
            outcome: Outcome::Updated(feed),
            body: Some(report.body),
            moved,
        },
        Err(e) => fail(crate::cmd::with_causes(&e), moved),
    }
}
