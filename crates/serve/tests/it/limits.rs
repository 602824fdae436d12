//! Slow and vanished clients: the header, body and request timeouts, and
//! the bound on checks at once, with real TCP clients.

use std::time::{Duration, Instant};

use botwarden_testdata::dns::BlackHole;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::{Running, TempDir, client, config, start};

/// Reads until the server closes the connection; panics if it has not
/// within `guard` (the test hangs otherwise).
async fn read_until_closed(stream: &mut TcpStream, guard: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(guard, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "the server kept the connection open for {guard:?}; read so far: {}",
        String::from_utf8_lossy(&got)
    );
    got
}

async fn metrics(running: &Running) -> String {
    client()
        .get(running.url("/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text")
}

/// Polls the metrics until `line` is among them.
async fn wait_for_metric(running: &Running, line: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let text = metrics(running).await;
        if text.lines().any(|l| l == line) {
            return;
        }
        assert!(Instant::now() < deadline, "never saw {line}:\n{text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_its_headers_byte_by_byte_and_stops_is_cut_off() {
    let dir = TempDir::new("slow-headers");
    let mut cfg = config(&dir);
    cfg.header_timeout = 1.0;
    let running = start(cfg, Some(dir)).await;
    let mut slow = TcpStream::connect(running.addr).await.expect("connect");
    for b in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a" {
        slow.write_all(&[*b]).await.expect("write");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Meanwhile other clients are served.
    for _ in 0..3 {
        let r = client()
            .get(running.url("/healthz"))
            .send()
            .await
            .expect("health");
        assert_eq!(r.status().as_u16(), 200);
    }
    // The slow client stopped mid-header: the server closes on it without
    // ever answering /healthz.
    let got = read_until_closed(&mut slow, Duration::from_secs(30)).await;
    let text = String::from_utf8_lossy(&got);
    assert!(!text.contains("200 OK"), "{text}");
    // A client that connects and sends nothing is closed on as well.
    let mut silent = TcpStream::connect(running.addr).await.expect("connect");
    read_until_closed(&mut silent, Duration::from_secs(30)).await;
    let r = client()
        .get(running.url("/healthz"))
        .send()
        .await
        .expect("health");
    assert_eq!(r.status().as_u16(), 200);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_stops_coming_is_answered_408() {
    let dir = TempDir::new("slow-body");
    let mut cfg = config(&dir);
    cfg.body_timeout = 1.0;
    let running = start(cfg, Some(dir)).await;
    for (path, kind) in [
        ("/api/v1/check", "application/json"),
        ("/check", "application/x-www-form-urlencoded"),
    ] {
        let mut slow = TcpStream::connect(running.addr).await.expect("connect");
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {kind}\r\n\
             Content-Length: 100\r\nConnection: close\r\n\r\n"
        );
        slow.write_all(head.as_bytes()).await.expect("write");
        slow.write_all(b"{\"robots_txt\"").await.expect("write");
        let got = read_until_closed(&mut slow, Duration::from_secs(30)).await;
        let text = String::from_utf8_lossy(&got);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(text.contains("body_timeout"), "{text}");
    }
    let text = metrics(&running).await;
    assert!(
        text.lines().any(|l| l == "botwarden_body_timeouts_total 2"),
        "{text}"
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_request_timeout_is_answered_503() {
    let hole = BlackHole::start();
    let dir = TempDir::new("request-timeout");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(hole.addr());
    cfg.dns_timeout = 30.0;
    cfg.request_timeout = 1.0;
    let running = start(cfg, Some(dir)).await;
    // The API's verify waits on DNS that never answers.
    let r = client()
        .get(
            running
                .url("/api/v1/verify?ip=192.0.2.1&ua=Mozilla/5.0%20(compatible;%20Searchbot/2.1)"),
        )
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 503);
    assert_eq!(r.headers()["retry-after"], "1");
    let v: serde_json::Value = r.json().await.expect("json");
    assert_eq!(v["error"]["code"], "timeout", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("request_timeout")),
        "{v}"
    );
    let text = metrics(&running).await;
    for line in [
        "botwarden_request_timeouts_total 1",
        "botwarden_http_requests_total{route=\"/api/v1/verify\",status=\"503\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
    }
    running.stop().await;
}

/// A robots.txt that takes the checker a long while: one-rule groups,
/// each for its own robot, all of one product token (`robots check`'s
/// slowest shape).
fn slow_file(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    let mut n = 0;
    while text.len() < bytes {
        text.push_str(&format!("User-agent: bot{n}\nDisallow: /p{n}/\n\n"));
        n += 1;
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_at_once_are_bounded_and_a_vanished_client_s_check_never_starts() {
    let dir = TempDir::new("jobs");
    let mut cfg = config(&dir);
    cfg.workers = 1;
    cfg.max_jobs = 2;
    let running = start(cfg, Some(dir)).await;
    let check = running.url("/api/v1/check");
    // A: a long check holds the one worker.
    let long = tokio::spawn({
        let check = check.clone();
        let body = serde_json::json!({ "robots_txt": slow_file(400 * 1024) });
        async move {
            client()
                .post(&check)
                .json(&body)
                .send()
                .await
                .expect("answer")
                .status()
                .as_u16()
        }
    });
    wait_for_metric(&running, "botwarden_jobs_running 1").await;
    // B: a check from a raw socket waits for the worker...
    let mut vanishing = TcpStream::connect(running.addr).await.expect("connect");
    let body = r#"{"robots_txt": "User-agent: *\nDisallow: /b\n"}"#;
    let request = format!(
        "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    vanishing
        .write_all(request.as_bytes())
        .await
        .expect("write");
    wait_for_metric(&running, "botwarden_jobs_admitted 2").await;
    // C: with two admitted, a third is refused at once.
    let r = client()
        .post(&check)
        .json(&serde_json::json!({ "robots_txt": "User-agent: *\nDisallow: /c\n" }))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status().as_u16(), 503);
    assert_eq!(r.headers()["retry-after"], "1");
    // B's client goes away: its check leaves the queue without running.
    drop(vanishing);
    wait_for_metric(&running, "botwarden_jobs_abandoned_total 1").await;
    wait_for_metric(&running, "botwarden_jobs_admitted 1").await;
    assert_eq!(long.await.expect("A"), 200);
    wait_for_metric(&running, "botwarden_jobs_admitted 0").await;
    let text = metrics(&running).await;
    for line in [
        "botwarden_jobs_refused_total 1",
        "botwarden_jobs_abandoned_total 1",
        "botwarden_http_requests_total{route=\"/api/v1/check\",status=\"200\"} 1",
        "botwarden_http_requests_total{route=\"/api/v1/check\",status=\"503\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
    }
    running.stop().await;
}
