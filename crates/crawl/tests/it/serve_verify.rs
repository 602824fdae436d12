//! A crawl signed with an operator's key, whose every request the site
//! checks through the service's `/verify`, as nginx's `auth_request` would
//! ask.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::IntoResponse;
use botwarden_crawl::CrawlConfig;
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use botwarden_verify::{AgentForm, Signer};
use url::Url;

use crate::crawl::{TempStore, config, crawl_all};
use crate::signed::start_signed;

/// What the site's front learnt from `/verify` for each path: the
/// verdict and method.
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

/// A site whose front asks the service's `/verify` about each request, as
/// nginx's `auth_request` does: the request's fields passed through, with
/// `X-Original-URI`, `X-Forwarded-Host` and `X-Forwarded-Proto`.
async fn fronted_site(verify: String) -> (Url, Seen) {
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
        let record = Arc::clone(&record);
        let http = http.clone();
        let verify = verify.clone();
        async move {
            let mut ask = http.get(&verify);
            for (name, value) in &headers {
                if name != header::HOST {
                    ask = ask.header(name, value);
                }
            }
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let target = uri
                .path_and_query()
                .map_or("/".to_owned(), |p| p.as_str().to_owned());
            let answer = ask
                .header("x-original-uri", &target)
                .header("x-forwarded-host", &host)
                .header("x-forwarded-proto", "http")
                .send()
                .await
                .expect("/verify answers");
            let h = |n: &str| {
                answer
                    .headers()
                    .get(n)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned()
            };
            record.lock().expect("seen").push((
                uri.path().to_owned(),
                h("x-bot-verdict"),
                format!("{} {}", h("x-bot-method"), h("x-bot-reason")),
            ));
            let html = |body: &str| {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    format!("<!doctype html><title>t</title>{body}"),
                )
                    .into_response()
            };
            match uri.path() {
                "/robots.txt" => (
                    [(header::CONTENT_TYPE, "text/plain")],
                    format!("User-agent: *\nAllow: /\nSitemap: http://{host}/sitemap.xml\n"),
                )
                    .into_response(),
                "/sitemap.xml" => (
                    [(header::CONTENT_TYPE, "application/xml")],
                    format!(
                        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                         <url><loc>http://{host}/listed</loc></url></urlset>"
                    ),
                )
                    .into_response(),
                "/" => html(r#"<a href="/a">a</a> <a href="/b?x=1">b</a>"#),
                "/a" | "/b" | "/listed" => html("<p>end</p>"),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    (crate::serve_router(app).await, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_crawl_is_verified_request_by_request_through_verify() {
    let tmp = TempStore::new("serve-signed-crawl");
    let service = start_signed(tmp.dir(), |_| {}).await;
    let (start, seen) = fronted_site(format!("http://{}/verify", service.addr)).await;
    let signer = Signer::from_jwk(&service.signer.private_jwk(), "key")
        .expect("jwk")
        .agent(&format!("http://{}", service.addr), AgentForm::Dictionary)
        .expect("agent");
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_secs(10))
        .signer(Some(Arc::new(signer)))
        .build()
        .expect("fetcher");
    let config = CrawlConfig {
        robots_sitemaps: true,
        ..config()
    };
    let store = Store::create(&tmp.db()).expect("store");
    crawl_all(&start, &config, &fetcher, store, false).await;
    let seen = seen.lock().expect("seen").clone();
    let mut paths: Vec<&str> = seen.iter().map(|(p, _, _)| p.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        ["/", "/a", "/b", "/listed", "/robots.txt", "/sitemap.xml"]
    );
    for (path, verdict, method) in &seen {
        assert_eq!(
            (verdict.as_str(), method.as_str()),
            ("verified", "web_bot_auth "),
            "{path}"
        );
    }
}
