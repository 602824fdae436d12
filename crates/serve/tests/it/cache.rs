//! The cache of site robots.txt fetches, against loopback sites that
//! count the requests they get.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::routing::get;

use crate::{Running, TempDir, client, config, start};

/// A site on loopback whose robots.txt is sent with `cache_control` (if
/// any), counting the requests for it.
struct Site {
    addr: SocketAddr,
    hits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Site {
    async fn start(cache_control: Option<&'static str>, body: String) -> Site {
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&hits);
        let app = axum::Router::new().route(
            "/robots.txt",
            get(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                let body = body.clone();
                async move {
                    let mut response = axum::response::Response::new(axum::body::Body::from(body));
                    if let Some(cc) = cache_control {
                        response
                            .headers_mut()
                            .insert("cache-control", axum::http::HeaderValue::from_static(cc));
                    }
                    response
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("site");
        });
        Site { addr, hits, task }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// The checker page's link for this site (a page under it: the cache
    /// is keyed by the robots.txt URL).
    fn link(&self, running: &Running, page: &str) -> String {
        let site = format!("http://{}{page}", self.addr);
        let q: String = url::form_urlencoded::byte_serialize(site.as_bytes()).collect();
        running.url(&format!("/check?url={q}"))
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn view(url: &str) -> String {
    let r = client().get(url).send().await.expect("page");
    assert_eq!(r.status().as_u16(), 200);
    r.text().await.expect("html")
}

const ROBOTS: &str = "User-agent: *\nDisallow: /private\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_link_viewed_again_does_not_ask_the_site_again() {
    let site = Site::start(Some("max-age=600"), ROBOTS.to_owned()).await;
    let dir = TempDir::new("cache");
    let mut cfg = config(&dir);
    cfg.allow_private = true;
    let running = start(cfg, Some(dir)).await;
    let first = view(&site.link(&running, "/")).await;
    assert_eq!(site.hits(), 1);
    assert!(!first.contains("id=\"cached\""), "{first}");
    assert!(first.contains("/private"), "{first}");
    let second = view(&site.link(&running, "/")).await;
    assert_eq!(site.hits(), 1, "the second view asked the site");
    assert!(
        second.contains("the service keeps a site's robots.txt for 600 s"),
        "{second}"
    );
    // Another page of the same site, and the API: the same robots.txt.
    view(&site.link(&running, "/some/page?x=1")).await;
    let r = client()
        .post(running.url("/api/v1/check"))
        .json(&serde_json::json!({ "url": format!("http://{}/", site.addr) }))
        .send()
        .await
        .expect("check");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(site.hits(), 1);
    let text = client()
        .get(running.url("/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    for line in [
        "botwarden_robots_cache_hits_total 3",
        "botwarden_robots_cache_misses_total 1",
        "botwarden_robots_cache_entries 1",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_keeps_within_its_bounds_and_lifetimes() {
    // no-store is kept for the floor only; max-age=600 for 600 s.
    let short = Site::start(Some("no-store"), ROBOTS.to_owned()).await;
    let long = Site::start(Some("max-age=600"), ROBOTS.to_owned()).await;
    let dir = TempDir::new("cache-bounds");
    let mut cfg = config(&dir);
    cfg.allow_private = true;
    cfg.robots_cache_min = 0.2;
    let running = start(cfg, Some(dir)).await;
    view(&short.link(&running, "/")).await;
    view(&long.link(&running, "/")).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    view(&short.link(&running, "/")).await;
    view(&long.link(&running, "/")).await;
    assert_eq!((short.hits(), long.hits()), (2, 1));
    running.stop().await;

    // One entry: a second site evicts the first.
    let a = Site::start(Some("max-age=600"), ROBOTS.to_owned()).await;
    let b = Site::start(Some("max-age=600"), ROBOTS.to_owned()).await;
    let dir = TempDir::new("cache-entries");
    let mut cfg = config(&dir);
    cfg.allow_private = true;
    cfg.robots_cache_entries = 1;
    let running = start(cfg, Some(dir)).await;
    for s in [&a, &b, &a, &a] {
        view(&s.link(&running, "/")).await;
    }
    assert_eq!((a.hits(), b.hits()), (2, 1));
    running.stop().await;

    // Bytes: a body larger than the whole cache is never kept; a small
    // one is.
    let big = Site::start(Some("max-age=600"), "Disallow: /x\n".repeat(2000)).await;
    let small = Site::start(Some("max-age=600"), ROBOTS.to_owned()).await;
    let dir = TempDir::new("cache-bytes");
    let mut cfg = config(&dir);
    cfg.allow_private = true;
    cfg.robots_cache_bytes = 8 * 1024;
    let running = start(cfg, Some(dir)).await;
    for s in [&big, &big, &small, &small] {
        view(&s.link(&running, "/")).await;
    }
    assert_eq!((big.hits(), small.hits()), (2, 1));
    running.stop().await;
}
