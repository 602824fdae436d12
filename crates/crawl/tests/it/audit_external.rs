//! Checking the site's links to other sites (`check_external`), against a
//! second loopback server as the other site: a `404`, a `500`, a timeout,
//! and the near misses (a server that refuses `HEAD` but answers `GET`, a
//! redirect, a page that is fine), politeness and the caps.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use botwarden_audit::Audit;
use botwarden_crawl::{ExternalConfig, ExternalSummary, check_external};
use botwarden_store::Store;
use tokio::net::TcpListener;
use url::Url;

use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::server::{Reply, Server};

/// What the other site saw: each request's method and path, and the most
/// requests it had at once.
#[derive(Default)]
struct Seen {
    requests: Mutex<Vec<String>>,
    now: AtomicUsize,
    most: AtomicUsize,
}

async fn other_site(State(seen): State<Arc<Seen>>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    seen.requests
        .lock()
        .expect("lock")
        .push(format!("{method} {path}"));
    let now = seen.now.fetch_add(1, Ordering::SeqCst) + 1;
    seen.most.fetch_max(now, Ordering::SeqCst);
    let (status, location) = match (path.as_str(), &method) {
        ("/gone", _) => (404, None),
        ("/error", _) => (500, None),
        ("/no-head", &Method::HEAD) => (405, None),
        ("/moved", _) => (301, Some("/fine")),
        ("/slow", _) => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            (200, None)
        }
        _ => (200, None),
    };
    seen.now.fetch_sub(1, Ordering::SeqCst);
    let mut response = Response::builder()
        .status(StatusCode::from_u16(status).expect("status"))
        .header("content-type", "text/html");
    if let Some(l) = location {
        response = response.header("location", l);
    }
    response.body(Body::from("<p>other</p>")).expect("response")
}

/// The other site on 127.0.0.1, on a port of its own.
async fn start_other(seen: Arc<Seen>) -> String {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = Router::new().fallback(other_site).with_state(seen);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// The other site's URLs, in the order the site links to them: the slow
/// one last of those checked (its handler goes on after the check gave up,
/// and would count as a second request at once).
/// A row of `external_checks`: URL, method, status, error, location.
type Checked = (String, String, Option<u16>, Option<String>, Option<String>);

const PATHS: &[&str] = &[
    "/gone", "/error", "/no-head", "/fine", "/moved", "/slow", "/extra",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_links_are_checked_once_each_politely_and_the_broken_reported() {
    let seen = Arc::new(Seen::default());
    let other = start_other(Arc::clone(&seen)).await;
    let links: String = PATHS
        .iter()
        .map(|p| format!(r#"<a href="{other}{p}">to {p}</a> "#))
        .collect();
    let page = move |body: String| {
        Reply::new(200)
            .header("content-type", "text/html; charset=utf-8")
            .body(format!(
                "<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"
            ))
    };
    let again = format!(r#"<a href="{other}/gone">the same dead link</a>"#);
    let site = Server::start(move |asked| match asked.path {
        "/" => page(format!(r#"{links}<a href="/second">second</a>"#)),
        "/second" => page(again.clone()),
        _ => Reply::new(404),
    })
    .await;
    let tmp = TempStore::new("external");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&site.url("/")).expect("url");
    let (mut store, end) = crawl_all(&start, &config(), &fetcher(), store, false).await;
    assert_eq!(end.fetched, 2);
    assert!(
        seen.requests.lock().expect("lock").is_empty(),
        "the crawl itself does not visit the other site"
    );

    let settings = ExternalConfig {
        delay: Duration::from_millis(20),
        timeout: Duration::from_secs(1),
        per_host: 6,
        total: 100,
        hosts_at_once: 2,
    };
    let summary = check_external(&mut store, &fetcher(), &settings)
        .await
        .expect("checked");
    assert_eq!(
        summary,
        ExternalSummary {
            checked: 6,
            broken: 3,
            walled: 0,
            over_host_cap: 1,
            over_total_cap: 0,
            already_checked: 0,
            per_host: 6,
            total: 100,
        }
    );
    assert_eq!(
        summary.to_string(),
        "6 external URL(s) checked, 3 broken, 0 behind a bot wall; 1 left unchecked \
         (over 6 per host), 0 (over 100 in all); 0 checked before"
    );
    // Each URL once, HEAD first, GET only where HEAD was refused; no
    // robots.txt; never two requests at once; the one over the cap not
    // asked.
    let mut requests = seen.requests.lock().expect("lock").clone();
    requests.sort();
    assert_eq!(
        requests,
        [
            "GET /no-head",
            "HEAD /error",
            "HEAD /fine",
            "HEAD /gone",
            "HEAD /moved",
            "HEAD /no-head",
            "HEAD /slow",
        ]
    );
    assert_eq!(seen.most.load(Ordering::SeqCst), 1);

    let stored: Vec<Checked> = {
        let mut st = store
            .connection()
            .prepare(
                "SELECT u.url, e.method, e.status, e.error, e.location
                 FROM external_checks e JOIN urls u ON u.id = e.url_id ORDER BY u.id",
            )
            .expect("query");
        st.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
    };
    let row = |p: &str| {
        stored
            .iter()
            .find(|s| s.0 == format!("{other}{p}"))
            .unwrap_or_else(|| panic!("{p} stored"))
            .clone()
    };
    assert_eq!(row("/no-head").1, "GET");
    assert_eq!(row("/no-head").2, Some(200));
    assert_eq!(row("/moved").4, Some(format!("{other}/fine")));
    let slow = row("/slow");
    assert_eq!(slow.2, None);
    assert!(
        slow.3.as_deref().is_some_and(|e| e.contains("timed out")),
        "{slow:?}"
    );

    let report = Audit::default().run(&store).expect("audit");
    let broken = report.check("links/broken-external").expect("check");
    let found: Vec<(String, &str)> = broken
        .findings
        .iter()
        .map(|f| (f.url.replace(&other, ""), f.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("/gone".to_owned(), "answered 404 to HEAD"),
            ("/error".to_owned(), "answered 500 to HEAD"),
            (
                "/slow".to_owned(),
                "no answer to HEAD (timed out after 1 s)"
            ),
        ]
    );
    let gone = &broken.findings[0];
    assert_eq!(gone.link_count, 2);
    let sources: Vec<(&str, Option<&str>)> = gone
        .links
        .iter()
        .map(|l| (&*l.source, l.anchor.as_deref()))
        .collect();
    assert_eq!(
        sources,
        [
            (site.url("/").as_str(), Some("to /gone")),
            (site.url("/second").as_str(), Some("the same dead link")),
        ]
    );

    // A later run checks what the cap left, and nothing twice.
    let later = check_external(&mut store, &fetcher(), &settings)
        .await
        .expect("checked again");
    assert_eq!((later.checked, later.already_checked), (1, 6));
    assert_eq!(seen.requests.lock().expect("lock").len(), 8);
}
