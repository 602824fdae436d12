//! robots.txt availability in a crawl, against the fault-injecting server:
//! `4xx` allows everything; `5xx`, timeouts and resets disallow everything
//! for now and robots.txt is asked again, the origin's URLs waiting, until
//! the attempts run out; a redirect chain to another host and path is
//! followed and its end read.

use std::time::Duration;

use botwarden_crawl::CrawlConfig;
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use url::Url;

use crate::crawl::{TempStore, crawl_all, fetcher};
use crate::faults::{Act, FaultServer, Script};

fn site(robots: impl IntoIterator<Item = Act>) -> Script {
    Script::new()
        .path("/robots.txt", robots)
        .path(
            "/",
            [Act::html(
                r#"<a href="/open">o</a> <a href="/secret">s</a>"#,
            )],
        )
        .path("/open", [Act::html("<p>open</p>")])
        .path("/secret", [Act::html("<p>secret</p>")])
}

/// Every URL of the store: path, state, skip reason.
fn urls(store: &Store, server: &FaultServer) -> Vec<(String, String, Option<String>)> {
    let mut st = store
        .connection()
        .prepare("SELECT url, state, skip_reason FROM urls ORDER BY url")
        .expect("query");
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .map(|(u, s, r): (String, String, Option<String>)| (u.replace(&server.url(""), ""), s, r))
        .collect()
}

/// `(status, availability)` of each robots.txt fetch, in order.
fn robots_files(store: &Store) -> Vec<(Option<u16>, String)> {
    let mut st = store
        .connection()
        .prepare("SELECT status, availability FROM robots_files ORDER BY rowid")
        .expect("query");
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

fn row(path: &str, state: &str, reason: Option<&str>) -> (String, String, Option<String>) {
    (path.to_owned(), state.to_owned(), reason.map(str::to_owned))
}

/// Retries a second apart at most, so that the tests are short.
fn quick_retries(attempts: u32) -> CrawlConfig {
    CrawlConfig {
        robots_attempts: attempts,
        max_pause: Duration::from_millis(200),
        ..CrawlConfig::default()
    }
}

#[tokio::test]
async fn a_missing_robots_txt_allows_everything() {
    let server = FaultServer::start(site([Act::status(404)])).await;
    let tmp = TempStore::new("robots-404");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, _) = crawl_all(&start, &quick_retries(3), &fetcher(), store, false).await;
    assert_eq!(
        urls(&store, &server),
        [
            row("/", "fetched", None),
            row("/open", "fetched", None),
            row("/secret", "fetched", None),
        ]
    );
    assert_eq!(robots_files(&store), [(Some(404), "full-allow".to_owned())]);
    assert_eq!(server.hits("/robots.txt"), 1);
}

#[tokio::test]
async fn an_unreadable_robots_txt_holds_the_origin_until_it_reads() {
    // A 503, then no answer in time, then a reset, then the rules.
    let server = FaultServer::start(site([
        Act::status(503),
        Act::text("User-agent: *\nAllow: /\n").delay(Duration::from_secs(2)),
        Act::reset(),
        Act::text("User-agent: *\nDisallow: /secret\n"),
    ]))
    .await;
    let tmp = TempStore::new("robots-retry");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_millis(500))
        .build()
        .expect("fetcher");
    let (store, _) = crawl_all(&start, &quick_retries(4), &fetcher, store, false).await;
    assert_eq!(
        urls(&store, &server),
        [
            row("/", "fetched", None),
            row("/open", "fetched", None),
            row("/secret", "skipped", Some("robots")),
        ]
    );
    // The store keeps the origin's last robots.txt.
    assert_eq!(robots_files(&store), [(Some(200), "parse".to_owned())]);
    assert_eq!(server.hits("/robots.txt"), 4);
    // No page was asked for before robots.txt could be read.
    // (The fetcher also asks for a path that does not exist after a 5xx, to
    // tell a site that answers 5xx for everything.)
    let order: Vec<String> = server
        .seen()
        .into_iter()
        .map(|s| s.path)
        .filter(|p| !p.starts_with("/botwarden-missing-"))
        .collect();
    assert_eq!(
        order[..5],
        [
            "/robots.txt",
            "/robots.txt",
            "/robots.txt",
            "/robots.txt",
            "/"
        ]
    );
}

#[tokio::test]
async fn a_robots_txt_never_readable_skips_the_origin_with_the_reason() {
    let server = FaultServer::start(site([Act::status(500)])).await;
    let tmp = TempStore::new("robots-500");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, end) = crawl_all(&start, &quick_retries(2), &fetcher(), store, false).await;
    assert_eq!(end.fetched, 0);
    assert_eq!(
        urls(&store, &server),
        [row("/", "skipped", Some("robots-unavailable"))]
    );
    let detail: String = store
        .connection()
        .query_row("SELECT skip_detail FROM urls", [], |r| r.get(0))
        .expect("detail");
    assert!(detail.contains("answered 500"), "{detail}");
    assert!(detail.contains("gave up after 2 attempts"), "{detail}");
    assert_eq!(server.hits("/robots.txt"), 2);
    assert_eq!(server.hits("/"), 0);
}

#[tokio::test]
async fn a_redirected_robots_txt_is_read_on_the_other_host() {
    let other = FaultServer::start(
        Script::new()
            .path(
                "/moved",
                [Act::status(302).header("location", "/rules/robots.txt")],
            )
            .path(
                "/rules/robots.txt",
                [Act::text("User-agent: *\nAllow: /\nDisallow: /secret\n")],
            ),
    )
    .await;
    let server = FaultServer::start(site([
        Act::status(301).header("location", other.url("/moved"))
    ]))
    .await;
    let tmp = TempStore::new("robots-redirect");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, _) = crawl_all(&start, &quick_retries(3), &fetcher(), store, false).await;
    assert_eq!(
        urls(&store, &server),
        [
            row("/", "fetched", None),
            row("/open", "fetched", None),
            row("/secret", "skipped", Some("robots")),
        ]
    );
    let detail: String = store
        .connection()
        .query_row(
            "SELECT skip_detail FROM urls WHERE url LIKE '%/secret'",
            [],
            |r| r.get(0),
        )
        .expect("detail");
    assert_eq!(detail, "Disallow: /secret (line 3)");
    assert_eq!(robots_files(&store), [(Some(200), "parse".to_owned())]);
    assert_eq!(
        (other.hits("/moved"), other.hits("/rules/robots.txt")),
        (1, 1)
    );
}
