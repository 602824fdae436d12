//! Integration tests of `botwarden-crawl`, against real HTTP servers that
//! each test starts on 127.0.0.1. No test sends traffic anywhere else, and
//! none asserts a timing.

mod audit;
mod audit_external;
mod audit_reports;
mod audit_tls;
mod audit_trust;
mod availability;
mod connections;
mod content;
mod crawl;
mod failures;
mod faults;
mod large;
mod nginx_site;
mod ownership;
mod reading;
mod redirects;
mod robots;
mod robustness;
mod safety;
mod server;
mod statuses;
mod throttling;
mod tls;
mod webbotauth;

use botwarden_crawl::{CrawlConfig, FetchReport, Fetcher, FetcherBuilder, ThrottleConfig};
use botwarden_robots::{AvailabilityPolicy, FetchOutcome};

/// A fetcher for the loopback servers.
pub(crate) fn loopback() -> FetcherBuilder {
    Fetcher::builder().allow_private(true)
}

/// The crawl's defaults, one request at a time.
pub(crate) fn one_at_a_time() -> CrawlConfig {
    CrawlConfig {
        throttle: ThrottleConfig {
            max_parallel: 1,
            ..ThrottleConfig::default()
        },
        ..CrawlConfig::default()
    }
}

/// Fetches `url` with the loopback defaults.
pub(crate) async fn fetch(url: &str) -> FetchReport {
    loopback()
        .build()
        .expect("fetcher")
        .fetch(url)
        .await
        .expect("something was sent")
}

/// The decision of each built-in policy, in the order of
/// [`AvailabilityPolicy::ALL`]: rfc9309, google, bing, yandex, strict,
/// mandelbot.
pub(crate) fn decisions(outcome: &FetchOutcome) -> [&'static str; 6] {
    AvailabilityPolicy::ALL.map(|p| p.decide(outcome).availability.name())
}

pub(crate) const PARSE: [&str; 6] = ["parse"; 6];
pub(crate) const ALLOW: [&str; 6] = ["full-allow"; 6];
