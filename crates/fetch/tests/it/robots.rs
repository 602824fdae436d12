//! A site's robots.txt: from the site's URL to each robot's decision,
//! including the probe for a missing path after a 5xx.

use botwarden_fetch::{fetch_robots_txt, robots_url};
use botwarden_robots::FetchResult;

use crate::server::{Reply, Server};
use crate::{PARSE, loopback};

#[tokio::test]
async fn from_a_page_to_its_robots_txt() {
    let server = Server::start(|asked| match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nDisallow: /private\n"),
        _ => Reply::new(404),
    })
    .await;
    let fetcher = loopback().build().expect("fetcher");
    let robots = fetcher
        .fetch_robots(&server.url("/shop/cart?item=1#top"))
        .await
        .expect("fetched");
    assert_eq!(robots.robots_url.as_str(), server.url("/robots.txt"));
    assert_eq!(robots.report.result, FetchResult::Status(200));
    assert!(robots.missing_probe.is_none(), "no probe after a 200");
    assert_eq!(crate::decisions(&robots.outcome()), PARSE);
}

#[tokio::test]
async fn five_hundreds_for_missing_paths_read_as_404() {
    // A site that answers 500 for everything, missing paths too.
    let broken = Server::start(|_| Reply::new(500)).await;
    let fetcher = loopback().build().expect("fetcher");
    let robots = fetcher
        .fetch_robots(&broken.url("/"))
        .await
        .expect("fetched");
    let probe = robots.missing_probe.as_ref().expect("a probe after a 5xx");
    assert_eq!(probe.status, Some(500));
    assert!(probe.url.path().starts_with("/botwarden-missing-"));
    assert_eq!(
        crate::decisions(&robots.outcome()),
        // Google and Mandelbot read it as a 404; the others as a 5xx.
        [
            "full-disallow",
            "full-allow",
            "full-disallow",
            "full-allow",
            "retry-later",
            "full-allow"
        ]
    );

    // A site whose robots.txt alone fails.
    let down = Server::start(|asked| match asked.path {
        "/robots.txt" => Reply::new(503),
        _ => Reply::new(404),
    })
    .await;
    let robots = fetcher.fetch_robots(&down.url("/")).await.expect("fetched");
    assert_eq!(
        robots.missing_probe.as_ref().and_then(|p| p.status),
        Some(404)
    );
    assert_eq!(
        crate::decisions(&robots.outcome()),
        [
            "full-disallow",
            "full-disallow",
            "full-disallow",
            "full-allow",
            "retry-later",
            "retry-later"
        ]
    );
}

#[test]
fn blocking_fetch_for_the_checker() {
    // The server runs on a thread and runtime of its own; the helper
    // starts another runtime on this thread.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let server = Server::start(|asked| match asked.path {
                "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
                _ => Reply::new(404),
            })
            .await;
            tx.send(server).expect("send the server");
            std::future::pending::<()>().await;
        });
    });
    let server = rx.recv().expect("the server");
    let site = server.url("/index.html");
    let robots = fetch_robots_txt(&site, &loopback()).expect("fetched");
    assert_eq!(robots.site, site);
    assert_eq!(robots.robots_url, robots_url(&site).expect("a URL"));
    assert_eq!(robots.report.body, b"User-agent: *\nAllow: /\n");
}
