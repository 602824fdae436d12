//! Error statuses, with and without `Retry-After`, and what each robot
//! makes of them.

use std::time::Duration;

use botwarden_robots::{Availability, AvailabilityPolicy, FetchResult};

use crate::fetch;
use crate::server::{Reply, Server};

/// `/status/CODE` answers CODE; `?retry=N` adds `Retry-After: N`.
async fn site() -> Server {
    Server::start(|asked| {
        let code = asked
            .path
            .strip_prefix("/status/")
            .and_then(|c| c.parse().ok())
            .unwrap_or(404);
        let reply = Reply::new(code)
            .header("content-type", "text/html")
            .body("<h1>error</h1>");
        match asked.query.strip_prefix("retry=") {
            Some(n) => reply.header("retry-after", n),
            None => reply,
        }
    })
    .await
}

const A: &str = "full-allow";
const D: &str = "full-disallow";
const R: &str = "retry-later";

#[tokio::test]
async fn each_status_under_each_policy() {
    let server = site().await;
    // rfc9309, google, bing, yandex, strict, mandelbot
    let table: [(u16, [&str; 6]); 7] = [
        (401, [A, A, A, A, D, A]),
        (403, [A, A, A, A, D, A]),
        (404, [A, A, A, A, A, A]),
        (410, [A, A, A, A, A, A]),
        (429, [A, D, A, A, A, A]),
        (500, [D, D, D, A, R, R]),
        (503, [D, D, D, A, R, R]),
    ];
    for (code, want) in table {
        for retry in [None, Some(120)] {
            let path = match retry {
                Some(n) => format!("/status/{code}?retry={n}"),
                None => format!("/status/{code}"),
            };
            let report = fetch(&server.url(&path)).await;
            assert_eq!(report.result, FetchResult::Status(code), "{path}");
            assert_eq!(report.status, Some(code));
            assert!(report.error.is_none(), "{path}: a status is an answer");
            // Warnings about the body are for successful answers only.
            assert!(report.warnings.is_empty(), "{path}: {:?}", report.warnings);
            let delay = report.retry_after.as_ref().and_then(|r| r.delay);
            assert_eq!(delay, retry.map(Duration::from_secs), "{path}");
            let outcome = report.outcome();
            assert_eq!(crate::decisions(&outcome), want, "{path}");
            for policy in AvailabilityPolicy::ALL {
                let decision = policy.decide(&outcome);
                if let Availability::RetryLater(after) = decision.availability {
                    let want = retry.map_or(policy.retry_interval, Duration::from_secs);
                    assert_eq!(after, want, "{path} [{policy}]");
                }
            }
        }
    }
}

#[tokio::test]
async fn retry_after_as_a_date() {
    let server =
        Server::start(|_| Reply::new(503).header("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"))
            .await;
    let report = fetch(&server.url("/robots.txt")).await;
    let retry = report.retry_after.expect("Retry-After");
    assert_eq!(retry.raw, "Wed, 21 Oct 2015 07:28:00 GMT");
    assert_eq!(retry.delay, Some(Duration::ZERO), "a date in the past");
}
