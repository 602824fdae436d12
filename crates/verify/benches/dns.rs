//! Forward-confirmed reverse DNS against the in-process loopback DNS server
//! of the tests (started here): 10,000 distinct addresses checked with an
//! empty cache (PTR, A and AAAA each, at the default 64 lookups in flight),
//! and the same addresses checked again from the cache.

#![allow(clippy::print_stderr)]

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use botwarden_verify::{DnsConfig, FcrdnsChecker, HostRule};
use criterion::{Criterion, Throughput};

use botwarden_testdata::dns::{TestDns, Zone};

const ADDRESSES: u32 = 10_000;

/// Addresses of the benchmarking range 198.18.0.0/15, each with a PTR name
/// under googlebot.com resolving back to it (A only: the AAAA lookups answer
/// NODATA, cached for the default 5 minutes, longer than the benchmark).
fn zone(ips: &[IpAddr]) -> Zone {
    ips.iter().fold(Zone::new().negative_ttl(3600), |zone, ip| {
        let name = format!("crawl-{}.googlebot.com", ip.to_string().replace('.', "-"));
        let ip = ip.to_string();
        zone.ptr(&ip, &[&name]).a(&name, &[&ip])
    })
}

/// Checks every address, all at once, and returns how many were confirmed.
async fn check_all(checker: &FcrdnsChecker, rule: &HostRule, ips: &[IpAddr]) -> usize {
    let mut tasks = tokio::task::JoinSet::new();
    for &ip in ips {
        let checker = checker.clone();
        let rule = rule.clone();
        tasks.spawn(async move { checker.check(ip, &rule).await.is_confirmed() });
    }
    let mut confirmed = 0;
    while let Some(ok) = tasks.join_next().await {
        confirmed += usize::from(ok.expect("check task"));
    }
    confirmed
}

/// Runs the group with criterion's command-line options.
fn main() {
    let ips: Vec<IpAddr> = (0..ADDRESSES)
        .map(|i| IpAddr::V4(Ipv4Addr::from(u32::from(Ipv4Addr::new(198, 18, 0, 0)) + i)))
        .collect();
    // The server runs on a thread of its own; the checks on a multi-threaded
    // runtime, as in a server.
    let (tx, rx) = std::sync::mpsc::channel();
    let zone = zone(&ips);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        rt.block_on(async {
            let dns = Arc::new(TestDns::start(zone).await);
            tx.send(Arc::clone(&dns)).expect("bench waits");
            std::future::pending::<()>().await;
        });
    });
    let dns = rx.recv().expect("server started");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let config = DnsConfig::with_nameserver(dns.addr());
    let rule = HostRule::new(["googlebot.com"], [""; 0]).expect("valid rule");

    // One cold run outside criterion, checked.
    let checker = FcrdnsChecker::new(config.clone()).expect("checker");
    let start = Instant::now();
    let confirmed = rt.block_on(check_all(&checker, &rule, &ips));
    let cold = start.elapsed();
    assert_eq!(confirmed, ips.len(), "every address is confirmed");
    eprintln!(
        "dns bench: {} addresses confirmed with an empty cache in {cold:.2?} ({} queries)",
        ips.len(),
        dns.queries()
    );

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("fcrdns");
    group.throughput(Throughput::Elements(ips.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("cold_10000_distinct_ips", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let checker = FcrdnsChecker::new(config.clone()).expect("checker");
                let start = Instant::now();
                let confirmed = rt.block_on(check_all(&checker, &rule, &ips));
                total += start.elapsed();
                assert_eq!(confirmed, ips.len());
            }
            total
        });
    });
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("cached_10000_ips", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut confirmed = 0;
                for &ip in &ips {
                    confirmed +=
                        usize::from(checker.check(black_box(ip), &rule).await.is_confirmed());
                }
                confirmed
            })
        });
    });
    group.finish();
    let stats = checker.stats();
    eprintln!("dns bench: cache counters of the cached runs: {stats:?}");
    c.final_summary();
}
