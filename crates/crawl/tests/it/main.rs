//! Integration tests of `botwarden-crawl`, against real HTTP servers that
//! each test starts on 127.0.0.1. No test sends traffic anywhere else, and
//! none asserts a timing.

mod audit;
mod audit_breadth;
mod audit_external;
mod audit_reports;
mod audit_resources;
mod audit_tls;
mod audit_trust;
mod audit_usage;
mod availability;
mod connections;
mod crawl;
mod faults;
mod large;
mod nginx_site;
mod ownership;
mod reading;
mod robustness;
mod serve_verify;
// The loopback server of `botwarden-fetch`'s tests; not every helper of
// it is used here.
#[allow(dead_code)]
#[path = "../../../fetch/tests/it/server.rs"]
mod server;
// The service with the operator's Web Bot Auth key, of `botwarden-serve`'s
// tests.
#[path = "../../../serve/tests/it/signed.rs"]
mod signed;
mod throttling;
mod tls;
mod webbotauth;

use botwarden_crawl::{CrawlConfig, ThrottleConfig};
use botwarden_fetch::{Fetcher, FetcherBuilder};

/// Serves `app` (an axum router) on a free loopback port; its root URL.
pub(crate) async fn serve_router(app: axum::Router) -> url::Url {
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url::Url::parse(&format!("http://{addr}/")).expect("url")
}

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
