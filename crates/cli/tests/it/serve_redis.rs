//! `botwarden serve --redis`: two service processes share their verdicts
//! through a 3-node Redis Cluster, and go on answering when Redis dies;
//! `bots update --redis` fetches a feed once for every node.

use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_testdata::redis::RedisCluster;

use crate::TempFile;
use crate::serve::Server;

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    fcrdns_hosts: [searchbot.example]
";

impl Server {
    /// The verdict's kind on `ip` claiming Searchbot.
    fn verdict(&self, ip: &str) -> String {
        let (status, body) =
            self.request("GET", &format!("/api/v1/verify?ip={ip}&bot=Searchbot"), "");
        assert_eq!(status, 200, "{body}");
        let doc: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        doc["verdict"].as_str().unwrap_or_default().to_owned()
    }

    /// The value of one line of `/metrics`.
    fn metric(&self, name: &str) -> Option<u64> {
        let (_, body) = self.request("GET", "/metrics", "");
        body.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    }
}

#[test]
fn two_services_share_verdicts_through_a_redis_cluster_and_outlive_it() {
    let mut cluster = RedisCluster::start(3);
    let dns = BackgroundDns::start(
        Zone::new()
            .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
            .a("crawl-1.searchbot.example", &["192.0.2.200"])
            .ptr("192.0.2.201", &["crawl-2.searchbot.example"])
            .a("crawl-2.searchbot.example", &["192.0.2.201"]),
    );
    let registry = TempFile::new("registry.yaml", REGISTRY.as_bytes());
    let ranges_dir = registry.path.with_file_name("ranges");
    let ns = dns.addr().to_string();
    let urls = cluster.urls().join(",");
    let args = [
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--ranges-dir",
        ranges_dir.to_str().expect("UTF-8"),
        "--nameserver",
        &ns,
        "--redis",
        &urls,
        // Generous: the machine running the tests may be busy.
        "--redis-timeout",
        "2000",
    ];
    let first = Server::start(&args);
    let second = Server::start(&args);
    assert_eq!(first.metric("botwarden_shared_cache_up"), Some(1));
    assert_eq!(first.verdict("192.0.2.200"), "verified");
    let asked = dns.queries();
    assert!(asked >= 2, "{asked} queries");
    // The second service answers from Redis, without a DNS query.
    assert_eq!(second.verdict("192.0.2.200"), "verified");
    assert_eq!(dns.queries(), asked);
    assert_eq!(
        second.metric("botwarden_shared_cache_total{outcome=\"hit\"}"),
        Some(1)
    );
    // Redis dies mid-run.
    for node in cluster.nodes_mut() {
        node.kill();
    }
    // Known: from the local cache.
    assert_eq!(second.verdict("192.0.2.200"), "verified");
    assert_eq!(dns.queries(), asked);
    // New: worked out here, Redis counted down.
    assert_eq!(second.verdict("192.0.2.201"), "verified");
    assert!(dns.queries() > asked);
    assert_eq!(second.metric("botwarden_shared_cache_up"), Some(0));
    assert!(
        second
            .metric("botwarden_shared_cache_total{outcome=\"error\"}")
            .is_some_and(|n| n >= 1)
    );
}

const FEED: &str = r#"{"creationTime": "2026-11-20T10:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.0/25"}]}"#;

#[test]
fn a_feed_fetched_by_one_node_is_taken_from_redis_by_the_others() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let redis = botwarden_testdata::redis::RedisServer::start();
    let fetches = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&fetches);
    let addr = crate::robots_fetch::serve(move |path| {
        counted.fetch_add(1, Ordering::Relaxed);
        match path {
            "/feed.json" => crate::robots_fetch::reply(200, &[], FEED),
            _ => crate::robots_fetch::reply(404, &[], "not here"),
        }
    });
    let registry = format!("bots:\n  - name: A\n    ranges_url: http://{addr}/feed.json\n");
    let file = TempFile::new("feeds.yaml", registry.as_bytes());
    let update = |node: &str| {
        let dir = file.path.with_file_name(node);
        let out = crate::botwarden(
            &[
                "bots",
                "update",
                "--no-default-registry",
                "--registry",
                file.arg(),
                "--ranges-dir",
                dir.to_str().expect("UTF-8"),
                "--allow-private",
                "--redis",
                &redis.url(),
            ],
            b"",
        );
        let stdout = String::from_utf8(out.stdout).expect("UTF-8");
        assert!(out.status.success(), "{stdout}");
        (stdout, dir)
    };
    let (first, _) = update("node-1");
    assert!(first.starts_with("updated\t"), "{first}");
    assert_eq!(fetches.load(Ordering::Relaxed), 1);
    let (second, dir) = update("node-2");
    assert!(
        second.starts_with(&format!(
            "shared\thttp://{addr}/feed.json\t1 prefixes of 2026-11-20T10:00:00.000000 (fetched 20"
        )),
        "{second}"
    );
    assert_eq!(
        fetches.load(Ordering::Relaxed),
        1,
        "the second node fetched"
    );
    // The second node stored its copy as if it had fetched it.
    let stored = std::fs::read_dir(&dir)
        .expect("the ranges directory")
        .count();
    assert_eq!(stored, 1);
}

#[test]
fn exports_announced_by_the_analysis_are_written_by_every_follower() {
    let redis = botwarden_testdata::redis::RedisServer::start();
    let log = TempFile::new(
        "access.log",
        b"66.249.66.1 - - [10/Oct/2026:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \
          \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n",
    );
    let base = log.path.parent().expect("a folder").to_path_buf();
    let local = base.join("verified.txt");
    let follower = base.join("web-1");
    let follow = || {
        crate::botwarden(
            &[
                "logs",
                "exports-follow",
                "--redis",
                &redis.url(),
                "--dir",
                follower.to_str().expect("UTF-8"),
                "--once",
            ],
            b"",
        )
    };
    // Nothing announced yet.
    let out = follow();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no exports announced yet"));
    let out = crate::botwarden(
        &[
            "logs",
            "export",
            "--no-dns",
            "--redis",
            &redis.url(),
            "--export-verified",
            local.to_str().expect("UTF-8"),
            log.arg(),
        ],
        b"",
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("exports announced on redis"), "{stderr}");
    let out = follow();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{said}");
    assert!(said.contains("(1 files)"), "{said}");
    let written = std::fs::read(follower.join("verified.txt")).expect("the followed list");
    assert_eq!(written, std::fs::read(&local).expect("the local list"));
    assert!(
        String::from_utf8_lossy(&written).contains("66.249.66.1"),
        "{}",
        String::from_utf8_lossy(&written)
    );
}
