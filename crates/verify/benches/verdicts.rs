//! Verdicts: 10,000 distinct addresses verified as Googlebot against the
//! loopback DNS server of the tests (forward-confirmed reverse DNS, empty
//! caches), then the same verdicts answered from the verdict cache.

#![allow(clippy::print_stderr)]

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_verify::{DnsConfig, RegistryBuilder, Verdict, Verifier, VerifierConfig};
use criterion::{Criterion, Throughput};

const ADDRESSES: u32 = 10_000;

fn zone(ips: &[IpAddr]) -> Zone {
    ips.iter().fold(Zone::new(), |zone, ip| {
        let name = format!("crawl-{}.googlebot.com", ip.to_string().replace('.', "-"));
        let ip = ip.to_string();
        zone.ptr(&ip, &[&name]).a(&name, &[&ip])
    })
}

fn verifier(dns: &BackgroundDns) -> Arc<Verifier> {
    let mut b = RegistryBuilder::new();
    b.add_registry(
        "bench.yaml",
        "bots:\n  - name: Googlebot\n    category: search\n    fcrdns_hosts: [googlebot.com, google.com]\n",
    );
    let registry = Arc::new(b.build().0.expect("a valid registry"));
    let mut config = VerifierConfig::with_dns(DnsConfig::with_nameserver(dns.addr()));
    config.verdict_ttl = Duration::from_secs(3600);
    Arc::new(Verifier::new(registry, config).expect("a verifier"))
}

/// Verifies every address, all at once; returns how many were verified.
async fn verify_all(v: &Arc<Verifier>, ips: &[IpAddr]) -> usize {
    let mut tasks = tokio::task::JoinSet::new();
    for &ip in ips {
        let v = Arc::clone(v);
        tasks.spawn(
            async move { matches!(*v.verify(ip, "Googlebot").await, Verdict::Verified { .. }) },
        );
    }
    let mut verified = 0;
    while let Some(done) = tasks.join_next().await {
        verified += usize::from(done.expect("no panic"));
    }
    verified
}

fn main() {
    let ips: Vec<IpAddr> = (0..ADDRESSES)
        .map(|i| IpAddr::V4(Ipv4Addr::from(u32::from(Ipv4Addr::new(198, 18, 0, 0)) + i)))
        .collect();
    let dns = BackgroundDns::start(zone(&ips));
    // The client side runs on one thread, as `botwarden bots verify` does.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let v = verifier(&dns);
    let start = Instant::now();
    let verified = rt.block_on(verify_all(&v, &ips));
    let cold = start.elapsed();
    assert_eq!(verified, ips.len(), "every address is verified");
    eprintln!(
        "verdicts bench: {} distinct addresses verified by FCrDNS against the loopback server in {cold:.2?} ({} queries)",
        ips.len(),
        dns.queries()
    );

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("verdicts");
    group.throughput(Throughput::Elements(ips.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("cold_10000_distinct_ips", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let v = verifier(&dns);
                let start = Instant::now();
                assert_eq!(rt.block_on(verify_all(&v, &ips)), ips.len());
                total += start.elapsed();
            }
            total
        });
    });
    group.measurement_time(Duration::from_secs(5));
    group.sample_size(50);
    group.bench_function("cached_lookup_10000_ips", |b| {
        b.iter(|| {
            let mut hits = 0;
            for &ip in &ips {
                hits += usize::from(v.cached(black_box(ip), "Googlebot").is_some());
            }
            assert_eq!(hits, ips.len());
            hits
        });
    });
    group.bench_function("cached_verify_10000_ips", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut n = 0;
                for &ip in &ips {
                    n += usize::from(
                        v.verify(black_box(ip), "Googlebot").await.kind() == "verified",
                    );
                }
                n
            })
        });
    });
    group.finish();
    eprintln!("verdicts bench: cache counters: {:?}", v.stats());
    c.final_summary();
}
