//! The verdict cache shared on Redis: real `redis-server` processes (one,
//! or a 3-node cluster) and the loopback DNS server, which counts the
//! queries each verifier sends.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use botwarden_scale::{RedisTarget, RedisVerdicts, Timeouts};
use botwarden_testdata::dns::{TestDns, Zone};
use botwarden_testdata::free_port;
use botwarden_testdata::redis::{RedisCluster, RedisServer};
use botwarden_verify::{
    DnsConfig, Registry, RegistryBuilder, SharedVerdicts, Verifier, VerifierConfig,
};
use hickory_proto::rr::RecordType;

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    fcrdns_hosts: [searchbot.example]
";

fn registry() -> Arc<Registry> {
    let mut b = RegistryBuilder::new();
    b.add_registry("test.yaml", REGISTRY);
    let (registry, problems) = b.build();
    Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")))
}

/// Crawlers 192.0.2.1 to 192.0.2.9, each with its PTR and A record.
fn zone() -> Zone {
    let mut zone = Zone::new();
    for i in 1..10 {
        let name = format!("crawl-{i}.searchbot.example");
        let ip = format!("192.0.2.{i}");
        zone = zone.ptr(&ip, &[&name]).a(&name, &[&ip]);
    }
    zone
}

fn ip(text: &str) -> IpAddr {
    text.parse().expect("an address")
}

/// Timeouts generous enough for a busy machine: the tests check what is
/// shared, not how fast.
fn timeouts() -> Timeouts {
    let mut t = Timeouts::default();
    t.read = Duration::from_secs(2);
    t.write = Duration::from_secs(2);
    t.first_retry = Duration::from_millis(20);
    t
}

/// One process's verifier: its own local cache, DNS at `dns`, and the
/// shared cache.
async fn verifier(dns: &TestDns, shared: Option<Arc<RedisVerdicts>>) -> Verifier {
    let mut config = VerifierConfig::with_dns(DnsConfig::with_nameserver(dns.addr()));
    config.shared = shared.map(|s| s as Arc<dyn SharedVerdicts>);
    Verifier::new(registry(), config).expect("a verifier")
}

async fn shared(target: &str) -> Arc<RedisVerdicts> {
    RedisVerdicts::connect(RedisTarget::parse(target).expect("a URL"), timeouts()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verdict_worked_out_by_one_process_is_reused_by_another_on_a_cluster() {
    let cluster = RedisCluster::start(3);
    let dns = TestDns::start(zone()).await;
    let urls = cluster.urls().join(",");
    let first = verifier(&dns, Some(shared(&urls).await)).await;
    let second = verifier(&dns, Some(shared(&urls).await)).await;
    // Several addresses, so the keys land on several nodes.
    for i in 1..10 {
        let addr = ip(&format!("192.0.2.{i}"));
        let v = first.verify(addr, "Searchbot").await;
        assert_eq!(v.kind(), "verified", "{v}");
    }
    let asked = dns.queries();
    assert!(asked >= 9, "{asked} queries for nine addresses");
    for i in 1..10 {
        let addr = ip(&format!("192.0.2.{i}"));
        let v = second.verify(addr, "Searchbot").await;
        assert_eq!(v.kind(), "verified", "{v}");
        assert_eq!(
            v.evidence().and_then(|e| e.confirmed_name.as_deref()),
            Some(format!("crawl-{i}.searchbot.example").as_str()),
            "the evidence travels with the verdict"
        );
    }
    assert_eq!(dns.queries(), asked, "the second process asked DNS");
    let s = second.shared().expect("shared").stats();
    assert_eq!((s.hits, s.misses, s.errors), (9, 0, 0), "{s:?}");
    assert!(s.up);
    assert_eq!(s.reads, 9);
    // The second process keeps them in its own cache too.
    let v = second.verify(ip("192.0.2.1"), "Searchbot").await;
    assert_eq!(v.kind(), "verified");
    assert_eq!(second.stats().hits, 1);
    assert_eq!(second.shared().expect("shared").stats().reads, 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_asking_at_once_send_one_lookup() {
    let redis = RedisServer::start();
    // A slow name server: the second process asks while the first waits.
    let dns = TestDns::start(zone().delay(Duration::from_millis(300))).await;
    let first = verifier(&dns, Some(shared(&redis.url()).await)).await;
    let second = verifier(&dns, Some(shared(&redis.url()).await)).await;
    let addr = ip("192.0.2.5");
    let (a, b) = tokio::join!(
        first.verify(addr, "Searchbot"),
        second.verify(addr, "Searchbot")
    );
    assert_eq!(a.kind(), "verified", "{a}");
    assert_eq!(a, b);
    assert_eq!(dns.queries_for("192.0.2.5", RecordType::PTR), 1);
    assert_eq!(
        dns.queries_for("crawl-5.searchbot.example", RecordType::A),
        1
    );
    // One process worked it out; the other waited for its verdict (or,
    // on a machine slow enough, found it stored).
    let (s1, s2) = (
        first.shared().expect("shared").stats(),
        second.shared().expect("shared").stats(),
    );
    assert_eq!(s1.hits + s2.hits, 1, "{s1:?} {s2:?}");
    assert!(s1.joins + s2.joins <= 1, "{s1:?} {s2:?}");
    assert_eq!(s1.misses + s2.misses, 2, "{s1:?} {s2:?}");
    assert_eq!(first.stats().misses + second.stats().misses, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_killed_answers_continue_from_the_local_cache_and_dns() {
    let mut redis = RedisServer::start();
    let dns = TestDns::start(zone()).await;
    let cache = shared(&redis.url()).await;
    let v = verifier(&dns, Some(Arc::clone(&cache))).await;
    assert_eq!(
        v.verify(ip("192.0.2.1"), "Searchbot").await.kind(),
        "verified"
    );
    assert!(cache.stats().up);
    redis.kill();
    // Known here: from the local cache, without Redis or DNS.
    let asked = dns.queries();
    assert_eq!(
        v.verify(ip("192.0.2.1"), "Searchbot").await.kind(),
        "verified"
    );
    assert_eq!(dns.queries(), asked);
    // New: Redis fails, the verdict is worked out here all the same.
    let verdict = v.verify(ip("192.0.2.2"), "Searchbot").await;
    assert_eq!(verdict.kind(), "verified", "{verdict}");
    let s = cache.stats();
    assert!(!s.up, "{s:?}");
    assert!(s.errors >= 1, "{s:?}");
    // While down, Redis is not asked at all.
    let verdict = v.verify(ip("192.0.2.3"), "Searchbot").await;
    assert_eq!(verdict.kind(), "verified", "{verdict}");
    assert!(cache.stats().skipped >= 1, "{:?}", cache.stats());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_at_start_does_not_stop_verification() {
    let port = free_port();
    let dns = TestDns::start(zone()).await;
    let cache = shared(&format!("redis://127.0.0.1:{port}/")).await;
    assert!(!cache.stats().up);
    let v = verifier(&dns, Some(Arc::clone(&cache))).await;
    let verdict = v.verify(ip("192.0.2.4"), "Searchbot").await;
    assert_eq!(verdict.kind(), "verified", "{verdict}");
    assert!(cache.stats().errors >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_stored_verdict_is_counted_and_worked_out_again() {
    let redis = RedisServer::start();
    let dns = TestDns::start(zone()).await;
    let cache = shared(&redis.url()).await;
    let key = "botwarden:v1:verdict:192.0.2.6:Searchbot";
    assert_eq!(
        redis
            .command(&["SET", key, "garbage", "PX", "60000"])
            .as_deref(),
        Some("+OK")
    );
    let v = verifier(&dns, Some(Arc::clone(&cache))).await;
    let verdict = v.verify(ip("192.0.2.6"), "Searchbot").await;
    assert_eq!(verdict.kind(), "verified", "{verdict}");
    assert_eq!(cache.unreadable(), 1);
    assert_eq!(dns.queries_for("192.0.2.6", RecordType::PTR), 1);
    // And stored again, readable now.
    let other = verifier(&dns, Some(shared(&redis.url()).await)).await;
    assert_eq!(
        other.verify(ip("192.0.2.6"), "Searchbot").await.kind(),
        "verified"
    );
    assert_eq!(dns.queries_for("192.0.2.6", RecordType::PTR), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verdicts_live_in_redis_as_long_as_in_the_local_cache() {
    let redis = RedisServer::start();
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns, Some(shared(&redis.url()).await)).await;
    v.verify(ip("192.0.2.7"), "Searchbot").await;
    let ttl: u64 = redis
        .command(&["PTTL", "botwarden:v1:verdict:192.0.2.7:Searchbot"])
        .and_then(|l| l.strip_prefix(':').and_then(|n| n.parse().ok()))
        .expect("a TTL");
    // Verified: the verifier's verdict TTL, 60 s, less the time since
    // (an unknown verdict would have 5 s).
    assert!(ttl > 5_000 && ttl <= 60_000, "{ttl}");
    // The lookup's claim is gone once the verdict is stored.
    assert_eq!(
        redis
            .command(&["EXISTS", "botwarden:v1:lookup:192.0.2.7:Searchbot"])
            .as_deref(),
        Some(":0")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_announced_export_reaches_a_follower_waiting_on_the_stream() {
    use botwarden_scale::{ExportFile, RedisExports};

    let cluster = RedisCluster::start(3);
    let target = || RedisTarget::parse(&cluster.urls().join(",")).expect("URLs");
    let announcer = RedisExports::connect(target(), timeouts()).await;
    let follower = RedisExports::connect(target(), timeouts()).await;
    assert_eq!(follower.newest().await, Some(None));
    let waiting = tokio::spawn(async move {
        let got = follower.next_after("0-0", Duration::from_secs(30)).await;
        (follower, got)
    });
    // The follower blocks on the stream longer than the cluster's seconds
    // of connecting.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let files = [
        ExportFile {
            name: "verified.txt".to_owned(),
            body: b"66.249.66.1\n".to_vec(),
        },
        ExportFile {
            name: "../escape".to_owned(),
            body: b"not announced".to_vec(),
        },
    ];
    let announced = announcer.announce(&files, &[]).await.expect("announced");
    // The name that is not plain is left out, and said.
    assert_eq!(announced.files, 1);
    assert_eq!(
        announced
            .refused
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>(),
        ["../escape"]
    );
    let version = announced.version;
    let (follower, got) = waiting.await.expect("the follower");
    let a = got.flatten().expect("an announcement");
    assert_eq!(a.version, version);
    assert_eq!(a.files, files[..1]);
    assert!(a.missing.is_empty());
    // A second version: the newest is the one a late follower starts from.
    let second = announcer
        .announce(&files[..1], &[])
        .await
        .expect("announced")
        .version;
    let newest = follower.newest().await.flatten().expect("the newest");
    assert_eq!(newest.version, second);
    assert_ne!(newest.id, a.id);
    assert_eq!(
        follower
            .next_after(&newest.id, Duration::from_millis(50))
            .await,
        Some(None)
    );
}
