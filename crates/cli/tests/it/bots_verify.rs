//! `botwarden bots verify` and `botwarden bots classify`, with a real DNS
//! server on loopback answering for a test zone.

use botwarden_testdata::dns::{BackgroundDns, Zone};
use serde_json::Value;

use crate::{TempFile, botwarden};

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.example]
";

fn zone() -> Zone {
    Zone::new()
        .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
        .a("crawl-1.searchbot.example", &["192.0.2.200"])
        .ptr("192.0.2.201", &["crawl-1.searchbot.example.evil.example"])
        .a("crawl-1.searchbot.example.evil.example", &["192.0.2.201"])
        .ptr("2001:db8::7", &["crawl-7.searchbot.example"])
        .aaaa("crawl-7.searchbot.example", &["2001:db8::7"])
        .servfail("192.0.2.203")
}

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = botwarden(args, stdin.as_bytes());
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn one_address_against_the_test_zone() {
    let dns = BackgroundDns::start(zone());
    let registry = TempFile::new("r.yaml", REGISTRY.as_bytes());
    let ns = dns.addr().to_string();
    let base = [
        "bots",
        "verify",
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--nameserver",
        &ns,
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        run(&args, "")
    };
    let (code, stdout, stderr) = with(&[
        "192.0.2.200",
        "--ua",
        "Mozilla/5.0 (compatible; Searchbot/2.1)",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "192.0.2.200\tverified\tSearchbot\tfcrdns: PTR crawl-1.searchbot.example confirmed\n"
    );
    let (_, stdout, _) = with(&["192.0.2.201", "--bot", "Searchbot"]);
    assert_eq!(
        stdout,
        "192.0.2.201\tspoofed\tSearchbot\tPTR crawl-1.searchbot.example.evil.example does not end with an allowed host (searchbot.example)\n"
    );
    // IPv6, given as an IPv4-mapped or plain address, and in brackets.
    let (_, stdout, _) = with(&["[2001:db8::7]", "--bot", "searchbot"]);
    assert!(
        stdout.starts_with("2001:db8::7\tverified\tSearchbot\t"),
        "{stdout}"
    );
    // An unknown bot name is a usage error.
    let (code, _, stderr) = with(&["192.0.2.200", "--bot", "Nobot"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no bot named 'Nobot'"), "{stderr}");
    let (code, _, stderr) = with(&["not-an-ip"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("'not-an-ip' is not an IP address"),
        "{stderr}"
    );
}

#[test]
fn lines_from_standard_input_in_order_as_json() {
    let dns = BackgroundDns::start(zone());
    let registry = TempFile::new("r.yaml", REGISTRY.as_bytes());
    let ns = dns.addr().to_string();
    let input = "\
192.0.2.200\tSearchbot/2.1 (+https://searchbot.example/bot)
192.0.2.201\tSearchbot/2.1 (+https://searchbot.example/bot)
192.0.2.203\tSearchbot/2.1
192.0.2.9\tMozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36
192.0.2.9\tOddCrawler/0.1 (+https://odd.example/crawler)
192.0.2.200
garbage\tSearchbot/2.1

::ffff:192.0.2.200\tSearchbot/2.1
";
    let (code, stdout, stderr) = run(
        &[
            "bots",
            "verify",
            "--no-default-registry",
            "--registry",
            registry.arg(),
            "--nameserver",
            &ns,
            "--format",
            "json",
        ],
        input,
    );
    // A line that is no address is reported, counted, and makes the exit 1.
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("stdin:7: 'garbage' is not an IP address; line skipped"),
        "{stderr}"
    );
    assert!(
        stderr.contains("9 lines: 1 not-a-bot, 1 spoofed, 1 unknown, 1 unverifiable, 3 verified, 1 skipped (not an address), 1 empty"),
        "{stderr}"
    );
    let rows: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let verdicts: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["ip"].as_str().unwrap(), r["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("192.0.2.200", "verified"),
            ("192.0.2.201", "spoofed"),
            ("192.0.2.203", "unknown"),
            ("192.0.2.9", "not-a-bot"),
            ("192.0.2.9", "unverifiable"),
            ("192.0.2.200", "verified"),
            ("192.0.2.200", "verified"),
        ]
    );
    // The documented fields, in order.
    let keys: Vec<&str> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = vec![
        "bot",
        "evidence",
        "ip",
        "method",
        "reason",
        "user_agent",
        "verdict",
    ];
    sorted.sort_unstable();
    let mut got = keys.clone();
    got.sort_unstable();
    assert_eq!(got, sorted);
    assert_eq!(rows[0]["method"], "fcrdns");
    assert_eq!(
        rows[0]["evidence"]["confirmed_name"],
        "crawl-1.searchbot.example"
    );
    assert_eq!(rows[0]["evidence"]["forward"][0], "192.0.2.200");
    assert_eq!(
        rows[2]["reason"],
        "the PTR lookup of 192.0.2.203 failed: the server answered SERVFAIL"
    );
    assert_eq!(rows[3]["bot"], Value::Null);
    assert_eq!(rows[4]["reason"], "a crawler the registry does not know");
    // An address without a User-Agent is matched by its reverse DNS.
    assert_eq!(rows[5]["user_agent"], Value::Null);
    assert_eq!(rows[5]["bot"], "Searchbot");
}

#[test]
fn the_default_registry_verifies_by_published_ranges_offline() {
    let input = "66.249.66.1\tMozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\n\
                 203.0.113.9\tMozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\n\
                 20.171.206.1\tMozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)\n\
                 203.0.113.9\tMozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)\n";
    let (code, stdout, stderr) = run(&["bots", "verify", "--no-dns"], input);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("66.249.66.1\tverified\tGooglebot\tpublished_ranges: 66.249.66.0/27 in https://developers.google.com/static/crawling/ipranges/common-crawlers.json"), "{stdout}");
    assert!(
        lines[1].starts_with("203.0.113.9\tunknown\tGooglebot\t203.0.113.9 is not in its published ranges (https://developers.google.com/static/crawling/ipranges/common-crawlers.json, 2026-09-02T14:41:06+00:00); DNS is off"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("20.171.206.1\tverified\tGPTBot\tpublished_ranges: "),
        "{stdout}"
    );
    assert!(lines[3].starts_with("203.0.113.9\tspoofed\tGPTBot\t203.0.113.9 is not in its published ranges (https://openai.com/gptbot.json"), "{stdout}");
}

#[test]
fn classify_names_the_bot_and_category() {
    let (code, stdout, _) = run(
        &[
            "bots",
            "classify",
            "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
            "python-requests/2.31.0",
        ],
        "",
    );
    assert_eq!(code, 0);
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.splitn(3, '\t').collect())
        .collect();
    assert_eq!(rows[0][..2], ["bingbot", "search"]);
    assert_eq!(rows[1][..2], ["-", "-"]);
    assert_eq!(rows[2][..2], ["-", "library"]);
    let (_, stdout, _) = run(
        &["bots", "classify", "--format", "json"],
        "Twitterbot/1.0\n",
    );
    let doc: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(doc["bot"], "Twitterbot");
    assert_eq!(doc["user_agent"], "Twitterbot/1.0");
}

#[test]
fn classify_explains_which_step_decided() {
    let (code, stdout, stderr) = run(
        &[
            "bots",
            "classify",
            "--explain",
            "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
            "Mozilla/5.0 (compatible; AcmeMonitor/1.0)",
            "Mozilla/4.0 (compatible;)",
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.splitn(4, '\t').collect())
        .collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    assert_eq!(rows[0][..2], ["bingbot", "search"]);
    assert!(rows[0][2].starts_with("uap-core: parser "), "{stdout}");
    assert_eq!(
        rows[1][..3],
        ["-", "-", "prefilter: no bot literal, and a browser's shape"]
    );
    assert_eq!(
        rows[2][..3],
        [
            "-",
            "crawler",
            "vocabulary: product token 'AcmeMonitor/1.0' holds 'monitor'; kind monitor from 'Monitor'"
        ]
    );
    assert_eq!(
        rows[3][2],
        "structure: no browser shape (Mozilla/x.y with an empty or only `compatible` comment); \
         kind unknown-bot"
    );
    assert_eq!(rows[3][3], "Mozilla/4.0 (compatible;)");

    let (_, stdout, _) = run(
        &["bots", "classify", "--format", "json", "--explain"],
        "sqlmap/1.7.2#stable (https://sqlmap.org)\n",
    );
    let doc: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(doc["bot"], Value::Null);
    assert_eq!(doc["category"], "scanner");
    assert_eq!(doc["kind"], "security");
    assert_eq!(doc["explanation"]["layer"], "vocabulary");
    assert_eq!(doc["explanation"]["kind_word"], "sqlmap");
    // Without --explain: the same fields, and no explanation.
    let (_, stdout, _) = run(&["bots", "classify", "--format", "json"], "curl/8.5.0\n");
    let doc: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(doc["kind"], "library");
    assert_eq!(doc["category"], "library");
    assert!(doc.get("explanation").is_none(), "{doc}");
}

#[test]
fn unregistered_clients_of_the_bundled_log_are_named_by_their_product() {
    let Some(shared) = botwarden_testdata::shared("bots verify names", "corpus/logs") else {
        return;
    };
    let log = shared
        .join("corpus/logs/elastic__examples__Common_Data_Formats_apache_logs_apache_logs.log");
    let text = std::fs::read_to_string(&log).expect("the bundled log");
    // `IP<TAB>User-Agent` of every request.
    let input: String = text
        .lines()
        .filter_map(|l| {
            Some(format!(
                "{}\t{}\n",
                l.split(' ').next()?,
                l.split('"').nth(5)?
            ))
        })
        .collect();
    let (code, stdout, stderr) = run(&["bots", "verify", "--no-dns"], &input);
    assert_eq!(code, 0, "{stderr}");
    let named = |needle: &str| -> &str {
        let (line, answer) = input
            .lines()
            .zip(stdout.lines())
            .find(|(line, _)| line.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in the log"));
        let fields: Vec<&str> = answer.split('\t').collect();
        assert_eq!(fields[1], "unverifiable", "{line}: {answer}");
        fields[2]
    };
    // uap-core's families for these are `crawler`, `Firefox`, `robot`,
    // `favicon` and `Chrome`.
    assert_eq!(named("UniversalFeedParser/"), "UniversalFeedParser");
    assert_eq!(named("FlipboardProxy/"), "FlipboardProxy");
    assert_eq!(named("aggregator:Spinn3r"), "Spinn3r");
    assert_eq!(named("Google favicon"), "Google favicon");
    assert_eq!(named("Google Web Preview"), "Google Web Preview");
    for answer in stdout
        .lines()
        .filter(|a| a.contains("the registry does not know"))
    {
        let name = answer.split('\t').nth(2).unwrap();
        assert!(
            ![
                "crawler", "robot", "Firefox", "Chrome", "favicon", "library"
            ]
            .contains(&name),
            "{answer}"
        );
    }
}

#[test]
fn a_list_spanning_every_address_verifies_nobody() {
    for list in [
        "cidr_list: [0.0.0.0/0]",
        "cidr_list: ['::/0']",
        "ip_ranges: [{min: 0.0.0.0, max: 255.255.255.255}]",
    ] {
        let text = format!("bots:\n  - name: WideBot\n    {list}\n");
        let registry = TempFile::new("wide.yaml", text.as_bytes());
        let (code, stdout, stderr) = run(
            &[
                "bots",
                "verify",
                "8.8.8.8",
                "--bot",
                "WideBot",
                "--no-dns",
                "--registry",
                registry.arg(),
            ],
            "",
        );
        assert_eq!(code, 2, "{list}: {stdout}");
        assert_eq!(stdout, "", "{list}");
        assert!(
            stderr.contains(&format!("{}:3:", registry.arg()))
                && stderr.contains("wider than any operator publishes for its crawlers"),
            "{list}: {stderr}"
        );
    }
}

#[test]
fn a_public_suffix_as_host_is_refused_before_dns_can_confirm_anyone() {
    // Anyone who registers attacker.co.uk can make this pair of records.
    let dns = BackgroundDns::start(
        Zone::new()
            .ptr("192.0.2.66", &["crawl.attacker.co.uk"])
            .a("crawl.attacker.co.uk", &["192.0.2.66"]),
    );
    let ns = dns.addr().to_string();
    let registry = TempFile::new(
        "psl.yaml",
        b"bots:\n  - name: Googlebot\n    category: search\n    fcrdns_hosts: [co.uk]\n",
    );
    let (code, stdout, stderr) = run(
        &[
            "bots",
            "verify",
            "192.0.2.66",
            "--bot",
            "Googlebot",
            "--nameserver",
            &ns,
            "--registry",
            registry.arg(),
        ],
        "",
    );
    assert_eq!(code, 2, "{stdout}");
    assert_eq!(stdout, "");
    assert!(
        stderr.contains(&format!(
            "{}:4:20: error: bots[0].fcrdns_hosts[0]: `co.uk` is a public suffix",
            registry.arg()
        )),
        "{stderr}"
    );
    // The same records under the operator's own domain verify.
    let own = TempFile::new(
        "own.yaml",
        b"bots:\n  - name: Mybot\n    category: search\n    fcrdns_hosts: [attacker.co.uk]\n",
    );
    let (code, stdout, stderr) = run(
        &[
            "bots",
            "verify",
            "192.0.2.66",
            "--bot",
            "Mybot",
            "--nameserver",
            &ns,
            "--registry",
            own.arg(),
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("192.0.2.66\tverified\tMybot\t"),
        "{stdout}"
    );
}

#[test]
fn a_confirming_ptr_name_far_down_the_list_is_never_called_spoofed() {
    let names: Vec<String> = (1..=40)
        .map(|i| format!("crawl-{i}.searchbot.example"))
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let dns = BackgroundDns::start(
        Zone::new()
            .ptr("192.0.2.90", &refs[..9])
            .a(&names[8], &["192.0.2.90"])
            .ptr("192.0.2.91", &refs)
            .a(&names[38], &["192.0.2.91"]),
    );
    let registry = TempFile::new("r.yaml", REGISTRY.as_bytes());
    let ns = dns.addr().to_string();
    let (code, stdout, stderr) = run(
        &[
            "bots",
            "verify",
            "--no-default-registry",
            "--registry",
            registry.arg(),
            "--nameserver",
            &ns,
            "--bot",
            "Searchbot",
        ],
        "192.0.2.90\n192.0.2.91\n",
    );
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    // The ninth name confirms the first address.
    assert_eq!(
        lines[0],
        "192.0.2.90\tverified\tSearchbot\tfcrdns: PTR crawl-9.searchbot.example confirmed"
    );
    // The second's confirming name is past the names checked: unknown.
    assert!(
        lines[1].starts_with("192.0.2.91\tunknown\tSearchbot\t40 PTR names end with an allowed host; the first 32 do not resolve back"),
        "{stdout}"
    );
}

#[test]
fn a_line_that_is_not_utf8_is_answered_on_its_own() {
    let input: &[u8] =
        b"66.249.66.1\tMozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\n\
        192.0.2.9\tOdd\xffBot/1.0 (+https://odd.example/bot)\n\
        \xfe\xfe\tx\n\
        192.0.2.10\tcurl/8.5.0\n";
    let out = botwarden(&["bots", "verify", "--no-dns"], input);
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 out");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 err");
    // The line that is no address makes the exit 1; the others are answered.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("66.249.66.1\tverified\tGooglebot\t"),
        "{stdout}"
    );
    assert_eq!(
        lines[1],
        "192.0.2.9\tunverifiable\tOdd\u{fffd}Bot\ta crawler the registry does not know"
    );
    assert_eq!(
        lines[2],
        "192.0.2.10\tunverifiable\tcurl\ta library the registry does not know"
    );
    for want in [
        "botwarden: stdin:2: not UTF-8 (bad byte at column 14); read with U+FFFD in its place",
        "botwarden: stdin:3: not UTF-8 (bad byte at column 1); read with U+FFFD in its place",
        "botwarden: stdin:3: '\u{fffd}\u{fffd}' is not an IP address; line skipped",
        "botwarden: 4 lines: 2 unverifiable, 1 verified, 1 skipped (not an address), 2 not UTF-8 (read with U+FFFD)",
    ] {
        assert!(stderr.contains(want), "{want}\n{stderr}");
    }
    // `bots classify` reads its lines the same way.
    let out = botwarden(
        &["bots", "classify"],
        b"Odd\xffBot/1.0 (+https://odd.example/bot)\ncurl/8.5.0\n",
    );
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 out");
    assert_eq!(
        stdout,
        "-\tcrawler\tOdd\u{fffd}Bot/1.0 (+https://odd.example/bot)\n-\tlibrary\tcurl/8.5.0\n"
    );
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 err");
    assert!(
        stderr.contains("stdin:1: not UTF-8 (bad byte at column 4)"),
        "{stderr}"
    );
}
