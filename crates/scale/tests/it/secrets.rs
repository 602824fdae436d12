//! Credentials and TLS on real servers: a `redis-server` that wants a
//! password (on a plain port and on a TLS port of a private CA), and
//! `nats-server`s with authorization and TLS. Each password is looked for
//! in every message, name and debug print: it never shows.

use std::time::Duration;

use botwarden_crawl::{Coordinator, CoordinatorConfig, CrawlConfig};
use botwarden_scale::stream::{NatsLogs, StreamConfig};
use botwarden_scale::{
    Error, NatsTarget, RedisCoordinator, RedisFeeds, RedisTarget, Secret, Timeouts,
};
use botwarden_testdata::nats::NatsServer;
use botwarden_testdata::secured::{Certs, SecuredRedis};
use url::Url;

const REDIS_PASSWORD: &str = "redis-pw-Zq81";
const NATS_PASSWORD: &str = "nats-pw-Kx47";
const NATS_TOKEN: &str = "nats-token-Ht92";

fn config() -> CoordinatorConfig {
    CoordinatorConfig::of(&CrawlConfig::default(), Duration::from_secs(60))
}

/// An error with its causes.
fn chain(e: &Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Connects a crawl's coordinator and starts a crawl: the server took the
/// credentials. Neither its name nor its debug print shows `secret`.
async fn crawl_on(target: &RedisTarget, secret: &str) {
    let c = RedisCoordinator::open(target, "secrets", config())
        .await
        .unwrap_or_else(|e| panic!("connect to {target}: {}", chain(&e)));
    let seed = Url::parse("http://site.test/").expect("url");
    assert_eq!(c.start(&seed).await.expect("start"), seed.as_str());
    let status = c.status().await.expect("status");
    assert_eq!(status.seed.as_deref(), Some(seed.as_str()));
    for shown in [c.name(), format!("{c:?}"), format!("{status:?}")] {
        assert!(!shown.contains(secret), "{shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_password_in_the_url_or_apart_is_used_and_never_shown() {
    let redis = SecuredRedis::start(REDIS_PASSWORD, None);
    let url = redis.url();
    let host = redis.addr().to_string();

    // Given apart (a file or the environment, in the CLI).
    let apart = RedisTarget::parse(&url)
        .expect("parse")
        .with_password(&Secret::new(REDIS_PASSWORD));
    crawl_on(&apart, REDIS_PASSWORD).await;

    // In the URL: used, and shown as ***.
    let in_url = format!("redis://:{REDIS_PASSWORD}@{host}/");
    let target = RedisTarget::parse(&in_url).expect("parse");
    assert_eq!(target.to_string(), format!("redis://:***@{host}/"));
    crawl_on(&target, REDIS_PASSWORD).await;
    let legacy = RedisCoordinator::connect(&in_url, "secrets", config())
        .await
        .expect("connect with the URL's password");
    assert!(!legacy.name().contains(REDIS_PASSWORD), "{}", legacy.name());

    // The verdict cache's link too.
    let feeds = RedisFeeds::connect(apart.clone(), Timeouts::default()).await;
    assert!(feeds.is_up(), "the shared feeds are down");

    // A wrong password: the host, "authentication failed", no password.
    let wrong = "wrong-pw-Vb33";
    let target = RedisTarget::parse(&format!("redis://:{wrong}@{host}/")).expect("parse");
    let e = RedisCoordinator::open(&target, "secrets", config())
        .await
        .expect_err("a wrong password");
    let text = chain(&e);
    assert!(text.contains(&host), "{text}");
    assert!(text.contains("authentication failed"), "{text}");
    assert!(!text.contains(wrong), "{text}");
    // None at all.
    let e = RedisCoordinator::open(
        &RedisTarget::parse(&url).expect("parse"),
        "secrets",
        config(),
    )
    .await
    .expect_err("no password");
    let text = chain(&e);
    assert!(
        text.contains(&host) && text.contains("authentication failed"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rediss_reaches_a_server_of_a_private_ca() {
    let certs = Certs::generate();
    let redis = SecuredRedis::start(REDIS_PASSWORD, Some(&certs));
    let url = redis.url();
    assert!(url.starts_with("rediss://"), "{url}");
    let target = RedisTarget::parse(&url)
        .expect("parse")
        .with_password(&Secret::new(REDIS_PASSWORD))
        .with_ca_file(&certs.ca())
        .expect("the CA file");
    crawl_on(&target, REDIS_PASSWORD).await;
    let feeds = RedisFeeds::connect(target, Timeouts::default()).await;
    assert!(feeds.is_up(), "the shared feeds are down over TLS");

    // Without the CA, the server's certificate is not trusted.
    let untrusted = RedisTarget::parse(&url)
        .expect("parse")
        .with_password(&Secret::new(REDIS_PASSWORD));
    let e = RedisCoordinator::open(&untrusted, "secrets", config())
        .await
        .expect_err("a certificate of an unknown CA");
    let text = chain(&e);
    assert!(text.contains(&redis.addr().to_string()), "{text}");
    assert!(!text.contains(REDIS_PASSWORD), "{text}");
}

/// Connects to NATS (the stream and bucket made): the server took the
/// credentials; the URL kept shows no `secret`.
async fn nats_on(target: &NatsTarget, secret: &str) {
    let logs = NatsLogs::open(target, StreamConfig::default())
        .await
        .unwrap_or_else(|e| panic!("connect to {target}: {}", chain(&e)));
    assert_eq!(logs.waiting().await.expect("waiting"), 0);
    for shown in [
        logs.url().to_owned(),
        format!("{logs:?}"),
        format!("{target:?}"),
    ] {
        assert!(!shown.contains(secret), "{shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_user_and_password_in_the_url_or_apart() {
    let nats = NatsServer::start_with_config(&format!(
        "authorization {{\n  user: alice\n  password: \"{NATS_PASSWORD}\"\n}}\n"
    ));
    let host = nats.addr().to_string();
    let in_url = NatsTarget::parse(&format!("nats://alice:{NATS_PASSWORD}@{host}")).expect("parse");
    assert_eq!(in_url.to_string(), format!("nats://alice:***@{host}"));
    nats_on(&in_url, NATS_PASSWORD).await;
    let apart = NatsTarget::parse(&nats.url())
        .expect("parse")
        .with_user_password("alice", Secret::new(NATS_PASSWORD));
    nats_on(&apart, NATS_PASSWORD).await;

    let wrong = "wrong-pw-Qa64";
    let e = NatsLogs::connect(
        &format!("nats://alice:{wrong}@{host}"),
        StreamConfig::default(),
    )
    .await
    .expect_err("a wrong password");
    let text = chain(&e);
    assert!(text.contains(&host), "{text}");
    assert!(text.contains("authorization"), "{text}");
    assert!(!text.contains(wrong), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nats_token_in_the_url_or_apart() {
    let nats = NatsServer::start_with_config(&format!(
        "authorization {{\n  token: \"{NATS_TOKEN}\"\n}}\n"
    ));
    let host = nats.addr().to_string();
    let in_url = NatsTarget::parse(&format!("nats://{NATS_TOKEN}@{host}")).expect("parse");
    assert_eq!(in_url.to_string(), format!("nats://***@{host}"));
    nats_on(&in_url, NATS_TOKEN).await;
    let apart = NatsTarget::parse(&nats.url())
        .expect("parse")
        .with_token(Secret::new(NATS_TOKEN));
    nats_on(&apart, NATS_TOKEN).await;
    let e = NatsLogs::connect(&nats.url(), StreamConfig::default())
        .await
        .expect_err("no token");
    assert!(chain(&e).contains(&host), "{}", chain(&e));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_over_tls_with_a_private_ca_and_a_client_certificate() {
    let certs = Certs::generate();
    let tls = format!(
        "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n}}\n",
        certs.server_cert().display(),
        certs.server_key().display()
    );
    let nats = NatsServer::start_with_config(&tls);
    let url = format!("tls://{}", nats.addr());
    let target = NatsTarget::parse(&url)
        .expect("parse")
        .with_ca_file(&certs.ca())
        .expect("the CA file");
    nats_on(&target, "no-secret").await;
    let e = NatsLogs::connect(&url, StreamConfig::default())
        .await
        .expect_err("a certificate of an unknown CA");
    assert!(
        chain(&e).contains(&nats.addr().to_string()),
        "{}",
        chain(&e)
    );

    // A server that asks for a client certificate of its CA.
    let mutual = format!(
        "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n  ca_file: \"{}\"\n  verify: true\n}}\n",
        certs.server_cert().display(),
        certs.server_key().display(),
        certs.ca().display()
    );
    let nats = NatsServer::start_with_config(&mutual);
    let url = format!("tls://{}", nats.addr());
    let with_cert = NatsTarget::parse(&url)
        .expect("parse")
        .with_ca_file(&certs.ca())
        .expect("the CA file")
        .with_client_cert(&certs.client_cert(), &certs.client_key())
        .expect("the client certificate");
    nats_on(&with_cert, "no-secret").await;
    let without = NatsTarget::parse(&url)
        .expect("parse")
        .with_ca_file(&certs.ca())
        .expect("the CA file");
    assert!(
        NatsLogs::open(&without, StreamConfig::default())
            .await
            .is_err(),
        "connected without a client certificate"
    );
}
