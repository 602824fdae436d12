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
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::IntoResponse;
use botwarden_audit::Audit;
use botwarden_crawl::{
    CrawlConfig, ExternalConfig, ResourceConfig, ResourceSummary, check_certificates,
    check_external, check_resources,
};
use botwarden_fetch::{Fetcher, KeyDirConfig, KeyDirectories};
use botwarden_store::Store;
use botwarden_verify::{
    AgentForm, KeyRing, RequestParts, SignatureCheck, SignatureVerifier, Signer,
    WELL_KNOWN_DIRECTORY,
};
use url::Url;

use crate::audit_trust::{Found, found, owned};
use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::nginx_site::start_nginx;
use crate::server::{Reply, Server};

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
    Reply::new(200).header("content-type", kind).body(vec![0u8; n])
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
    // A first run stopped by its cap, and the rest on a later run.
    let few = ResourceConfig {
        total: 3,
        ..ResourceConfig::default()
    };
    let first = check_resources(&mut store, &fetcher(), &cfg, &few)
        .await
        .expect("first run");
    // The first three in the order pages name them: a style sheet, one
    // that answers 500, a script robots.txt disallows.
    assert_eq!(
        (first.checked, first.broken, first.blocked, first.over_total_cap),
        (3, 1, 1, 10)
    );
    let rest = check_resources(&mut store, &fetcher(), &cfg, &ResourceConfig::default())
        .await
        .expect("second run");
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
    let again = check_resources(&mut store, &fetcher(), &cfg, &ResourceConfig::default())
        .await
        .expect("third run");
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
