//! Operations: health, metrics, graceful shutdown, configuration files.

use std::time::Duration;

use botwarden_serve::Config;
use botwarden_testdata::dns::{BlackHole, TestDns, Zone};

use crate::{TempDir, client, config, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_metrics() {
    let zone = Zone::new()
        .ptr("192.0.2.1", &["crawl-1.searchbot.example"])
        .a("crawl-1.searchbot.example", &["192.0.2.1"]);
    let dns = TestDns::start(zone).await;
    let dir = TempDir::new("ops");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(dns.addr());
    cfg.trusted_proxies = vec!["127.0.0.1".to_owned()];
    let running = start(cfg, Some(dir)).await;
    let r = client()
        .get(running.url("/healthz"))
        .send()
        .await
        .expect("health");
    assert_eq!(r.status().as_u16(), 200);
    for _ in 0..3 {
        let r = client()
            .get(running.url("/verify"))
            .header("user-agent", "Searchbot/2.1")
            .header("x-forwarded-for", "192.0.2.1")
            .send()
            .await
            .expect("verify");
        assert_eq!(r.headers()["x-bot-verdict"], "verified");
    }
    let r = client()
        .get(running.url("/verify"))
        .header("user-agent", "curl/8.0")
        .send()
        .await
        .expect("verify");
    assert_eq!(r.headers()["x-bot-verdict"], "unverifiable");
    let r = client()
        .get(running.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    assert!(
        r.headers()["content-type"]
            .to_str()
            .expect("type")
            .starts_with("text/plain; version=0.0.4")
    );
    let text = r.text().await.expect("text");
    for line in [
        "botwarden_http_requests_total{route=\"/verify\",status=\"200\"} 4",
        "botwarden_http_requests_total{route=\"/healthz\",status=\"200\"} 1",
        "botwarden_verdicts_total{bot=\"Searchbot\",verdict=\"verified\"} 3",
        "botwarden_verdicts_total{bot=\"unregistered\",verdict=\"unverifiable\"} 1",
        "botwarden_verdict_cache_hits_total 2",
        "botwarden_verdict_cache_misses_total 1",
        "botwarden_verification_seconds_count 1",
        "botwarden_verification_seconds_bucket{le=\"+Inf\"} 1",
        "# TYPE botwarden_verification_seconds histogram",
        "botwarden_dns_cache_total{cache=\"ptr\",outcome=\"miss\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
    }
    let ratio = text
        .lines()
        .find_map(|l| l.strip_prefix("botwarden_verdict_cache_hit_ratio "))
        .expect("ratio");
    assert!((ratio.parse::<f64>().expect("number") - 2.0 / 3.0).abs() < 1e-9);
    // Every sample line is `name{labels} value` or `name value`.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let value = line.rsplit(' ').next().expect("value");
        assert!(value.parse::<f64>().is_ok(), "bad sample: {line}");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_waits_for_requests_in_flight() {
    let hole = BlackHole::start();
    let dir = TempDir::new("shutdown");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(hole.addr());
    cfg.verify_timeout = 1.0;
    cfg.trusted_proxies = vec!["127.0.0.1".to_owned()];
    let running = start(cfg, Some(dir)).await;
    let url = running.url("/verify");
    // A request that waits on DNS, then the stop.
    let request = tokio::spawn(async move {
        client()
            .get(url)
            .header("user-agent", "Searchbot/2.1")
            .header("x-forwarded-for", "192.0.2.9")
            .send()
            .await
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let text = client()
            .get(running.url("/metrics"))
            .send()
            .await
            .expect("m")
            .text()
            .await
            .expect("t");
        if text.contains("botwarden_verify_pending 1") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never pending");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let addr = running.addr;
    running.stop().await;
    let answer = request
        .await
        .expect("task")
        .expect("answered before the stop");
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.headers()["x-bot-verdict"], "unknown");
    // Stopped: no longer listening.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[test]
fn configuration_files() {
    let path = std::path::Path::new("serve.toml");
    let config = Config::from_toml(
        path,
        "listen = \"127.0.0.1:9000\"\ntrusted_proxies = [\"10.0.0.0/8\", \"::1\"]\nenforce = true\nallow_private = true\n",
    )
    .expect("valid");
    assert_eq!(config.listen.port(), 9000);
    assert!(config.enforce && config.allow_private);
    let err = Config::from_toml(path, "listen = 5\n").expect_err("bad type");
    let text = err.to_string();
    assert!(
        text.starts_with("configuration serve.toml: ") && text.contains("line 1"),
        "{text}"
    );
    let err = Config::from_toml(path, "enforced = true\n").expect_err("unknown key");
    assert!(err.to_string().contains("enforced"), "{err}");
    let err = Config::from_toml(path, "trusted_proxies = [\"10.0.0.0/8\", \"proxy\"]\n")
        .expect_err("bad proxy");
    assert!(
        err.to_string().contains("trusted_proxies[1] = 'proxy'"),
        "{err}"
    );
    let err = Config::from_toml(path, "dns_timeout = 0\n").expect_err("zero");
    assert!(err.to_string().contains("dns_timeout"), "{err}");
    let cpus = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    assert_eq!(Config::default().io_threads, (cpus / 2).max(1));
    let config = Config::from_toml(path, "io_threads = 4\n").expect("valid");
    assert_eq!(config.io_threads, 4);
    let err = Config::from_toml(path, "io_threads = 0\n").expect_err("zero");
    assert!(
        err.to_string().contains("io_threads must be at least 1"),
        "{err}"
    );
}
