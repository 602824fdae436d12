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
