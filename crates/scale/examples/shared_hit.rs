//! How long a shared-cache hit takes over loopback: starts a real
//! `redis-server` (standalone, then a 3-node cluster) on free ports,
//! stores verdicts, and times reads of them through the cache the
//! verifier asks (`GET` and `PTTL` in one round trip, and decoding).
//!
//! `cargo run --release -p botwarden-scale --example shared_hit [READS]`

use std::io::Write as _;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use botwarden_scale::{RedisTarget, RedisVerdicts, Timeouts};
use botwarden_testdata::redis::{RedisCluster, RedisServer};
use botwarden_verify::{Evidence, Method, SharedVerdicts, Verdict};

const KEYS: u32 = 1_000;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let reads: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let server = RedisServer::start();
    run("standalone", &server.url(), reads).await;
    let cluster = RedisCluster::start(3);
    run("cluster of 3", &cluster.urls().join(","), reads).await;
}

async fn run(what: &str, urls: &str, reads: usize) {
    let mut timeouts = Timeouts::default();
    // Generous, so that a busy machine's pauses show in the figures
    // instead of marking Redis down.
    timeouts.read = Duration::from_secs(1);
    timeouts.write = Duration::from_secs(1);
    let cache = RedisVerdicts::connect(RedisTarget::parse(urls).expect("a URL"), timeouts).await;
    let ip = |i: u32| IpAddr::from([192, 0, (i >> 8) as u8, i as u8]);
    for i in 0..KEYS {
        let verdict = Verdict::Verified {
            bot: "Googlebot".to_owned(),
            methods: vec![Method::Fcrdns],
            evidence: Evidence {
                ptr_names: vec![format!("crawl-{i}.googlebot.com")],
                confirmed_name: Some(format!("crawl-{i}.googlebot.com")),
                forward: vec![ip(i)],
                ..Evidence::default()
            },
        };
        cache
            .put(ip(i), "Googlebot", &verdict, Duration::from_secs(600))
            .await;
    }
    // Warm up, then time one read after another.
    for i in 0..KEYS {
        cache.get(ip(i), "Googlebot").await.expect("stored");
    }
    let mut took = Vec::with_capacity(reads);
    let start = Instant::now();
    for n in 0..reads {
        let i = u32::try_from(n).unwrap_or(0) % KEYS;
        let t = Instant::now();
        let hit = cache.get(ip(i), "Googlebot").await;
        took.push(t.elapsed());
        assert!(hit.is_some(), "read {n} missed: {:?}", cache.stats());
    }
    let total = start.elapsed();
    took.sort_unstable();
    let at = |q: f64| took[((took.len() as f64 * q) as usize).min(took.len() - 1)];
    let s = cache.stats();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{what}: {reads} hits in {total:.2?} ({:.0}/s, one at a time): p50 {:?}, p99 {:?}, \
         p99.9 {:?}, max {:?}; errors {}",
        reads as f64 / total.as_secs_f64(),
        at(0.50),
        at(0.99),
        at(0.999),
        took[took.len() - 1],
        s.errors
    );
}
