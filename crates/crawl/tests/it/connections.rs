//! How the fetcher uses connections: reused by default, one per request
//! with `fresh_connections`; HTTP/2 with prior knowledge (h2c) when asked,
//! and the HTTP version of every page in the store.

use std::collections::BTreeSet;

use botwarden_crawl::{Fetcher, Store};
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
                Act::html("<p>page</p>")
            } else {
                Act::status(404)
            }
        })
}

async fn fetch_all(fetcher: &Fetcher, server: &FaultServer) {
    for i in 0..PAGES {
        let url = Url::parse(&server.url(&format!("/p/{i}"))).expect("url");
        let page = fetcher.fetch_page(url).await.expect("sent");
        assert_eq!(page.status, Some(200));
    }
}

#[tokio::test]
async fn fresh_connections_open_one_connection_per_request() {
    let server = FaultServer::start(site()).await;
    let fresh = crate::loopback()
        .fresh_connections(true)
        .build()
        .expect("fetcher");
    fetch_all(&fresh, &server).await;
    assert_eq!(server.connections(), u64::from(PAGES));

    // By default, one after the other, they share a connection.
    let reused = FaultServer::start(site()).await;
    let fetcher = crate::loopback().build().expect("fetcher");
    fetch_all(&fetcher, &reused).await;
    assert!(
        reused.connections() < u64::from(PAGES),
        "{} connections",
        reused.connections()
    );
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
