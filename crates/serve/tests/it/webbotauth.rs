//! Web Bot Auth in the service: the operator's directory served (typed,
//! cached, signed); `POST /api/v1/verify`; key directories fetched only
//! where allowed and as often as allowed. (A crawl signed with the
//! operator's key, each of its requests verified through `/verify`, is
//! among the crawler's tests.)

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::http::{StatusCode, Uri, header};
use axum::response::IntoResponse;
use botwarden_serve::{Config, Service};
use botwarden_verify::{
    AgentForm, DIRECTORY_MEDIA_TYPE, DirectoryResponse, DirectorySignature, KeySet, RequestParts,
    Signer, WELL_KNOWN_DIRECTORY, check_directory_response,
};
use serde_json::{Value, json};

use crate::signed::start_signed;
use crate::{TempDir, client};

#[tokio::test]
async fn the_operators_directory_is_served_typed_cached_and_signed() {
    let dir = TempDir::new("own-directory");
    let service = start_signed(&dir.0, |c| c.web_bot_auth.max_age = 600).await;
    let url = format!("http://{}{WELL_KNOWN_DIRECTORY}", service.addr);
    let answer = client().get(&url).send().await.expect("answer");
    assert_eq!(answer.status(), 200);
    let headers: Vec<(String, String)> = answer
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().expect("text").to_owned()))
        .collect();
    let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    assert_eq!(get("content-type").as_deref(), Some(DIRECTORY_MEDIA_TYPE));
    assert_eq!(get("cache-control").as_deref(), Some("max-age=600"));
    let body = answer.bytes().await.expect("body");
    let keys = KeySet::from_directory(&body, get("content-type").as_deref(), &url).expect("keys");
    assert!(keys.get(service.signer.keyid()).is_some());
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    // The digest of the keys served, covered by the signature (the
    // protocol draft's MUST since -01).
    assert_eq!(
        get("content-digest"),
        Some(botwarden_verify::content_digest(&body))
    );
    assert!(
        get("signature-input")
            .unwrap_or_default()
            .contains("(\"@authority\";req \"content-digest\")")
    );
    let response = DirectoryResponse {
        url: &url,
        status: 200,
        headers: &pairs,
        body: &body,
    };
    assert_eq!(
        check_directory_response(&keys, &response, SystemTime::now(), Duration::from_secs(60)),
        Ok(DirectorySignature::Valid {
            keyids: vec![service.signer.keyid().to_owned()]
        })
    );
}

#[tokio::test]
async fn without_a_directory_configured_the_well_known_path_is_not_found() {
    let dir = TempDir::new("no-directory");
    let config = crate::config(&dir);
    let running = crate::start(config, Some(dir)).await;
    let answer = client()
        .get(running.url(WELL_KNOWN_DIRECTORY))
        .send()
        .await
        .expect("answer");
    assert_eq!(answer.status(), 404);
}

fn signed_body(signer: &Signer, authority: &str, at: SystemTime) -> Value {
    let h = signer
        .sign(&RequestParts::new("GET", "site.example", "/page"), at)
        .expect("sign");
    json!({
        "authority": authority,
        "target": "/page",
        "headers": {
            "Signature-Input": h.signature_input,
            "Signature": h.signature,
            "Signature-Agent": h.signature_agent,
        },
    })
}

async fn post(addr: SocketAddr, body: &Value) -> (u16, Value) {
    let answer = client()
        .post(format!("http://{addr}/api/v1/verify"))
        .json(body)
        .send()
        .await
        .expect("answer");
    let status = answer.status().as_u16();
    (status, answer.json().await.expect("JSON"))
}

#[tokio::test]
async fn api_verify_takes_a_signed_request_as_json() {
    let dir = TempDir::new("api-verify");
    let service = start_signed(&dir.0, |_| {}).await;
    let now = SystemTime::now();
    let (status, doc) = post(
        service.addr,
        &signed_body(&service.signer, "site.example", now),
    )
    .await;
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["verdict"], "verified", "{doc}");
    assert_eq!(doc["bot"], "LoopBot");
    assert_eq!(doc["method"], "web_bot_auth");
    assert_eq!(doc["signature"], "valid");
    assert_eq!(doc["ip"], Value::Null);

    // Signed for site.example, presented for another site.
    let (_, doc) = post(
        service.addr,
        &signed_body(&service.signer, "other.example", now),
    )
    .await;
    assert_eq!(doc["verdict"], "spoofed", "{doc}");
    assert_eq!(doc["signature"], "invalid");

    // An agent whose directory cannot be had.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let stray = Signer::generate()
        .expect("key")
        .agent(&format!("http://127.0.0.1:{port}"), AgentForm::String)
        .expect("agent");
    let mut body = signed_body(&stray, "site.example", now);
    body["bot"] = json!("LoopBot");
    let (_, doc) = post(service.addr, &body).await;
    assert_eq!(doc["verdict"], "unknown", "{doc}");
    assert_eq!(doc["signature"], "undecided");

    // Bad input is named.
    let (status, doc) = post(service.addr, &json!({ "target": "/" })).await;
    assert_eq!(status, 400);
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("authority"),
        "{doc}"
    );
    let (status, doc) = post(
        service.addr,
        &json!({ "authority": "a.example", "headers": { "Signature": 1 } }),
    )
    .await;
    assert_eq!(status, 400);
    assert!(doc.to_string().contains("headers.Signature"), "{doc}");

    // Each check is counted by its outcome; the bad inputs never got to one.
    let text = crate::client()
        .get(format!("http://{}/metrics", service.addr))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    for line in [
        "botwarden_signature_checks_total{outcome=\"valid\"} 1",
        "botwarden_signature_checks_total{outcome=\"invalid\"} 1",
        "botwarden_signature_checks_total{outcome=\"undecided\"} 1",
        "botwarden_signature_checks_total{outcome=\"unsigned\"} 0",
        "botwarden_signature_nonces_evicted_total 0",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
    }
}

#[tokio::test]
async fn with_no_fetch_the_agents_keys_are_not_known() {
    let dir = TempDir::new("no-fetch");
    let service = start_signed(&dir.0, |c| c.web_bot_auth.no_fetch = true).await;
    let (_, doc) = post(
        service.addr,
        &signed_body(&service.signer, "site.example", SystemTime::now()),
    )
    .await;
    assert_eq!(doc["verdict"], "unknown", "{doc}");
    assert!(
        doc["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("were not fetched"),
        "{doc}"
    );
}

#[test]
fn a_signing_key_outside_the_directory_is_a_configuration_error() {
    let dir = TempDir::new("bad-key");
    let directory = dir.0.join("dir.json");
    std::fs::write(
        &directory,
        Signer::generate().expect("key").directory_json(),
    )
    .expect("write");
    let key = dir.0.join("other.jwk");
    std::fs::write(&key, Signer::generate().expect("key").private_jwk()).expect("write");
    let mut config = crate::config(&dir);
    config.web_bot_auth.directory = Some(directory);
    config.web_bot_auth.signing_key = Some(key);
    let err = Service::new(config).expect_err("refused").to_string();
    assert!(err.contains("other.jwk"), "{err}");
    assert!(err.contains("is not in the directory"), "{err}");
}

/// Every request a loopback site got (path and query), and its address.
type Asked = Arc<Mutex<Vec<String>>>;

/// A site on loopback that records every request's path and query and
/// serves `keys`' directory at the well-known path (404 elsewhere, and
/// there too without keys).
async fn recording_site(keys: Option<&Signer>) -> (SocketAddr, Asked) {
    let asked: Asked = Arc::default();
    let record = Arc::clone(&asked);
    let directory = keys.map(Signer::directory_json);
    let app = Router::new().fallback(move |uri: Uri| {
        let record = Arc::clone(&record);
        let directory = directory.clone();
        async move {
            record.lock().expect("asked").push(
                uri.path_and_query()
                    .map_or("/".to_owned(), |p| p.as_str().to_owned()),
            );
            match directory {
                Some(body) if uri.path() == WELL_KNOWN_DIRECTORY => {
                    ([(header::CONTENT_TYPE, DIRECTORY_MEDIA_TYPE)], body).into_response()
                }
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (addr, asked)
}

fn asked(site: &Asked) -> Vec<String> {
    site.lock().expect("asked").clone()
}

/// `GET /verify` for a request to site.example signed by `signer`, as a
/// proxy at 127.0.0.1 asks it for `client`: (verdict, X-Bot-Signature,
/// X-Bot-Signature-Reason).
async fn verify_signed(service: SocketAddr, signer: &Signer, client: &str) -> [String; 3] {
    let h = signer
        .sign(
            &RequestParts::new("GET", "site.example", "/page"),
            SystemTime::now(),
        )
        .expect("sign");
    let mut ask = crate::client()
        .get(format!("http://{service}/verify"))
        .header("x-forwarded-for", client)
        .header("x-forwarded-host", "site.example")
        .header("x-original-uri", "/page")
        .header("user-agent", "Mozilla/5.0 (compatible; LoopBot/1.0)");
    for (name, value) in h.fields() {
        ask = ask.header(name, value);
    }
    let answer = ask.send().await.expect("/verify answers");
    assert_eq!(answer.status(), 200);
    let get = |n: &str| {
        answer
            .headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    [
        get("x-bot-verdict"),
        get("x-bot-signature"),
        get("x-bot-signature-reason"),
    ]
}

async fn metric(service: SocketAddr, line_start: &str) -> String {
    let text = crate::client()
        .get(format!("http://{service}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    text.lines()
        .find(|l| l.starts_with(line_start))
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_forged_signature_agent_makes_no_request_to_the_site_it_names() {
    // The victim: a loopback site the service could reach (allow_private).
    let (victim, victim_asked) = recording_site(None).await;
    let dir = TempDir::new("forged-agent");
    let service = start_signed(&dir.0, |c| {
        c.trusted_proxies = vec!["127.0.0.1".to_owned()];
    })
    .await;
    let key = Signer::generate().expect("key");
    let mut bodies = Vec::new();
    for (agent, form) in [
        (
            format!("http://{victim}/admin/delete?id=7"),
            AgentForm::Dictionary,
        ),
        (
            format!("http://{victim}/admin/delete?id=8"),
            AgentForm::String,
        ),
        (format!("http://{victim}"), AgentForm::Dictionary),
        (
            format!("http://{victim}{WELL_KNOWN_DIRECTORY}"),
            AgentForm::String,
        ),
    ] {
        let forged = Signer::from_jwk(&key.private_jwk(), "key")
            .expect("jwk")
            .agent(&agent, form)
            .expect("agent");
        let [verdict, signature, reason] = verify_signed(service.addr, &forged, "192.0.2.20").await;
        assert_eq!(signature, "undecided", "{agent}");
        // A directory agent with a path is ignored (the draft's rule);
        // the others are not on the list of agents fetched.
        let why = if agent.contains("/admin/") {
            "is ignored (a directory agent is an origin"
        } else {
            "not an agent whose directory is fetched here"
        };
        assert!(reason.contains(why), "{agent}: {reason}");
        // Judged by the address, as if unsigned: not verified by the
        // signature it made up.
        assert_ne!(verdict, "verified", "{agent}");
        bodies.push(signed_body(&forged, "site.example", SystemTime::now()));
    }
    // The JSON API's checks fetch no more than `/verify`'s.
    for body in &bodies {
        let (status, doc) = post(service.addr, body).await;
        assert_eq!(status, 200, "{doc}");
        assert_eq!(doc["signature"], "undecided", "{doc}");
    }
    assert_eq!(asked(&victim_asked), Vec::<String>::new());
    assert_eq!(
        metric(
            service.addr,
            "botwarden_key_directory_total{outcome=\"not_allowed\"}"
        )
        .await,
        // Two agents of four are not on the list, each asked twice; the
        // two with a path are ignored before any list is looked at.
        "botwarden_key_directory_total{outcome=\"not_allowed\"} 4"
    );
    assert_eq!(
        metric(
            service.addr,
            "botwarden_key_directory_total{outcome=\"fetch\"}"
        )
        .await,
        "botwarden_key_directory_total{outcome=\"fetch\"} 0"
    );
}

#[tokio::test]
async fn an_allowed_agent_is_fetched_only_at_its_well_known_directory() {
    let key = Signer::generate().expect("key");
    let (site, site_asked) = recording_site(Some(&key)).await;
    let dir = TempDir::new("allowed-agent");
    let service = start_signed(&dir.0, |c| {
        c.trusted_proxies = vec!["127.0.0.1".to_owned()];
        c.web_bot_auth.agents = vec![format!("http://{site}")];
    })
    .await;
    let with_agent = |agent: &str| {
        Signer::from_jwk(&key.private_jwk(), "key")
            .expect("jwk")
            .agent(agent, AgentForm::Dictionary)
            .expect("agent")
    };
    // The allowed origin, with a path and query the client chose: not
    // fetched, there or anywhere.
    let [_, signature, reason] = verify_signed(
        service.addr,
        &with_agent(&format!("http://{site}/private/export?all=1")),
        "192.0.2.30",
    )
    .await;
    assert_eq!(signature, "undecided", "{reason}");
    assert_eq!(asked(&site_asked), Vec::<String>::new());
    // The origin itself: its well-known directory, fetched once, verifies.
    let signer = with_agent(&format!("http://{site}"));
    for _ in 0..3 {
        let [_, signature, reason] = verify_signed(service.addr, &signer, "192.0.2.30").await;
        assert_eq!(signature, "valid", "{reason}");
    }
    assert_eq!(asked(&site_asked), vec![WELL_KNOWN_DIRECTORY.to_owned()]);
    // The registry's agent (the service's own directory) verifies its bot.
    let [verdict, signature, reason] =
        verify_signed(service.addr, &service.signer, "192.0.2.30").await;
    assert_eq!(
        (verdict.as_str(), signature.as_str()),
        ("verified", "valid"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_client_past_its_fetch_rate_causes_no_more_fetches() {
    let key = Signer::generate().expect("key");
    let mut sites = Vec::new();
    for _ in 0..3 {
        sites.push(recording_site(Some(&key)).await);
    }
    let origins: Vec<String> = sites.iter().map(|(a, _)| format!("http://{a}")).collect();
    let allowed = origins.clone();
    let dir = TempDir::new("fetch-rate");
    let service = start_signed(&dir.0, move |c| {
        c.trusted_proxies = vec!["127.0.0.1".to_owned()];
        c.web_bot_auth.agents = allowed;
        c.web_bot_auth.fetches_per_minute = 2;
    })
    .await;
    let signer = |origin: &str| {
        Signer::from_jwk(&key.private_jwk(), "key")
            .expect("jwk")
            .agent(origin, AgentForm::String)
            .expect("agent")
    };
    // One client: two fetches, then none.
    for origin in &origins[..2] {
        let [_, signature, reason] =
            verify_signed(service.addr, &signer(origin), "192.0.2.40").await;
        assert_eq!(signature, "valid", "{reason}");
    }
    for _ in 0..3 {
        let [_, signature, reason] =
            verify_signed(service.addr, &signer(&origins[2]), "192.0.2.40").await;
        assert_eq!(signature, "undecided");
        assert!(reason.contains("too many directory fetches"), "{reason}");
    }
    assert_eq!(asked(&sites[2].1), Vec::<String>::new());
    // What is in the cache costs nothing.
    let [_, signature, _] = verify_signed(service.addr, &signer(&origins[0]), "192.0.2.40").await;
    assert_eq!(signature, "valid");
    // Another client has its own.
    let [_, signature, reason] =
        verify_signed(service.addr, &signer(&origins[2]), "192.0.2.41").await;
    assert_eq!(signature, "valid", "{reason}");
    for (_, site) in &sites {
        assert_eq!(asked(site), vec![WELL_KNOWN_DIRECTORY.to_owned()]);
    }
    assert_eq!(
        metric(
            service.addr,
            "botwarden_key_directory_total{outcome=\"over_rate\"}"
        )
        .await,
        "botwarden_key_directory_total{outcome=\"over_rate\"} 3"
    );
}

#[test]
fn an_allowed_agent_that_is_not_an_origin_is_a_configuration_error() {
    let dir = TempDir::new("bad-agent");
    let mut config = crate::config(&dir);
    config.web_bot_auth.agents = vec![
        "https://crawler.example".to_owned(),
        "https://crawler.example/keys?v=1".to_owned(),
    ];
    let err = Service::new(config).expect_err("refused").to_string();
    assert!(err.contains("web_bot_auth.agents[1]"), "{err}");
    let text = "[web_bot_auth]\nagents = [\"ftp://crawler.example\"]\n";
    let err = Config::from_toml(std::path::Path::new("serve.toml"), text)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("web_bot_auth.agents[0]"), "{err}");
}

/// `bots check-agent` in the service: the service checks its own signed
/// directory (served on loopback, over http, which the draft and
/// Cloudflare refuse and this service allows), with a sample signed by
/// its key in each form; the page shows the same in headless Chromium.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_agent_reads_the_services_own_directory_and_a_sample() {
    let dir = TempDir::new("check-agent");
    let service = start_signed(&dir.0, |_| {}).await;
    let origin = format!("http://{}", service.addr);
    let api = format!("http://{}/api/v1/check-agent", service.addr);
    let report: Value = client()
        .get(format!("{api}?agent={origin}"))
        .send()
        .await
        .expect("answer")
        .json()
        .await
        .expect("json");
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code"))
        .collect();
    // Only http is wrong: the directory is typed, signed over its digest,
    // and has a max-age.
    assert_eq!(codes, ["A001"], "{report:#}");
    let outcomes = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("verdicts")
            .iter()
            .map(|r| r["outcome"].as_str().expect("outcome").to_owned())
            .collect()
    };
    assert_eq!(
        outcomes(&report["directory_verdicts"]),
        ["fails", "fails", "verifies"]
    );
    assert_eq!(report["keys"][0]["signed"], true, "{report:#}");
    assert!(
        report["summary"]
            .as_str()
            .expect("summary")
            .ends_with("signed, keys bound by Content-Digest"),
        "{report:#}"
    );

    // A sample in the string form, as JSON: botwarden verifies it.
    let signer = Signer::from_jwk(&service.signer.private_jwk(), "key")
        .expect("jwk")
        .agent(&origin, AgentForm::String)
        .expect("agent");
    let h = signer
        .sign(
            &RequestParts::new("GET", "site.example", "/page"),
            SystemTime::now(),
        )
        .expect("sign");
    let mut headers = serde_json::Map::new();
    for (n, v) in h.fields() {
        headers.insert(n.to_owned(), Value::String(v.to_owned()));
    }
    let body = json!({
        "sample": {"authority": "site.example", "target": "/page", "headers": headers}
    });
    let report: Value = client()
        .post(&api)
        .json(&body)
        .send()
        .await
        .expect("answer")
        .json()
        .await
        .expect("json");
    assert_eq!(report["agent"], origin.as_str(), "the sample's agent");
    assert_eq!(report["sample"]["check"], "valid", "{report:#}");
    assert_eq!(report["sample"]["agent_form"], "string");
    assert_eq!(
        outcomes(&report["sample_verdicts"]),
        ["fails", "fails", "verifies"]
    );
    // Unknown fields are refused, naming them.
    let answer = client()
        .post(&api)
        .json(&json!({"agent": origin, "smaple": {}}))
        .send()
        .await
        .expect("answer");
    assert_eq!(answer.status(), 400);

    // The page, in a real browser.
    let url = format!("http://{}/agent?agent={origin}", service.addr);
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-agent");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("dir");
    let png = out.join("agent.png");
    let dom = tokio::task::spawn_blocking({
        let png = png.clone();
        move || botwarden_testdata::chromium::render(&url, &png, 1200, 1600)
    })
    .await
    .expect("chromium");
    assert!(dom.contains("<h1>Signed agent check</h1>"), "{dom}");
    assert!(
        dom.contains("<strong>A001 error</strong> directory-not-https"),
        "{dom}"
    );
    assert!(
        dom.contains("<th>botwarden</th><td class=\"allowed\">verifies</td>"),
        "{dom}"
    );
    assert!(!dom.contains("<script"), "{dom}");
    let image = std::fs::read(&png).expect("screenshot");
    assert!(image.starts_with(b"\x89PNG"));
}
