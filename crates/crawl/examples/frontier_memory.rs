//! The memory a frontier of N URLs holds: admits N distinct URLs of a
//! realistic shape (host, two path segments, a file name, a query on one in
//! four), all queued, and prints the process's peak resident memory
//! (`VmHWM`, Linux) before and after.
//!
//! `cargo run --release -p botwarden-crawl --example frontier_memory [N]`
//! (default 1,000,000).

#![allow(clippy::print_stdout)]

use botwarden_crawl::{Frontier, FrontierConfig};
use botwarden_testdata::Xorshift;
use url::Url;

fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(1_000_000, |a| a.parse().expect("N is a number"));
    let start = Url::parse("https://www.example.com/").expect("a valid URL");
    let config = FrontierConfig {
        max_urls: n + 1,
        max_depth: u32::MAX,
        max_queries_per_path: u32::MAX,
        ..FrontierConfig::default()
    };
    let before = peak_kib();
    let mut frontier = Frontier::new(&start, config);
    let mut rng = Xorshift::new(Xorshift::SEED);
    let mut text = String::new();
    for i in 0..n {
        let x = rng.next_u64();
        text.clear();
        use std::fmt::Write;
        let _ = write!(
            text,
            "https://www.example.com/category-{}/section-{}/item-{i}-{:x}.html",
            x % 97,
            (x >> 8) % 1013,
            x >> 40
        );
        if i % 4 == 0 {
            let _ = write!(text, "?ref=list&page={}", (x >> 20) % 50);
        }
        let url = Url::parse(&text).expect("a valid URL");
        frontier.admit(&url, 1);
    }
    let after = peak_kib();
    println!(
        "{} URLs known, {} queued; peak resident memory {} MiB before, {} MiB after ({:.0} bytes per URL)",
        frontier.known(),
        frontier.waiting(),
        before.unwrap_or(0) / 1024,
        after.unwrap_or(0) / 1024,
        (after.unwrap_or(0).saturating_sub(before.unwrap_or(0)) * 1024) as f64 / n as f64
    );
}
