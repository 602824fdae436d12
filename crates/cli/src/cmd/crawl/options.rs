//! What the crawl commands share: the options every worker of a crawl is
//! given alike (`crawl` and `crawl worker` flatten them), the fetcher they
//! set up, the runtime.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, Result};
use botwarden_crawl::{CrawlConfig, FrontierConfig, Identity, Scope, StopSignal, ThrottleConfig};
use botwarden_fetch::{Fetcher, FetcherBuilder};
use clap::{Args, ValueEnum};
use regex::Regex;

/// The options every worker of a crawl shares: its bounds, politeness and
/// scope, and how it asks.
#[derive(Debug, Clone, Args)]
pub(crate) struct Politeness {
    /// Queue at most this many URLs (the whole crawl).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub(crate) max_urls: u64,
    /// Follow links at most this deep from the start URL.
    #[arg(long, value_name = "D", default_value_t = 50)]
    pub(crate) max_depth: u32,
    /// Requests in flight to a host, at most, across all workers (the
    /// throttle lowers it when the site struggles).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub(crate) parallel: u32,
    /// Milliseconds between two requests to a host, at least, across all
    /// workers (a site's Crawl-delay raises it).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub(crate) delay: u64,
    /// Which URLs belong: the start URL's host, or its registrable domain.
    #[arg(long, value_enum, default_value_t = ScopeArg::Host)]
    pub(crate) scope: ScopeArg,
    /// Only URLs matching this regular expression.
    #[arg(long, value_name = "RE")]
    pub(crate) include: Option<Regex>,
    /// No URL matching this regular expression.
    #[arg(long, value_name = "RE")]
    pub(crate) exclude: Option<Regex>,
    /// Follow links marked nofollow (they are recorded either way).
    #[arg(long)]
    pub(crate) follow_nofollow: bool,
    /// The page that explains the crawler, in its User-Agent.
    #[arg(long, value_name = "URL", default_value = botwarden_crawl::DEFAULT_INFO_URL)]
    pub(crate) info_url: String,
    /// Allow loopback and private addresses (refused by default).
    #[arg(long)]
    pub(crate) allow_private: bool,
    /// Seconds for one request, body included.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub(crate) timeout: u64,
    /// Bytes of a page kept, after decompression.
    #[arg(long, value_name = "N", default_value_t = 10 * 1024 * 1024)]
    pub(crate) max_bytes: usize,
    /// The name server that resolves the site's names (ADDR:PORT).
    #[arg(long, value_name = "ADDR:PORT")]
    pub(crate) nameserver: Option<SocketAddr>,
}

impl Politeness {
    /// The crawl's configuration of these options, as `identity`.
    pub(crate) fn config(&self, identity: Identity) -> CrawlConfig {
        CrawlConfig {
            identity,
            frontier: FrontierConfig {
                scope: self.scope.into(),
                max_urls: self.max_urls,
                max_depth: self.max_depth,
                include: self.include.clone(),
                exclude: self.exclude.clone(),
                ..FrontierConfig::default()
            },
            throttle: ThrottleConfig {
                min_delay: Duration::from_millis(self.delay),
                max_parallel: self.parallel,
                ..ThrottleConfig::default()
            },
            follow_nofollow: self.follow_nofollow,
            ..CrawlConfig::default()
        }
    }

    /// The fetcher of these options, as `identity`; the caller adds its
    /// own settings and builds it.
    pub(crate) fn fetcher(&self, identity: &Identity) -> FetcherBuilder {
        fetcher_for(
            identity,
            self.allow_private,
            self.timeout,
            self.max_bytes,
            self.nameserver,
        )
    }
}

/// `--scope`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ScopeArg {
    Host,
    Domain,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::Host => Scope::Host,
            ScopeArg::Domain => Scope::Domain,
        }
    }
}

/// A fetcher as every crawl command sets it up; the caller adds its own
/// settings and builds it.
pub(crate) fn fetcher_for(
    identity: &Identity,
    allow_private: bool,
    timeout: u64,
    max_bytes: usize,
    nameserver: Option<SocketAddr>,
) -> FetcherBuilder {
    Fetcher::builder()
        .user_agent(identity.user_agent())
        .allow_private(allow_private)
        .timeout(Duration::from_secs(timeout.max(1)))
        .max_bytes(max_bytes)
        .nameserver(nameserver)
}

/// The runtime of the crawl commands: two worker threads.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Raises `stop` on Ctrl-C or SIGTERM (within the runtime).
pub(crate) fn stop_on_signal(stop: &StopSignal) {
    let on_signal = stop.clone();
    tokio::spawn(async move {
        crate::cmd::stop_signal().await;
        on_signal.stop();
    });
}
