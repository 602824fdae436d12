//! How the fetcher uses connections: reused by default, one per request
//! with `fresh_connections`; HTTP/2 with prior knowledge (h2c) when asked,
//! and the HTTP version of every page in the store.

use std::collections::BTreeSet;
use std::time::Duration;

use botwarden_fetch::{Fetcher, PageResponse};
use botwarden_store::Store;
use botwarden_testdata::dns::{TestDns, Zone};
use url::Url;

use crate::crawl::{TempStore, crawl_all};
use crate::faults::{Act, FaultServer, Script};

const PAGES: u32 = 8;

fn site() -> Script {
    let links: String = (0..PAGES)
        .map(|i| format!("<a href=\"/p/{i}\">{i}</a>"))
        .collect();
    Script::new()
        .path("/robots.txt", [Act::text("User-agent: *\nAllow: /\n")])
        .path("/", [Act::html(&links)])
        .fallback(|asked| {
            if asked.path.starts_with("/p/") {
                Act::html(&format!("<p>asked {} times before</p>", asked.index))
            } else {
                Act::status(404)
            }
        })
}

async fn fetch_all(fetcher: &Fetcher, server: &FaultServer) -> Vec<PageResponse> {
    fetch_from(fetcher, &server.url("")).await
}

/// `/p/0` … of the site at `base`, one after the other.
async fn fetch_from(fetcher: &Fetcher, base: &str) -> Vec<PageResponse> {
    let mut pages = Vec::new();
    for i in 0..PAGES {
        let url = Url::parse(&format!("{base}/p/{i}")).expect("url");
        let page = fetcher.fetch_page(url).await.expect("sent");
        assert_eq!(page.status, Some(200), "{:?}", page.error);
        assert!(page.ttfb.is_some() && page.download.is_some());
        pages.push(page);
    }
    pages
}

/// How many pages opened a connection.
fn opened(pages: &[PageResponse]) -> u64 {
    pages.iter().filter(|p| p.connect.is_some()).count() as u64
}

#[tokio::test]
async fn fresh_connections_open_one_connection_per_request() {
    let server = FaultServer::start(site()).await;
    let fresh = crate::loopback()
        .fresh_connections(true)
        .build()
        .expect("fetcher");
    let pages = fetch_all(&fresh, &server).await;
    assert_eq!(server.connections(), u64::from(PAGES));
    // Each page knows it opened one; an address needs no lookup.
    assert_eq!(opened(&pages), u64::from(PAGES));
    assert!(pages.iter().all(|p| p.dns.is_none()));

    // By default, one after the other, they share a connection.
    let reused = FaultServer::start(site()).await;
    let fetcher = crate::loopback().build().expect("fetcher");
    let pages = fetch_all(&fetcher, &reused).await;
    assert!(
        reused.connections() < u64::from(PAGES),
        "{} connections",
        reused.connections()
    );
    // The first page opened the connection, the pages that reused one
    // know they did. (A connection the client started for a page that then
    // took an idle one finishes in the background and is that page's at
    // most: never more pages than connections.)
    assert!(pages[0].connect.is_some());
    assert!(opened(&pages) < u64::from(PAGES));
    assert!(opened(&pages) <= reused.connections());
}

#[tokio::test]
async fn a_new_connection_to_a_name_times_its_lookup() {
    let server = FaultServer::start(site()).await;
    let dns = TestDns::start(
        Zone::new()
            .a("site.test", &["127.0.0.1"])
            .delay(Duration::from_millis(20)),
    )
    .await;
    let base = format!("http://site.test:{}", server.addr.port());
    for fresh in [true, false] {
        let fetcher = crate::loopback()
            .nameserver(Some(dns.addr()))
            .fresh_connections(fresh)
            .build()
            .expect("fetcher");
        let before = server.connections();
        let pages = fetch_from(&fetcher, &base).await;
        let connections = server.connections() - before;
        if fresh {
            assert_eq!(opened(&pages), connections);
            assert!(pages.iter().all(|p| p.dns.is_some()));
        } else {
            assert!(pages[0].dns.is_some() && pages[0].connect.is_some());
            assert!(opened(&pages) < u64::from(PAGES));
        }
        for p in &pages {
            // A connection to a name was preceded by its lookup, which is
            // part of the connecting.
            if let Some(connect) = p.connect {
                let dns = p.dns.expect("a lookup before the connection");
                assert!(dns <= connect, "{dns:?} {connect:?}");
            }
        }
    }
}

#[tokio::test]
async fn the_store_holds_each_pages_timings() {
    let server = FaultServer::start(site()).await;
    let tmp = TempStore::new("timings");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let fetcher = crate::loopback()
        .fresh_connections(true)
        .build()
        .expect("fetcher");
    let (store, _) = crawl_all(&start, &crate::crawl::config(), &fetcher, store, false).await;
    let (pages, connected, downloaded, looked_up): (i64, i64, i64, i64) = store
        .connection()
        .query_row(
            "SELECT count(*), count(connect_ms), count(download_ms), count(dns_ms) FROM pages",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .expect("counts");
    assert_eq!(pages, i64::from(PAGES) + 1);
    assert_eq!((connected, downloaded, looked_up), (pages, pages, 0));
    let inconsistent: i64 = store
        .connection()
        .query_row(
            "SELECT count(*) FROM pages
             WHERE connect_ms > ttfb_ms OR ttfb_ms > elapsed_ms OR download_ms > elapsed_ms",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(inconsistent, 0);
}

#[tokio::test]
async fn a_crawl_with_fresh_connections_asks_each_request_on_its_own() {
    let server = FaultServer::start(site()).await;
    let tmp = TempStore::new("fresh");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let fetcher = crate::loopback()
        .fresh_connections(true)
        .build()
        .expect("fetcher");
    let (_, end) = crawl_all(&start, &crate::crawl::config(), &fetcher, store, false).await;
    assert_eq!(end.fetched, u64::from(PAGES) + 1);
    let seen = server.seen();
    let connections: BTreeSet<u64> = seen.iter().map(|s| s.connection).collect();
    assert_eq!(connections.len(), seen.len(), "robots.txt and every page");
}

#[tokio::test]
async fn http2_with_prior_knowledge_is_spoken_and_recorded() {
    for (h2c, want, server_saw) in [
        (true, "HTTP/2", "HTTP/2.0"),
        (false, "HTTP/1.1", "HTTP/1.1"),
    ] {
        let server = FaultServer::start(site()).await;
        let tmp = TempStore::new(&format!("h2c-{h2c}"));
        let store = Store::create(&tmp.db()).expect("store");
        let start = Url::parse(&server.url("/")).expect("url");
        let fetcher = crate::loopback()
            .http2_prior_knowledge(h2c)
            .build()
            .expect("fetcher");
        let (store, end) = crawl_all(&start, &crate::crawl::config(), &fetcher, store, false).await;
        assert_eq!(end.fetched, u64::from(PAGES) + 1);
        let versions: Vec<(String, i64)> = {
            let mut st = store
                .connection()
                .prepare("SELECT http_version, count(*) FROM pages GROUP BY http_version")
                .expect("query");
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .expect("rows")
                .map(|r| r.expect("row"))
                .collect()
        };
        assert_eq!(versions, [(want.to_owned(), i64::from(PAGES) + 1)]);
        assert!(
            server.seen().iter().all(|s| s.version == server_saw),
            "{:?}",
            server.seen()
        );
        if h2c {
            // One connection carries every request at once.
            assert_eq!(server.connections(), 1);
        }
    }
}

/// A site of small images and one large video, one link each from `/`.
fn media_site() -> Script {
    Script::new().fallback(|asked| {
        if asked.path.starts_with("/img/") {
            Act::status(200)
                .header("content-type", "image/png")
                .body(vec![0x89; 2048])
        } else if asked.path == "/video" {
            Act::status(200)
                .header("content-type", "video/mp4")
                .zeros(50 << 20)
        } else {
            Act::status(404)
        }
    })
}

#[tokio::test]
async fn small_bodies_of_other_types_keep_the_connection_large_ones_are_not_downloaded() {
    let server = FaultServer::start(media_site()).await;
    let fetcher = crate::loopback().build().expect("fetcher");
    for i in 0..PAGES {
        let url = Url::parse(&server.url(&format!("/img/{i}.png"))).expect("url");
        let page = fetcher.fetch_page(url).await.expect("sent");
        assert_eq!(page.status, Some(200), "{:?}", page.error);
        assert!(!page.body_read && page.body.is_empty());
        // Read to keep the connection, counted, not kept.
        assert_eq!(page.wire_bytes, 2048);
    }
    // One after the other over HTTP/1.1, the images share a connection.
    assert_eq!(
        server.connections(),
        1,
        "{} connections",
        server.connections()
    );

    let video = Url::parse(&server.url("/video")).expect("url");
    let page = fetcher.fetch_page(video).await.expect("sent");
    assert_eq!(page.status, Some(200));
    assert_eq!(page.wire_bytes, 0);
    // The server could not write 50 MiB to a client that stopped reading.
    assert!(
        server.written() < 50 << 20,
        "{} bytes written",
        server.written()
    );
}
