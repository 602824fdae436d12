//! `botwarden bots registry check|show` and `botwarden bots update`, the
//! latter against feeds served on 127.0.0.1.

use serde_json::Value;

use crate::robots_fetch::{reply, serve};
use crate::{TempFile, botwarden};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = botwarden(args, b"");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn check_lists_every_problem_and_exits_1() {
    let bad = TempFile::new(
        "bad.yaml",
        b"bots:\n  - name: Mybot\n    fcrdns_hosts: [mybot.example, evil]\n    ip_ranges:\n      - {min: 10.0.0.5, max: 10.0.0.1}\n",
    );
    let (code, stdout, _) = run(&["bots", "registry", "check", bad.arg()]);
    assert_eq!(code, 1);
    let file = bad.arg();
    assert_eq!(
        stdout,
        format!(
            "{file}:3:35: error: bots[0].fcrdns_hosts[1]: `evil` is a top-level domain: every host name under it would pass\n\
             {file}:5:9: error: bots[0].ip_ranges[0].min: min `10.0.0.5` is greater than max `10.0.0.1`\n\
             2 errors, 0 warnings\n"
        )
    );
    let (code, stdout, _) = run(&["bots", "registry", "check", "--format", "json", bad.arg()]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["errors"], 2);
    assert_eq!(doc["problems"][1]["path"], "bots[0].ip_ranges[0].min");
    assert_eq!(doc["problems"][1]["line"], 5);
}

#[test]
fn check_passes_the_default_registry_and_a_good_file() {
    let (code, stdout, _) = run(&["bots", "registry", "check"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains(" bots; 0 errors"), "{stdout}");
    let good = TempFile::new(
        "good.yaml",
        b"bots:\n  - name: Mybot\n    cidr_list: [192.0.2.0/24]\n",
    );
    let extras = TempFile::new(
        "extras.yaml",
        b"user_agent_parsers:\n  - regex: 'MyBot/\\d'\n    family_replacement: Mybot\n",
    );
    let (code, stdout, _) = run(&["bots", "registry", "check", good.arg(), extras.arg()]);
    assert_eq!(code, 0, "{stdout}");
    // The extras name a bot of the first file: checked across files.
    let (code, stdout, _) = run(&["bots", "registry", "check", extras.arg()]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("names the family `Mybot`, which is no bot in the registry"),
        "{stdout}"
    );
}

#[test]
fn show_writes_a_registry_that_reads_back() {
    let mine = TempFile::new(
        "mine.yaml",
        b"bots:\n  - name: Mybot\n    ip_ranges: [{min: 192.0.2.1, max: 192.0.2.9}]\n    category: monitor\n",
    );
    let (code, yaml, stderr) = run(&["bots", "registry", "show", "--registry", mine.arg()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(yaml.contains("  - name: \"Mybot\"\n    ip_ranges: [{min: \"192.0.2.1\", max: \"192.0.2.9\"}]\n    category: \"monitor\"\n"), "{yaml}");
    let shown = TempFile::new("shown.yaml", yaml.as_bytes());
    let (_, json_a, _) = run(&[
        "bots",
        "registry",
        "show",
        "--format",
        "json",
        "--registry",
        mine.arg(),
    ]);
    let (code, json_b, stderr) = run(&[
        "bots",
        "registry",
        "show",
        "--format",
        "json",
        "--no-default-registry",
        "--registry",
        shown.arg(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let a: Value = serde_json::from_str(&json_a).unwrap();
    let b: Value = serde_json::from_str(&json_b).unwrap();
    assert_eq!(a, b);
    // A registry with errors stops the command, naming the problem.
    let bad = TempFile::new("bad.yaml", b"bots:\n  - name: X\n    ip_list: [nope]\n");
    let (code, _, stderr) = run(&["bots", "registry", "show", "--registry", bad.arg()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "bad.yaml:3:15: error: bots[0].ip_list[0]: `nope` is not an IPv4 or IPv6 address"
        ),
        "{stderr}"
    );
}

const GOOD_FEED: &str = r#"{"creationTime": "2026-11-20T10:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.0/25"}, {"ipv6Prefix": "2001:db8:7::/48"}]}"#;

fn feeds(path: &str) -> String {
    match path {
        "/good.json" => reply(200, &[("Content-Type", "application/json")], GOOD_FEED),
        "/broken.json" => reply(
            200,
            &[],
            r#"{"prefixes": [{"ipv4Prefix": "192.0.2.1/24"}, {"other": 1}]}"#,
        ),
        _ => reply(404, &[], "not here"),
    }
}

#[test]
fn update_fetches_each_feed_once_and_stores_it() {
    let addr = serve(feeds);
    let registry = format!(
        "bots:\n\
         \x20 - name: A\n    ranges_url: http://{addr}/good.json\n\
         \x20 - name: B\n    ranges_url: http://{addr}/good.json\n\
         \x20 - name: C\n    ranges_url: http://{addr}/broken.json\n\
         \x20 - name: D\n    ranges_url: http://{addr}/missing.json\n"
    );
    let file = TempFile::new("feeds.yaml", registry.as_bytes());
    // A directory that does not exist yet: update creates it.
    let ranges = file
        .path
        .with_file_name("ranges")
        .to_str()
        .unwrap()
        .to_owned();
    let args = [
        "bots",
        "update",
        "--no-default-registry",
        "--registry",
        file.arg(),
        "--ranges-dir",
        &ranges,
        "--allow-private",
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert_eq!(
        lines[0],
        format!(
            "failed\thttp://{addr}/broken.json\tprefixes[0].ipv4Prefix: '192.0.2.1/24' is not a CIDR block: host bits are set in the address; prefixes[1]: neither `ipv4Prefix` nor `ipv6Prefix` (no copy)\tC"
        )
    );
    assert_eq!(
        lines[1],
        format!(
            "updated\thttp://{addr}/good.json\t2 prefixes of 2026-11-20T10:00:00.000000 (new)\tA, B"
        )
    );
    assert_eq!(
        lines[2],
        format!("failed\thttp://{addr}/missing.json\tHTTP 404 (no copy)\tD")
    );
    assert!(
        lines[3].starts_with("3 feeds, 2 failed; stored in "),
        "{stdout}"
    );
    // One file, for the feed that worked, with the feed and its fetch time.
    let stored: Vec<_> = std::fs::read_dir(&ranges)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(stored, [format!("127.0.0.1_{}_good.json", addr.port())]);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(format!("{ranges}/{}", stored[0])).unwrap()).unwrap();
    assert_eq!(doc["url"], format!("http://{addr}/good.json"));
    assert_eq!(doc["feed"]["prefixes"][1]["ipv6Prefix"], "2001:db8:7::/48");
    assert!(doc["fetched_at"].as_str().unwrap().starts_with("20"));
    // A second run reports the stored copy as the one before.
    let (_, stdout, _) = run(&args);
    assert!(stdout.contains("2 prefixes of 2026-11-20T10:00:00.000000 (was 2 prefixes of 2026-11-20T10:00:00.000000)"), "{stdout}");
    // Without --allow-private the loopback feed is refused, and nothing breaks.
    let (code, stdout, _) = run(&args[..args.len() - 1]);
    assert_eq!(code, 1);
    assert!(stdout.contains("keeping 2 prefixes"), "{stdout}");
}

/// Nine levels of ten nested aliases: under 1 KB, 10^9 nodes expanded; as
/// a registry (anchors at the top level) and as an extras file (anchors in
/// its list), with where the bound is crossed.
fn laughs() -> [(String, &'static str); 2] {
    let mut registry = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    let mut extras = String::from("user_agent_parsers:\n  - &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        registry.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        extras.push_str(&format!("  - &a{i} [{refs}]\n"));
    }
    registry.push_str("bots: *a9\n");
    // a0 to a4 hold 123,455 nodes; the second alias of a4 crosses 250,000.
    [(registry, "6:15"), (extras, "7:15")]
}

#[test]
fn nested_aliases_are_refused_at_the_alias_that_crosses_the_bound() {
    for (text, at) in laughs() {
        assert!(text.len() < 1024);
        let file = TempFile::new("laughs.yaml", text.as_bytes());
        let (code, stdout, _) = run(&["bots", "registry", "check", file.arg()]);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stdout.starts_with(&format!(
                "{}:{at}: error: the alias here expands to 111111 nodes nested 6 deep, so the \
                 document would hold more than 250000 nodes with its aliases expanded",
                file.arg()
            )),
            "{stdout}"
        );
        // The same file given to any command stops it, naming the place.
        let (code, _, stderr) = run(&[
            "bots",
            "verify",
            "--no-dns",
            "--registry",
            file.arg(),
            "192.0.2.1",
        ]);
        assert_eq!(code, 2);
        assert!(
            stderr.contains(&format!("{}:{at}: error:", file.arg())),
            "{stderr}"
        );
    }
}

/// Google's common crawlers at the URL it moved them to (an old
/// `creationTime`, in Google's form without an offset), and Anthropic's one
/// list for its three bots (Google's format).
const GOOGLE_FEED: &str = r#"{"creationTime": "2026-01-05T10:00:00.000000", "prefixes": [{"ipv6Prefix": "2001:db8:4860::/48"}, {"ipv4Prefix": "192.0.2.64/27"}]}"#;
const ANTHROPIC_FEED: &str = r#"{"creationTime": "2026-08-18T00:00:00Z", "prefixes": [{"ipv4Prefix": "198.51.100.0/22"}, {"ipv6Prefix": "2001:db8:a1::/48"}]}"#;

fn operators(path: &str) -> String {
    let json = [("Content-Type", "application/json")];
    match path {
        "/static/search/apis/ipranges/googlebot.json" => reply(
            301,
            &[("Location", "/static/crawling/ipranges/common-crawlers.json")],
            "",
        ),
        "/static/crawling/ipranges/common-crawlers.json" => reply(200, &json, GOOGLE_FEED),
        "/crawling/bots.json" => reply(200, &json, ANTHROPIC_FEED),
        "/for-now/bots.json" => reply(302, &[("Location", "/crawling/bots.json")], ""),
        _ => reply(404, &[], "not here"),
    }
}

#[test]
fn update_says_where_feeds_moved_and_which_are_stale_and_the_feeds_verify() {
    let addr = serve(operators);
    // Google's and Anthropic's bots, their feeds on 127.0.0.1: Googlebot's
    // at the URL Google moved from, refreshed daily; ClaudeBot's through a
    // temporary redirect; a feed that is gone, with an old copy kept.
    let registry = format!(
        "bots:\n\
         \x20 - name: Googlebot\n    robots_tokens: [Googlebot]\n    ranges_url: http://{addr}/static/search/apis/ipranges/googlebot.json\n    ranges_refresh: 1d\n\
         \x20 - name: ClaudeBot\n    robots_tokens: [ClaudeBot]\n    ranges_url: http://{addr}/for-now/bots.json\n\
         \x20 - name: Claude-User\n    robots_tokens: [Claude-User]\n    ranges_url: http://{addr}/crawling/bots.json\n\
         \x20 - name: Goner\n    robots_tokens: [Goner]\n    ranges_url: http://{addr}/gone.json\n"
    );
    let file = TempFile::new("operators.yaml", registry.as_bytes());
    let ranges = file.path.with_file_name("operator-ranges");
    std::fs::create_dir_all(&ranges).unwrap();
    // The copy of the gone feed, fetched long ago.
    let gone = format!("http://{addr}/gone.json");
    let stored = serde_json::json!({
        "url": gone,
        "fetched_at": "2026-01-02T03:04:05Z",
        "feed": {"prefixes": [{"ipv4Prefix": "203.0.113.0/28"}]},
    });
    std::fs::write(
        ranges.join(format!("127.0.0.1_{}_gone.json", addr.port())),
        stored.to_string(),
    )
    .unwrap();
    let ranges = ranges.to_str().unwrap().to_owned();
    let registry_args = [
        "--no-default-registry",
        "--registry",
        file.arg(),
        "--ranges-dir",
        &ranges,
    ];
    let mut args = vec!["bots", "update", "--allow-private"];
    args.extend(registry_args);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let want = [
        format!(
            "updated\thttp://{addr}/crawling/bots.json\t2 prefixes of 2026-08-18T00:00:00Z (new)\tClaude-User"
        ),
        format!(
            "updated\thttp://{addr}/for-now/bots.json\t2 prefixes of 2026-08-18T00:00:00Z (new)\tClaudeBot"
        ),
        format!(
            "failed\thttp://{addr}/gone.json\tHTTP 404 (keeping 1 prefixes of 2026-01-02T03:04:05Z)\tGoner"
        ),
    ];
    assert_eq!(lines[..3], want, "{stdout}");
    // The gone feed's copy is older than the default period.
    assert!(
        lines[3].starts_with(&format!(
            "stale\thttp://{addr}/gone.json\tthe copy kept is "
        )),
        "{stdout}"
    );
    assert!(
        lines[3].ends_with("(2026-01-02T03:04:05Z), older than the default refresh period, 7d and a day: verification uses old ranges\tGoner"),
        "{stdout}"
    );
    // Googlebot's feed moved for good: the new URL to record; and Google
    // says it made the list in January, though it refreshes it daily.
    let old = format!("http://{addr}/static/search/apis/ipranges/googlebot.json");
    assert_eq!(
        lines[4],
        format!("updated\t{old}\t2 prefixes of 2026-01-05T10:00:00.000000 (new)\tGooglebot")
    );
    assert_eq!(
        lines[5],
        format!(
            "moved\t{old}\tpermanently (301) to http://{addr}/static/crawling/ipranges/common-crawlers.json: record the new URL as the bots' ranges_url\tGooglebot"
        )
    );
    assert!(
        lines[6].starts_with(&format!("stale\t{old}\tthe feed says it was made ")),
        "{stdout}"
    );
    assert!(
        lines[6].ends_with("(2026-01-05T10:00:00.000000), longer than its refresh period, 1d and a day: has the operator stopped updating this URL?\tGooglebot"),
        "{stdout}"
    );
    assert!(
        lines[7].starts_with("4 feeds, 1 failed, 1 moved, 2 stale; stored in "),
        "{stdout}"
    );
    // The fetched feeds verify the bots' addresses, stored under the URLs
    // the registry names.
    let input = "192.0.2.70\tMozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\n\
                 2001:db8:4860::1\tMozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\n\
                 198.51.101.9\tMozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)\n\
                 2001:db8:a1::9\tMozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)\n\
                 192.0.2.9\tMozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)\n";
    let mut verify = vec!["bots", "verify", "--no-dns"];
    verify.extend(registry_args);
    let out = botwarden(&verify, input.as_bytes());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let verdicts: Vec<(&str, &str)> = stdout
        .lines()
        .map(|l| {
            let mut cols = l.split('\t');
            (cols.nth(1).unwrap(), cols.next().unwrap())
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("verified", "Googlebot"),
            ("verified", "Googlebot"),
            ("verified", "ClaudeBot"),
            ("verified", "Claude-User"),
            ("spoofed", "ClaudeBot"),
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "published_ranges: 198.51.100.0/22 in http://{addr}/for-now/bots.json (2026-08-18T00:00:00Z)"
        )),
        "{stdout}"
    );
}

#[test]
fn show_names_a_bot_in_words_with_its_sources() {
    let (code, text, stderr) = run(&["bots", "registry", "show", "claudebot", "Linguee Bot"]);
    assert_eq!(code, 0, "{stderr}");
    let want = [
        "ClaudeBot\n",
        "  category      ai-training (Cloudflare: Training)\n",
        "  operator      Anthropic\n",
        "  robots.txt    ClaudeBot\n",
        "  verification  published ranges https://claude.com/crawling/bots.json (",
        "    entry             https://support.anthropic.com/en/articles/8896518 (confirmed 2026-11-21)\n",
        "    ranges_url        research: Anthropic's crawler article",
        "    entry             ai.robots.txt@738c80df2169027ce0e07c9976fd3f2f57dd8f7b (confirmed 2026-08-22)\n",
        "\nLinguee Bot\n",
        "  robots.txt    Linguee\n",
        "  verification  none: the operator documents no method, so the bot is unverifiable\n",
    ];
    for w in want {
        assert!(text.contains(w), "{w:?} in:\n{text}");
    }
    // In the registry format, the bots alone, with their provenance.
    let (code, yaml, _) = run(&["bots", "registry", "show", "--format", "yaml", "Googlebot"]);
    assert_eq!(code, 0);
    assert!(yaml.starts_with("bots:\n  # <default registry>:"), "{yaml}");
    assert!(
        yaml.contains(" (Cloudflare: Search)\n  - name: \"Googlebot\"\n"),
        "{yaml}"
    );
    assert!(
        yaml.contains("    ranges_refresh: \"1d\"\n    renders: true\n    provenance:\n      - {of: \"entry\", source: \"https://developers.google.com/search/docs/crawling-indexing/googlebot\", confirmed: \"2026-11-21\"}\n"),
        "{yaml}"
    );
    assert_eq!(yaml.matches("  - name: ").count(), 1, "{yaml}");
    // A name that is no bot.
    let (code, text, stderr) = run(&["bots", "registry", "show", "ClaudeBot", "NoSuchBot"]);
    assert_eq!(code, 1);
    assert!(text.starts_with("ClaudeBot\n"), "{text}");
    assert!(
        stderr.contains("botwarden: no bot named `NoSuchBot` in the registry"),
        "{stderr}"
    );
}
