//! Forward-confirmed reverse DNS against a real DNS server on loopback
//! (see `dns_server`): outcomes, evidence, cache, deduplication and the
//! concurrency bound.

use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use botwarden_verify::{
    DnsConfig, DnsFailure, Error, FailReason, Fcrdns, FcrdnsChecker, ForwardAnswer, HostRule,
    ManualClock, Negative, Query, UnknownReason,
};
use hickory_proto::rr::RecordType;

use botwarden_testdata::dns::{BlackHole, TestDns, Zone};

const NO_MASKS: [&str; 0] = [];

fn ip(text: &str) -> IpAddr {
    text.parse().expect("a test address")
}

fn ips(texts: &[&str]) -> Vec<IpAddr> {
    texts.iter().map(|t| ip(t)).collect()
}

fn strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

fn googlebot() -> HostRule {
    HostRule::new(["googlebot.com", "google.com"], NO_MASKS).expect("valid rule")
}

fn checker(dns: &TestDns) -> FcrdnsChecker {
    FcrdnsChecker::new(DnsConfig::with_nameserver(dns.addr())).expect("checker")
}

/// A checker whose cache reads `clock`.
fn checker_with(dns: &TestDns, edit: impl FnOnce(&mut DnsConfig)) -> FcrdnsChecker {
    let mut config = DnsConfig::with_nameserver(dns.addr());
    edit(&mut config);
    FcrdnsChecker::new(config).expect("checker")
}

const CRAWL: &str = "crawl-66-249-66-1.googlebot.com";

fn genuine() -> Zone {
    Zone::new()
        .ptr("66.249.66.1", &[CRAWL])
        .a(CRAWL, &["66.249.66.1"])
}

fn confirmed(name: &str, ptr_names: &[&str], forward: &[&str]) -> Fcrdns {
    Fcrdns::Confirmed {
        name: name.to_owned(),
        ptr_names: strings(ptr_names),
        forward: ips(forward),
    }
}

#[tokio::test]
async fn genuine_crawler_is_confirmed() {
    let dns = TestDns::start(genuine()).await;
    let outcome = checker(&dns).check(ip("66.249.66.1"), &googlebot()).await;
    assert_eq!(outcome, confirmed(CRAWL, &[CRAWL], &["66.249.66.1"]));
    assert_eq!(
        outcome.to_string(),
        "confirmed: PTR crawl-66-249-66-1.googlebot.com resolves to 66.249.66.1"
    );
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 1);
    assert_eq!(dns.queries_for(CRAWL, RecordType::A), 1);
    assert_eq!(dns.queries_for(CRAWL, RecordType::AAAA), 1);
}

#[tokio::test]
async fn one_good_name_among_several_ptr_names() {
    let zone = Zone::new()
        .ptr(
            "66.249.66.2",
            &["host.evil.example", "Crawl-2.GoogleBot.com."],
        )
        .a("host.evil.example", &["66.249.66.2"])
        .a("crawl-2.googlebot.com", &["66.249.66.2"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.2"), &googlebot()).await;
    assert_eq!(
        outcome,
        confirmed(
            "crawl-2.googlebot.com",
            &["host.evil.example", "crawl-2.googlebot.com"],
            &["66.249.66.2"]
        )
    );
    // The name outside the allowed hosts is never resolved.
    assert_eq!(dns.queries_for("host.evil.example", RecordType::A), 0);
}

#[tokio::test]
async fn client_address_second_among_several_forward_records() {
    let name = "crawl-3.googlebot.com";
    let zone = Zone::new()
        .ptr("66.249.66.3", &[name])
        .a(name, &["66.249.66.9", "66.249.66.3", "66.249.66.10"])
        .aaaa(name, &["2001:4860:4801:10::3"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.3"), &googlebot()).await;
    assert_eq!(
        outcome,
        confirmed(
            name,
            &[name],
            &[
                "66.249.66.9",
                "66.249.66.3",
                "66.249.66.10",
                "2001:4860:4801:10::3"
            ]
        )
    );
}

#[tokio::test]
async fn allowed_host_inside_a_foreign_name_fails() {
    let evil = "crawl.googlebot.com.evil.example";
    // The attacker's zone even resolves the name back to the address.
    let zone = Zone::new()
        .ptr("203.0.113.5", &[evil])
        .a(evil, &["203.0.113.5"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("203.0.113.5"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Failed {
            reason: FailReason::NoAllowedHost {
                names: strings(&[evil]),
                allowed: strings(&["googlebot.com", "google.com"]),
            },
            ptr_names: strings(&[evil]),
        }
    );
    assert_eq!(
        outcome.to_string(),
        "failed: PTR crawl.googlebot.com.evil.example does not end with an allowed host \
         (googlebot.com, google.com)"
    );
    assert_eq!(dns.queries_for(evil, RecordType::A), 0);
}

#[tokio::test]
async fn suffix_without_label_boundary_fails() {
    let zone = Zone::new()
        .ptr("203.0.113.6", &["evilgooglebot.com", "x.notgoogle.com"])
        .a("evilgooglebot.com", &["203.0.113.6"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("203.0.113.6"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Failed {
            reason: FailReason::NoAllowedHost {
                names: strings(&["evilgooglebot.com", "x.notgoogle.com"]),
                allowed: strings(&["googlebot.com", "google.com"]),
            },
            ptr_names: strings(&["evilgooglebot.com", "x.notgoogle.com"]),
        }
    );
    assert_eq!(
        outcome.to_string(),
        "failed: PTR names evilgooglebot.com, x.notgoogle.com do not end with an allowed host \
         (googlebot.com, google.com)"
    );
}

#[tokio::test]
async fn allowed_name_without_forward_records_fails() {
    let name = "crawl-7.googlebot.com";
    let dns = TestDns::start(Zone::new().ptr("66.249.66.7", &[name])).await;
    let outcome = checker(&dns).check(ip("66.249.66.7"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Failed {
            reason: FailReason::NotConfirmed {
                ip: ip("66.249.66.7"),
                forward: vec![ForwardAnswer {
                    name: name.to_owned(),
                    addresses: vec![],
                }],
            },
            ptr_names: strings(&[name]),
        }
    );
    assert_eq!(
        outcome.to_string(),
        "failed: crawl-7.googlebot.com has no A or AAAA record"
    );
    assert_eq!(dns.queries_for(name, RecordType::A), 1);
    assert_eq!(dns.queries_for(name, RecordType::AAAA), 1);
}

#[tokio::test]
async fn allowed_name_pointing_elsewhere_fails() {
    let name = "crawl-8.googlebot.com";
    let zone = Zone::new()
        .ptr("66.249.66.8", &[name])
        .a(name, &["66.249.66.99"])
        .aaaa(name, &["2001:db8::8"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.8"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Failed {
            reason: FailReason::NotConfirmed {
                ip: ip("66.249.66.8"),
                forward: vec![ForwardAnswer {
                    name: name.to_owned(),
                    addresses: ips(&["66.249.66.99", "2001:db8::8"]),
                }],
            },
            ptr_names: strings(&[name]),
        }
    );
    assert_eq!(
        outcome.to_string(),
        "failed: crawl-8.googlebot.com resolves to 66.249.66.99, 2001:db8::8, not to 66.249.66.8"
    );
}

#[tokio::test]
async fn every_candidate_is_reported_when_none_confirms() {
    let zone = Zone::new()
        .ptr("66.249.66.11", &["a.googlebot.com", "b.google.com"])
        .a("b.google.com", &["192.0.2.1"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.11"), &googlebot()).await;
    assert_eq!(
        outcome.to_string(),
        "failed: a.googlebot.com has no A or AAAA record; \
         b.google.com resolves to 192.0.2.1, not to 66.249.66.11"
    );
}

#[tokio::test]
async fn missing_ptr_fails() {
    // NXDOMAIN for one address; for the other, the reverse name exists
    // (holding an A record) without a PTR record: NODATA.
    let zone = Zone::new().a("192.0.2.2", &["192.0.2.2"]);
    let dns = TestDns::start(zone).await;
    let checker = checker(&dns);
    let outcome = checker.check(ip("192.0.2.1"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Failed {
            reason: FailReason::NoPtr {
                ip: ip("192.0.2.1"),
                negative: Negative::NxDomain,
            },
            ptr_names: vec![],
        }
    );
    assert_eq!(
        outcome.to_string(),
        "failed: no PTR record for 192.0.2.1 (NXDOMAIN)"
    );
    assert_eq!(
        checker.check(ip("192.0.2.2"), &googlebot()).await,
        Fcrdns::Failed {
            reason: FailReason::NoPtr {
                ip: ip("192.0.2.2"),
                negative: Negative::NoData,
            },
            ptr_names: vec![],
        }
    );
}

#[tokio::test]
async fn servfail_is_unknown() {
    let zone = Zone::new()
        .servfail("66.249.66.12")
        .ptr("66.249.66.13", &["crawl-13.googlebot.com"])
        .servfail("crawl-13.googlebot.com");
    let dns = TestDns::start(zone).await;
    let checker = checker(&dns);
    let outcome = checker.check(ip("66.249.66.12"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Unknown {
            reason: UnknownReason::Lookup {
                query: Query::Ptr(ip("66.249.66.12")),
                failure: DnsFailure::ServFail,
            },
            ptr_names: vec![],
        }
    );
    assert_eq!(
        outcome.to_string(),
        "unknown: the PTR lookup of 66.249.66.12 failed: the server answered SERVFAIL"
    );
    // Each attempt is sent: the default is two.
    assert_eq!(dns.queries_for("66.249.66.12", RecordType::PTR), 2);

    // A failing forward lookup makes the outcome unknown too, with the PTR
    // evidence kept.
    assert_eq!(
        checker.check(ip("66.249.66.13"), &googlebot()).await,
        Fcrdns::Unknown {
            reason: UnknownReason::Lookup {
                query: Query::A("crawl-13.googlebot.com".to_owned()),
                failure: DnsFailure::ServFail,
            },
            ptr_names: strings(&["crawl-13.googlebot.com"]),
        }
    );
}

#[tokio::test]
async fn one_attempt_sends_one_query() {
    let dns = TestDns::start(Zone::new().servfail("66.249.66.14")).await;
    let checker = checker_with(&dns, |c| c.attempts = 1);
    let outcome = checker.check(ip("66.249.66.14"), &googlebot()).await;
    assert!(matches!(outcome, Fcrdns::Unknown { .. }), "{outcome:?}");
    assert_eq!(dns.queries_for("66.249.66.14", RecordType::PTR), 1);
}

#[tokio::test]
async fn silent_server_is_unknown_after_the_timeout() {
    let hole = BlackHole::start();
    let timeout = Duration::from_millis(300);
    let mut config = DnsConfig::with_nameserver(hole.addr());
    config.timeout = timeout;
    let checker = FcrdnsChecker::new(config).expect("checker");
    let outcome = checker.check(ip("66.249.66.15"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Unknown {
            reason: UnknownReason::Lookup {
                query: Query::Ptr(ip("66.249.66.15")),
                failure: DnsFailure::Timeout(timeout),
            },
            ptr_names: vec![],
        }
    );
    assert_eq!(
        outcome.to_string(),
        "unknown: the PTR lookup of 66.249.66.15 timed out after 300ms"
    );
}

#[tokio::test]
async fn ipv6_client() {
    let name = "crawl-v6.googlebot.com";
    let zone = Zone::new()
        .ptr("2001:4860:4801:2::1", &[name])
        .a(name, &["66.249.66.1"])
        .aaaa(name, &["2001:4860:4801:2::1"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns)
        .check(ip("2001:4860:4801:2::1"), &googlebot())
        .await;
    assert_eq!(
        outcome,
        confirmed(name, &[name], &["66.249.66.1", "2001:4860:4801:2::1"])
    );
    // The ip6.arpa name was asked.
    assert_eq!(dns.queries_for("2001:4860:4801:2::1", RecordType::PTR), 1);
}

#[tokio::test]
async fn ipv4_mapped_client_is_looked_up_as_ipv4() {
    let dns = TestDns::start(genuine()).await;
    let outcome = checker(&dns)
        .check(ip("::ffff:66.249.66.1"), &googlebot())
        .await;
    assert_eq!(outcome, confirmed(CRAWL, &[CRAWL], &["66.249.66.1"]));
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 1);
    assert_eq!(dns.queries_for("::ffff:66.249.66.1", RecordType::PTR), 0);
}

#[tokio::test]
async fn ipv4_mapped_forward_answer_confirms_ipv4_client() {
    let name = "mapped.googlebot.com";
    let zone = Zone::new()
        .ptr("198.51.100.7", &[name])
        .aaaa(name, &["::ffff:198.51.100.7"]);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("198.51.100.7"), &googlebot()).await;
    assert_eq!(outcome, confirmed(name, &[name], &["198.51.100.7"]));
}

#[tokio::test]
async fn any_host_rule_still_needs_forward_confirmation() {
    let zone = Zone::new()
        .ptr("198.51.100.1", &["bot.example.net"])
        .a("bot.example.net", &["198.51.100.1"])
        .ptr("198.51.100.2", &["spoof.example.net"])
        .a("spoof.example.net", &["198.51.100.200"]);
    let dns = TestDns::start(zone).await;
    let checker = checker(&dns);
    let any = HostRule::any_host();
    assert_eq!(
        HostRule::new(NO_MASKS, NO_MASKS).expect("empty rule"),
        any,
        "an empty suffix list is the any-host rule"
    );
    assert_eq!(
        checker.check(ip("198.51.100.1"), &any).await,
        confirmed("bot.example.net", &["bot.example.net"], &["198.51.100.1"])
    );
    assert_eq!(
        checker.check(ip("198.51.100.2"), &any).await,
        Fcrdns::Failed {
            reason: FailReason::NotConfirmed {
                ip: ip("198.51.100.2"),
                forward: vec![ForwardAnswer {
                    name: "spoof.example.net".to_owned(),
                    addresses: ips(&["198.51.100.200"]),
                }],
            },
            ptr_names: strings(&["spoof.example.net"]),
        }
    );
}

#[tokio::test]
async fn masks_restrict_the_allowed_names() {
    let good = "crawl-66-249-66-21.googlebot.com";
    let proxy = "rate-limited-proxy-66-249-66-20.googlebot.com";
    let zone = Zone::new()
        .ptr("66.249.66.20", &[proxy])
        .a(proxy, &["66.249.66.20"])
        .ptr("66.249.66.21", &[good])
        .a(good, &["66.249.66.21"])
        .ptr("66.249.66.22", &["crawl-1.sub.googlebot.com"])
        .a("crawl-1.sub.googlebot.com", &["66.249.66.22"]);
    let dns = TestDns::start(zone).await;
    let checker = checker(&dns);
    let rule = HostRule::new(["googlebot.com"], ["crawl-*.googlebot.com"]).expect("valid rule");
    let outcome = checker.check(ip("66.249.66.20"), &rule).await;
    assert_eq!(
        outcome,
        Fcrdns::Failed {
            reason: FailReason::NoMaskMatch {
                names: strings(&[proxy]),
                masks: strings(&["crawl-*.googlebot.com"]),
            },
            ptr_names: strings(&[proxy]),
        }
    );
    assert_eq!(
        outcome.to_string(),
        "failed: PTR rate-limited-proxy-66-249-66-20.googlebot.com matches no allowed pattern \
         (crawl-*.googlebot.com)"
    );
    assert_eq!(
        checker.check(ip("66.249.66.21"), &rule).await,
        confirmed(good, &[good], &["66.249.66.21"])
    );
    // `*` does not match across a dot.
    assert!(matches!(
        checker.check(ip("66.249.66.22"), &rule).await,
        Fcrdns::Failed {
            reason: FailReason::NoMaskMatch { .. },
            ..
        }
    ));
}

#[tokio::test]
async fn second_check_is_answered_from_the_cache() {
    let dns = TestDns::start(genuine()).await;
    let checker = checker(&dns);
    let first = checker.check(ip("66.249.66.1"), &googlebot()).await;
    assert_eq!(dns.queries(), 3, "PTR, A and AAAA");
    // A clone shares the cache.
    let second = checker
        .clone()
        .check(ip("::ffff:66.249.66.1"), &googlebot())
        .await;
    assert_eq!(first, second);
    assert_eq!(dns.queries(), 3, "no new query");
    let stats = checker.stats();
    assert_eq!(
        (stats.ptr.hits, stats.ptr.misses, stats.ptr.entries),
        (1, 1, 1)
    );
    assert_eq!(
        (
            stats.forward.hits,
            stats.forward.misses,
            stats.forward.entries
        ),
        (2, 2, 2)
    );
}

#[tokio::test]
async fn answers_expire_after_their_ttl() {
    // Real time: a TTL of one second.
    let dns = TestDns::start(
        Zone::new()
            .ttl(1)
            .ptr("66.249.66.1", &[CRAWL])
            .a(CRAWL, &["66.249.66.1"]),
    )
    .await;
    let checker = checker(&dns);
    let rule = googlebot();
    assert!(checker.check(ip("66.249.66.1"), &rule).await.is_confirmed());
    assert!(checker.check(ip("66.249.66.1"), &rule).await.is_confirmed());
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert!(checker.check(ip("66.249.66.1"), &rule).await.is_confirmed());
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 2);
    assert_eq!(dns.queries_for(CRAWL, RecordType::A), 2);
}

#[tokio::test]
async fn expiry_follows_the_injected_clock_and_the_ttl_cap() {
    let zone = Zone::new()
        .ttl(300)
        .ptr("66.249.66.1", &[CRAWL])
        .a(CRAWL, &["66.249.66.1"])
        .ttl(7 * 86_400)
        .ptr("66.249.66.30", &["crawl-30.googlebot.com"])
        .a("crawl-30.googlebot.com", &["66.249.66.30"]);
    let dns = TestDns::start(zone).await;
    let clock = Arc::new(ManualClock::new());
    let checker = checker_with(&dns, |c| {
        c.clock = clock.clone();
        c.max_ttl = Duration::from_secs(3600);
    });
    let rule = googlebot();
    let ptr_queries = |dns: &TestDns| {
        (
            dns.queries_for("66.249.66.1", RecordType::PTR),
            dns.queries_for("66.249.66.30", RecordType::PTR),
        )
    };
    for addr in ["66.249.66.1", "66.249.66.30"] {
        assert!(checker.check(ip(addr), &rule).await.is_confirmed());
    }
    clock.advance(Duration::from_secs(299));
    for addr in ["66.249.66.1", "66.249.66.30"] {
        assert!(checker.check(ip(addr), &rule).await.is_confirmed());
    }
    assert_eq!(ptr_queries(&dns), (1, 1));
    clock.advance(Duration::from_secs(1));
    for addr in ["66.249.66.1", "66.249.66.30"] {
        assert!(checker.check(ip(addr), &rule).await.is_confirmed());
    }
    assert_eq!(ptr_queries(&dns), (2, 1), "the 300 s answer expired");
    // The week-long TTL is capped at max_ttl (one hour).
    clock.advance(Duration::from_secs(3300));
    assert!(
        checker
            .check(ip("66.249.66.30"), &rule)
            .await
            .is_confirmed()
    );
    assert_eq!(ptr_queries(&dns), (2, 2));
}

#[tokio::test]
async fn negative_answers_are_cached_briefly() {
    let dns = TestDns::start(Zone::new().negative_ttl(60)).await;
    let clock = Arc::new(ManualClock::new());
    let checker = checker_with(&dns, |c| c.clock = clock.clone());
    let rule = googlebot();
    assert!(matches!(
        checker.check(ip("66.249.66.1"), &rule).await,
        Fcrdns::Failed { .. }
    ));
    // The operator fixes the zone; the NXDOMAIN stays cached for the SOA's
    // negative TTL (60 s, under the 300 s default cap).
    dns.set_zone(genuine());
    clock.advance(Duration::from_secs(59));
    assert!(matches!(
        checker.check(ip("66.249.66.1"), &rule).await,
        Fcrdns::Failed {
            reason: FailReason::NoPtr { .. },
            ..
        }
    ));
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 1);
    clock.advance(Duration::from_secs(1));
    assert!(checker.check(ip("66.249.66.1"), &rule).await.is_confirmed());
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 2);

    // A shorter configured negative TTL caps the SOA's.
    let dns = TestDns::start(Zone::new().negative_ttl(3600)).await;
    let checker = checker_with(&dns, |c| {
        c.clock = clock.clone();
        c.negative_ttl = Duration::from_secs(10);
    });
    checker.check(ip("192.0.2.9"), &rule).await;
    clock.advance(Duration::from_secs(9));
    checker.check(ip("192.0.2.9"), &rule).await;
    assert_eq!(dns.queries_for("192.0.2.9", RecordType::PTR), 1);
    clock.advance(Duration::from_secs(1));
    checker.check(ip("192.0.2.9"), &rule).await;
    assert_eq!(dns.queries_for("192.0.2.9", RecordType::PTR), 2);
}

#[tokio::test]
async fn failures_are_cached_for_the_unknown_ttl_only() {
    let dns = TestDns::start(Zone::new().servfail("66.249.66.1")).await;
    let clock = Arc::new(ManualClock::new());
    let checker = checker_with(&dns, |c| {
        c.clock = clock.clone();
        c.attempts = 1;
    });
    let rule = googlebot();
    assert!(matches!(
        checker.check(ip("66.249.66.1"), &rule).await,
        Fcrdns::Unknown { .. }
    ));
    dns.set_zone(genuine());
    clock.advance(Duration::from_secs(4));
    assert!(matches!(
        checker.check(ip("66.249.66.1"), &rule).await,
        Fcrdns::Unknown { .. }
    ));
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 1);
    clock.advance(Duration::from_secs(1));
    assert!(checker.check(ip("66.249.66.1"), &rule).await.is_confirmed());
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 2);

    // With a zero unknown TTL, a failure is not cached at all.
    let dns = TestDns::start(Zone::new().servfail("66.249.66.1")).await;
    let checker = checker_with(&dns, |c| {
        c.attempts = 1;
        c.unknown_ttl = Duration::ZERO;
    });
    for _ in 0..3 {
        assert!(matches!(
            checker.check(ip("66.249.66.1"), &rule).await,
            Fcrdns::Unknown { .. }
        ));
    }
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 3);
}

#[tokio::test]
async fn concurrent_checks_of_one_address_share_one_query() {
    let dns = TestDns::start(genuine().delay(Duration::from_millis(200))).await;
    let checker = checker(&dns);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let checker = checker.clone();
        tasks.spawn(async move { checker.check(ip("66.249.66.1"), &googlebot()).await });
    }
    while let Some(outcome) = tasks.join_next().await {
        assert_eq!(
            outcome.expect("task"),
            confirmed(CRAWL, &[CRAWL], &["66.249.66.1"])
        );
    }
    assert_eq!(dns.queries_for("66.249.66.1", RecordType::PTR), 1);
    assert_eq!(dns.queries_for(CRAWL, RecordType::A), 1);
    let stats = checker.stats();
    assert_eq!(
        (stats.ptr.misses, stats.ptr.joins, stats.ptr.hits),
        (1, 19, 0)
    );
}

#[tokio::test]
async fn in_flight_queries_stay_within_the_bound() {
    let mut zone = Zone::new().delay(Duration::from_millis(100));
    let addrs: Vec<String> = (1..=16).map(|i| format!("66.249.67.{i}")).collect();
    for addr in &addrs {
        let name = format!("crawl-{}.googlebot.com", addr.replace('.', "-"));
        zone = zone.ptr(addr, &[&name]).a(&name, &[addr]);
    }
    let dns = TestDns::start(zone).await;
    let checker = checker_with(&dns, |c| c.concurrency = 4);
    let mut tasks = tokio::task::JoinSet::new();
    for addr in addrs {
        let checker = checker.clone();
        tasks.spawn(async move { checker.check(ip(&addr), &googlebot()).await });
    }
    while let Some(outcome) = tasks.join_next().await {
        assert!(outcome.expect("task").is_confirmed());
    }
    assert_eq!(dns.queries(), 16 * 3);
    let most = dns.max_in_flight();
    assert!(
        (2..=4).contains(&most),
        "at most 4 queries at once, and more than one: {most}"
    );
}

#[tokio::test]
async fn large_answers_are_fetched_over_tcp() {
    let name = "crawl-big.googlebot.com";
    let many: Vec<String> = (1..=150)
        .map(|i| format!("66.249.{}.{}", 68 + i / 200, i % 200))
        .collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let client = many[120];
    let zone = Zone::new().ptr(client, &[name]).a(name, &many);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip(client), &googlebot()).await;
    assert_eq!(outcome, confirmed(name, &[name], &many));
    assert!(
        dns.tcp_queries() >= 1,
        "the truncated UDP answer was repeated over TCP"
    );
}

#[tokio::test]
async fn invalid_rules_and_settings_are_errors() {
    let err = HostRule::new(["googlebot..com"], NO_MASKS).expect_err("an empty label");
    assert!(
        matches!(
            &err,
            Error::InvalidHostName { input, reason: "empty label" } if input == "googlebot..com"
        ),
        "{err:?}"
    );
    assert_eq!(
        HostRule::new(["googlebot.com"], ["crawl-?.googlebot.com"])
            .expect_err("'?' is no mask character")
            .to_string(),
        "'crawl-?.googlebot.com' is not a valid host name mask: only ASCII letters, digits, \
         '-', '_' and '*' are allowed (use the xn-- form of international names)"
    );
    let hole = BlackHole::start();
    for edit in [
        (|c: &mut DnsConfig| c.timeout = Duration::ZERO) as fn(&mut DnsConfig),
        |c| c.attempts = 0,
        |c| c.concurrency = 0,
    ] {
        let mut config = DnsConfig::with_nameserver(hole.addr());
        edit(&mut config);
        assert!(matches!(
            FcrdnsChecker::new(config),
            Err(Error::InvalidDnsConfig { .. })
        ));
    }
}

#[tokio::test]
async fn system_configuration_is_read_when_no_server_is_given() {
    // Only builds the resolver: no query leaves the machine.
    let built = FcrdnsChecker::new(DnsConfig::default());
    if Path::new("/etc/resolv.conf").exists() {
        let checker = built.expect("resolver from /etc/resolv.conf");
        assert_eq!(checker.config().nameserver, None);
    } else {
        assert!(matches!(built, Err(Error::DnsSetup { .. })), "{built:?}");
    }
}

/// `count` PTR names under googlebot.com for `addr`, the one at `genuine`
/// (counting from 1) resolving back to it.
fn many_names(addr: &str, count: usize, genuine: usize) -> (Zone, Vec<String>) {
    let names: Vec<String> = (1..=count)
        .map(|i| format!("crawl-{i}.googlebot.com"))
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let zone = Zone::new().ptr(addr, &refs).a(&names[genuine - 1], &[addr]);
    (zone, names)
}

#[tokio::test]
async fn a_confirming_name_ninth_among_the_ptr_names_is_found() {
    let (zone, names) = many_names("66.249.66.40", 9, 9);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.40"), &googlebot()).await;
    assert!(outcome.is_confirmed(), "{outcome}");
    assert_eq!(
        outcome,
        Fcrdns::Confirmed {
            name: names[8].clone(),
            ptr_names: names.clone(),
            forward: ips(&["66.249.66.40"]),
        }
    );
    // Every name is looked up, each once.
    for name in &names {
        assert_eq!(dns.queries_for(name, RecordType::A), 1, "{name}");
    }
}

#[tokio::test]
async fn names_past_the_bound_make_the_outcome_unknown_never_failed() {
    use botwarden_verify::MAX_CANDIDATES;
    // The last of the names checked confirms.
    let (zone, _) = many_names("66.249.66.41", MAX_CANDIDATES + 8, MAX_CANDIDATES);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.41"), &googlebot()).await;
    assert!(outcome.is_confirmed(), "{outcome}");

    // The confirming name is past the bound: nothing can be concluded.
    let (zone, names) = many_names("66.249.66.42", MAX_CANDIDATES + 8, MAX_CANDIDATES + 3);
    let dns = TestDns::start(zone).await;
    let outcome = checker(&dns).check(ip("66.249.66.42"), &googlebot()).await;
    assert_eq!(
        outcome,
        Fcrdns::Unknown {
            reason: UnknownReason::Unchecked {
                checked: MAX_CANDIDATES,
                names: names[MAX_CANDIDATES..].to_vec(),
            },
            ptr_names: names.clone(),
        }
    );
    assert_eq!(
        outcome.to_string(),
        format!(
            "unknown: {} PTR names end with an allowed host; the first {MAX_CANDIDATES} do not resolve back to the address, and the other 8 (crawl-{}.googlebot.com, …) were left unchecked (at most {MAX_CANDIDATES} are checked)",
            MAX_CANDIDATES + 8,
            MAX_CANDIDATES + 1
        )
    );
    // The names past the bound are never looked up.
    assert_eq!(dns.queries_for(&names[MAX_CANDIDATES], RecordType::A), 0);
    assert_eq!(dns.queries_for(&names[0], RecordType::A), 1);
}
