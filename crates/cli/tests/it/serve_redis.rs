//! `botwarden serve --redis`: two service processes share their verdicts
//! through a 3-node Redis Cluster, and go on answering when Redis dies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_testdata::redis::RedisCluster;

use crate::TempFile;

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    fcrdns_hosts: [searchbot.example]
";

/// `botwarden serve` on a free port, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_botwarden"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start botwarden serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("serve says where it listens")
                .expect("stderr line");
            if let Some(rest) = line.strip_prefix("botwarden: listening on http://") {
                break rest.trim_end_matches('/').parse().expect("an address");
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr }
    }

    /// `GET path`: the status and body.
    fn get(&self, path: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("read");
        let text = String::from_utf8(answer).expect("UTF-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        (head[9..12].parse().expect("status"), body.to_owned())
    }

    /// The verdict's kind on `ip` claiming Searchbot.
    fn verdict(&self, ip: &str) -> String {
        let (status, body) = self.get(&format!("/api/v1/verify?ip={ip}&bot=Searchbot"));
        assert_eq!(status, 200, "{body}");
        let doc: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        doc["verdict"].as_str().unwrap_or_default().to_owned()
    }

    /// The value of one line of `/metrics`.
    fn metric(&self, name: &str) -> Option<u64> {
        let (_, body) = self.get("/metrics");
        body.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
