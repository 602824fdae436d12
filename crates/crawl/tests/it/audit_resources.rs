//! Resources (`crawl --resources`), bot walls of external links, and
//! certificates about to expire: each check planted with its near misses
//! on loopback sites, precision and recall 1.0 per check.
//!
//! - `resources/broken`, `resources/blocked`, `images/heavy`: a site and
//!   a second origin as its CDN, each with its robots.txt; a resource
//!   disallowed only for another robot, an image of 100 KiB exactly, an
//!   icon (not a resource), an image in a `<template>`, a `data:` image,
//!   a server that refuses `HEAD`.
//! - `links/external-unverified` and `links/broken-external`: walls by
//!   header, by page and by `Retry-After`, and a `403` and a `429`
//!   without any mark; a wall that lets a request through only when its
//!   Web Bot Auth signature verifies, checked unsigned then signed.
//! - `security/certificate-expiring`: nginx over TLS with certificates
//!   that expire in 29 and 31 days, and one expired.

use std::collections::BTreeMap;
use std::fs;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::IntoResponse;
use botwarden_audit::Audit;
use botwarden_crawl::{
    CrawlConfig, ExternalConfig, ResourceConfig, ResourceSummary, StopSignal, check_certificates,
    check_external, check_resources,
};
use botwarden_fetch::{Fetcher, KeyDirConfig, KeyDirectories};
use botwarden_store::Store;
use botwarden_verify::{
    AgentForm, SignatureCheck, SignatureVerifier, Signer, WELL_KNOWN_DIRECTORY,
};
use url::Url;

use crate::audit_trust::{Found, found, owned};
use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::nginx_site::start_nginx;
use crate::server::{Reply, Server};
use crate::tls::{authority, server_certificate};
use crate::webbotauth::signed_parts;

/// The checks planted here.
pub(crate) const CODES: &[&str] = &[
    "resources/broken",
    "resources/blocked",
    "images/heavy",
    "links/external-unverified",
    "security/certificate-expiring",
];

/// Every request a loopback site saw: method and path.
type Log = Arc<Mutex<Vec<String>>>;

fn html(body: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"
        ))
}

fn bytes(n: usize, kind: &str) -> Reply {
    Reply::new(200)
        .header("content-type", kind)
        .body(vec![0u8; n])
}

/// The CDN: its robots.txt keeps every robot out of `/blocked/`.
async fn cdn(log: Log) -> Server {
    Server::start(move |asked| {
        log.lock()
            .expect("log")
            .push(format!("{} {}", asked.method, asked.path));
        match asked.path {
            "/robots.txt" => Reply::text("User-agent: *\nDisallow: /blocked/\n"),
            "/blocked/lib.js" => bytes(10, "text/javascript"),
            "/lib/ok.js" => bytes(10, "text/javascript"),
            "/img/photo.jpg" => bytes(300_000, "image/jpeg"),
            _ => Reply::new(404),
        }
    })
    .await
}

/// The site's pages, using its own resources and the CDN's (`cdn`).
fn site_route(path: &str, method: &str, cdn: &str) -> Reply {
    match path {
        "/robots.txt" => Reply::text(
            "User-agent: *\nDisallow: /private/\n\nUser-agent: otherbot\nDisallow: /assets/\n",
        ),
        "/" => html(r#"<a href="/a">a</a> <a href="/b">b</a>"#),
        "/a" => Reply::new(200)
            .header("content-type", "text/html; charset=utf-8")
            .body(format!(
                r#"<!doctype html><html><head><title>a</title>
<link rel="stylesheet" href="/assets/site.css">
<link rel="stylesheet" href="/assets/error.css">
<link rel="icon" href="/missing-icon.png">
<script src="/private/app.js"></script>
<script src="/assets/other.js"></script>
<script>var inline = 1;</script>
<script src="{cdn}/blocked/lib.js"></script>
<script src="{cdn}/lib/ok.js"></script>
</head><body>
<img src="/img/heavy.png" alt="h"> <img src="/img/edge.png" alt="e">
<img src="/img/gone.png" alt="g"> <img src="data:image/png;base64,AAAA" alt="d">
<img srcset="/img/gone-2x.png 2x" src="/img/small.png" alt="s">
<template><img src="/img/in-template.png" alt="t"></template>
<img src="{cdn}/img/photo.jpg" alt="p">
<a href="/">home</a></body></html>"#
            )),
        "/b" => html(
            r#"<img src="/img/heavy.png#again" alt="h"> <img src="/img/no-head.png" alt="n">
<img src="/private/hidden.png" alt="x"> <a href="/">home</a>"#,
        ),
        "/assets/site.css" | "/assets/other.js" => bytes(100, "text/css"),
        "/assets/error.css" => Reply::new(500),
        "/img/heavy.png" => bytes(102_401, "image/png"),
        "/img/edge.png" => bytes(102_400, "image/png"),
        "/img/small.png" => bytes(2_000, "image/png"),
        "/img/no-head.png" if method == "HEAD" => Reply::new(405),
        "/img/no-head.png" => bytes(150_000, "image/png").header("x-note", "read"),
        _ => Reply::new(404),
    }
}

/// Each resource check's planted findings: the resource and the pages
/// that use it.
fn planted_resources(cdn: &str) -> Vec<(&'static str, Found)> {
    let blocked = format!("{cdn}/blocked/lib.js");
    let photo = format!("{cdn}/img/photo.jpg");
    vec![
        (
            "resources/broken",
            owned(&[("/assets/error.css", &["/a"]), ("/img/gone.png", &["/a"])]),
        ),
        (
            "resources/blocked",
            owned(&[
                ("/private/app.js", &["/a"]),
                (blocked.as_str(), &["/a"]),
                ("/private/hidden.png", &["/b"]),
            ]),
        ),
        (
            "images/heavy",
            owned(&[
                ("/img/heavy.png", &["/a", "/b"]),
                (photo.as_str(), &["/a"]),
                ("/img/no-head.png", &["/b"]),
            ]),
        ),
    ]
}

/// What was asked of a site, sorted: robots.txt and the pages aside.
fn asked(log: &Log) -> Vec<String> {
    let pages = ["GET /", "GET /a", "GET /b"];
    let mut all: Vec<String> = log
        .lock()
        .expect("log")
        .iter()
        .filter(|p| !p.ends_with("/robots.txt") && !pages.contains(&p.as_str()))
        .cloned()
        .collect();
    all.sort();
    all
}

/// A run of resource checks at the defaults.
async fn ask_all(store: &mut Store, cfg: &CrawlConfig) -> ResourceSummary {
    check_resources(
        store,
        &fetcher(),
        cfg,
        &ResourceConfig::default(),
        &StopSignal::new(),
    )
    .await
    .expect("a run")
}

// The table of planted and found per check is the test's report.
#[allow(clippy::print_stdout)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_are_asked_once_each_robots_obeyed_and_the_findings_exact() {
    let cdn_log = Log::default();
    let cdn = cdn(Arc::clone(&cdn_log)).await;
    let cdn_url = cdn.url("").trim_end_matches('/').to_owned();
    let site_log = Log::default();
    let seen = Arc::clone(&site_log);
    let cdn_base = cdn_url.clone();
    let site = Server::start(move |asked| {
        seen.lock()
            .expect("log")
            .push(format!("{} {}", asked.method, asked.path));
        site_route(asked.path, asked.method, &cdn_base)
    })
    .await;
    let tmp = TempStore::new("resources");
    let start = Url::parse(&site.url("/")).expect("url");
    let cfg = CrawlConfig {
        resources: true,
        ..config()
    };
    let store = Store::create(&tmp.db()).expect("store");
    let (mut store, end) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    assert!(!end.stopped);
    assert!(
        cdn_log.lock().expect("log").is_empty(),
        "the crawl itself does not visit the CDN"
    );
    assert!(
        asked(&site_log).is_empty(),
        "the crawl itself asks no resource"
    );
    // A run asked to stop asks nothing and stores nothing (the CDN's
    // robots.txt is read before the first request).
    let stopped = StopSignal::new();
    stopped.stop();
    let none = check_resources(
        &mut store,
        &fetcher(),
        &cfg,
        &ResourceConfig::default(),
        &stopped,
    )
    .await
    .expect("stopped run");
    assert_eq!((none.checked, none.already_checked), (0, 0));
    assert!(asked(&site_log).is_empty() && asked(&cdn_log).is_empty());
    cdn_log.lock().expect("log").clear();
    // A first run stopped by its cap, and the rest on a later run.
    let few = ResourceConfig {
        total: 3,
        ..ResourceConfig::default()
    };
    let first = check_resources(&mut store, &fetcher(), &cfg, &few, &StopSignal::new())
        .await
        .expect("first run");
    // The first three in the order pages name them: a style sheet, one
    // that answers 500, a script robots.txt disallows.
    assert_eq!(
        (
            first.checked,
            first.broken,
            first.blocked,
            first.over_total_cap
        ),
        (3, 1, 1, 10)
    );
    let rest = ask_all(&mut store, &cfg).await;
    assert_eq!(
        rest,
        ResourceSummary {
            checked: 10,
            broken: 1,
            blocked: 2,
            over_total_cap: 0,
            already_checked: 3,
            total: 10_000,
        }
    );
    assert_eq!(
        rest.to_string(),
        "10 resource(s) checked, 1 broken, 2 blocked by robots.txt; 0 left unchecked \
         (over 10,000 in all); 3 checked before"
    );
    let again = ask_all(&mut store, &cfg).await;
    assert_eq!((again.checked, again.already_checked), (0, 13));
    // Each resource asked once (the one refusing HEAD twice), none that
    // robots.txt disallows, the icon, the template's image and the
    // srcset's candidate never.
    assert_eq!(
        asked(&site_log),
        [
            "GET /img/no-head.png",
            "HEAD /assets/error.css",
            "HEAD /assets/other.js",
            "HEAD /assets/site.css",
            "HEAD /img/edge.png",
            "HEAD /img/gone.png",
            "HEAD /img/heavy.png",
            "HEAD /img/no-head.png",
            "HEAD /img/small.png",
        ]
    );
    assert_eq!(asked(&cdn_log), ["HEAD /img/photo.jpg", "HEAD /lib/ok.js"]);
    let cdn_robots = cdn_log
        .lock()
        .expect("log")
        .iter()
        .filter(|p| *p == "GET /robots.txt")
        .count();
    assert_eq!(cdn_robots, 1, "the CDN's robots.txt is read once");

    let report = Audit::default().run(&store).expect("audit");
    let mut wrong = Vec::new();
    for (code, planted) in planted_resources(&cdn_url) {
        let got = found(&report, &site, code);
        println!(
            "{code:<32} planted {:>2} found {:>2} right {:>2}",
            planted.len(),
            got.len(),
            got.iter().filter(|g| planted.contains(g)).count()
        );
        if got != planted {
            wrong.push(format!("{code}:\n  planted {planted:?}\n  found   {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let message = |code: &str, end: &str| {
        report
            .check(code)
            .and_then(|c| c.findings.iter().find(|f| f.url.ends_with(end)))
            .map(|f| f.message.clone())
            .unwrap_or_else(|| panic!("{code}: no finding at {end}"))
    };
    assert_eq!(
        message("resources/broken", "/error.css"),
        "style sheet answered 500 to HEAD"
    );
    assert_eq!(
        message("resources/blocked", "/private/app.js"),
        "script disallowed by robots.txt: Disallow: /private/ (line 2)"
    );
    assert_eq!(
        message("images/heavy", "/heavy.png"),
        "image of 102401 bytes (limit 102400)"
    );
}

/// A path of the other site: its status, headers and page.
type Answer = (
    &'static str,
    u16,
    &'static [(&'static str, &'static str)],
    &'static str,
);

/// The other site's walls: `(path, status, headers, page)`.
const WALLS: &[Answer] = &[
    (
        "/cf-header",
        403,
        &[("cf-mitigated", "challenge")],
        "<p>no</p>",
    ),
    (
        "/cf-page",
        403,
        &[("server", "cloudflare")],
        "<title>Just a moment...</title>",
    ),
    (
        "/akamai",
        403,
        &[("server", "AkamaiGHost")],
        "<h1>Access Denied</h1> Reference #18.3c2e1002.1700000000.abc",
    ),
    ("/retry", 429, &[("retry-after", "3600")], "slow down"),
    ("/captcha", 503, &[], r#"<div class="g-recaptcha"></div>"#),
    ("/plain-403", 403, &[], "<h1>Forbidden</h1>"),
    (
        "/cf-not-challenge",
        403,
        &[("server", "nginx")],
        "<title>Just a moment...</title>",
    ),
    ("/bare-429", 429, &[], "slow down"),
    ("/gone", 404, &[], "gone"),
    ("/fine", 200, &[], "fine"),
];

/// A wall that lets a request through only when its Web Bot Auth
/// signature verifies (with the signer's directory, which it serves):
/// otherwise Cloudflare's challenge header. Every other path is one of
/// [`WALLS`].
struct Wall {
    verifier: SignatureVerifier,
    directories: KeyDirectories,
    directory: String,
    seen: Log,
}

async fn wall(
    wall: Arc<Wall>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    let path = uri.path().to_owned();
    wall.seen
        .lock()
        .expect("seen")
        .push(format!("{method} {path}"));
    if path == WELL_KNOWN_DIRECTORY {
        return (
            [(header::CONTENT_TYPE, botwarden_verify::DIRECTORY_MEDIA_TYPE)],
            wall.directory.clone(),
        )
            .into_response();
    }
    if path == "/signed-only" {
        return if verified(&wall, &method, &uri, &headers).await {
            (StatusCode::OK, "welcome").into_response()
        } else {
            (
                StatusCode::FORBIDDEN,
                [("cf-mitigated", "challenge")],
                "challenge",
            )
                .into_response()
        };
    }
    let Some((_, status, pairs, page)) = WALLS.iter().find(|(p, ..)| *p == path) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut response = axum::response::Response::builder()
        .status(*status)
        .header(header::CONTENT_TYPE, "text/html");
    for (name, value) in *pairs {
        response = response.header(*name, *value);
    }
    response
        .body(axum::body::Body::from(*page))
        .expect("response")
}

/// Whether the request's signature verifies.
async fn verified(wall: &Wall, method: &Method, uri: &Uri, headers: &HeaderMap) -> bool {
    let (req, ring) = signed_parts(&wall.verifier, &wall.directories, method, uri, headers)
        .await
        .into_parts();
    matches!(
        wall.verifier.check(&req.parts(), &ring, SystemTime::now()),
        SignatureCheck::Valid(_)
    )
}

/// A site whose one page links to every path of the wall at `other`.
async fn linking_site(other: &str) -> Server {
    let links: String = WALLS
        .iter()
        .map(|(p, ..)| *p)
        .chain(["/signed-only"])
        .map(|p| format!(r#"<a href="{other}{p}">to {p}</a> "#))
        .collect();
    Server::start(move |asked| match asked.path {
        "/" => html(&links),
        _ => Reply::new(404),
    })
    .await
}

/// Crawls `site` and checks its external links with `fetcher`; the paths
/// (on `other`) each check reports.
async fn walls_found(
    site: &Server,
    other: &str,
    fetcher: &Fetcher,
    name: &str,
) -> BTreeMap<&'static str, Vec<(String, String)>> {
    let tmp = TempStore::new(name);
    let start = Url::parse(&site.url("/")).expect("url");
    let store = Store::create(&tmp.db()).expect("store");
    let (mut store, _) = crawl_all(&start, &config(), fetcher, store, false).await;
    let settings = ExternalConfig {
        delay: Duration::from_millis(1),
        per_host: 100,
        ..ExternalConfig::default()
    };
    check_external(&mut store, fetcher, &settings)
        .await
        .expect("checked");
    let report = Audit::default().run(&store).expect("audit");
    ["links/broken-external", "links/external-unverified"]
        .into_iter()
        .map(|code| {
            let findings = report
                .check(code)
                .expect("check")
                .findings
                .iter()
                .map(|f| (f.url.replace(other, ""), f.message.clone()))
                .collect();
            (code, findings)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_walls_are_not_dead_links_and_a_signed_check_passes_a_wall_that_verifies() {
    let signer_key = Signer::generate().expect("key");
    let seen = Log::default();
    let state = Arc::new(Wall {
        verifier: SignatureVerifier::default(),
        directories: KeyDirectories::new(fetcher(), KeyDirConfig::default()),
        directory: signer_key.directory_json(),
        seen: Arc::clone(&seen),
    });
    let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap| {
        wall(Arc::clone(&state), method, uri, headers)
    });
    let other = crate::serve_router(app).await;
    let other = other.as_str().trim_end_matches('/').to_owned();
    let site = linking_site(&other).await;

    let unsigned = walls_found(&site, &other, &fetcher(), "walls-unsigned").await;
    let broken = pairs(&[
        ("/plain-403", "answered 403 to HEAD"),
        ("/cf-not-challenge", "answered 403 to HEAD"),
        ("/bare-429", "answered 429 to HEAD"),
        ("/gone", "answered 404 to HEAD"),
    ]);
    assert_eq!(unsigned["links/broken-external"], broken);
    let unverified = |signed_only: bool| {
        let mut list = pairs(&[
            (
                "/cf-header",
                "could not verify: answered 403 to HEAD, a bot wall (cf-mitigated: challenge (Cloudflare))",
            ),
            (
                "/cf-page",
                "could not verify: answered 403 to HEAD, a bot wall (Cloudflare challenge page)",
            ),
            (
                "/akamai",
                "could not verify: answered 403 to HEAD, a bot wall (Akamai Access Denied reference page)",
            ),
            (
                "/retry",
                "could not verify: answered 429 to HEAD, a bot wall (Retry-After: 3600)",
            ),
            (
                "/captcha",
                "could not verify: answered 503 to HEAD, a bot wall (CAPTCHA page (reCAPTCHA))",
            ),
        ]);
        if signed_only {
            list.push((
                "/signed-only".to_owned(),
                "could not verify: answered 403 to HEAD, a bot wall (cf-mitigated: challenge (Cloudflare))"
                    .to_owned(),
            ));
        }
        list
    };
    assert_eq!(unsigned["links/external-unverified"], unverified(true));
    // A page is read only where the head showed no wall: one GET each.
    let gets: Vec<String> = seen
        .lock()
        .expect("seen")
        .iter()
        .filter(|r| r.starts_with("GET "))
        .cloned()
        .collect();
    assert_eq!(
        gets,
        [
            "GET /cf-page",
            "GET /akamai",
            "GET /captcha",
            "GET /plain-403",
            "GET /cf-not-challenge",
            "GET /bare-429",
        ]
    );

    // Signed, the wall lets the check through; nothing else changes.
    let signer = Signer::from_jwk(&signer_key.private_jwk(), "test key")
        .expect("jwk")
        .agent(&other, AgentForm::Dictionary)
        .expect("agent");
    let signed_fetcher = crate::loopback()
        .timeout(Duration::from_secs(10))
        .signer(Some(Arc::new(signer)))
        .build()
        .expect("fetcher");
    let signed = walls_found(&site, &other, &signed_fetcher, "walls-signed").await;
    assert_eq!(signed["links/broken-external"], broken);
    assert_eq!(signed["links/external-unverified"], unverified(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificates_that_expire_within_30_days_or_have_expired_are_found() {
    let root = std::env::temp_dir().join(format!("botwarden-cert-expiry-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).expect("root");
    let certs = [("soon", 29), ("later", 31), ("expired", -1)];
    authority(&root, 400);
    for (name, days) in certs {
        server_certificate(&root, name, days);
    }
    let mut servers = Vec::new();
    for (name, _) in certs {
        let dir = root.join(name);
        fs::create_dir_all(dir.join("site")).expect("site");
        fs::write(
            dir.join("site/index.html"),
            "<!doctype html><title>t</title><p>hi</p>",
        )
        .expect("page");
        let r = root.display();
        let nginx = start_nginx(
            dir,
            "ssl",
            &format!(
                "ssl_certificate \"{r}/{name}.pem\";\n ssl_certificate_key \"{r}/{name}.key\";"
            ),
        );
        servers.push((name, nginx));
    }
    let pem = fs::read(root.join("ca.pem")).expect("ca.pem");
    let fetcher = crate::loopback()
        .trust_pem("ca.pem", pem)
        .build()
        .expect("fetcher");
    // The origins as a crawl records them: the start URL of each.
    let tmp = TempStore::new("cert-expiry");
    let mut store = Store::create(&tmp.db()).expect("store");
    let batch = botwarden_store::Batch {
        new_urls: servers
            .iter()
            .zip(1..)
            .map(|((_, nginx), id)| botwarden_store::NewUrl {
                id,
                url: format!("https://127.0.0.1:{}/", nginx.port),
                depth: 0,
                found_by: "seed",
                state: botwarden_store::UrlState::Queued,
                skip: None,
            })
            .collect(),
        ..botwarden_store::Batch::default()
    };
    store.write(&batch).expect("urls");
    let summary = check_certificates(&mut store, &fetcher)
        .await
        .expect("certificates");
    let errors: Vec<String> = {
        let mut st = store
            .connection()
            .prepare("SELECT error FROM tls_certificates WHERE error IS NOT NULL")
            .expect("query");
        st.query_map([], |r| r.get(0))
            .expect("rows")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert_eq!(
        summary.to_string(),
        "2 certificate(s) read, 1 could not be read",
        "{errors:?}"
    );
    let report = Audit::default().run(&store).expect("audit");
    let found: Vec<(u16, String)> = report
        .check("security/certificate-expiring")
        .expect("check")
        .findings
        .iter()
        .map(|f| {
            let port = Url::parse(&f.url).ok().and_then(|u| u.port()).unwrap_or(0);
            (port, f.message.clone())
        })
        .collect();
    let port = |name: &str| {
        servers
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, s)| s.port)
    };
    assert_eq!(found.len(), 2, "{found:?}");
    let soon = found
        .iter()
        .find(|(p, _)| *p == port("soon"))
        .expect("soon");
    assert!(
        soon.1.starts_with("the certificate expires on ") && soon.1.ends_with(", in 28 day(s)"),
        "{soon:?}"
    );
    let expired = found
        .iter()
        .find(|(p, _)| *p == port("expired"))
        .expect("expired");
    assert_eq!(
        expired.1,
        "the certificate has expired (the TLS handshake refused it)"
    );
    assert!(!found.iter().any(|(p, _)| *p == port("later")));
    drop(servers);
    let _ = fs::remove_dir_all(&root);
}
