//! The registry format: reading bottica files as they are, the extensions,
//! every validation problem with its path and line, overriding by name,
//! and writing the registry back out.

use std::net::IpAddr;

use botwarden_verify::{
    Category, CloudflareClass, Problem, ProvenanceOf, ProvenanceSource, Registry, RegistryBuilder,
    Severity,
};

fn problems(text: &str) -> Vec<Problem> {
    let mut b = RegistryBuilder::new();
    b.add_registry("r.yaml", text);
    b.build().1
}

/// Each problem as `line path: message` for compact assertions.
fn brief(problems: &[Problem]) -> Vec<String> {
    problems
        .iter()
        .map(|p| {
            format!(
                "{} {} {}: {}",
                p.severity.as_str(),
                p.at.line,
                p.path,
                p.message
            )
        })
        .collect()
}

#[test]
fn reads_the_bottica_format_as_is() {
    // The shape of Bottica Core's own entries, including an entry with two
    // verifiers and one with `fcrdns_hosts: []`.
    let text = "\
bots:
  - name: Googlebot
    fcrdns_hosts:
      - google.com
      - googlebot.com
  - name: Pinterestbot
    ip_ranges:
      - min: 54.236.1.1
        max: 54.236.1.255
    fcrdns_hosts:
      - pinterest.com
  - name: Anybot
    fcrdns_hosts: []
    ip_list: [192.0.2.7, '2001:db8::7', '::ffff:198.51.100.1']
  - name: Cidrbot
    cidr_list: [192.0.2.0/24, '2001:db8:1::/48']
";
    let mut b = RegistryBuilder::new();
    b.add_registry("core.yaml", text);
    let (registry, problems) = b.build();
    let registry = registry.expect("no errors");
    // Only the warning that `[]` trusts any host.
    assert_eq!(
        brief(&problems),
        [
            "warning 12 bots[2].fcrdns_hosts: `fcrdns_hosts: []` accepts any forward-confirmed host name; pair it with IP lists or masks if the operator documents them"
        ]
    );
    let names: Vec<&str> = registry.bots().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Googlebot", "Pinterestbot", "Anybot", "Cidrbot"]);
    let p = registry.get("Pinterestbot").unwrap();
    assert_eq!(
        p.fcrdns_hosts.as_deref(),
        Some(&["pinterest.com".to_owned()][..])
    );
    let r = p.ip_ranges.as_ref().unwrap()[0];
    assert_eq!(
        (r.min.to_string(), r.max.to_string()),
        ("54.236.1.1".into(), "54.236.1.255".into())
    );
    let any = registry.get("Anybot").unwrap();
    assert_eq!(any.fcrdns_hosts.as_deref(), Some(&[][..]));
    // The IPv4-mapped address is stored as IPv4.
    assert_eq!(
        any.ip_list.as_ref().unwrap()[2],
        "198.51.100.1".parse::<IpAddr>().unwrap()
    );
    assert_eq!(
        registry
            .get("Cidrbot")
            .unwrap()
            .cidr_list
            .as_ref()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        registry.get("Googlebot").unwrap().origin.to_string(),
        "core.yaml:2:5"
    );
    assert!(registry.find("googlebot").is_some());
}

#[test]
fn reads_the_extensions() {
    let text = "\
bots:
  - name: Googlebot
    category: search
    operator: Google
    url: https://developers.google.com/search/docs/crawling-indexing/googlebot
    robots_tokens: [Googlebot]
    fcrdns_hosts: [googlebot.com, google.com.]
    rdns_masks: ['crawl-*.googlebot.com']
    ranges_url: https://developers.google.com/static/search/apis/ipranges/googlebot.json
    ranges_format: google-json
";
    let mut b = RegistryBuilder::new();
    b.add_registry("ext.yaml", text);
    let (registry, problems) = b.build();
    assert_eq!(brief(&problems), Vec::<String>::new());
    let g = registry.unwrap().get("Googlebot").unwrap().clone();
    assert_eq!(g.category, Some(Category::Search));
    assert_eq!(g.operator.as_deref(), Some("Google"));
    assert_eq!(g.robots_tokens, ["Googlebot"]);
    // Trailing dots are dropped; names are compared without them.
    assert_eq!(g.fcrdns_hosts.unwrap(), ["googlebot.com", "google.com"]);
    assert_eq!(g.rdns_masks, ["crawl-*.googlebot.com"]);
    assert!(g.ranges_url.unwrap().ends_with("googlebot.json"));
}

#[test]
fn reads_provenance_and_refresh_periods() {
    let text = "\
bots:
  - name: Feedbot
    category: ai-user
    robots_tokens: [Feedbot]
    ranges_url: https://feeds.example/feedbot.json
    ranges_refresh: 1d
    provenance:
      - {source: 'https://feeds.example/about', confirmed: 2026-11-29}
      - {source: 'ai.robots.txt@738c80df2169027ce0e07c9976fd3f2f57dd8f7b', as: 'Feed Bot', confirmed: 2026-08-22}
      - of: ranges_url
        source: 'research: the operator page, which links the feed'
        confirmed: 2026-11-29
";
    let mut b = RegistryBuilder::new();
    b.add_registry("p.yaml", text);
    let (registry, problems) = b.build();
    assert_eq!(brief(&problems), Vec::<String>::new());
    let registry = registry.unwrap();
    let bot = registry.get("Feedbot").unwrap();
    assert_eq!(bot.ranges_refresh.map(|p| p.hours()), Some(24));
    assert_eq!(bot.provenance.len(), 3);
    assert_eq!(bot.provenance[0].of, ProvenanceOf::Entry);
    assert_eq!(
        bot.provenance[1].source,
        ProvenanceSource::AiRobotsTxt {
            commit: "738c80df2169027ce0e07c9976fd3f2f57dd8f7b".into()
        }
    );
    assert_eq!(bot.provenance[1].listed_as.as_deref(), Some("Feed Bot"));
    assert_eq!(bot.provenance[2].of, ProvenanceOf::RangesUrl);
    assert_eq!(bot.provenance[2].confirmed.to_string(), "2026-11-29");
    assert_eq!(bot.methods(), [ProvenanceOf::RangesUrl]);
    assert_eq!(
        bot.category.and_then(Category::cloudflare_class),
        Some(CloudflareClass::Agent)
    );
    // Written out and read back, the same.
    let yaml = registry.to_yaml();
    assert!(
        yaml.contains("    ranges_refresh: \"1d\"\n    provenance:\n      - {of: \"entry\", source: \"https://feeds.example/about\", confirmed: \"2026-11-29\"}\n"),
        "{yaml}"
    );
    assert!(
        yaml.contains("  # p.yaml:2:5 (Cloudflare: Agent)\n"),
        "{yaml}"
    );
    let mut again = RegistryBuilder::new();
    again.add_registry("again.yaml", &yaml);
    let (again, problems) = again.build();
    assert_eq!(brief(&problems), Vec::<String>::new());
    assert_eq!(again.unwrap().to_json(), registry.to_json());
}

#[test]
fn bad_provenance_and_refresh_periods_are_named_by_line() {
    let text = "\
bots:
  - name: A
    ranges_refresh: 7days
    provenance:
      - {source: 'example.com', confirmed: 2026-11-29}
      - {source: 'https://a.example/', confirmed: 2026-02-30}
      - {source: 'https://a.example/'}
      - {of: fcrdns_hosts, source: 'https://a.example/', confirmed: 2026-11-29}
      - {of: ranges, source: 'ai.robots.txt@nothex', confirmed: 29.11.2026, note: me}
      - 'https://a.example/'
  - name: B
    ranges_refresh: 1d
";
    let got = brief(&problems(text));
    let want = [
        "error 3 bots[0].ranges_refresh: `ranges_refresh` without `ranges_url`: it is the refresh period of the bot's feed",
        "error 3 bots[0].ranges_refresh: `7days` is not a refresh period: a number and `h`, `d` or `w` (`12h`, `7d`, `2w`)",
        "error 5 bots[0].provenance[0].source: `example.com` is not a source: write an http(s) URL, `ai.robots.txt@<commit>` or `research: <what was read>`",
        "error 6 bots[0].provenance[1].confirmed: `2026-02-30` is not a day of the calendar",
        "error 7 bots[0].provenance[2]: a provenance record needs the day it was `confirmed` (YYYY-MM-DD)",
        "error 8 bots[0].provenance[3].of: a record of `fcrdns_hosts`, which this bot does not have",
        "error 9 bots[0].provenance[4].of: `ranges` is not what a record can be of; one of: entry, fcrdns_hosts, rdns_masks, ip_list, ip_ranges, cidr_list, ranges_url, signature_agents, signature_keys, renders",
        "error 9 bots[0].provenance[4].source: `ai.robots.txt@nothex`: the ai.robots.txt commit is 7 to 40 hexadecimal digits",
        "error 9 bots[0].provenance[4].confirmed: `29.11.2026` is not a date written YYYY-MM-DD",
        "error 9 bots[0].provenance[4].note: unknown key `note`",
        "error 10 bots[0].provenance[5]: expected a record `{source: …, confirmed: YYYY-MM-DD}`, found a scalar",
        "error 12 bots[1].ranges_refresh: `ranges_refresh` without `ranges_url`: it is the refresh period of the bot's feed",
    ];
    assert_eq!(got, want);
}

#[test]
fn every_category_has_its_cloudflare_class() {
    let classes: Vec<(&str, Option<&str>)> = Category::ALL
        .iter()
        .map(|c| (c.as_str(), c.cloudflare_class().map(|k| k.as_str())))
        .collect();
    assert_eq!(
        classes,
        [
            ("search", Some("Search")),
            ("ai-training", Some("Training")),
            ("ai-search", Some("Search")),
            ("ai-user", Some("Agent")),
            ("seo", None),
            ("social", None),
            ("preview", None),
            ("monitor", None),
            ("feed", None),
            ("archive", None),
            ("advertising", None),
            ("academic", None),
            ("tool", None),
            ("library", None),
            ("other", None),
        ]
    );
}

#[test]
fn every_problem_is_reported_with_its_path_and_line() {
    let text = "\
bots:
  - name: Goodbot
    fcrdns_host: [example.com]
  - name: Badips
    ip_list: [1.2.3, 10.0.0.0/8]
    ip_ranges:
      - min: 10.0.0.9
        max: 10.0.0.1
      - min: 10.0.0.1
        max: '2001:db8::1'
      - min: 10.0.0.1
    cidr_list: [10.0.0.1/8, 10.0.0.0/33]
  - name: Goodbot
    category: search-engine
  - name: Trusting
    category: search
    fcrdns_hosts: [compute.amazonaws.com, .example.com, com, 'https://x.example/']
  - name: Masked
    rdns_masks: ['crawl-*.example.com']
  - name: Otherhost
    fcrdns_hosts: [example.org]
    rdns_masks: ['crawl-*.example.com']
    ranges_format: google-json
    url: ftp://example.org/
    robots_tokens: ['two words', MJ12bot, '']
  - just a string
  - category: search
  - name: Dupkey
    operator: A
    operator: B
  - name: Empty
    cidr_list: []
extra: 1
";
    let got = brief(&problems(text));
    let want = [
        "error 3 bots[0].fcrdns_host: unknown key `fcrdns_host`; did you mean `fcrdns_hosts`?",
        "error 5 bots[1].ip_list[0]: `1.2.3` is not an IPv4 or IPv6 address",
        "error 5 bots[1].ip_list[1]: `10.0.0.0/8` is not an IPv4 or IPv6 address; CIDR blocks go in `cidr_list`",
        "error 7 bots[1].ip_ranges[0].min: min `10.0.0.9` is greater than max `10.0.0.1`",
        "error 10 bots[1].ip_ranges[1].max: `10.0.0.1` and `2001:db8::1` are of different families",
        "error 11 bots[1].ip_ranges[2]: a range needs `max`",
        "error 12 bots[1].cidr_list[0]: '10.0.0.1/8' is not a CIDR block: host bits are set in the address",
        "error 12 bots[1].cidr_list[1]: '10.0.0.0/33' is not a CIDR block: the length is over 32",
        "error 13 bots[2].name: duplicate bot name `Goodbot` (first at line 2); names are unique in a file",
        "error 14 bots[2].category: unknown category `search-engine`; one of: search, ai-training, ai-search, ai-user, seo, social, preview, monitor, feed, archive, advertising, academic, tool, library, other",
        "error 17 bots[3].fcrdns_hosts[0]: `compute.amazonaws.com` is under `amazonaws.com`, where any customer of the provider gets forward-confirmed names: trusting it lets anyone there pass as `Trusting`",
        "error 17 bots[3].fcrdns_hosts[1]: `.example.com`: write the suffix without a leading dot; it is matched on label boundaries",
        "error 17 bots[3].fcrdns_hosts[2]: `com` is a top-level domain: every host name under it would pass",
        "error 17 bots[3].fcrdns_hosts[3]: `https://x.example/` is a URL; write the host name alone (`googlebot.com`)",
        "error 19 bots[4].rdns_masks: `rdns_masks` refine `fcrdns_hosts`, which this bot does not have (write `fcrdns_hosts: []` for any host)",
        "error 22 bots[5].rdns_masks[0]: mask `crawl-*.example.com` does not end with any of `fcrdns_hosts`, so no name can match both",
        "error 23 bots[5].ranges_format: `ranges_format` without `ranges_url`",
        "error 24 bots[5].url: `ftp://example.org/` is not an http(s) URL",
        "warning 25 bots[5].robots_tokens[0]: `two words` has characters outside RFC 9309's product token (letters, `_`, `-`): robots that follow it read `two`",
        "warning 25 bots[5].robots_tokens[1]: `MJ12bot` has characters outside RFC 9309's product token (letters, `_`, `-`): robots that follow it read `MJ`",
        "error 25 bots[5].robots_tokens[2]: `` is not a product token (one word, as in `User-agent: Googlebot`)",
        "error 26 bots[6]: expected a bot (a mapping with `name:`), found a scalar",
        "error 27 bots[7]: a bot needs a `name`",
        "error 30 bots[8].operator: duplicate key `operator` (first at line 29)",
        "error 32 bots[9].cidr_list: an empty `cidr_list` lets no address pass; leave the key out instead",
        "error 33 extra: unknown key `extra`",
    ];
    assert_eq!(got, want);
}

#[test]
fn broken_files_are_errors_not_panics() {
    for (text, want) in [
        (
            "",
            "error 1 : the file is empty; expected a mapping with `bots:`",
        ),
        (
            "- a\n- b\n",
            "error 1 : expected a mapping with `bots:`, found a list",
        ),
        ("bots: 3\n", "error 1 bots: expected a list, found a scalar"),
        (
            "bots:\n",
            "error 1 bots: expected a list, found null (write `[]` for an empty list, or leave the key out)",
        ),
        ("other: []\n", "error 1 other: unknown key `other`"),
        ("bots: [\n", "error 2 : not valid YAML: "),
        (
            "bots: []\n---\nbots: []\n",
            "error 2 : not valid YAML: a second YAML document; a registry file holds one",
        ),
        ("\u{0}\u{1}binary", "error 1 : not valid YAML: "),
    ] {
        let got = brief(&problems(text));
        assert!(
            got.iter().any(|g| g.starts_with(want)),
            "{text:?}: {got:?} lacks {want:?}"
        );
    }
    // `bots:` missing entirely.
    assert_eq!(
        brief(&problems("{}\n")),
        ["error 1 : no `bots:` list in the file"]
    );
}

#[test]
fn a_bad_entry_is_left_out_and_the_registry_refused() {
    let mut b = RegistryBuilder::new();
    b.add_registry(
        "a.yaml",
        "bots:\n  - name: A\n    ip_list: [nope]\n  - name: B\n",
    );
    let (registry, problems) = b.build();
    assert!(registry.is_none());
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].severity, Severity::Error);
    assert_eq!(
        problems[0].to_string(),
        "a.yaml:3:15: error: bots[0].ip_list[0]: `nope` is not an IPv4 or IPv6 address"
    );
}

#[test]
fn later_files_override_earlier_entries_by_name() {
    let mut b = RegistryBuilder::new();
    b.add_registry(
        "base.yaml",
        "bots:\n  - name: A\n    ip_list: [192.0.2.1]\n  - name: B\n    ip_list: [192.0.2.2]\n",
    );
    b.add_registry("mine.yaml", "bots:\n  - name: B\n    cidr_list: [198.51.100.0/24]\n  - name: C\n    ip_list: [192.0.2.3]\n");
    let registry = b.build().0.unwrap();
    let names: Vec<&str> = registry.bots().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "C"]);
    let b = registry.get("B").unwrap();
    // The whole entry is replaced, not merged field by field.
    assert!(b.ip_list.is_none());
    assert_eq!(b.cidr_list.as_ref().unwrap().len(), 1);
    assert_eq!(&*b.origin.file, "mine.yaml");
}

#[test]
fn extras_must_name_a_registered_bot() {
    let mut b = RegistryBuilder::new();
    b.add_registry(
        "r.yaml",
        "bots:\n  - name: DuckDuckBot\n  - name: YandexBot\n  - name: YandexImages\n",
    );
    b.add_extras(
        "x.yaml",
        "\
user_agent_parsers:
  - regex: 'DuckDuckGo/\\d'
    family_replacement: DuckDuckBot
  - regex: '(Yandex(?:Bot|Images))/'
  - regex: '(Yandex(?:Bot|Video))/'
  - regex: 'NoGroup/'
  - regex: 'Bad(regex'
    family_replacement: DuckDuckBot
  - regex: 'Ghost/'
    family_replacement: Ghostbot
  - regex: '(\\w+bot)/'
  - regex: 'x'
    os_replacement: y
",
    );
    let (registry, problems) = b.build();
    assert!(registry.is_none());
    let got = brief(&problems);
    assert_eq!(
        got,
        [
            "error 5 user_agent_parsers[2].regex: the parser `(Yandex(?:Bot|Video))/` names the family `YandexVideo`, which is no bot in the registry",
            "error 6 user_agent_parsers[3].regex: the family comes from capture group 1, but the regex has no group",
            "error 7 user_agent_parsers[4].regex: not a valid regular expression: error: unclosed group",
            "error 9 user_agent_parsers[5].family_replacement: the parser `Ghost/` names the family `Ghostbot`, which is no bot in the registry",
            "error 12 user_agent_parsers[7].regex: the family comes from capture group 1, but the regex has no group",
            "error 13 user_agent_parsers[7].os_replacement: unknown key `os_replacement`; did you mean `v1_replacement`?",
        ]
    );
}

#[test]
fn extras_of_later_files_are_tried_first() {
    let mut b = RegistryBuilder::new();
    b.add_registry("r.yaml", "bots:\n  - name: A\n  - name: B\n");
    b.add_extras(
        "1.yaml",
        "user_agent_parsers:\n  - regex: 'a'\n    family_replacement: A\n",
    );
    b.add_extras(
        "2.yaml",
        "user_agent_parsers:\n  - regex: 'b'\n    family_replacement: B\n",
    );
    let registry = b.build().0.unwrap();
    let order: Vec<&str> = registry.extras().iter().map(|e| e.regex.as_str()).collect();
    assert_eq!(order, ["b", "a"]);
}

#[test]
fn what_show_writes_reads_back_the_same() {
    let registry = Registry::builtin();
    let yaml = registry.to_yaml();
    let mut b = RegistryBuilder::new();
    b.add_registry("shown.yaml", &yaml);
    let (again, problems) = b.build();
    assert!(
        problems.iter().all(|p| p.severity == Severity::Warning),
        "{problems:#?}"
    );
    let again = again.unwrap();
    assert_eq!(again.to_json(), registry.to_json());
    assert_eq!(again.bots().len(), registry.bots().len());
    let text: serde_json::Value = serde_json::from_str(&registry.to_json_text()).unwrap();
    assert_eq!(text, registry.to_json());
    // The JSON form has the same keys as the file format.
    let json = registry.to_json();
    assert!(
        json["bots"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["name"].is_string())
    );
}

#[test]
fn the_default_registry_is_clean() {
    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let errors: Vec<String> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let registry = registry.unwrap();
    assert!(!registry.bots().is_empty());
}

/// The default registry's feeds that the snapshot does not hold, as
/// `data/ranges/README.md` lists them.
const NO_SNAPSHOT: [&str; 2] = [
    "https://claude.com/crawling/bots.json",
    "https://mistral.ai/mistralai-user-ips.json",
];

#[test]
fn every_default_entry_and_method_has_its_provenance() {
    let registry = Registry::builtin();
    let mut missing = Vec::new();
    for bot in registry.bots() {
        let renders = bot.renders.map(|_| ProvenanceOf::Renders);
        for of in std::iter::once(ProvenanceOf::Entry)
            .chain(bot.methods())
            .chain(renders)
        {
            if bot.provenance_of(of).next().is_none() {
                missing.push(format!("{}: {of}", bot.name));
            }
        }
    }
    assert_eq!(missing, Vec::<String>::new());
    // The snapshot-less feeds are named in the ranges README.
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/ranges/README.md"
    ))
    .unwrap();
    for url in NO_SNAPSHOT {
        assert!(readme.contains(&format!("| `{url}` |")), "{url}");
    }
}

#[test]
fn the_snapshot_holds_every_feed_the_default_registry_names() {
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/ranges/index.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let registry = Registry::builtin();
    let compiled: Vec<&str> = registry.ranges().iter().map(|f| f.url.as_str()).collect();
    let listed: Vec<&str> = index
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        compiled, listed,
        "snapshot.rs is stale: run scripts/ranges-snapshot"
    );
    for bot in registry.bots() {
        if let Some(url) = &bot.ranges_url {
            if NO_SNAPSHOT.contains(&url.as_str()) {
                assert!(registry.ranges().get(url).is_none(), "{url}");
                continue;
            }
            let feed = registry
                .ranges()
                .get(url)
                .unwrap_or_else(|| panic!("{}: no feed {url}", bot.name));
            assert!(!feed.prefixes.is_empty());
            assert_eq!(feed.source, "snapshot");
            assert!(
                feed.version().starts_with("2026-09-02"),
                "{}",
                feed.version()
            );
        }
    }
}

#[test]
fn the_schema_agrees_with_the_reader() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schema/registry.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let bot = &schema["$defs"]["bot"];
    let mut keys: Vec<&str> = bot["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let builtin = Registry::builtin().to_json();
    let mut known: Vec<&str> = builtin["bots"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| {
            b.as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
        })
        .collect();
    known.sort_unstable();
    known.dedup();
    // Every key the reader writes out is in the schema, and the schema has
    // no key the reader does not know (the written keys cover all but the
    // exact-address forms the default registry does not use).
    for k in &known {
        assert!(keys.contains(k), "{k} missing from the schema");
    }
    let categories: Vec<&str> = bot["properties"]["category"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let ours: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(categories, ours);
    assert_eq!(bot["additionalProperties"], false);
    let mut b = RegistryBuilder::new();
    let every_key = "bots:\n  - name: X\n    fcrdns_hosts: [x.example]\n    ip_list: [192.0.2.1]\n    ip_ranges: [{min: 192.0.2.1, max: 192.0.2.2}]\n    cidr_list: [192.0.2.0/24]\n    category: other\n    operator: O\n    url: https://x.example/\n    robots_tokens: [X]\n    rdns_masks: ['a-*.x.example']\n    ranges_url: https://x.example/r.json\n    ranges_format: google-json\n    signature_agents: ['https://x.example']\n    signature_keys: [JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs]\n    ranges_refresh: 1d\n    renders: false\n    provenance: [{source: 'https://x.example/', confirmed: 2026-11-29}, {of: renders, source: 'https://x.example/render', confirmed: 2026-11-29}]\n";
    b.add_registry("all.yaml", every_key);
    let (r, problems) = b.build();
    assert_eq!(problems, Vec::new());
    let mut written: Vec<String> = r.unwrap().to_json()["bots"][0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    written.sort_unstable();
    assert_eq!(written, keys);
}

#[test]
fn address_lists_wider_than_operators_publish_are_refused() {
    let text = "\
bots:
  - name: WideBot
    cidr_list: [0.0.0.0/0, '::/0', 0.0.0.0/7, '2000::/18', '::ffff:0:0/96']
  - name: RangeBot
    ip_ranges:
      - {min: 0.0.0.0, max: 255.255.255.255}
      - {min: '::', max: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'}
      - {min: 10.0.0.0, max: 11.0.0.0}
  - name: BroadBot
    cidr_list: [10.0.0.0/8, 172.16.0.0/12, '2001:db8::/32', '2000::/19']
    ip_ranges:
      - {min: 192.0.0.0, max: 192.15.255.255}
  - name: NarrowBot
    cidr_list: [10.0.0.0/13, '2001:db8::/33']
    ip_ranges:
      - {min: 192.0.0.0, max: 192.7.255.255}
";
    let got = brief(&problems(text));
    let refused = "wider than any operator publishes for its crawlers";
    let want = [
        format!("error 3 bots[0].cidr_list[0]: `0.0.0.0/0` spans 4,294,967,296 addresses (a /0): {refused} (a /8 at most), so anyone there would pass as `WideBot`"),
        format!("error 3 bots[0].cidr_list[1]: `::/0` spans 2^128 addresses (a /0): {refused} (a /19 at most), so anyone there would pass as `WideBot`"),
        format!("error 3 bots[0].cidr_list[2]: `0.0.0.0/7` spans 33,554,432 addresses (a /7): {refused} (a /8 at most), so anyone there would pass as `WideBot`"),
        format!("error 3 bots[0].cidr_list[3]: `2000::/18` spans 2^110 addresses (a /18): {refused} (a /19 at most), so anyone there would pass as `WideBot`"),
        // An IPv4-mapped block is the IPv4 block.
        format!("error 3 bots[0].cidr_list[4]: `0.0.0.0/0` spans 4,294,967,296 addresses (a /0): {refused} (a /8 at most), so anyone there would pass as `WideBot`"),
        format!("error 6 bots[1].ip_ranges[0]: `0.0.0.0` – `255.255.255.255` spans 4,294,967,296 addresses (a /0): {refused} (a /8 at most), so anyone there would pass as `RangeBot`"),
        format!("error 7 bots[1].ip_ranges[1]: `::` – `ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff` spans 2^128 addresses (a /0): {refused} (a /19 at most), so anyone there would pass as `RangeBot`"),
        format!("error 8 bots[1].ip_ranges[2]: `10.0.0.0` – `11.0.0.0` spans 16,777,217 addresses (more than a /8): {refused} (a /8 at most), so anyone there would pass as `RangeBot`"),
        "warning 10 bots[2].cidr_list[0]: `10.0.0.0/8` spans 16,777,216 addresses (a /8): wider than operators usually publish for their crawlers; check that all of it is `BroadBot`'s".to_owned(),
        "warning 10 bots[2].cidr_list[1]: `172.16.0.0/12` spans 1,048,576 addresses (a /12): wider than operators usually publish for their crawlers; check that all of it is `BroadBot`'s".to_owned(),
        "warning 10 bots[2].cidr_list[2]: `2001:db8::/32` spans 2^96 addresses (a /32): wider than operators usually publish for their crawlers; check that all of it is `BroadBot`'s".to_owned(),
        "warning 10 bots[2].cidr_list[3]: `2000::/19` spans 2^109 addresses (a /19): wider than operators usually publish for their crawlers; check that all of it is `BroadBot`'s".to_owned(),
        "warning 12 bots[2].ip_ranges[0]: `192.0.0.0` – `192.15.255.255` spans 1,048,576 addresses (a /12): wider than operators usually publish for their crawlers; check that all of it is `BroadBot`'s".to_owned(),
    ];
    assert_eq!(got, want);
    // The wide bots are left out and the registry refused: nothing verifies
    // 8.8.8.8 as WideBot.
    let mut b = RegistryBuilder::new();
    b.add_registry("wide.yaml", text);
    assert!(b.build().0.is_none());
}

#[test]
fn published_feeds_wider_than_operators_publish_are_refused() {
    use botwarden_verify::{Error, Feed};
    let body = br#"{"prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv4Prefix": "0.0.0.0/0"}, {"ipv6Prefix": "::/0"}, {"ipv4Prefix": "10.0.0.0/8"}]}"#;
    let err = Feed::parse_google_json("https://feed.example/r.json", body).unwrap_err();
    let Error::Feed { url, problems } = err else {
        panic!("not a feed's error: {err}");
    };
    assert_eq!(url, "https://feed.example/r.json");
    assert_eq!(
        problems,
        [
            "prefixes[1].ipv4Prefix: `0.0.0.0/0` spans 4,294,967,296 addresses (a /0): wider than any operator publishes for its crawlers (a /8 at most)",
            "prefixes[2].ipv6Prefix: `::/0` spans 2^128 addresses (a /0): wider than any operator publishes for its crawlers (a /19 at most)",
        ]
    );
}

#[test]
fn refused_host_lists_are_not_called_empty() {
    let text = "\
bots:
  - name: TldBot
    fcrdns_hosts: [com]
  - name: RootBot
    fcrdns_hosts: ['.']
  - name: TwoBot
    fcrdns_hosts: [com, 'https://x.example/']
  - name: AnyBot
    fcrdns_hosts: []
";
    let got = brief(&problems(text));
    let want = [
        "warning 3 bots[0].fcrdns_hosts: `fcrdns_hosts` has no host left: its only entry was refused, so the bot is left out; it is not taken for `fcrdns_hosts: []`, which would accept any forward-confirmed host name",
        "error 3 bots[0].fcrdns_hosts[0]: `com` is a top-level domain: every host name under it would pass",
        "warning 5 bots[1].fcrdns_hosts: `fcrdns_hosts` has no host left: its only entry was refused, so the bot is left out; it is not taken for `fcrdns_hosts: []`, which would accept any forward-confirmed host name",
        "error 5 bots[1].fcrdns_hosts[0]: `.` is the DNS root: every host name would pass",
        "warning 7 bots[2].fcrdns_hosts: `fcrdns_hosts` has no host left: all 2 of its entries were refused, so the bot is left out; it is not taken for `fcrdns_hosts: []`, which would accept any forward-confirmed host name",
        "error 7 bots[2].fcrdns_hosts[0]: `com` is a top-level domain: every host name under it would pass",
        "error 7 bots[2].fcrdns_hosts[1]: `https://x.example/` is a URL; write the host name alone (`googlebot.com`)",
        "warning 8 bots[3].fcrdns_hosts: `fcrdns_hosts: []` accepts any forward-confirmed host name; pair it with IP lists or masks if the operator documents them",
    ];
    assert_eq!(got, want);
}

#[test]
fn public_suffixes_are_not_trusted_host_names() {
    let text = "\
bots:
  - name: Googlebot
    category: monitor
    fcrdns_hosts: [co.uk, in-addr.arpa, github.io, googlebot.com, bbc.co.uk, foo.ck]
  - name: Masked
    fcrdns_hosts: []
    rdns_masks: ['crawl-*.co.uk', '*.com', 'crawl-*.mybot.co.uk', '*', 'a.*.example.com']
";
    let got = brief(&problems(text));
    let anyone = "anyone can register a name under it";
    let private = " (of the Public Suffix List's private section: the names under it belong to different customers)";
    let want = [
        format!("error 4 bots[0].fcrdns_hosts[0]: `co.uk` is a public suffix: {anyone} (`attacker.co.uk`) and pass as `Googlebot`"),
        format!("error 4 bots[0].fcrdns_hosts[1]: `in-addr.arpa` is a public suffix: {anyone} (`attacker.in-addr.arpa`) and pass as `Googlebot`"),
        format!("error 4 bots[0].fcrdns_hosts[2]: `github.io` is a public suffix{private}: {anyone} (`attacker.github.io`) and pass as `Googlebot`"),
        // A wildcard rule of the list (`*.ck`).
        format!("error 4 bots[0].fcrdns_hosts[5]: `foo.ck` is a public suffix: {anyone} (`attacker.foo.ck`) and pass as `Googlebot`"),
        "error 7 bots[1].rdns_masks[0]: mask `crawl-*.co.uk` leaves a label open right under the public suffix `co.uk`: anyone can register a name that matches (`crawl-attacker.co.uk`) and pass as `Masked`".to_owned(),
        "error 7 bots[1].rdns_masks[1]: mask `*.com` leaves a label open right under the public suffix `com`: anyone can register a name that matches (`attacker.com`) and pass as `Masked`".to_owned(),
        "error 7 bots[1].rdns_masks[3]: `*` is a single label: a mask names the host's own domain too (`crawl-*.example.com`)".to_owned(),
    ];
    assert_eq!(got, want);
}

#[test]
fn names_with_control_characters_are_refused() {
    let text = "\
bots:
  - name: \"Evil\\u0007bot\"
  - name: \"Two\\nLines\"
  - name: \"Rev\\u202Etob\"
  - name: Fine
    operator: \"Acme\\tLtd\"
  - name: Café-bot
";
    let got = brief(&problems(text));
    assert_eq!(
        got,
        [
            "error 2 bots[0].name: the name \"Evil\\u{7}bot\" holds the control character U+0007; names are shown in reports and logs, so they hold none",
            "error 3 bots[1].name: the name \"Two\\nLines\" holds the control character U+000A; names are shown in reports and logs, so they hold none",
            "error 4 bots[2].name: the name \"Rev\\u{202e}tob\" holds the control character U+202E; names are shown in reports and logs, so they hold none",
            "error 6 bots[3].operator: the operator \"Acme\\tLtd\" holds the control character U+0009; it is shown in reports, so it holds none",
        ]
    );
}

#[test]
fn an_entry_that_replaces_another_says_what_it_drops() {
    let mut b = RegistryBuilder::with_defaults();
    b.add_registry(
        "mine.yaml",
        "bots:\n  - name: Mybot\n    ip_list: [192.0.2.1]\n  - name: Googlebot\n    category: search\n    cidr_list: [192.0.2.0/24]\n",
    );
    b.add_registry(
        "later.yaml",
        "bots:\n  - name: Mybot\n    ip_list: [192.0.2.2]\n    operator: Me\n",
    );
    let (registry, problems) = b.build();
    assert!(registry.is_some());
    let mine: Vec<String> = problems
        .iter()
        .filter(|p| &*p.file != "<default registry>" && &*p.file != "<default uap_extras>")
        .map(ToString::to_string)
        .collect();
    let googlebot = Registry::builtin().get("Googlebot").unwrap().origin.clone();
    assert_eq!(
        mine,
        [
            format!("mine.yaml:4:5: warning: bots[1]: `Googlebot` replaces the built-in entry ({googlebot}) as a whole (fields are not merged): its `fcrdns_hosts`, `rdns_masks`, `ranges_url`, `ranges_refresh`, `robots_tokens`, `operator`, `url`, `renders`, `provenance` are dropped"),
            "later.yaml:2:5: warning: bots[0]: `Mybot` replaces the entry of mine.yaml:2:5 as a whole; fields are not merged".to_owned(),
        ]
    );
}
