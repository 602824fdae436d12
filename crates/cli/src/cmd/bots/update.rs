//! `botwarden bots update`: refresh the published IP ranges.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_crawl::{Error, Fetcher};
use botwarden_verify::{Feed, FeedStore, MAX_FEED_BYTES};
use clap::Args;

use super::registry::RegistryArgs;

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
}

/// What became of one feed.
enum Outcome {
    Updated(Feed),
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
    let outcomes: Vec<Outcome> = runtime.block_on(async {
        let fetcher = fetcher.build()?;
        let jobs = urls.iter().map(|url| fetch_one(&fetcher, url, &store));
        Ok::<_, Error>(futures_util::future::join_all(jobs).await)
    })?;
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
    writeln!(
        out,
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

async fn fetch_one(fetcher: &Fetcher, url: &str, store: &FeedStore) -> Outcome {
    let report = match fetcher.fetch(url).await {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    if let Some(e) = &report.error {
        return Outcome::Failed(e.to_string());
    }
    match report.status {
        Some(200) => {}
        Some(s) => return Outcome::Failed(format!("HTTP {s}")),
        None => return Outcome::Failed("no answer".to_owned()),
    }
    if report.truncated {
        return Outcome::Failed("the feed is larger than 16 MiB".to_owned());
    }
    let fetched = jiff::Timestamp::now().to_string();
    match store.store(url, &report.body, &fetched) {
        Ok(feed) => Outcome::Updated(feed),
        Err(e) => Outcome::Failed(crate::cmd::with_causes(&e)),
    }
}
