//! Logs of many web servers verified centrally over NATS JetStream: a real
//! `nats-server -js` on loopback, followers reading real log files, and
//! the loopback DNS server counting the lookups.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use botwarden_logs::{
    AnalyzeOptions, Analyzer, FormatChoice, Input, Listed, LogFormat, Run, Standing, Targets,
};
use botwarden_scale::stream::{
    NatsLogs, PairPublisher, StreamConfig, VerdictView, VerifierOptions, VerifierStats, pair_key,
    run_verifier,
};
use botwarden_testdata::TempDir;
use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_testdata::nats::NatsServer;
use botwarden_verify::{Classifier, DnsConfig, RegistryBuilder, Verifier, VerifierConfig};
use hickory_proto::rr::RecordType;

/// One bot, verified by forward-confirmed reverse DNS.
const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.test]
";

const UA: &str = "Mozilla/5.0 (compatible; Searchbot/2.1; +https://searchbot.test/bot)";

/// The `i`th genuine crawler address (its PTR and A records are served).
fn genuine(i: usize) -> String {
    format!("198.18.{}.{}", i / 200, i % 200 + 1)
}

/// The `i`th impostor address (no PTR: NXDOMAIN, so spoofed).
fn impostor(i: usize) -> String {
    format!("203.0.113.{}", i + 1)
}

fn zone(genuine_count: usize) -> Zone {
    (0..genuine_count).fold(Zone::new(), |zone, i| {
        let ip = genuine(i);
        let name = format!("crawl-{}.searchbot.test", ip.replace('.', "-"));
        zone.ptr(&ip, &[&name]).a(&name, &[&ip])
    })
}

fn line(ip: &str) -> String {
    format!("{ip} - - [24/Nov/2026:02:00:00 +0000] \"GET /page HTTP/1.1\" 200 512 \"-\" \"{UA}\"\n")
}

fn verifier(dns: SocketAddr) -> Arc<Verifier> {
    let mut builder = RegistryBuilder::new();
    builder.add_registry("searchbot.yaml", REGISTRY);
    let (registry, problems) = builder.build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let mut dns = DnsConfig::with_nameserver(dns);
    dns.timeout = Duration::from_secs(5);
    Arc::new(Verifier::new(registry, VerifierConfig::with_dns(dns)).expect("a verifier"))
}

/// A follower's analyzer; its own verifier asks `dns`, which must see no
/// query when the pairs go to central verifiers.
fn analyzer(runtime: &tokio::runtime::Runtime, dns: SocketAddr) -> Analyzer {
    let verifier = verifier(dns);
    let classifier = Arc::new(Classifier::for_registry(verifier.registry()).expect("a classifier"));
    Analyzer::new(classifier, verifier, runtime.handle().clone())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn options(follow: bool, publisher: &PairPublisher) -> AnalyzeOptions {
    AnalyzeOptions {
        follow,
        poll: Duration::from_millis(20),
        format: FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset")),
        pairs: Some(Arc::new(publisher.clone())),
        ..AnalyzeOptions::default()
    }
}

/// Waits for `done`, failing after a generous while (a liveness guard,
/// not a measure).
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn write_log(dir: &Path, name: &str, ips: &[String]) -> PathBuf {
    let path = dir.join(name);
    let text: String = ips.iter().map(|ip| line(ip) + &line(ip)).collect();
    std::fs::write(&path, text).expect("write a log");
    path
}

fn standings(listed: &[Listed]) -> (usize, usize) {
    let count = |s| listed.iter().filter(|l| l.standing == s).count();
    (count(Standing::Verified), count(Standing::Spoofed))
}

#[test]
fn three_followers_one_verifier_each_pair_verified_once_and_a_restarted_follower_republishes_nothing()
 {
    let nats = NatsServer::start();
    let rt = runtime();
    let central = BackgroundDns::start(zone(20));
    let local = BackgroundDns::start(zone(20));
    let config = StreamConfig::default();
    let connect = || {
        rt.block_on(NatsLogs::connect(&nats.url(), config.clone()))
            .expect("connect")
    };

    // The central verifier.
    let logs = connect();
    let stats = Arc::new(VerifierStats::default());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let verifier_task = rt.spawn({
        let logs = logs.clone();
        let verifier = verifier(central.addr());
        let stats = stats.clone();
        async move {
            run_verifier(&logs, verifier, &VerifierOptions::default(), stats, async {
                let _ = stop_rx.await;
            })
            .await
        }
    });

    // Three servers whose logs show the same 20 crawlers and 5 impostors,
    // each in its own order, each request twice.
    let dir = TempDir::new("scale-followers");
    let mut all: Vec<String> = (0..20).map(genuine).chain((0..5).map(impostor)).collect();
    let mut followers: Vec<(PairPublisher, Run, Arc<AtomicBool>)> = Vec::new();
    for k in 0..3 {
        all.rotate_left(7);
        let log = write_log(dir.path(), &format!("access-{k}.log"), &all);
        let publisher = {
            let _entered = rt.enter();
            PairPublisher::new(connect())
        };
        let options = options(true, &publisher);
        let stop = options.stop.clone();
        let run = analyzer(&rt, local.addr()).start(vec![Input::Path(log)], options);
        followers.push((publisher, run, stop));
    }
    for (_, run, _) in &followers {
        wait_until("every follower has its 25 verdicts", || {
            run.progress().verdicts.load(Ordering::Relaxed) == 25
        });
        assert_eq!(standings(&run.listed()), (20, 5), "{:?}", run.listed());
    }

    // Each pair was verified once, centrally: one PTR query per address
    // (and one A query per genuine one), none at the followers' own DNS.
    for ip in (0..20).map(genuine).chain((0..5).map(impostor)) {
        assert_eq!(central.queries_for(&ip, RecordType::PTR), 1, "{ip}");
    }
    assert_eq!(local.queries(), 0);
    assert_eq!(stats.verified.load(Ordering::Relaxed), 25);
    assert_eq!(stats.rejected.load(Ordering::Relaxed), 0);
    let sum = |f: fn(&botwarden_scale::stream::PublisherStats) -> u64| -> u64 {
        followers.iter().map(|(p, _, _)| f(p.stats())).sum()
    };
    let published = sum(|s| s.published.load(Ordering::Relaxed));
    let duplicates = sum(|s| s.duplicates.load(Ordering::Relaxed));
    let from_bucket = sum(|s| s.answered_from_bucket.load(Ordering::Relaxed));
    // The stream kept one message per pair; the other servers' copies were
    // dropped as duplicates or not sent (answered from the bucket).
    assert_eq!(published, 25);
    assert_eq!(published + duplicates + from_bucket, 75);

    // The bucket holds the 25 verdicts; every server renders its exports
    // from it.
    let record = rt
        .block_on(logs.verdict(genuine(3).parse().expect("an address"), "Searchbot"))
        .expect("read the bucket")
        .expect("a verdict");
    assert_eq!(
        (record.verdict.as_str(), record.methods.as_slice()),
        ("verified", ["fcrdns".to_owned()].as_slice())
    );
    let view = rt.block_on(VerdictView::start(&logs));
    assert_eq!(view.len(), 25);
    assert_eq!(standings(&view.listed()), (20, 5));
    let map = dir.path().join("rewritemap.txt");
    let targets = Targets {
        apache_map: Some(map.clone()),
        ..Targets::default()
    };
    targets.write(&view.listed()).expect("write the exports");
    let text = std::fs::read_to_string(&map).expect("read the map");
    assert!(text.contains("\n198.18.0.1 Searchbot\n"), "{text}");
    assert!(text.contains("\n203.0.113.5 spoofed\n"), "{text}");
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 25);

    // The followers stop; their reports count every pair as answered.
    for (_, run, stop) in followers.drain(..) {
        stop.store(true, Ordering::Relaxed);
        let analysis = run.finish();
        let v = &analysis.report.verification;
        assert_eq!(v.pairs, 25, "{v:?}");
        assert_eq!(standings(&analysis.listed), (20, 5));
    }

    // A follower restarted on its whole log publishes nothing: every pair
    // is answered from the bucket, and DNS is not asked again.
    let publisher = {
        let _entered = rt.enter();
        PairPublisher::new(connect())
    };
    let log = dir.path().join("access-0.log");
    let analysis =
        analyzer(&rt, local.addr()).run(vec![Input::Path(log)], options(false, &publisher));
    assert_eq!(standings(&analysis.listed), (20, 5));
    let s = publisher.stats();
    assert_eq!(
        (
            s.answered_from_bucket.load(Ordering::Relaxed),
            s.published.load(Ordering::Relaxed),
            s.duplicates.load(Ordering::Relaxed)
        ),
        (25, 0, 0)
    );
    for ip in (0..20).map(genuine).chain((0..5).map(impostor)) {
        assert_eq!(central.queries_for(&ip, RecordType::PTR), 1, "{ip}");
    }
    assert_eq!(local.queries(), 0);

    let _ = stop_tx.send(());
    rt.block_on(verifier_task)
        .expect("the verifier task")
        .expect("the verifier");
    assert_eq!(rt.block_on(logs.waiting()).expect("the stream"), 0);
}

#[test]
fn a_verifier_aborted_mid_stream_loses_no_pair() {
    let nats = NatsServer::start();
    let rt = runtime();
    // Slow answers, so that the first verifier holds pairs when it dies.
    let central = BackgroundDns::start(zone(60).delay(Duration::from_millis(100)));
    let local = BackgroundDns::start(zone(60));
    let config = StreamConfig {
        ack_wait: Duration::from_secs(2),
        ..StreamConfig::default()
    };
    let connect = || {
        rt.block_on(NatsLogs::connect(&nats.url(), config.clone()))
            .expect("connect")
    };
    let held = VerifierOptions {
        in_flight: 4,
        ..VerifierOptions::default()
    };
    let start_verifier = |stats: &Arc<VerifierStats>| {
        let logs = connect();
        let verifier = verifier(central.addr());
        let stats = stats.clone();
        let held = held.clone();
        rt.spawn(async move {
            run_verifier(&logs, verifier, &held, stats, std::future::pending()).await
        })
    };

    let dir = TempDir::new("scale-abort");
    let ips: Vec<String> = (0..60).map(genuine).collect();
    let log = write_log(dir.path(), "access.log", &ips);
    let publisher = {
        let _entered = rt.enter();
        PairPublisher::new(connect())
    };
    let run = analyzer(&rt, local.addr()).start(vec![Input::Path(log)], options(false, &publisher));

    let first = Arc::new(VerifierStats::default());
    let task = start_verifier(&first);
    wait_until("the first verifier has written 8 verdicts", || {
        first.verified.load(Ordering::Relaxed) >= 8
    });
    // Dies with up to 4 pairs taken and not acknowledged.
    task.abort();
    let _ = rt.block_on(task);
    let before = first.verified.load(Ordering::Relaxed);
    assert!(
        before < 60,
        "the first verifier finished before it was stopped"
    );

    let second = Arc::new(VerifierStats::default());
    let task = start_verifier(&second);
    let analysis = run.finish();
    assert_eq!(
        standings(&analysis.listed),
        (60, 0),
        "{:?}",
        analysis.listed
    );
    let logs = connect();
    for ip in &ips {
        let verdict = rt
            .block_on(logs.verdict(ip.parse().expect("an address"), "Searchbot"))
            .expect("read the bucket");
        assert_eq!(
            verdict.map(|r| r.verdict),
            Some("verified".to_owned()),
            "{ip}: {}",
            pair_key(ip.parse().expect("an address"), "Searchbot")
        );
    }
    // Only the pairs the first verifier held can have been asked twice.
    let asked: usize = ips
        .iter()
        .map(|ip| central.queries_for(ip, RecordType::PTR))
        .sum();
    assert!((60..=64).contains(&asked), "{asked} PTR queries");
    // No verdict was written twice: a redelivered pair whose verdict the
    // first verifier wrote is acknowledged as answered.
    let written = before + second.verified.load(Ordering::Relaxed);
    assert!(written <= 60, "{written} verdicts written");
    assert!(second.received.load(Ordering::Relaxed) >= 60 - before);
    assert_eq!(local.queries(), 0);
    wait_until("the stream is empty", || {
        rt.block_on(logs.waiting()).expect("the stream") == 0
    });
    task.abort();
}

#[test]
fn nats_restarted_mid_stream_loses_no_pair() {
    let mut nats = NatsServer::start();
    let rt = runtime();
    let central = BackgroundDns::start(zone(60).delay(Duration::from_millis(50)));
    let local = BackgroundDns::start(zone(60));
    let config = StreamConfig {
        ack_wait: Duration::from_secs(2),
        ..StreamConfig::default()
    };
    let connect = || {
        rt.block_on(NatsLogs::connect(&nats.url(), config.clone()))
            .expect("connect")
    };
    let dir = TempDir::new("scale-restart");
    let ips: Vec<String> = (0..60).map(genuine).collect();
    let log = write_log(dir.path(), "access.log", &ips);
    let publisher = {
        let _entered = rt.enter();
        PairPublisher::new(connect())
    };
    let stats = Arc::new(VerifierStats::default());
    let task = {
        let logs = connect();
        let verifier = verifier(central.addr());
        let stats = stats.clone();
        let held = VerifierOptions {
            in_flight: 4,
            ..VerifierOptions::default()
        };
        rt.spawn(async move {
            run_verifier(&logs, verifier, &held, stats, std::future::pending()).await
        })
    };
    let run = analyzer(&rt, local.addr()).start(vec![Input::Path(log)], options(false, &publisher));
    wait_until("8 verdicts", || stats.verified.load(Ordering::Relaxed) >= 8);
    // The server dies and comes back on the same port and store; the
    // clients reconnect by themselves.
    nats.restart();
    let analysis = run.finish();
    assert_eq!(
        standings(&analysis.listed),
        (60, 0),
        "{:?}",
        analysis.listed
    );
    assert_eq!(local.queries(), 0);
    task.abort();
}
