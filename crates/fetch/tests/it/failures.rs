//! No answer: timeouts, dropped and refused connections.

use std::net::Ipv4Addr;
use std::time::Duration;

use botwarden_fetch::Error;
use botwarden_robots::FetchResult;

use crate::loopback;
use crate::server::{Misbehaviour, raw};

const UNREACHABLE: [&str; 6] = [
    "full-disallow",
    "full-disallow",
    "full-disallow",
    "full-allow",
    "retry-later",
    "retry-later",
];

#[tokio::test]
async fn slow_body_times_out() {
    let addr = raw(Misbehaviour::StallBody).await;
    let limit = Duration::from_millis(300);
    let fetcher = loopback().timeout(limit).build().expect("fetcher");
    let url = format!("http://{addr}/robots.txt");
    let report = fetcher.fetch(&url).await.expect("sent");
    assert_eq!(report.result, FetchResult::Timeout);
    assert_eq!(report.status, Some(200), "the headers came");
    assert_eq!(report.hops[0].status, Some(200));
    assert_eq!(
        report.error,
        Some(Error::Timeout {
            url,
            timeout: limit
        })
    );
    assert_eq!(crate::decisions(&report.outcome()), UNREACHABLE);
}

#[tokio::test]
async fn slow_headers_time_out() {
    let addr = raw(Misbehaviour::StallHeaders).await;
    let fetcher = loopback()
        .timeout(Duration::from_millis(300))
        .build()
        .expect("fetcher");
    let report = fetcher
        .fetch(&format!("http://{addr}/robots.txt"))
        .await
        .expect("sent");
    assert_eq!(report.result, FetchResult::Timeout);
    assert_eq!(report.status, None);
    assert_eq!(report.hops.len(), 1);
    assert_eq!(report.hops[0].status, None);
    assert!(report.body.is_empty());
    assert_eq!(crate::decisions(&report.outcome()), UNREACHABLE);
}

#[tokio::test]
async fn dropped_connection() {
    let addr = raw(Misbehaviour::Drop).await;
    let report = crate::fetch(&format!("http://{addr}/robots.txt")).await;
    assert_eq!(report.result, FetchResult::NetworkError);
    assert_eq!(report.status, None);
    assert_eq!(report.hops[0].status, None);
    assert!(
        matches!(&report.error, Some(Error::Network { url, .. }) if url.ends_with("/robots.txt")),
        "{:?}",
        report.error
    );
    assert_eq!(crate::decisions(&report.outcome()), UNREACHABLE);
}

#[tokio::test]
async fn refused_connection() {
    // A port that was just free: nothing listens there now.
    let port = {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        listener.local_addr().expect("address").port()
    };
    let report = crate::fetch(&format!("http://127.0.0.1:{port}/robots.txt")).await;
    assert_eq!(report.result, FetchResult::NetworkError);
    assert!(matches!(report.error, Some(Error::Network { .. })));
    assert_eq!(crate::decisions(&report.outcome()), UNREACHABLE);
}
