//! `logs analyze --follow --nats` on a web server and `logs verifier` on
//! a central machine, as processes: a real `nats-server -js`, the loopback
//! DNS server counting lookups, and a verifier killed mid-stream.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use botwarden_testdata::TempDir;
use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_testdata::nats::NatsServer;
use hickory_proto::rr::RecordType;

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.test]
";

const PAIRS: usize = 60;

fn ip(i: usize) -> String {
    format!("198.18.0.{}", i + 1)
}

fn spawn(args: &[&str], log: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("a log file"))
        .spawn()
        .expect("start botwarden")
}

/// Sends `signal` (`INT`, `TERM`) and waits for the exit.
fn stop(child: &mut Child, signal: &str) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    child.wait().expect("wait")
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Addresses listed in an Apache RewriteMap.
fn mapped(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().filter(|l| !l.starts_with('#')).count())
        .unwrap_or(0)
}

#[test]
fn a_verifier_killed_mid_stream_loses_no_pair() {
    let nats = NatsServer::start();
    let zone = (0..PAIRS).fold(Zone::new(), |zone, i| {
        let name = format!("crawl-{i}.searchbot.test");
        zone.ptr(&ip(i), &[&name]).a(&name, &[&ip(i)])
    });
    // Slow answers, so that the verifier holds pairs when it is killed.
    let dns = BackgroundDns::start(zone.delay(Duration::from_millis(100)));
    let tmp = TempDir::new("cli-nats");
    let dir = tmp.path();
    let registry = dir.join("registry.yaml");
    std::fs::write(&registry, REGISTRY).expect("write the registry");
    let access = dir.join("access.log");
    let lines: String = (0..PAIRS)
        .map(|i| {
            format!(
                "{} - - [24/Nov/2026:02:00:00 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (compatible; Searchbot/2.1)\"\n",
                ip(i)
            )
        })
        .collect();
    std::fs::write(&access, lines).expect("write the log");
    let map = dir.join("rewritemap.txt");
    let report = dir.join("report.json");
    let (url, registry, nameserver) = (
        nats.url(),
        registry.display().to_string(),
        dns.addr().to_string(),
    );
    let verifier_args = [
        "logs",
        "verifier",
        "--nats",
        &url,
        "--registry",
        &registry,
        "--no-default-registry",
        "--nameserver",
        &nameserver,
        "--in-flight",
        "4",
        "--ack-wait",
        "2",
    ];

    let mut first = spawn(&verifier_args, &dir.join("verifier-1.log"));
    let mut follower = spawn(
        &[
            "logs",
            "analyze",
            "--follow",
            &access.display().to_string(),
            "--format",
            "combined",
            "--nats",
            &url,
            "--registry",
            &registry,
            "--no-default-registry",
            "--no-dns",
            "--export-apache-map",
            &map.display().to_string(),
            "--export-interval",
            "0.2",
            "--report",
            "json",
            "--output",
            &report.display().to_string(),
            "--no-progress",
        ],
        &dir.join("follower.log"),
    );
    wait_until("the first verdicts are exported", || mapped(&map) >= 8);
    first.kill().expect("kill the verifier"); // SIGKILL: no goodbye
    first.wait().expect("wait");
    let before = mapped(&map);
    assert!(before < PAIRS, "the verifier finished before it was killed");

    let mut second = spawn(&verifier_args, &dir.join("verifier-2.log"));
    wait_until("every pair is exported", || mapped(&map) == PAIRS);
    let text = std::fs::read_to_string(&map).expect("the map");
    for i in 0..PAIRS {
        assert!(text.contains(&format!("\n{} Searchbot\n", ip(i))), "{text}");
    }
    // Each pair asked once, but those the killed verifier held.
    let asked: usize = (0..PAIRS)
        .map(|i| dns.queries_for(&ip(i), RecordType::PTR))
        .sum();
    assert!((PAIRS..=PAIRS + 4).contains(&asked), "{asked} PTR queries");

    assert!(stop(&mut follower, "INT").success());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).expect("JSON");
    assert_eq!(report["verification"]["pairs"], PAIRS);
    assert!(stop(&mut second, "TERM").success());
    let said = std::fs::read_to_string(dir.join("verifier-2.log")).expect("its log");
    assert!(said.contains("pairs received"), "{said}");
}
