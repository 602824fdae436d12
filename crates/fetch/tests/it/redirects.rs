//! Redirect chains, limits and loops.

use botwarden_fetch::{Error, Warning};
use botwarden_robots::FetchResult;

use crate::server::{Reply, Server};
use crate::{ALLOW, PARSE, fetch};

/// `/chain/N` redirects to `/chain/N-1` (relative, absolute and
/// protocol-relative Locations in turn, each redirect status in turn);
/// `/chain/0` is the file.
async fn site() -> Server {
    Server::start(|asked| {
        let rest = asked.path.strip_prefix("/chain/").unwrap_or("");
        if let Ok(n) = rest.parse::<u32>() {
            if n == 0 {
                return Reply::text("User-agent: *\nDisallow: /\n");
            }
            let next = format!("/chain/{}", n - 1);
            let location = match n % 3 {
                0 => next,
                1 => format!("http://{}{next}", asked.host),
                _ => format!("//{}{next}", asked.host),
            };
            let status = [301, 302, 303, 307, 308][n as usize % 5];
            return Reply::new(status).header("location", location);
        }
        match asked.path {
            "/loop/a" => Reply::new(302).header("location", "/loop/b"),
            "/loop/b" => Reply::new(302).header("location", "/loop/a#again"),
            "/self" => Reply::new(301).header("location", "/self"),
            "/nowhere" => Reply::new(302),
            "/to-ftp" => Reply::new(302).header("location", "ftp://example.com/robots.txt"),
            _ => Reply::new(404),
        }
    })
    .await
}

#[tokio::test]
async fn chains_of_1_to_11_hops() {
    let server = site().await;
    for n in 1..=11u32 {
        let report = fetch(&server.url(&format!("/chain/{n}"))).await;
        let decisions = crate::decisions(&report.outcome());
        if n <= 10 {
            assert_eq!(report.result, FetchResult::Status(200), "{n}");
            assert_eq!(report.hops.len(), n as usize + 1, "{n}");
            assert_eq!(report.redirects(), n);
            assert!(report.error.is_none());
            assert_eq!(report.final_url().as_str(), server.url("/chain/0"));
            let warned = report.warnings.contains(&Warning::ManyRedirects {
                redirects: n,
                warn_after: 5,
            });
            assert_eq!(warned, n > 5, "{n}: {:?}", report.warnings);
            let want = if n <= 5 {
                PARSE
            } else {
                // RFC 9309, Google, Bing, Yandex and Mandelbot stop at 5;
                // the strict reading follows on.
                [
                    "full-allow",
                    "full-allow",
                    "full-allow",
                    "full-allow",
                    "parse",
                    "full-allow",
                ]
            };
            assert_eq!(decisions, want, "{n}");
        } else {
            assert_eq!(report.result, FetchResult::TooManyRedirects);
            assert_eq!(report.hops.len(), 11, "10 followed, the 11th not");
            assert_eq!(report.redirects(), 10);
            assert_eq!(
                report.error,
                Some(Error::TooManyRedirects {
                    url: server.url("/chain/1"),
                    max: 10
                })
            );
            assert_eq!(decisions, ALLOW);
        }
        // Every hop but the last is a redirect with its Location.
        for (i, hop) in report.hops.iter().enumerate() {
            let k = n - i as u32;
            assert_eq!(hop.url.as_str(), server.url(&format!("/chain/{k}")));
            if k > 0 {
                assert!(matches!(hop.status, Some(301..=308)), "{n}/{i}: {hop:?}");
                let location = hop.location.as_deref().expect("Location");
                assert!(
                    location.ends_with(&format!("/chain/{}", k - 1)),
                    "{location}"
                );
            } else {
                assert_eq!(hop.status, Some(200));
                assert_eq!(hop.location, None);
            }
        }
    }
}

#[tokio::test]
async fn a_fetcher_may_follow_fewer() {
    let server = site().await;
    let fetcher = crate::loopback().max_redirects(2).build().expect("fetcher");
    let report = fetcher.fetch(&server.url("/chain/3")).await.expect("sent");
    assert_eq!(report.result, FetchResult::TooManyRedirects);
    assert_eq!(report.hops.len(), 3);
}

#[tokio::test]
async fn loops() {
    let server = site().await;
    let report = fetch(&server.url("/loop/a")).await;
    assert_eq!(report.result, FetchResult::RedirectLoop);
    assert_eq!(report.hops.len(), 2);
    assert_eq!(
        report.error,
        Some(Error::RedirectLoop {
            url: server.url("/loop/b"),
            to: server.url("/loop/a"),
        })
    );
    assert_eq!(crate::decisions(&report.outcome()), ALLOW);

    let report = fetch(&server.url("/self")).await;
    assert_eq!(report.result, FetchResult::RedirectLoop);
    assert_eq!(report.hops.len(), 1);
}

#[tokio::test]
async fn redirects_that_cannot_be_followed() {
    let server = site().await;
    for path in ["/nowhere", "/to-ftp"] {
        let report = fetch(&server.url(path)).await;
        assert_eq!(report.result, FetchResult::Status(302), "{path}");
        assert_eq!(report.hops.len(), 1);
        assert_eq!(
            report.warnings,
            [Warning::RedirectWithoutLocation { status: 302 }],
            "{path}"
        );
        assert_eq!(
            crate::decisions(&report.outcome()),
            [
                "full-disallow",
                "full-allow",
                "full-disallow",
                "full-allow",
                "full-allow",
                "retry-later"
            ],
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_run_of_permanent_redirects_says_where_a_url_moved() {
    let server = site().await;
    // `/chain/5` answers 301, `/chain/4` 308, `/chain/3` 307 (temporary),
    // and so on down to `/chain/0`, the file.
    let moved = |n: u32| {
        let server = &server;
        async move {
            let report = fetch(&server.url(&format!("/chain/{n}"))).await;
            assert_eq!(report.result, FetchResult::Status(200), "{n}");
            report
                .moved_permanently()
                .map(|(status, url)| (status, url.to_string()))
        }
    };
    assert_eq!(moved(5).await, Some((301, server.url("/chain/3"))));
    assert_eq!(moved(4).await, Some((308, server.url("/chain/3"))));
    // A temporary redirect first: not moved, though permanent ones follow.
    assert_eq!(moved(3).await, None);
    assert_eq!(moved(1).await, None);
    assert_eq!(moved(0).await, None);
}
