//! Real robots.txt files at scale: every file of the shared corpora
//! (`corpus/robots`, `corpus/robots-tricky`) and of Protego's 4,231-file
//! test corpus is parsed and compiled under every profile and asked a
//! handful of URLs with a handful of token chains.
//!
//! For every file: nothing panics; `RobotsTxt::parse` is lossless (the
//! lines' bytes and endings, after the BOM, give back the input) and
//! numbers lines 1, 2, 3, ...; decisions are deterministic (two
//! compilations, `Robots::check`, `Matcher::check` and `Matcher::check_path`
//! agree), a deciding rule names its own line, and a compile for one robot
//! (`RobotMatcher`, from the tree and from the bytes) gives the same
//! decisions, reasons, groups and values as the full compile.
//!
//! Time is measured and printed (the slowest file of each corpus), never
//! asserted.
//!
//! The Protego corpus is not shared: `scripts/protego-corpus` downloads it
//! into `target/protego-corpus` (or set `BOTWARDEN_PROTEGO_CORPUS`). When it
//! is absent that suite is skipped loudly, and fails under CI.

use std::path::Path;
use std::time::{Duration, Instant};

use botwarden_robots::{
    Cut, Decision, Profile, Reason, RobotMatcher, Robots, RobotsTxt, TokenChain, path_of,
};

use crate::support::{files, protego, shared};

/// URLs asked of every file, beside paths made from its own rules.
const GENERIC_URLS: &[&str] = &[
    "/",
    "/robots.txt",
    "/index.html",
    "/search?q=botwarden",
    "/admin/",
    "/wp-admin/admin-ajax.php",
    "https://example.com/a/b;c?d=e#f",
    "/%7Euser/%E3%83%84?x=%2F",
    "/ツ/",
    "http://example.com",
];

/// Rules of a file turned into URLs (at most this many rules).
const RULE_URLS: usize = 8;

/// The token chains asked of every file, besides the file's first agent.
fn chains() -> Vec<TokenChain> {
    vec![
        TokenChain::default(),
        TokenChain::parse("googlebot-image,googlebot"),
        TokenChain::parse("bingbot"),
        TokenChain::parse("YandexImages"),
        TokenChain::parse("botwarden-phone,botwarden"),
    ]
}

/// Rebuilds the body from its lines and checks numbering and spans.
fn assert_lossless(name: &str, txt: &RobotsTxt, body: &[u8]) {
    let mut rebuilt = Vec::with_capacity(body.len());
    if txt.has_bom() {
        rebuilt.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    for (i, line) in txt.lines().iter().enumerate() {
        assert_eq!(
            line.number as usize,
            i + 1,
            "{name}: line numbers are not consecutive"
        );
        assert_eq!(
            line.span.start,
            rebuilt.len(),
            "{name}: line {} does not start where line {i} ended",
            i + 1
        );
        rebuilt.extend_from_slice(txt.slice(line.span));
        rebuilt.extend_from_slice(line.ending.as_str().as_bytes());
    }
    assert!(rebuilt == body, "{name}: parsing is not lossless");
    assert_eq!(txt.bytes(), body, "{name}: bytes() is not the input");
}

/// URLs made from the file's rules: the pattern itself, and a concrete path
/// it should match (`*` filled in, `$` dropped) with and without more after.
fn rule_urls(txt: &RobotsTxt) -> Vec<String> {
    let mut urls = Vec::new();
    for (_, d) in txt.directives().filter(|(_, d)| d.name.is_rule()) {
        if urls.len() >= RULE_URLS * 3 {
            break;
        }
        let pattern = txt.text(d.value).into_owned();
        let concrete = pattern.trim_end_matches('$').replace('*', "x");
        let concrete = if concrete.starts_with('/') {
            concrete
        } else {
            format!("/{concrete}")
        };
        urls.push(format!("{concrete}more.html"));
        urls.push(concrete);
        urls.push(pattern);
    }
    urls
}

fn assert_reason(name: &str, robots: &Robots, d: Decision, url: &str) {
    match d.reason {
        Reason::Rule { index, line } => {
            assert!(
                (index as usize) < robots.rule_count(),
                "{name}: rule index {index} out of range for {url:?}"
            );
            let rule = robots.rule(index);
            assert_eq!(rule.line, line, "{name}: reason's line is not its rule's");
            assert_eq!(
                d.allowed,
                rule.allow || rule.pattern.is_empty(),
                "{name}: decision for {url:?} is not its rule's ({rule})"
            );
        }
        Reason::RobotsTxt => assert!(
            d.allowed && robots.profile().robots_txt_allowed,
            "{name}: RobotsTxt reason under {}",
            robots.profile()
        ),
        Reason::NoRuleMatched | Reason::NoGroup => assert!(d.allowed, "{name}: {d:?}"),
    }
}

/// Every check on one file; returns how long it took.
fn check_file(name: &str, body: &[u8]) -> Duration {
    let start = Instant::now();
    let txt = RobotsTxt::parse(body);
    assert_lossless(name, &txt, body);
    let mut urls: Vec<String> = GENERIC_URLS.iter().map(|u| (*u).to_owned()).collect();
    urls.extend(rule_urls(&txt));
    for profile in Profile::ALL {
        let robots = Robots::new(&txt, profile);
        let again = Robots::parse(body, profile);
        assert_eq!(robots.rule_count(), again.rule_count(), "{name} {profile}");
        assert!(robots.groups().eq(again.groups()), "{name} {profile}");
        let _ = robots.heap_size();
        let mut chains = chains();
        if let Some(agent) = robots.groups().flat_map(|g| g.agents()).next() {
            chains.push(TokenChain::new([agent.value]));
        }
        for chain in &chains {
            let matcher = robots.matcher(chain);
            let other = again.matcher(chain);
            assert_eq!(matcher.applies(), other.applies(), "{name} {profile}");
            // Compiled for this robot only, from the tree and from the bytes.
            let one = RobotMatcher::new(&txt, profile, chain);
            let streamed = RobotMatcher::parse(body, profile, chain);
            for lazy in [&one, &streamed] {
                let what = format!("{name} [{profile}] {chain}: one robot's compile");
                assert_eq!(lazy.applies(), matcher.applies(), "{what}");
                assert!(
                    lazy.group_lines().eq(matcher.groups().map(|g| g.line())),
                    "{what}: groups differ"
                );
                assert_eq!(lazy.crawl_delay(), matcher.crawl_delay(), "{what}");
                assert_eq!(lazy.request_rate(), matcher.request_rate(), "{what}");
                assert_eq!(lazy.visit_time(), matcher.visit_time(), "{what}");
                assert_eq!(lazy.cut(), robots.cut(), "{what}");
            }
            for url in &urls {
                let d = robots.check(chain, url);
                let what = format!("{name} [{profile}] {chain} {url:?}");
                assert_eq!(d, matcher.check(url), "{what}: Matcher::check differs");
                assert_eq!(
                    d,
                    matcher.check_path(path_of(url).as_bytes()),
                    "{what}: Matcher::check_path differs"
                );
                assert_eq!(d, other.check(url), "{what}: two compilations differ");
                assert_eq!(d, one.check(url), "{what}: one robot's compile differs");
                assert_eq!(
                    d,
                    streamed.check(url),
                    "{what}: one robot's compile differs"
                );
                if let Reason::Rule { index, .. } = d.reason {
                    assert_eq!(one.rule(index), Some(robots.rule(index)), "{what}");
                    assert_eq!(streamed.rule(index), Some(robots.rule(index)), "{what}");
                }
                assert_reason(&what, &robots, d, url);
            }
        }
    }
    start.elapsed()
}

/// Checks every file of `dir`; returns how many were checked.
fn check_dir(label: &str, dir: &Path) -> usize {
    let all = files(dir);
    let mut slowest = (Duration::ZERO, String::new());
    let mut total = Duration::ZERO;
    let mut bytes = 0usize;
    for path in &all {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let body = std::fs::read(path).unwrap_or_else(|e| panic!("read {name}: {e}"));
        bytes += body.len();
        let took = check_file(&format!("{label}/{name}"), &body);
        total += took;
        if took > slowest.0 {
            slowest = (took, name);
        }
    }
    eprintln!(
        "{label}: {} files ({bytes} bytes) checked under {} profiles in {total:.2?}; \
         slowest {} in {:.2?}",
        all.len(),
        Profile::ALL.len(),
        slowest.1,
        slowest.0
    );
    all.len()
}

#[test]
fn shared_corpus_files_parse_losslessly_and_decide_consistently() {
    let Some(shared) = shared("robots corpus") else {
        return;
    };
    for (folder, documented) in [("robots", 425), ("robots-tricky", 149)] {
        let dir = shared.join("corpus").join(folder);
        let held = files(&dir).len();
        let checked = check_dir(folder, &dir);
        assert_eq!(checked, held, "{folder}: not every file was checked");
        assert!(
            checked >= documented,
            "{folder}: {checked} files, the README documents {documented}"
        );
    }
}

#[test]
fn protego_corpus_files_parse_losslessly_and_decide_consistently() {
    let Some(dir) = protego("robots corpus (protego)") else {
        return;
    };
    let held = files(&dir).len();
    let checked = check_dir("protego", &dir);
    assert_eq!(checked, held, "protego: not every file was checked");
    assert!(
        checked >= 4_000,
        "protego: {checked} files, Protego 0.7.0 ships 4,231"
    );
}

#[test]
fn two_thousand_stars_against_a_six_kilobyte_url() {
    let long = "a".repeat(6_000);
    let cases = [
        // 2,000 consecutive stars, then a literal tail.
        (
            format!("/{}b$", "*".repeat(2_000)),
            format!("/{long}b"),
            true,
        ),
        (
            format!("/{}b$", "*".repeat(2_000)),
            format!("/{long}"),
            false,
        ),
        // 2,000 stars each followed by a literal.
        (
            format!("/{}$", "*a".repeat(2_000)),
            format!("/{long}"),
            true,
        ),
        (
            format!("/{}$", "*a".repeat(2_000)),
            format!("/{long}b"),
            false,
        ),
        (
            format!("/{}b", "*a".repeat(2_000)),
            format!("/{long}"),
            false,
        ),
        (
            format!("/{}", "*a".repeat(2_000)),
            format!("/{}", "a".repeat(1_999)),
            false,
        ),
    ];
    let chain = TokenChain::parse("botwarden");
    for (pattern, path, matches) in &cases {
        let body = format!("User-agent: *\nDisallow: {pattern}\n");
        let url = format!("https://example.com{path}");
        for profile in Profile::ALL {
            let start = Instant::now();
            let robots = Robots::parse(body.as_str(), profile);
            let d = robots.check(&chain, &url);
            // Without wildcards `*` is literal and the path has none.
            let want_disallowed = *matches && profile.wildcards;
            assert_eq!(
                d.allowed,
                !want_disallowed,
                "[{profile}] Disallow: {}… ({} bytes) against a path of {} bytes",
                &pattern[..12],
                pattern.len(),
                path.len()
            );
            eprintln!(
                "2,000 stars [{profile}] {} bytes of pattern, {}-byte path: {:.2?}",
                pattern.len(),
                path.len(),
                start.elapsed()
            );
        }
    }
}

/// Letters for a number, so that the token stays a product token.
fn letters(mut n: usize) -> String {
    let mut s = String::new();
    loop {
        s.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            return s;
        }
    }
}

#[test]
fn ten_megabyte_file() {
    const SIZE: usize = 10 * 1024 * 1024;
    let mut body = String::with_capacity(SIZE + 1024);
    body.push_str("# a synthetic 10 MB robots.txt\r\n");
    let mut groups = 0;
    while body.len() < SIZE {
        let t = letters(groups);
        body.push_str(&format!(
            "User-agent: bot{t}\nDisallow: /p{t}/\nAllow: /p{t}/open\nDisallow: /*.{t}$\n\n"
        ));
        groups += 1;
    }
    body.push_str("User-agent: *\nDisallow: /private\n");
    let bytes = body.as_bytes();

    let start = Instant::now();
    let txt = RobotsTxt::parse(bytes);
    assert_lossless("10 MB", &txt, bytes);
    assert_eq!(txt.lines().len(), 1 + groups * 5 + 2);
    eprintln!(
        "10 MB ({} bytes, {groups} groups, {} lines): parsed in {:.2?}",
        bytes.len(),
        txt.lines().len(),
        start.elapsed()
    );

    let star = TokenChain::parse("otherbot");
    let mid = letters(groups / 2);
    let named = TokenChain::new([format!("bot{mid}")]);
    let last = TokenChain::new([format!("bot{}", letters(groups - 1))]);
    for profile in Profile::ALL {
        let start = Instant::now();
        let robots = Robots::new(&txt, profile);
        let compiled = start.elapsed();
        let d = |chain: &TokenChain, url: &str| robots.check(chain, url).allowed;
        match profile.name {
            "rfc9309" | "bing" => {
                assert_eq!(robots.cut(), None);
                assert_eq!(robots.groups().len(), groups + 1);
                assert!(!d(&star, "/private/x"));
                assert!(d(&star, "/pa/"));
                assert!(!d(&named, &format!("/p{mid}/x")));
                assert!(d(&named, &format!("/p{mid}/open/x")));
                assert!(!d(&named, &format!("/x.{mid}")));
                assert!(d(&named, &format!("/x.{mid}?")));
                assert!(d(&named, "/private"));
                assert!(!d(&last, &format!("/p{}/", letters(groups - 1))));
            }
            "google" => {
                // Read up to 500 KiB: the `*` group at the end is beyond it.
                assert_eq!(robots.cut(), Some(Cut::Truncated { at: 500 * 1024 }));
                assert!(robots.groups().len() < groups);
                assert!(d(&star, "/private/x"));
                assert!(!d(&TokenChain::parse("bota"), "/pa/x"));
                assert!(d(&last, &format!("/p{}/", letters(groups - 1))));
            }
            "yandex" => {
                // Over 500 KiB the whole file is ignored.
                assert!(matches!(robots.cut(), Some(Cut::FileIgnored { .. })));
                assert_eq!(robots.groups().len(), 0);
                assert!(d(&star, "/private/x"));
                assert!(d(&named, &format!("/p{mid}/x")));
            }
            "strict" => {
                // Records of the 1994 standard: the first record whose
                // agent is a substring of the robot's name, here the one
                // for `bot` and the first letter of `mid`; first match;
                // `*` literal.
                assert_eq!(robots.groups().len(), groups + 1);
                assert!(!d(&star, "/private/x"));
                let first = &mid[..1];
                assert!(!d(&named, &format!("/p{first}/x")));
                assert!(!d(&named, &format!("/p{first}/open")), "first match");
                assert!(d(&named, &format!("/p{mid}/x")));
                assert!(d(&named, &format!("/x.{first}")), "`*` is literal");
            }
            other => panic!("unknown profile {other}: add its expectations"),
        }
        eprintln!(
            "10 MB [{profile}]: compiled in {compiled:.2?}, with checks {:.2?}",
            start.elapsed()
        );
    }
}
