//! Integration tests of `botwarden-fetch`, against real HTTP servers that
//! each test starts on 127.0.0.1. No test sends traffic anywhere else, and
//! none asserts a timing.

mod content;
mod failures;
mod redirects;
mod robots;
mod safety;
// Shared with `botwarden-crawl`'s tests: not every helper is used here.
#[allow(dead_code)]
mod server;
mod statuses;

use botwarden_fetch::{FetchReport, Fetcher, FetcherBuilder};
use botwarden_robots::{AvailabilityPolicy, FetchOutcome};

/// A fetcher for the loopback servers.
pub(crate) fn loopback() -> FetcherBuilder {
    Fetcher::builder().allow_private(true)
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
