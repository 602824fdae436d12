//! The JSON API: answers, errors, limits, the OpenAPI document.

use std::net::SocketAddr;

use axum::routing::get;
use botwarden_testdata::dns::{TestDns, Zone};
use serde_json::{Value, json};

use crate::{TempDir, client, config, start};

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let r = client().post(url).json(body).send().await.expect("answer");
    let status = r.status().as_u16();
    let text = r.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

async fn get_json(url: &str) -> (u16, Value) {
    let r = client().get(url).send().await.expect("answer");
    let status = r.status().as_u16();
    let text = r.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("an error object: {v}"))
}

#[tokio::test]
async fn check_fix_and_test_answer() {
    let dir = TempDir::new("api");
    let running = start(config(&dir), Some(dir)).await;
    let robots = "User-agent: *\nDisalow: /private\nDisallow: /tmp\n";
    let (status, report) = post(
        &running.url("/api/v1/check"),
        &json!({"robots_txt": robots, "name": "site.txt", "profiles": ["google", "rfc9309"]}),
    )
    .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["source"], "site.txt");
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert!(codes.iter().any(|c| c.contains("misspel")), "{codes:?}");
    let decisions = report["matrix"][0]["decisions"].as_object().expect("a row");
    assert_eq!(decisions.keys().collect::<Vec<_>>(), ["google", "rfc9309"]);

    let (status, fixed) = post(&running.url("/api/v1/fix"), &json!({"robots_txt": robots})).await;
    assert_eq!(status, 200, "{fixed}");
    assert!(
        fixed["fixed"]
            .as_str()
            .expect("text")
            .contains("Disallow: /private"),
        "{fixed}"
    );
    assert_eq!(fixed["holds"], true);
    assert!(fixed["changes"].as_u64().expect("count") >= 1);

    let (status, answers) = post(
        &running.url("/api/v1/test"),
        &json!({"robots_txt": robots, "agent": "Searchbot", "urls": ["/tmp/a", "/public"]}),
    )
    .await;
    assert_eq!(status, 200, "{answers}");
    assert_eq!(answers["answers"][0]["allowed"], false);
    assert_eq!(answers["answers"][0]["line"], 3);
    assert_eq!(answers["answers"][1]["allowed"], true);
    assert_eq!(answers["answers"][1]["profile"], "rfc9309");

    // Bytes that are not UTF-8, in base64.
    let (status, report) = post(
        &running.url("/api/v1/check"),
        &json!({"robots_txt_base64": "VXNlci1hZ2VudDogKgpEaXNhbGxvdzogL3j/Cg=="}),
    )
    .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["source"], "robots.txt");
    running.stop().await;
}

#[tokio::test]
async fn bad_requests_are_json_errors_with_their_status() {
    let dir = TempDir::new("errors");
    let running = start(config(&dir), Some(dir)).await;
    let check = running.url("/api/v1/check");
    // Not JSON.
    let r = client()
        .post(&check)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().await.expect("JSON");
    assert_eq!(error_code(&v), "invalid_json");
    // An unknown field, two inputs, none.
    let (s, v) = post(&check, &json!({"robots": "x"})).await;
    assert_eq!((s, error_code(&v)), (400, "invalid_json"));
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("message")
            .contains("robots"),
        "{v}"
    );
    let (s, v) = post(
        &check,
        &json!({"robots_txt": "", "url": "https://example.com/"}),
    )
    .await;
    assert_eq!((s, error_code(&v)), (400, "bad_request"));
    let (s, v) = post(&check, &json!({})).await;
    assert_eq!((s, error_code(&v)), (400, "bad_request"));
    let (s, v) = post(&check, &json!({"robots_txt": "", "profiles": ["nope"]})).await;
    assert_eq!((s, error_code(&v)), (400, "bad_request"));
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("m")
            .contains("unknown profile 'nope'")
    );
    // A body that is not JSON by its type.
    let r = client()
        .post(&check)
        .header("content-type", "text/plain")
        .body("User-agent: *")
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 415);
    // Over the limit: 11 MiB and a byte.
    let big = vec![b'a'; botwarden_serve::MAX_REQUEST_BODY + 1];
    let r = client()
        .post(&check)
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 413);
    let v: Value = r.json().await.expect("JSON");
    assert_eq!(error_code(&v), "payload_too_large");
    // A file over 10 MiB inside a body under the limit.
    let file = "#".repeat(botwarden_serve::MAX_BODY + 1);
    let (s, v) = post(&check, &json!({ "robots_txt": file })).await;
    assert_eq!((s, error_code(&v)), (413, "payload_too_large"));
    // Test: an agent with no token.
    let (s, v) = post(
        &running.url("/api/v1/test"),
        &json!({"robots_txt": "", "agent": "", "urls": ["/"]}),
    )
    .await;
    assert_eq!((s, error_code(&v)), (400, "bad_request"));
    // Unknown endpoint, wrong method.
    let (s, v) = get_json(&running.url("/api/v1/nothing")).await;
    assert_eq!((s, error_code(&v)), (404, "not_found"));
    let (s, v) = get_json(&running.url("/api/v1/check")).await;
    assert_eq!((s, error_code(&v)), (405, "method_not_allowed"));
    // Verify: not an address, unknown bot, unknown parameter.
    let (s, v) = get_json(&running.url("/api/v1/verify?ip=nope")).await;
    assert_eq!((s, error_code(&v)), (400, "bad_request"));
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("m")
            .contains("'nope' is not an IP address")
    );
    let (s, v) = get_json(&running.url("/api/v1/verify?ip=192.0.2.1&bot=Nobot")).await;
    assert_eq!((s, error_code(&v)), (404, "unknown_bot"));
    let (s, v) = get_json(&running.url("/api/v1/verify?ip=192.0.2.1&x=1")).await;
    assert_eq!((s, error_code(&v)), (400, "bad_request"));
    running.stop().await;
}

/// A site on loopback serving a robots.txt.
async fn site() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let app = axum::Router::new().route(
        "/robots.txt",
        get(|| async { "User-agent: *\nDisallow: /admin\n" }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.expect("site");
    });
    (addr, task)
}

#[tokio::test]
async fn fetch_refuses_loopback_unless_allowed() {
    let (site, task) = site().await;
    let dir = TempDir::new("fetch-refused");
    let running = start(config(&dir), Some(dir)).await;
    let url = format!("http://{site}/");
    let (s, v) = get_json(&running.url(&format!("/api/v1/fetch?url={url}"))).await;
    assert_eq!((s, error_code(&v)), (403, "refused_address"), "{v}");
    let (s, v) = post(&running.url("/api/v1/check"), &json!({ "url": url })).await;
    assert_eq!((s, error_code(&v)), (403, "refused_address"), "{v}");
    let (s, v) = get_json(&running.url("/api/v1/fetch?url=nota%20url")).await;
    assert_eq!((s, error_code(&v)), (400, "invalid_url"), "{v}");
    running.stop().await;

    let dir = TempDir::new("fetch-allowed");
    let mut allowed = config(&dir);
    allowed.allow_private = true;
    let running = start(allowed, Some(dir)).await;
    let (s, v) = get_json(&running.url(&format!("/api/v1/fetch?url={url}&profile=google"))).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["status"], 200, "{v}");
    let (s, v) = post(
        &running.url("/api/v1/fetch"),
        &json!({ "url": url, "profiles": ["rfc9309"] }),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&running.url("/api/v1/check"), &json!({ "url": url })).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["source"], format!("http://{site}/robots.txt"));
    assert!(v["availability"].is_object(), "{v}");
    running.stop().await;
    task.abort();
}

#[tokio::test]
async fn verify_and_classify() {
    let zone = Zone::new()
        .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
        .a("crawl-1.searchbot.example", &["192.0.2.200"])
        .ptr("192.0.2.201", &["crawl-1.evil.example"])
        .a("crawl-1.evil.example", &["192.0.2.201"]);
    let dns = TestDns::start(zone).await;
    let dir = TempDir::new("verify");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(dns.addr());
    let running = start(cfg, Some(dir)).await;
    let (s, v) =
        get_json(&running.url(
            "/api/v1/verify?ip=192.0.2.200&ua=Mozilla%2F5.0%20(compatible%3B%20Searchbot%2F2.1)",
        ))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["verdict"], "verified");
    assert_eq!(v["bot"], "Searchbot");
    assert_eq!(v["method"], "fcrdns");
    let (_, v) = get_json(&running.url("/api/v1/verify?ip=::ffff:192.0.2.201&bot=Searchbot")).await;
    assert_eq!(v["verdict"], "spoofed");
    assert_eq!(v["ip"], "192.0.2.201");
    let (s, v) = post(
        &running.url("/api/v1/classify"),
        &json!({"user_agents": ["Searchbot/2.1", "curl/8.0"], "explain": true}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["results"][0]["bot"], "Searchbot");
    assert_eq!(v["results"][1]["category"], "library");
    assert!(v["results"][1]["explanation"]["text"].is_string(), "{v}");
    running.stop().await;
}

#[tokio::test]
async fn openapi_describes_every_route() {
    let dir = TempDir::new("openapi");
    let running = start(config(&dir), Some(dir)).await;
    let (s, doc) = get_json(&running.url("/api/v1/openapi.json")).await;
    assert_eq!(s, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let routes = [
        ("/check", "post"),
        ("/fix", "post"),
        ("/test", "post"),
        ("/fetch", "get"),
        ("/fetch", "post"),
        ("/verify", "get"),
        ("/classify", "post"),
        ("/openapi.json", "get"),
        ("/check-agent", "get"),
        ("/check-agent", "post"),
    ];
    let paths = doc["paths"].as_object().expect("paths");
    assert_eq!(paths.len(), 8, "{:?}", paths.keys());
    for (path, method) in routes {
        let op = &doc["paths"][path][method];
        assert!(op["responses"]["200"].is_object(), "{method} {path}");
        // Every described route answers, with no 404 or 405.
        let url = running.url(&format!("/api/v1{path}"));
        let r = match method {
            "get" => client().get(&url).send().await,
            _ => client().post(&url).json(&json!({})).send().await,
        }
        .expect("answer");
        assert!(
            ![404, 405].contains(&r.status().as_u16()),
            "{method} {path}: {}",
            r.status()
        );
    }
    // Every reference resolves.
    let text = doc.to_string();
    for piece in text.split("\"$ref\":\"#/").skip(1) {
        let target = piece.split('"').next().expect("ref");
        let mut node = &doc;
        for part in target.split('/') {
            node = &node[part];
        }
        assert!(!node.is_null(), "unresolved $ref #/{target}");
    }
    running.stop().await;
}
