//! Verification done elsewhere (`AnalyzeOptions::pairs`): each pair is
//! handed out once per run, the analyzer's own verifier is not asked, and
//! a stopped run does not wait for answers that do not come.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use botwarden_logs::{
    AnalyzeOptions, Analyzer, FormatChoice, Input, LogFormat, Pair, PairVerifier, Standing,
    VerdictFuture,
};
use botwarden_testdata::TempDir;
use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_verify::{Claim, Classifier, DnsConfig, RegistryBuilder, Verifier, VerifierConfig};

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.test]
";

fn zone() -> Zone {
    Zone::new()
        .ptr("192.0.2.1", &["crawl-1.searchbot.test"])
        .a("crawl-1.searchbot.test", &["192.0.2.1"])
}

fn verifier(dns: std::net::SocketAddr) -> Arc<Verifier> {
    let mut b = RegistryBuilder::new();
    b.add_registry("searchbot.yaml", REGISTRY);
    let (registry, problems) = b.build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let mut c = DnsConfig::with_nameserver(dns);
    c.timeout = Duration::from_secs(2);
    Arc::new(Verifier::new(registry, VerifierConfig::with_dns(c)).expect("a verifier"))
}

/// Answers pairs with a verifier of its own (another machine's, in
/// effect), counting what it is handed.
#[derive(Debug)]
struct Elsewhere {
    verifier: Arc<Verifier>,
    handed: Mutex<BTreeMap<(IpAddr, String), usize>>,
}

impl PairVerifier for Elsewhere {
    fn verify(&self, pair: Pair) -> VerdictFuture {
        *self
            .handed
            .lock()
            .expect("not poisoned")
            .entry((pair.ip, pair.bot.clone()))
            .or_default() += 1;
        let verifier = self.verifier.clone();
        Box::pin(async move {
            let claim = Claim::Bot {
                name: pair.bot,
                category: pair.category,
            };
            verifier.verify_claim(pair.ip, &claim, pair.as_of).await
        })
    }
}

/// Never answers, as when no central verifier runs.
#[derive(Debug)]
struct Silent;

impl PairVerifier for Silent {
    fn verify(&self, _pair: Pair) -> VerdictFuture {
        Box::pin(std::future::pending())
    }
}

fn log(dir: &std::path::Path) -> std::path::PathBuf {
    let line = |ip: &str| {
        format!(
            "{ip} - - [24/Nov/2026:02:00:00 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (compatible; Searchbot/2.1)\"\n"
        )
    };
    let path = dir.join("access.log");
    let text = [line("192.0.2.1"), line("192.0.2.2")].concat().repeat(3);
    std::fs::write(&path, text).expect("write the log");
    path
}

fn options(pairs: Arc<dyn PairVerifier>, follow: bool) -> AnalyzeOptions {
    AnalyzeOptions {
        follow,
        poll: Duration::from_millis(20),
        format: FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset")),
        pairs: Some(pairs),
        ..AnalyzeOptions::default()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn pairs_go_elsewhere_once_and_the_analyzers_verifier_is_not_asked() {
    let here = BackgroundDns::start(zone());
    let there = BackgroundDns::start(zone());
    let rt = runtime();
    let own = verifier(here.addr());
    let classifier = Arc::new(Classifier::for_registry(own.registry()).expect("a classifier"));
    let analyzer = Analyzer::new(classifier, own, rt.handle().clone());
    let elsewhere = Arc::new(Elsewhere {
        verifier: verifier(there.addr()),
        handed: Mutex::default(),
    });
    let tmp = TempDir::new("logs-pairs");
    let analysis = analyzer.run(
        vec![Input::Path(log(tmp.path()))],
        options(elsewhere.clone(), false),
    );
    let handed = elsewhere.handed.lock().expect("not poisoned").clone();
    assert_eq!(
        handed.into_iter().collect::<Vec<_>>(),
        [
            (
                ("192.0.2.1".parse().expect("ip"), "Searchbot".to_owned()),
                1
            ),
            (
                ("192.0.2.2".parse().expect("ip"), "Searchbot".to_owned()),
                1
            )
        ]
    );
    assert_eq!(here.queries(), 0);
    assert!(there.queries() > 0);
    let standings: Vec<_> = analysis
        .listed
        .iter()
        .map(|l| (l.ip.to_string(), l.standing))
        .collect();
    assert_eq!(
        standings,
        [
            ("192.0.2.1".to_owned(), Standing::Verified),
            ("192.0.2.2".to_owned(), Standing::Spoofed)
        ]
    );
}

#[test]
fn a_stopped_run_does_not_wait_for_answers_that_do_not_come() {
    let here = BackgroundDns::start(zone());
    let rt = runtime();
    let own = verifier(here.addr());
    let classifier = Arc::new(Classifier::for_registry(own.registry()).expect("a classifier"));
    let analyzer = Analyzer::new(classifier, own, rt.handle().clone());
    let tmp = TempDir::new("logs-silent");
    let options = options(Arc::new(Silent), true);
    let stop = options.stop.clone();
    let run = analyzer.start(vec![Input::Path(log(tmp.path()))], options);
    while run.progress().lines.load(Ordering::Relaxed) < 6 {
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Ordering::Relaxed);
    let analysis = run.finish();
    // Both pairs were handed out and never answered: counted, as unknown.
    assert_eq!(analysis.report.verification.pairs, 2);
    assert!(analysis.listed.is_empty(), "{:?}", analysis.listed);
    let unknown: u64 = analysis
        .report
        .bots
        .iter()
        .filter(|b| b.verdict == "unknown")
        .map(|b| b.requests)
        .sum();
    assert_eq!(unknown, 6);
    assert_eq!(here.queries(), 0);
}
