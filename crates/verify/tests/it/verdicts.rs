//! Verdicts end to end: a registry, published ranges and a real DNS server
//! on loopback (see `dns_server`). Every case asserts the exact verdict.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use botwarden_verify::{
    DnsConfig, Evidence, Feed, ManualClock, Method, Registry, RegistryBuilder, Verdict, Verifier,
    VerifierConfig,
};
use hickory_proto::rr::RecordType;

use botwarden_testdata::dns::{BlackHole, TestDns, Zone};

const FEED: &str = "https://feeds.example/searchbot.json";

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    fcrdns_hosts: [searchbot.example]
    ranges_url: https://feeds.example/searchbot.json
  - name: Pinbot
    ip_ranges: [{min: 198.51.100.1, max: 198.51.100.100}]
    fcrdns_hosts: [pinbot.example]
  - name: Anybot
    fcrdns_hosts: []
    cidr_list: ['2001:db8:a::/48', 203.0.113.0/24]
  - name: Feedbot
    ranges_url: https://feeds.example/searchbot.json
  - name: Nomethod
    category: seo
  - name: Stale
    ranges_url: https://feeds.example/never-fetched.json
";

fn ip(text: &str) -> IpAddr {
    text.parse().expect("a test address")
}

fn registry() -> Arc<Registry> {
    let mut b = RegistryBuilder::new();
    b.add_registry("test.yaml", REGISTRY);
    b.ranges_mut().insert(
        Feed::parse_google_json(
            FEED,
            br#"{"creationTime": "2026-11-01T00:00:00", "prefixes": [{"ipv4Prefix": "192.0.2.0/28"}, {"ipv6Prefix": "2001:db8:1::/64"}]}"#,
        )
        .expect("a good feed"),
    );
    let (registry, problems) = b.build();
    Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")))
}

fn zone() -> Zone {
    Zone::new()
        // A genuine crawler outside the published ranges.
        .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
        .a("crawl-1.searchbot.example", &["192.0.2.200"])
        // An impostor with a look-alike name.
        .ptr("192.0.2.201", &["crawl-1.evilsearchbot.example"])
        .a("crawl-1.evilsearchbot.example", &["192.0.2.201"])
        // A PTR whose forward lookup points elsewhere.
        .ptr("192.0.2.202", &["crawl-2.searchbot.example"])
        .a("crawl-2.searchbot.example", &["192.0.2.99"])
        // SERVFAIL on the PTR.
        .servfail("192.0.2.203")
        // Pinbot: inside its range, genuine and fake.
        .ptr("198.51.100.7", &["crawl.pinbot.example"])
        .a("crawl.pinbot.example", &["198.51.100.7"])
        .ptr("198.51.100.8", &["host.cloud.example"])
        .a("host.cloud.example", &["198.51.100.8"])
        // Anybot: any confirmed name, IPv6.
        .ptr("2001:db8:a::5", &["whatever.anybot-hosting.example"])
        .aaaa("whatever.anybot-hosting.example", &["2001:db8:a::5"])
}

async fn verifier(dns: &TestDns) -> Verifier {
    Verifier::new(
        registry(),
        VerifierConfig::with_dns(DnsConfig::with_nameserver(dns.addr())),
    )
    .expect("a verifier")
}

fn spoofed(bot: &str, reason: &str, ptr_names: &[&str]) -> Verdict {
    Verdict::Spoofed {
        bot: bot.to_owned(),
        reason: reason.to_owned(),
        evidence: Evidence {
            ptr_names: ptr_names.iter().map(|s| (*s).to_owned()).collect(),
            ..Evidence::default()
        },
    }
}

#[tokio::test]
async fn published_ranges_verify_without_dns() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    let verdict = v.verify(ip("192.0.2.7"), "Searchbot").await;
    assert_eq!(
        *verdict,
        Verdict::Verified {
            bot: "Searchbot".into(),
            methods: vec![Method::PublishedRanges],
            evidence: Evidence {
                published_prefix: Some("192.0.2.0/28".into()),
                feed: Some(FEED.into()),
                feed_version: Some("2026-11-01T00:00:00".into()),
                ..Evidence::default()
            },
        }
    );
    assert_eq!(
        verdict.to_string(),
        "verified Searchbot by published_ranges"
    );
    assert_eq!(
        dns.queries(),
        0,
        "no DNS for an address in the published ranges"
    );
    // IPv6, and the IPv4-mapped form of a listed IPv4 address.
    assert_eq!(
        v.verify(ip("2001:db8:1::9"), "Searchbot").await.kind(),
        "verified"
    );
    assert_eq!(
        v.verify(ip("::ffff:192.0.2.8"), "Searchbot").await.kind(),
        "verified"
    );
}

#[tokio::test]
async fn fcrdns_verifies_outside_the_published_ranges() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    assert_eq!(
        *v.verify(ip("192.0.2.200"), "Searchbot").await,
        Verdict::Verified {
            bot: "Searchbot".into(),
            methods: vec![Method::Fcrdns],
            evidence: Evidence {
                ptr_names: vec!["crawl-1.searchbot.example".into()],
                confirmed_name: Some("crawl-1.searchbot.example".into()),
                forward: vec![ip("192.0.2.200")],
                ..Evidence::default()
            },
        }
    );
}

#[tokio::test]
async fn impostors_are_spoofed_with_the_reason() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    let tail = "; not in its published ranges either (https://feeds.example/searchbot.json, 2026-11-01T00:00:00)";
    assert_eq!(
        *v.verify(ip("192.0.2.201"), "Searchbot").await,
        spoofed(
            "Searchbot",
            &format!(
                "PTR crawl-1.evilsearchbot.example does not end with an allowed host (searchbot.example){tail}"
            ),
            &["crawl-1.evilsearchbot.example"],
        )
    );
    assert_eq!(
        *v.verify(ip("192.0.2.202"), "Searchbot").await,
        spoofed(
            "Searchbot",
            &format!("crawl-2.searchbot.example resolves to 192.0.2.99, not to 192.0.2.202{tail}"),
            &["crawl-2.searchbot.example"],
        )
    );
    // No PTR record at all.
    assert_eq!(
        *v.verify(ip("192.0.2.250"), "Searchbot").await,
        spoofed(
            "Searchbot",
            &format!("no PTR record for 192.0.2.250 (NXDOMAIN){tail}"),
            &[]
        )
    );
}

#[tokio::test]
async fn dns_failures_are_unknown_never_spoofed() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    let verdict = v.verify(ip("192.0.2.203"), "Searchbot").await;
    assert_eq!(verdict.kind(), "unknown");
    assert_eq!(
        verdict.reason(),
        Some("the PTR lookup of 192.0.2.203 failed: the server answered SERVFAIL")
    );
    // A server that never answers.
    let hole = BlackHole::start();
    let mut config = DnsConfig::with_nameserver(hole.addr());
    config.timeout = Duration::from_millis(300);
    config.attempts = 1;
    let v = Verifier::new(registry(), VerifierConfig::with_dns(config)).unwrap();
    let verdict = v.verify(ip("192.0.2.200"), "Searchbot").await;
    assert_eq!(verdict.kind(), "unknown");
    assert!(verdict.reason().unwrap().contains("timed out"), "{verdict}");
}

#[tokio::test]
async fn every_verifier_of_an_entry_must_pass() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    // Both pass.
    let both = v.verify(ip("198.51.100.7"), "Pinbot").await;
    assert_eq!(both.method().as_deref(), Some("ip_ranges+fcrdns"));
    assert_eq!(
        both.evidence().unwrap().matched,
        ["ip_ranges 198.51.100.1-198.51.100.100"]
    );
    // In the range, but reverse DNS names another host.
    let mut expected = spoofed(
        "Pinbot",
        "PTR host.cloud.example does not end with an allowed host (pinbot.example)",
        &["host.cloud.example"],
    );
    if let Verdict::Spoofed { evidence, .. } = &mut expected {
        evidence.matched = vec!["ip_ranges 198.51.100.1-198.51.100.100".into()];
    }
    assert_eq!(*v.verify(ip("198.51.100.8"), "Pinbot").await, expected);
    // Out of the range: spoofed before any DNS is asked.
    let before = dns.queries();
    assert_eq!(
        *v.verify(ip("198.51.100.200"), "Pinbot").await,
        spoofed("Pinbot", "198.51.100.200 is not in its ip_ranges", &[])
    );
    assert_eq!(dns.queries(), before);
}

#[tokio::test]
async fn empty_fcrdns_hosts_accepts_any_confirmed_name() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    let verdict = v.verify(ip("2001:db8:a::5"), "Anybot").await;
    assert_eq!(verdict.method().as_deref(), Some("cidr_list+fcrdns"));
    assert_eq!(
        verdict.evidence().unwrap().confirmed_name.as_deref(),
        Some("whatever.anybot-hosting.example")
    );
    // In the block, no PTR: spoofed.
    assert_eq!(
        v.verify(ip("2001:db8:a::6"), "Anybot").await.kind(),
        "spoofed"
    );
}

#[tokio::test]
async fn bots_without_a_method_are_unverifiable() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    assert_eq!(
        *v.verify(ip("192.0.2.1"), "Nomethod").await,
        Verdict::Unverifiable {
            bot: "Nomethod".into(),
            reason: "the registry has no verification method for it".into()
        }
    );
    assert_eq!(
        v.verify(ip("192.0.2.1"), "Stale").await.reason(),
        Some("no copy of its published ranges; run `botwarden bots update`")
    );
    assert_eq!(
        v.verify(ip("192.0.2.1"), "Nosuchbot").await.reason(),
        Some("no bot of that name in the registry")
    );
    // Names are matched ignoring case when no name matches exactly.
    assert_eq!(
        v.verify(ip("192.0.2.1"), "searchbot").await.kind(),
        "verified"
    );
    // A bot known only by its published ranges: outside them is spoofed.
    assert_eq!(
        v.verify(ip("192.0.2.100"), "Feedbot").await.reason(),
        Some(
            "192.0.2.100 is not in its published ranges (https://feeds.example/searchbot.json, 2026-11-01T00:00:00)"
        )
    );
    assert_eq!(dns.queries(), 0);
}

#[tokio::test]
async fn without_dns_bots_that_need_it_are_unknown() {
    let v = Verifier::new(registry(), VerifierConfig::offline()).unwrap();
    assert_eq!(
        v.verify(ip("192.0.2.7"), "Searchbot").await.kind(),
        "verified"
    );
    let verdict = v.verify(ip("192.0.2.200"), "Searchbot").await;
    assert_eq!(verdict.kind(), "unknown");
    assert_eq!(
        verdict.reason(),
        Some(
            "192.0.2.200 is not in its published ranges (https://feeds.example/searchbot.json, 2026-11-01T00:00:00); DNS is off, so reverse DNS could not decide"
        )
    );
    // Address lists still decide.
    assert_eq!(
        v.verify(ip("198.51.100.200"), "Pinbot").await.kind(),
        "spoofed"
    );
}

#[tokio::test]
async fn verdicts_are_cached_and_expire() {
    let dns = TestDns::start(zone()).await;
    let clock = Arc::new(ManualClock::new());
    let mut config = VerifierConfig::with_dns(DnsConfig::with_nameserver(dns.addr()));
    config.clock = clock.clone();
    let v = Verifier::new(registry(), config).unwrap();
    let first = v.verify(ip("192.0.2.200"), "Searchbot").await;
    let asked = dns.queries_for("192.0.2.200", RecordType::PTR);
    assert_eq!(asked, 1);
    // The same address in its IPv4-mapped form is the same cache entry.
    let second = v.verify(ip("::ffff:192.0.2.200"), "Searchbot").await;
    assert!(Arc::ptr_eq(&first, &second));
    assert_eq!(
        v.cached(ip("192.0.2.200"), "Searchbot").as_deref(),
        Some(&*first)
    );
    let stats = v.stats();
    assert_eq!((stats.hits, stats.misses), (2, 1));
    // Past the verdict's time to live it is worked out again.
    clock.advance(Duration::from_secs(61));
    assert!(v.cached(ip("192.0.2.200"), "Searchbot").is_none());
    let third = v.verify(ip("192.0.2.200"), "Searchbot").await;
    assert_eq!(*third, *first);
    assert!(!Arc::ptr_eq(&first, &third));
    assert_eq!(v.stats().misses, 2);
}

#[tokio::test]
async fn an_address_alone_is_matched_to_the_bots_it_may_belong_to() {
    let dns = TestDns::start(zone()).await;
    let v = verifier(&dns).await;
    // By published ranges: both bots of the feed are candidates.
    assert_eq!(
        v.candidates(ip("192.0.2.7")).await,
        ["Searchbot", "Feedbot"]
    );
    assert_eq!(
        v.identify(ip("192.0.2.7")).await.to_string(),
        "verified Searchbot by published_ranges"
    );
    // By reverse DNS.
    assert_eq!(v.candidates(ip("192.0.2.200")).await, ["Searchbot"]);
    assert_eq!(
        v.identify(ip("192.0.2.200")).await.to_string(),
        "verified Searchbot by fcrdns"
    );
    // A look-alike name is no candidate; an address list is.
    assert_eq!(v.candidates(ip("192.0.2.201")).await, Vec::<&str>::new());
    assert_eq!(v.identify(ip("198.51.100.8")).await.kind(), "spoofed");
    // Nothing points at any bot.
    assert_eq!(*v.identify(ip("10.9.9.9")).await, Verdict::NotABot);
}

/// A request (address, User-Agent) gets one verdict however it arrives:
/// `check_request` reads the claim and verifies it, as `bots verify` and the
/// log analysis do.
#[tokio::test]
async fn a_request_is_judged_by_its_claim() {
    use botwarden_verify::{Claim, Classifier};
    let registry = registry();
    let classifier = Classifier::for_registry(&registry).expect("a classifier");
    let v = Verifier::new(registry, VerifierConfig::offline()).expect("a verifier");
    let ua = "Mozilla/5.0 (compatible; Searchbot/2.1; +https://searchbot.example/)";
    assert_eq!(
        Claim::of(&classifier, ua),
        Claim::Bot {
            name: "Searchbot".to_owned(),
            category: Some("search".to_owned()),
        }
    );
    // In the published ranges: verified, exactly as asking for the bot.
    let inside = ip("192.0.2.3");
    let verdict = v.check_request(&classifier, inside, Some(ua), None).await;
    assert_eq!(verdict.kind(), "verified");
    assert_eq!(*verdict, *v.verify(inside, "Searchbot").await);
    // A bot named by the caller stands for the User-Agent.
    let named = v
        .check_request(&classifier, inside, Some("curl/8.0"), Some("Searchbot"))
        .await;
    assert_eq!(named.kind(), "verified");
    // A crawler the registry does not know: unverifiable, by its name.
    let other = "Mozilla/5.0 (compatible; Otherbot/1.0; +https://other.example/bot)";
    let Claim::Unregistered { name, category } = Claim::of(&classifier, other) else {
        panic!("Otherbot is not in the registry");
    };
    assert_eq!((name.as_str(), category.as_str()), ("Otherbot", "crawler"));
    let verdict = v
        .check_request(&classifier, inside, Some(other), None)
        .await;
    assert_eq!(
        *verdict,
        Verdict::Unverifiable {
            bot: "Otherbot".to_owned(),
            reason: "a crawler the registry does not know".to_owned(),
        }
    );
    // A browser: not a bot.
    let browser = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    assert_eq!(Claim::of(&classifier, browser), Claim::NotABot);
    let verdict = v
        .check_request(&classifier, inside, Some(browser), None)
        .await;
    assert_eq!(*verdict, Verdict::NotABot);
}

/// Anthropic's list for its three bots and Google's common crawlers' list
/// at its new URL, as `bots update` stores them, verify the default
/// registry's bots by their addresses; before Anthropic's list is fetched,
/// its bots are unverifiable (the snapshot has no copy of it).
#[tokio::test]
async fn the_operators_feeds_verify_the_default_registrys_bots() {
    use botwarden_verify::FeedStore;

    const ANTHROPIC: &str = "https://claude.com/crawling/bots.json";
    const GOOGLE: &str =
        "https://developers.google.com/static/crawling/ipranges/common-crawlers.json";
    let verifier = |registry: Registry| {
        Verifier::new(Arc::new(registry), VerifierConfig::offline()).expect("a verifier")
    };
    let before = verifier(Registry::builtin());
    for bot in ["ClaudeBot", "Claude-User", "Claude-SearchBot"] {
        let verdict = before.verify(ip("198.51.100.9"), bot).await;
        assert_eq!(verdict.kind(), "unverifiable", "{bot}: {verdict}");
        assert_eq!(
            verdict.reason(),
            Some("no copy of its published ranges; run `botwarden bots update`")
        );
    }
    // Google's snapshot, under the new URL, already verifies Googlebot.
    let googlebot = before.verify(ip("66.249.66.1"), "Googlebot").await;
    assert_eq!(googlebot.kind(), "verified", "{googlebot}");

    let dir = std::env::temp_dir().join(format!("botwarden-operator-feeds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = FeedStore::new(&dir);
    store.create().expect("a directory");
    store
        .store(
            ANTHROPIC,
            br#"{"creationTime": "2026-08-18T00:00:00Z", "prefixes": [{"ipv4Prefix": "198.51.100.0/22"}, {"ipv6Prefix": "2001:db8:a1::/48"}]}"#,
            "2026-11-29T00:00:00Z",
        )
        .expect("Anthropic's feed");
    store
        .store(
            GOOGLE,
            br#"{"creationTime": "2026-11-28T10:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.64/27"}]}"#,
            "2026-11-29T00:00:00Z",
        )
        .expect("Google's feed");
    let mut builder = RegistryBuilder::with_defaults();
    assert!(
        store
            .read_into(builder.ranges_mut())
            .expect("read")
            .is_empty()
    );
    let (registry, problems) = builder.build();
    let after = verifier(registry.unwrap_or_else(|| panic!("{problems:?}")));
    for (address, bot) in [
        ("198.51.100.9", "ClaudeBot"),
        ("198.51.103.254", "Claude-User"),
        ("2001:db8:a1::1", "Claude-SearchBot"),
        ("192.0.2.70", "Googlebot"),
    ] {
        let verdict = after.verify(ip(address), bot).await;
        assert_eq!(verdict.kind(), "verified", "{address} {bot}: {verdict}");
    }
    // Outside Anthropic's list, its bots are spoofed: the list is their one
    // method.
    let outside = after.verify(ip("192.0.2.9"), "ClaudeBot").await;
    assert_eq!(outside.kind(), "spoofed", "{outside}");
    assert_eq!(
        outside.reason(),
        Some(
            "192.0.2.9 is not in its published ranges (https://claude.com/crawling/bots.json, 2026-08-18T00:00:00Z)"
        )
    );
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}
