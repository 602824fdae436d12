//! A hostile client on loopback: made-up signature fields, an unreadable
//! `X-Forwarded-For`, URLs of other schemes, floods of the public verify
//! route, and more. Each test stands for a way the service was once
//! made to answer wrongly.

use std::fs;
use std::net::Ipv4Addr;
use std::time::{SystemTime, UNIX_EPOCH};

use botwarden_testdata::dns::TestDns;

use crate::gate::{SEARCHBOT, SPOOFED, client_from, serve, start_nginx, zone};
use crate::{TempDir, client};

/// `Signature-Input` and `Signature` of a signature nobody made: tag
/// `web-bot-auth`, an invented key id, no agent, junk bytes.
fn made_up_signature() -> [(&'static str, String); 2] {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    [
        (
            "signature-input",
            format!(
                "sig1=(\"@authority\");created={now};expires={};keyid=\"invented-key-id\";tag=\"web-bot-auth\"",
                now + 60
            ),
        ),
        (
            "signature",
            "sig1=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:".to_owned(),
        ),
    ]
}

/// Status, verdict and `X-Bot-Signature` of an answer.
fn verdict_of(r: &reqwest::Response) -> (u16, String, String) {
    let h = |name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII").to_owned())
            .unwrap_or_default()
    };
    (
        r.status().as_u16(),
        h("x-bot-verdict"),
        h("x-bot-signature"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_signature_fields_do_not_let_a_spoofed_crawler_through() {
    let dns = TestDns::start(zone()).await;
    let running = serve(dns.addr(), true, &["127.0.0.1"]).await;
    // Twice: the second time its address's verdict is cached.
    for _ in 0..2 {
        let mut ask = client()
            .get(running.url("/verify"))
            .header("user-agent", SEARCHBOT)
            .header("x-forwarded-for", "192.0.2.3");
        for (name, value) in made_up_signature() {
            ask = ask.header(name, value);
        }
        let r = ask.send().await.expect("answer");
        let got = verdict_of(&r);
        assert_eq!(
            got,
            (403, "spoofed".to_owned(), "undecided".to_owned()),
            "{:?}",
            r.headers()
        );
        let reason = r
            .headers()
            .get("x-bot-signature-reason")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(reason.contains("invented-key-id"), "{reason}");
    }

    // The same through nginx's auth_request, which passes the client's
    // fields to the sub-request.
    let site = TempDir::new("hostile-nginx");
    let htdocs = site.0.join("htdocs");
    fs::create_dir_all(&htdocs).expect("htdocs");
    fs::write(htdocs.join("index.html"), "<p>home</p>\n").expect("index");
    let (_nginx, port) = start_nginx(&site.0, running.addr);
    let mut ask = client_from(SPOOFED)
        .get(format!("http://127.0.0.1:{port}/index.html"))
        .header("user-agent", SEARCHBOT);
    for (name, value) in made_up_signature() {
        ask = ask.header(name, value);
    }
    let r = ask.send().await.expect("answer");
    assert_eq!(
        r.status().as_u16(),
        403,
        "{}",
        fs::read_to_string(site.0.join("error.log")).unwrap_or_default()
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_before_the_client_in_x_forwarded_for_is_passed_over() {
    let dns = TestDns::start(zone()).await;
    let running = serve(dns.addr(), true, &["127.0.0.1", "10.0.0.0/8"]).await;
    let ask = |forwarded: &'static [u8]| {
        let url = running.url("/verify");
        async move {
            let r = client_from(Ipv4Addr::LOCALHOST)
                .get(url)
                .header("user-agent", SEARCHBOT)
                .header(
                    "x-forwarded-for",
                    reqwest::header::HeaderValue::from_bytes(forwarded).expect("value"),
                )
                .send()
                .await
                .expect("answer");
            verdict_of(&r)
        }
    };
    for forwarded in [
        &b"garbage, 192.0.2.3"[..],
        b"garbage,192.0.2.3, 10.1.2.3",
        b"\xffx y, 192.0.2.3",
    ] {
        let (status, verdict, _) = ask(forwarded).await;
        assert_eq!(
            (status, verdict.as_str()),
            (403, "spoofed"),
            "{}",
            String::from_utf8_lossy(forwarded)
        );
    }
    // Garbage where the client should be: unknown, never blocked.
    let (status, verdict, _) = ask(b"192.0.2.3, garbage").await;
    assert_eq!((status, verdict.as_str()), (200, "unknown"));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_tests_past_the_work_budget_are_refused_with_413() {
    let dir = TempDir::new("work-budget");
    let mut cfg = crate::config(&dir);
    // The code before the budget ran on past this; the answer was 503.
    cfg.request_timeout = 30.0;
    let running = crate::start(cfg, Some(dir)).await;
    let file: String = (0..20_000)
        .map(|i| format!("Disallow: /*a{i}*b*c$\n"))
        .collect();
    let file = format!("User-agent: *\n{file}");
    let url = format!("/{}", "ab".repeat(1000));
    let urls: Vec<&str> = std::iter::repeat_n(url.as_str(), 50).collect();
    let r = client()
        .post(running.url("/api/v1/test"))
        .json(&serde_json::json!({"robots_txt": file, "agent": "Searchbot", "urls": urls}))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 413);
    let doc: serde_json::Value = r.json().await.expect("JSON");
    assert_eq!(doc["error"]["code"], "work_budget", "{doc}");
    // Within the budget: answered.
    let r = client()
        .post(running.url("/api/v1/test"))
        .json(&serde_json::json!({"robots_txt": file, "agent": "Searchbot", "urls": ["/x"]}))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 200);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_of_other_schemes_are_refused_with_400() {
    let dir = TempDir::new("schemes");
    let running = crate::start(crate::config(&dir), Some(dir)).await;
    for url in [
        "file:///etc/passwd",
        "gopher://example.com/",
        "ftp://example.com/",
    ] {
        let r = client()
            .get(running.url("/api/v1/fetch"))
            .query(&[("url", url)])
            .send()
            .await
            .expect("answer");
        assert_eq!(r.status().as_u16(), 400, "{url}");
        assert_eq!(
            r.headers()
                .get("x-content-type-options")
                .and_then(|v| v.to_str().ok()),
            Some("nosniff")
        );
        let doc: serde_json::Value = r.json().await.expect("JSON");
        assert_eq!(doc["error"]["code"], "invalid_url", "{url}: {doc}");
        let r = client()
            .post(running.url("/api/v1/check"))
            .json(&serde_json::json!({ "url": url }))
            .send()
            .await
            .expect("answer");
        assert_eq!(r.status().as_u16(), 400, "{url}");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_verify_api_keeps_to_verify_timeout_and_max_pending() {
    let hole = botwarden_testdata::dns::BlackHole::start();
    let dir = TempDir::new("api-verify-budget");
    let mut cfg = crate::config(&dir);
    cfg.nameserver = Some(hole.addr());
    cfg.dns_timeout = 30.0;
    cfg.verify_timeout = 1.0;
    cfg.max_pending = 8;
    let running = crate::start(cfg, Some(dir)).await;
    // A flood of distinct addresses against a silent name server: the
    // API's share of the slots (4 of 8) is taken, the rest answered 503.
    let asks: Vec<_> = (0..20)
        .map(|i| {
            let url = running.url(&format!(
                "/api/v1/verify?ip=192.0.2.{}&bot=Searchbot",
                10 + i
            ));
            tokio::spawn(async move {
                let ask = client().get(url).send();
                let r = tokio::time::timeout(std::time::Duration::from_secs(20), ask)
                    .await
                    .expect("answered well before dns_timeout")
                    .expect("answer");
                let status = r.status().as_u16();
                let doc: serde_json::Value = r.json().await.expect("JSON");
                (status, doc)
            })
        })
        .collect();
    let mut busy = 0;
    for ask in asks {
        let (status, doc) = ask.await.expect("asked");
        match status {
            200 => assert_eq!(doc["verdict"], "unknown", "{doc}"),
            503 => busy += 1,
            other => panic!("{other}: {doc}"),
        }
    }
    assert!(busy >= 1, "the flood was never refused");
    running.stop().await;
}

#[test]
fn classify_leaves_the_connection_thread_free_for_verify() {
    // The service on a runtime of one thread, as `io_threads = 1` runs it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = TempDir::new("classify-thread");
    let running = runtime.block_on(crate::start(crate::config(&dir), Some(dir)));
    let addr = running.addr;
    let server = std::thread::spawn(move || {
        runtime.block_on(async {
            tokio::time::sleep(std::time::Duration::from_secs(120)).await;
        });
    });
    drop(server);
    let clients = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    clients.block_on(async move {
        let uas: Vec<String> = (0..10_000)
            .map(|i| format!("Mozilla/5.0 (compatible; Thing{i}/1.0; +https://x{i}.example/bot)"))
            .collect();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let classify = {
            let done = std::sync::Arc::clone(&done);
            tokio::spawn(async move {
                for _ in 0..3 {
                    let r = client()
                        .post(format!("http://{addr}/api/v1/classify"))
                        .json(&serde_json::json!({"user_agents": uas, "explain": true}))
                        .send()
                        .await
                        .expect("answer");
                    assert_eq!(r.status().as_u16(), 200);
                }
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            })
        };
        // /verify answers keep coming while the classifications run.
        let mut during = 0;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !done.load(std::sync::atomic::Ordering::SeqCst)
            && std::time::Instant::now() < deadline
        {
            let r = client()
                .get(format!("http://{addr}/verify"))
                .header("user-agent", SEARCHBOT)
                .send()
                .await
                .expect("answer");
            assert_eq!(r.status().as_u16(), 200);
            if !done.load(std::sync::atomic::Ordering::SeqCst) {
                during += 1;
            }
        }
        classify.await.expect("classified");
        assert!(
            during >= 10,
            "only {during} /verify answers while classify ran"
        );
    });
}
