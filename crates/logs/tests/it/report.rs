//! The report renderings: text tables (golden files), JSON round trip,
//! and the HTML page (structure, escaping, and a headless Chromium render).

use std::collections::BTreeMap;
use std::path::Path;

use jiff::Timestamp;

use botwarden_logs::{
    BadLine, BotRow, InputSummary, LineCounts, NamedClient, NewerFeed, PathCount, Period, Report,
    RobotsFetches, Series, SpoofedIp, StatusClasses, TextOptions, Timeline, Totals, UnknownCrawler,
    UsageCounts, VerdictCount, VerificationStats, render_html, render_text,
};
use botwarden_testdata::{chromium, snapshot};

const DATA: &str = "crates/logs/tests/data";

/// A bot of the typical report: name, category, verdict, requests per
/// hour at the quietest, and how much busier it gets mid-day.
const BOTS: [(&str, &str, &str, u64, u64); 11] = [
    ("Googlebot", "search", "verified", 40, 30),
    ("bingbot", "search", "verified", 20, 12),
    ("GPTBot", "ai-training", "verified", 8, 40),
    ("Googlebot", "search", "spoofed", 6, 4),
    ("ClaudeBot", "ai-training", "verified", 5, 9),
    ("Applebot", "search", "verified", 4, 3),
    ("AhrefsBot", "seo", "unverifiable", 3, 6),
    ("YandexBot", "search", "verified", 2, 2),
    ("PetalBot", "search", "verified", 1, 2),
    ("DataForSeoBot", "crawler", "unknown", 1, 1),
    ("MJ12bot", "seo", "verified", 0, 1),
];

fn hour(i: usize) -> Timestamp {
    at(&format!("2026-11-20T{i:02}:00:00Z"))
}

/// An RFC 3339 time of the fixture.
fn at(text: &str) -> Timestamp {
    text.parse().expect("a fixture time")
}

/// Requests per hour: quiet at night, busiest at 14:00.
fn curve(base: u64, swing: u64, i: usize) -> u64 {
    let i = i as u64;
    let distance = i.abs_diff(14);
    base + swing * (14u64.saturating_sub(distance)) / 14
}

fn counts(r: &[(u64, u64)]) -> BTreeMap<u16, u64> {
    r.iter()
        .map(|&(c, n)| (u16::try_from(c).unwrap(), n))
        .collect()
}

/// A day of an ordinary site's log.
fn typical() -> Report {
    let mut series = Vec::new();
    let mut bots = Vec::new();
    let mut bot_requests = 0;
    for (k, &(bot, category, verdict, base, swing)) in BOTS.iter().enumerate() {
        let c: Vec<u64> = (0..24).map(|i| curve(base, swing, i)).collect();
        let requests: u64 = c.iter().sum();
        bot_requests += requests;
        let (client_error, server_error) = (requests / 20, requests / 100);
        let redirect = requests / 10;
        let first = c.iter().position(|&n| n > 0).unwrap_or(0);
        let last = c.iter().rposition(|&n| n > 0).unwrap_or(0);
        let robots = if verdict == "spoofed" {
            0
        } else {
            24 / (k as u64 + 1)
        };
        let mut robots_status = BTreeMap::new();
        if robots > 0 {
            robots_status.insert(200, robots - robots / 4);
            if robots / 4 > 0 {
                robots_status.insert(304, robots / 4);
            }
        }
        let top_paths = if k < 4 {
            vec![
                PathCount {
                    path: "/".to_owned(),
                    requests: requests / 5,
                    approximate: false,
                },
                PathCount {
                    path: "/products/widgets?page=2&sort=price".to_owned(),
                    requests: requests / 9,
                    approximate: false,
                },
                PathCount {
                    path: "/blog/2026/11/how-we-measure-crawl-budget-across-a-very-long-url"
                        .to_owned(),
                    requests: requests / 40,
                    approximate: k == 0,
                },
            ]
        } else {
            Vec::new()
        };
        bots.push(BotRow {
            bot: bot.to_owned(),
            category: Some(category.to_owned()),
            verdict: verdict.to_owned(),
            requests,
            ips: 3 + (k as u64 * 7) % 11,
            bytes: requests * 18_500,
            status: StatusClasses {
                ok: requests - redirect - client_error - server_error,
                redirect,
                client_error,
                server_error,
                other: 0,
            },
            first_seen: Some(at(&format!("2026-11-20T{first:02}:{k:02}:{:02}Z", 10 + k))),
            last_seen: Some(at(&format!("2026-11-20T{last:02}:{}:{k:02}Z", 49 - k))),
            robots_txt: RobotsFetches {
                requests: robots,
                status: robots_status,
            },
            top_paths,
            usage: botwarden_logs::purpose_of(category).map(|p| UsageCounts {
                purpose: p.as_str().to_owned(),
                requests,
                refused: requests / 3,
                refused_file_wide: requests / 2,
            }),
        });
        series.push(Series {
            bot: bot.to_owned(),
            verdict: verdict.to_owned(),
            counts: c,
        });
    }
    let humans: Vec<u64> = (0..24).map(|i| curve(120, 300, i)).collect();
    let human_requests: u64 = humans.iter().sum();
    series.push(Series {
        bot: "humans".to_owned(),
        verdict: "not-a-bot".to_owned(),
        counts: humans,
    });
    let requests = bot_requests + human_requests;
    let verdicts = |kind: &str| {
        let rows = bots.iter().filter(|b| b.verdict == kind);
        VerdictCount {
            requests: rows.clone().map(|b| b.requests).sum(),
            ips: rows.map(|b| b.ips).sum(),
        }
    };
    let mut verdict_map = BTreeMap::new();
    for kind in ["verified", "spoofed", "unverifiable", "unknown"] {
        verdict_map.insert(kind.to_owned(), verdicts(kind));
    }
    verdict_map.insert(
        "not-a-bot".to_owned(),
        VerdictCount {
            requests: human_requests,
            ips: 1_204,
        },
    );
    let parsed = requests;
    let lines = LineCounts {
        read: parsed + 20 + 30,
        parsed,
        skipped: 20,
        failed: 30,
        skip_reasons: [("blank".to_owned(), 12), ("comment".to_owned(), 8)]
            .into_iter()
            .collect(),
        fail_reasons: [
            ("bad-time".to_owned(), 18),
            ("no-request-line".to_owned(), 12),
        ]
        .into_iter()
        .collect(),
        truncated: 2,
    };
    let first_input = LineCounts {
        read: 7_000,
        parsed: 6_970,
        skipped: 12,
        failed: 18,
        skip_reasons: [("blank".to_owned(), 12)].into_iter().collect(),
        fail_reasons: [("bad-time".to_owned(), 18)].into_iter().collect(),
        truncated: 2,
    };
    let second_input = LineCounts {
        read: lines.read - first_input.read,
        parsed: lines.parsed - first_input.parsed,
        skipped: 8,
        failed: 12,
        skip_reasons: [("comment".to_owned(), 8)].into_iter().collect(),
        fail_reasons: [("no-request-line".to_owned(), 12)].into_iter().collect(),
        truncated: 0,
    };
    let ok_status = requests * 86 / 100;
    let status_codes = counts(&[
        (200, ok_status),
        (206, 14),
        (301, requests * 5 / 100),
        (304, requests * 4 / 100),
        (404, requests * 4 / 100),
        (429, 25),
        (
            500,
            requests - ok_status - 14 - requests * 13 / 100 - 25 - 3,
        ),
        (503, 3),
    ]);
    Report {
        schema: botwarden_logs::REPORT_SCHEMA,
        generated: at("2026-11-21T06:00:12Z"),
        dns: true,
        inputs: vec![
            InputSummary {
                name: "/var/log/nginx/access.log.1.gz".to_owned(),
                format: "combined".to_owned(),
                gzip: true,
                lines: first_input,
                error: None,
            },
            InputSummary {
                name: "/var/log/nginx/access.log".to_owned(),
                format: "combined".to_owned(),
                gzip: false,
                lines: second_input,
                error: Some("truncated gzip stream".to_owned()),
            },
        ],
        lines,
        samples: vec![
            BadLine {
                file: "/var/log/nginx/access.log.1.gz".to_owned(),
                line: 118,
                column: Some(28),
                reason: "bad-time".to_owned(),
                text: "192.0.2.10 - - [20/Nov/2026:25:61:00 +0000] \"GET / HTTP/1.1\" 200 512"
                    .to_owned(),
            },
            BadLine {
                file: "/var/log/nginx/access.log".to_owned(),
                line: 4_031,
                column: None,
                reason: "no-request-line".to_owned(),
                text: "\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xfc\\x03\\x03".to_owned(),
            },
        ],
        period: Some(Period {
            first: at("2026-11-20T00:00:04Z"),
            last: at("2026-11-20T23:59:51Z"),
        }),
        newer_feeds: vec![NewerFeed {
            url: "https://openai.com/gptbot.json".to_owned(),
            version: "2026-11-20T18:00:00+00:00".to_owned(),
            bots: vec!["GPTBot".to_owned()],
        }],
        totals: Totals {
            requests,
            bytes: requests * 21_000,
            ips: 1_297,
            bot_requests,
            user_agents: 412,
            host_names: 2,
            host_name_requests: 31,
            requests_without_client: 4,
        },
        verdicts: verdict_map,
        bots,
        spoofed: vec![
            SpoofedIp {
                ip: "203.0.113.77".to_owned(),
                claimed: "Googlebot".to_owned(),
                reason: "no PTR record".to_owned(),
                requests: 160,
                first_seen: Some(at("2026-11-20T00:12:09Z")),
                last_seen: Some(at("2026-11-20T23:41:30Z")),
                user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
                    .to_owned(),
            },
            SpoofedIp {
                ip: "2001:db8:4f2a::1b".to_owned(),
                claimed: "Googlebot".to_owned(),
                reason: "PTR not under googlebot.com".to_owned(),
                requests: 42,
                first_seen: Some(at("2026-11-20T08:00:00Z")),
                last_seen: Some(at("2026-11-20T09:30:00Z")),
                user_agent: "Googlebot/2.1".to_owned(),
            },
        ],
        spoofed_omitted: 0,
        host_names: vec![NamedClient {
            name: "crawl-203-0-113-9.example.net".to_owned(),
            claimed: "Googlebot".to_owned(),
            reason: "the log names the client \"crawl-203-0-113-9.example.net\" instead of \
                     giving its address (HostnameLookups): verification needs the address; \
                     log %a, or turn HostnameLookups off"
                .to_owned(),
            requests: 7,
            first_seen: Some(at("2026-11-20T03:10:00Z")),
            last_seen: Some(at("2026-11-20T03:12:41Z")),
            user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
                .to_owned(),
        }],
        host_names_omitted: 0,
        unknown_crawlers: vec![UnknownCrawler {
            name: "DataForSeoBot".to_owned(),
            requests: 39,
            ips: 2,
            user_agent: "Mozilla/5.0 (compatible; DataForSeoBot/1.0; +https://dataforseo.com/dataforseo-bot)"
                .to_owned(),
        }],
        timeline: Timeline {
            start: Some(hour(0)),
            bucket_seconds: 3600,
            series,
        },
        status_codes,
        verification: VerificationStats {
            pairs: 87,
            dns_lookups: 174,
            wait_seconds: 0.25,
            ..VerificationStats::default()
        },
        usage_policy: Some("https://example.com/robots.txt".to_owned()),
        crawl: None,
    }
}

/// Attacker-controlled strings everywhere the logs reach the report.
fn hostile() -> Report {
    let mut r = typical();
    let evil = "<script>alert(1)</script>";
    r.bots[0].bot = format!("{evil}bot");
    r.bots[0].top_paths[0].path =
        "/\"><script src=https://evil.example/x.js></script><img src=x onerror=alert(2)>"
            .to_owned();
    r.bots[1].category = Some("</td></tr></table><script>".to_owned());
    r.timeline.series[0].bot = r.bots[0].bot.clone();
    r.timeline.series[1].verdict = "'><svg onload=alert(3)>".to_owned();
    r.spoofed[0].user_agent = format!("Mozilla {evil} \u{1b}[2J\u{202e}gpj.exe");
    r.spoofed[0].reason = "</title></svg><script>".to_owned();
    r.unknown_crawlers[0].name = "<style>body{display:none}</style>".to_owned();
    r.unknown_crawlers[0].user_agent = "\u{1b}[2J\u{202e}gpj.exe".to_owned();
    r.samples[0].text = "<!-- <iframe src=\"https://evil.example/\"> -->".to_owned();
    r.inputs[0].name = "</style><script>alert(4)</script>".to_owned();
    r.inputs[1].error = Some("<b onmouseover=alert(5)>".to_owned());
    r
}

fn empty() -> Report {
    Report {
        schema: botwarden_logs::REPORT_SCHEMA,
        generated: at("2026-11-21T06:00:12Z"),
        ..Report::default()
    }
}

#[test]
fn text_typical_golden() {
    let got = render_text(&typical(), &TextOptions::default());
    snapshot(&format!("{DATA}/report-typical.txt"), &got);
    for line in got.lines() {
        assert!(
            line.chars().count() <= 100,
            "wider than 100 columns: {line:?}"
        );
    }
}

#[test]
fn text_empty_golden() {
    let got = render_text(&empty(), &TextOptions::default());
    snapshot(&format!("{DATA}/report-empty.txt"), &got);
    assert!(got.lines().all(|l| l.chars().count() <= 100), "{got}");
}

#[test]
fn text_rows_and_limits() {
    let r = typical();
    let opts = TextOptions {
        color: false,
        max_rows: 3,
        top_paths: 1,
    };
    let got = render_text(&r, &opts);
    assert!(
        got.contains("  read 10,411 = parsed 10,361 + skipped 20 + failed 30\n"),
        "{got}"
    );
    assert!(got.contains("… 8 more rows"), "{got}");
    assert!(
        !got.contains("/products/widgets"),
        "one path per bot: {got}"
    );
    assert!(!got.contains('\u{1b}'), "no colour unless asked");
    let colored = render_text(
        &r,
        &TextOptions {
            color: true,
            ..opts
        },
    );
    assert!(colored.contains("\u{1b}[32mverified\u{1b}[0m"), "{colored}");
    assert!(
        colored.contains("\u{1b}[1;31mspoofed\u{1b}[0m"),
        "{colored}"
    );
}

#[test]
fn text_hostile_strings_cannot_drive_the_terminal() {
    let got = render_text(&hostile(), &TextOptions::default());
    assert!(
        !got.contains('\u{1b}'),
        "escape from the log reached the output"
    );
    assert!(!got.contains('\u{202e}'));
    assert!(got.contains("  \u{fffd}[2J\u{fffd}gpj.exe\n"), "{got}");
}

#[test]
fn json_round_trip() {
    for r in [typical(), empty(), hostile()] {
        let s = serde_json::to_string(&r).unwrap();
        let back: Report = serde_json::from_str(&s).unwrap();
        assert_eq!(back, r);
    }
    let pretty = serde_json::to_string_pretty(&typical()).unwrap() + "\n";
    snapshot(&format!("{DATA}/report-typical.json"), &pretty);
    let file = botwarden_testdata::workspace()
        .join(DATA)
        .join("report-typical.json");
    let text = std::fs::read_to_string(&file).unwrap();
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(back, typical());
}

/// Every field name of the JSON shape is documented.
#[test]
fn docs_name_every_field() {
    let doc =
        std::fs::read_to_string(botwarden_testdata::workspace().join("crates/logs/docs/report.md"))
            .unwrap();
    let value = serde_json::to_value(typical()).unwrap();
    let mut keys = std::collections::BTreeSet::new();
    collect_keys(&value, &mut keys);
    let missing: Vec<&String> = keys
        .iter()
        .filter(|k| !doc.contains(&format!("`{k}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/report.md does not name {missing:?}"
    );
}

fn collect_keys(v: &serde_json::Value, keys: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                // Maps keyed by data (verdicts, reasons, status codes).
                if !k.chars().all(|c| c.is_ascii_digit())
                    && ![
                        "verified",
                        "spoofed",
                        "unverifiable",
                        "unknown",
                        "not-a-bot",
                    ]
                    .contains(&k.as_str())
                    && !k.contains('-')
                    && !["blank", "comment"].contains(&k.as_str())
                {
                    keys.insert(k.clone());
                }
                collect_keys(v, keys);
            }
        }
        serde_json::Value::Array(list) => list.iter().for_each(|v| collect_keys(v, keys)),
        _ => {}
    }
}

/// The tags of `html` (outside `<style>`), as (name, attributes text,
/// closing, self-closing).
fn tags(html: &str) -> Vec<(String, String, bool, bool)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("unclosed tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            assert_eq!(tag, "!DOCTYPE html");
            continue;
        }
        let closing = tag.starts_with('/');
        let tag = tag.trim_start_matches('/');
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
        out.push((name.to_owned(), attrs.to_owned(), closing, self_closing));
        if name == "style" && !closing {
            let close = rest.find("</style>").expect("unclosed style");
            assert!(!rest[..close].contains('<'), "markup inside <style>");
            rest = &rest[close..];
        }
    }
    out
}

const ELEMENTS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "main",
    "footer",
    "section",
    "div",
    "h1",
    "h2",
    "h3",
    "p",
    "b",
    "code",
    "span",
    "ul",
    "ol",
    "li",
    "figure",
    "figcaption",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "svg",
    "g",
    "line",
    "path",
    "rect",
    "text",
    "tspan",
];
const ATTRIBUTES: &[&str] = &[
    "lang",
    "charset",
    "http-equiv",
    "content",
    "name",
    "class",
    "id",
    "style",
    "title",
    "role",
    "aria-label",
    "aria-labelledby",
    "viewBox",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "dx",
    "dy",
    "width",
    "height",
    "rx",
    "d",
    "text-anchor",
    "data-series",
];

/// Checks that the page is made of known elements and attributes only,
/// properly nested, and loads nothing.
fn check_structure(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    assert!(html.contains(
        r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">"#
    ));
    let mut stack: Vec<String> = Vec::new();
    for (name, attrs, closing, self_closing) in tags(html) {
        assert!(
            ELEMENTS.contains(&name.as_str()),
            "unexpected element <{name} {attrs}>"
        );
        assert!(!attrs.contains("://"), "a URL in markup: <{name} {attrs}>");
        // Attribute names: every `name="` pair, values quoted and escaped.
        let mut a = attrs.trim();
        while !a.is_empty() {
            let (key, value) = a
                .split_once("=\"")
                .unwrap_or_else(|| panic!("bad attributes: {attrs}"));
            assert!(
                ATTRIBUTES.contains(&key),
                "unexpected attribute {key} in <{name} {attrs}>"
            );
            let close = value.find('"').expect("unterminated attribute");
            a = value[close + 1..].trim_start();
        }
        if self_closing || name == "meta" {
            continue;
        }
        if closing {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.as_str()),
                "misnested </{name}>"
            );
        } else {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert!(!html.contains("url("), "CSS must not load anything");
    assert!(!html.contains("@import"));
}

#[test]
fn html_typical_structure_and_series() {
    let r = typical();
    let html = render_html(&r);
    check_structure(&html);
    assert_eq!(html, render_html(&r), "deterministic");
    assert!(!html.contains("<script"));
    assert!(html.contains(
        "<title>Crawler report · 2026-11-20 00:00:04 – 2026-11-20 23:59:51 UTC · botwarden</title>"
    ));
    assert_eq!(html.matches("<svg ").count(), 3);
    assert_eq!(html.matches("</svg>").count(), 3);
    assert_eq!(html.matches("<figure>").count(), 3);
    assert_eq!(html.matches("<figcaption>").count(), 3);
    // The eight largest bot series and the other three as one.
    let series: Vec<&str> = html
        .split(r#"data-series=""#)
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(
        series,
        [
            "Googlebot (verified)",
            "GPTBot (verified)",
            "bingbot (verified)",
            "ClaudeBot (verified)",
            "Googlebot (spoofed)",
            "AhrefsBot (unverifiable)",
            "Applebot (verified)",
            "YandexBot (verified)",
            "other (3 series)",
        ]
    );
    assert_eq!(html.matches(r#"<path class="series"#).count(), 9);
    assert_eq!(
        html.matches(r#"<rect class="hit""#).count(),
        24,
        "one hover target per hour"
    );
    for label in ["00:00", "03:00", "21:00", "Nov 20"] {
        assert!(
            html.contains(&format!(">{label}<")),
            "time axis label {label}"
        );
    }
    assert!(html.contains(r#"<span class="badge b-bad">spoofed</span>"#));
    assert!(html.contains(r#"<span class="badge b-ok">verified</span>"#));
    assert!(html.contains(r#"<span class="badge b-warn">unverifiable</span>"#));
    assert!(html.contains(r#"<span class="badge b-unknown">unknown</span>"#));
    assert!(html.contains("203.0.113.77"));
    assert!(html.contains("/products/widgets?page=2&amp;sort=price"));
}

#[test]
fn html_hostile_strings_are_inert() {
    let html = render_html(&hostile());
    check_structure(&html);
    for bad in [
        "<script",
        "<img",
        "<iframe",
        "<svg onload",
        "<b onmouseover",
        "<style>body",
        "<!--",
    ] {
        assert!(!html.contains(bad), "{bad} reached the page");
    }
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;bot"));
    assert!(html.contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(html.contains("&lt;/title&gt;&lt;/svg&gt;&lt;script&gt;"));
    assert!(!html.contains('\u{1b}') && !html.contains('\u{202e}'));
    assert!(html.contains(r#"data-series="&lt;script&gt;alert(1)&lt;/script&gt;bot (verified)""#));
}

#[test]
fn html_empty_report() {
    let html = render_html(&empty());
    check_structure(&html);
    assert!(!html.contains("<svg"), "no chart without data");
    assert!(html.contains("No bot request with a time."));
    assert!(html.contains("<title>Crawler report · no request had a time · botwarden</title>"));
    let text = render_text(&empty(), &TextOptions::default());
    assert!(text.contains("read 0 = parsed 0 + skipped 0 + failed 0"));
}

/// A report with one bucket, one series and no `start` still draws.
#[test]
fn html_single_bucket() {
    let mut r = empty();
    r.timeline = Timeline {
        start: None,
        bucket_seconds: 60,
        series: vec![Series {
            bot: "Googlebot".to_owned(),
            verdict: "verified".to_owned(),
            counts: vec![5],
        }],
    };
    let html = render_html(&r);
    check_structure(&html);
    assert_eq!(html.matches(r#"<path class="series"#).count(), 1);
    assert!(html.contains("bucket 1: 5 bot requests"));
}

/// Renders the typical report in headless Chromium: the DOM holds the
/// three charts, and the screenshot has content.
#[test]
fn html_renders_in_chromium() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    let png = dir.join("report.png");
    std::fs::write(&page, render_html(&typical())).unwrap();
    // Beside it, for looking at by hand: the empty and the hostile report.
    std::fs::write(dir.join("empty.html"), render_html(&empty())).unwrap();
    std::fs::write(dir.join("hostile.html"), render_html(&hostile())).unwrap();
    let dom = chromium::render(&format!("file://{}", page.display()), &png, 1200, 2000);

    for id in ["timeline-chart", "verdict-chart", "status-chart"] {
        assert!(
            dom.contains(&format!(r#"<svg id="{id}""#)),
            "{id} not in the DOM"
        );
    }
    assert_eq!(dom.matches(r#"<path class="series"#).count(), 9);
    assert!(dom.contains("Crawl volume"));
    let image = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert_eq!(chromium::png_size(&image), (1200, 2000));
    assert!(
        image.len() > 60_000,
        "screenshot looks blank ({} bytes)",
        image.len()
    );
}
