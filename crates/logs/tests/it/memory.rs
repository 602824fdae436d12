//! Memory per (address, claimed bot) pair: a botnet that spoofs crawlers
//! from many addresses must not exhaust memory. Counted with the
//! instrumented allocator, in a process of its own so that no other test's
//! allocations count.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use botwarden_logs::{AnalyzeOptions, Analyzer, FormatChoice, Input, LogFormat};
use botwarden_verify::{Classifier, RegistryBuilder, Verifier, VerifierConfig};

const CHILD: &str = "BOTWARDEN_MEMORY_CHILD";

/// The most a pair may hold once its verdict is known, all included: the
/// pair, its verdict, the hash tables' slack, and 16 bytes of allocator
/// overhead per allocation.
const BUDGET: f64 = 512.0;

#[test]
fn bytes_per_pair_once_verdicts_are_known() {
    if std::env::var_os(CHILD).is_some() {
        measure();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "memory::bytes_per_pair_once_verdicts_are_known",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("run the test alone");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let per_pair: f64 = stdout
        .lines()
        .find_map(|l| l.split_once("bytes per pair: ").map(|(_, v)| v))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no measure in {stdout}"));
    assert!(per_pair > 0.0, "{stdout}");
    assert!(per_pair <= BUDGET, "{stdout}");
}

/// Bytes the program holds now, and allocations alive.
fn live() -> (i64, i64) {
    let s = stats_alloc::INSTRUMENTED_SYSTEM.stats();
    (
        s.bytes_allocated as i64 - s.bytes_deallocated as i64,
        s.allocations as i64 - s.deallocations as i64,
    )
}

/// In the child: 40,000 IPv4 and 20,000 IPv6 addresses claim Googlebot
/// (inconclusive without DNS: `unknown`), 20,000 more claim AhrefsBot in
/// 2026 (outside its ranges: `spoofed`, each with its reason), one request
/// each, and 10,000 of them a second time. Read in follow mode, so that the
/// pairs stay in memory, then measured once every verdict is in.
#[allow(clippy::print_stdout)]
fn measure() {
    let dir = std::env::temp_dir().join(format!("botwarden-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("botnet.log");
    let google = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let ahrefs = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
    let mut pairs = 0u64;
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        let mut line = |ip: String, ua: &str, i: u64| {
            writeln!(
                f,
                "{ip} - - [20/Nov/2026:{:02}:{:02}:{:02} +0000] \"GET /p/{} HTTP/1.1\" 200 {} \"-\" \"{ua}\"",
                i / 3600 % 24,
                i / 60 % 60,
                i % 60,
                i % 5000,
                i % 9000
            )
            .expect("write");
        };
        for i in 0..40_000u64 {
            line(
                format!("10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255),
                google,
                i,
            );
        }
        for i in 0..20_000u64 {
            line(format!("2001:db8:{:x}::{:x}", i >> 8, i & 255), google, i);
        }
        for i in 0..20_000u64 {
            line(format!("172.16.{}.{}", i >> 8, i & 255), ahrefs, i);
        }
        pairs += 80_000;
        for i in 0..10_000u64 {
            line(
                format!("10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255),
                google,
                i,
            );
        }
        f.flush().expect("flush");
    }
    let lines = 90_000;

    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let classifier = Arc::new(Classifier::for_registry(&registry).expect("a classifier"));
    let mut config = VerifierConfig::offline();
    config.cache_capacity = 1_024;
    let verifier = Arc::new(Verifier::new(registry, config).expect("a verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let analyzer = Analyzer::new(classifier, verifier, runtime.handle().clone());
    let options = AnalyzeOptions {
        follow: true,
        poll: Duration::from_millis(5),
        threads: 1,
        format: FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset")),
        ..AnalyzeOptions::default()
    };
    let stop = options.stop.clone();
    let (before, before_allocs) = live();
    let run = analyzer.start(vec![Input::Path(path)], options);
    let progress = run.progress().clone();
    let mut peak = 0;
    loop {
        peak = peak.max(live().0 - before);
        let done = progress.lines.load(Ordering::Relaxed) >= lines
            && progress.verdicts.load(Ordering::Relaxed) >= pairs;
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // Let the reader fold the last pending pairs in (it does at every poll
    // while following), until what it holds stops changing.
    let mut last = live().0;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = live().0;
        if now == last {
            break;
        }
        last = now;
    }
    let (now, allocs) = live();
    let held = (now - before) + 16 * (allocs - before_allocs);
    let per_pair = held as f64 / pairs as f64;
    println!(
        "bytes per pair: {per_pair:.0} ({} bytes and {} allocations for {pairs} pairs; peak {} bytes while reading)",
        now - before,
        allocs - before_allocs,
        peak
    );
    stop.store(true, Ordering::Relaxed);
    let analysis = run.finish();
    let report = &analysis.report;
    assert_eq!(report.lines.parsed, lines);
    assert_eq!(report.verdicts["unknown"].ips, 60_000);
    assert_eq!(report.verdicts["spoofed"].ips, 20_000);
    assert_eq!(report.verdicts["unknown"].requests, 70_000);
    assert_eq!(report.spoofed.len(), 1_000);
    assert_eq!(report.spoofed_omitted, 19_000);
    assert!(
        report.spoofed[0].reason.starts_with(&format!(
            "{} is not in its published ranges",
            report.spoofed[0].ip
        )),
        "{:?}",
        report.spoofed[0]
    );
    drop(analysis);
    let _ = std::fs::remove_dir_all(&dir);
}
