//! `botwarden robots check`: a snapshot of every lint's fixture in each
//! format, exit codes, and the documented JSON shape.

use std::path::PathBuf;
use std::process::{Command, Output};

use botwarden_robots::LINTS;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `botwarden` from the workspace root, so paths in output are stable.
fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("run botwarden")
}

fn fixture(code: &str) -> String {
    let dir = workspace().join("testdata/lints");
    let name = std::fs::read_dir(&dir)
        .expect("testdata/lints")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(&format!("{code}-")))
        .unwrap_or_else(|| panic!("no fixture for {code} in testdata/lints"));
    format!("testdata/lints/{name}")
}

#[test]
fn every_lint_in_every_format() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace().join("testdata/snapshots/check"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for lint in LINTS {
            let file = fixture(lint.code);
            for format in ["text", "json", "sarif"] {
                let out = run(&["robots", "check", &file, "--format", format]);
                assert!(matches!(out.status.code(), Some(0 | 1)), "{file}: {out:?}");
                let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
                if format != "text" {
                    let v: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
                    let text = v.to_string();
                    assert!(
                        text.contains(lint.code),
                        "{file} ({format}) does not report {}",
                        lint.code
                    );
                } else {
                    assert!(
                        stdout.contains(&format!("[{}]", lint.code)),
                        "{file} (text) does not report {}",
                        lint.code
                    );
                }
                insta::assert_snapshot!(format!("{}-{}-{format}", lint.code, lint.name), stdout);
            }
        }
    });
}

#[test]
fn exit_codes_follow_severity() {
    // Only a note (a comment after a directive): exit 0.
    let note = crate::TempFile::new("robots.txt", b"User-agent: *\nDisallow: /x # tmp\n");
    assert_eq!(run(&["robots", "check", note.arg()]).status.code(), Some(0));
    // A warning: 0, or 1 with --deny warnings.
    let warning = crate::TempFile::new("robots.txt", b"User-agent: *\nDisalow: /x\n");
    assert_eq!(
        run(&["robots", "check", warning.arg()]).status.code(),
        Some(0)
    );
    assert_eq!(
        run(&["robots", "check", warning.arg(), "--deny", "warnings"])
            .status
            .code(),
        Some(1)
    );
    // An error: 1.
    let error = crate::TempFile::new(
        "robots.txt",
        b"User-agent: *\nDisallow: /x\nSitemap: /s.xml\n",
    );
    assert_eq!(
        run(&["robots", "check", error.arg()]).status.code(),
        Some(1)
    );
    // I/O: 2, naming the file.
    let missing = run(&["robots", "check", "no-such-file.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no-such-file.txt"));
}

#[test]
fn json_has_the_documented_shape() {
    let out = run(&["robots", "check", &fixture("R012"), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let d = &v["diagnostics"][0];
    for key in [
        "code",
        "severity",
        "line",
        "column",
        "end_line",
        "end_column",
        "message",
        "help",
        "cause",
    ] {
        assert!(d.get(key).is_some(), "diagnostic lacks {key}: {d}");
    }
    for key in [
        "changes",
        "intended_differences",
        "unintended_differences",
        "complete",
        "unasked",
    ] {
        assert!(v["fix"].get(key).is_some(), "fix lacks {key}: {}", v["fix"]);
    }
    let m = &v["bounds"]["matrix"];
    for key in ["sampled", "agents", "total_agents", "paths", "total_paths"] {
        assert!(m.get(key).is_some(), "bounds.matrix lacks {key}: {m}");
    }
    assert!(v["bounds"]["lints"].is_array());
    let row = &v["matrix"][0];
    for key in ["agent", "path", "decisions"] {
        assert!(row.get(key).is_some(), "matrix row lacks {key}: {row}");
    }
    assert_eq!(
        row["decisions"].as_object().map(serde_json::Map::len),
        Some(5)
    );
    assert!(v.get("availability").is_some());
}

#[test]
fn sarif_is_2_1_0_with_every_rule() {
    let out = run(&["robots", "check", &fixture("R022"), "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["version"], "2.1.0");
    let rules = v["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    assert_eq!(rules.len(), LINTS.len());
    let result = &v["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "R022");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert!(
        result["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"]
            == "Disallow"
    );
}

#[test]
fn a_url_is_fetched_and_checked_with_availability() {
    use crate::robots_fetch::{reply, serve};
    let addr = serve(|path| match path {
        "/robots.txt" => reply(
            200,
            &[("Content-Type", "text/plain")],
            "User-agent: *\nDisalow: /private\n",
        ),
        _ => reply(404, &[], ""),
    });
    let site = format!("http://{addr}/some/page");
    let out = run(&[
        "robots",
        "check",
        &site,
        "--allow-private",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["source"], format!("http://{addr}/robots.txt"));
    assert_eq!(v["diagnostics"][0]["code"], "R022");
    assert_eq!(v["availability"]["rfc9309"]["decision"], "parse");
    let text = run(&["robots", "check", &site, "--allow-private"]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("[R022]") && stdout.contains("200"),
        "{stdout}"
    );
}

#[test]
fn a_missing_robots_txt_is_full_allow_with_nothing_to_lint() {
    use crate::robots_fetch::{reply, serve};
    let addr = serve(|_| reply(404, &[], "not here"));
    let out = run(&[
        "robots",
        "check",
        &format!("http://{addr}/"),
        "--allow-private",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["availability"]["rfc9309"]["decision"], "full-allow");
    assert_eq!(v["availability"]["strict"]["decision"], "full-allow");
    assert_eq!(
        v["diagnostics"].as_array().map(Vec::len),
        Some(0),
        "the 404 page is not linted"
    );
}

#[test]
fn loopback_urls_are_refused_without_the_flag() {
    let out = run(&["robots", "check", "http://127.0.0.1:9/"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-private"));
}

#[test]
fn a_site_name_given_as_a_file_gets_a_hint() {
    let out = run(&["robots", "check", "example.invalid"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'example.invalid'") && err.contains("https://example.invalid/"),
        "{err}"
    );
}

/// A file shaped like a large site's: `Allow: /` above rules that strict
/// robots therefore never reach, wildcards, a typo and a relative sitemap.
fn shadowed_file() -> String {
    let mut text = String::from("User-agent: *\nAllow: /\n");
    for i in 0..30 {
        text.push_str(&format!("Disallow: /private/{i}/\n"));
        if i % 3 == 0 {
            text.push_str(&format!("Disallow: /*?session{i}=\n"));
        }
    }
    text.push_str("Disalow: /tmp/\nDisalow: /cache/\nDisalow: /old/\n\nSitemap: /sitemap.xml\n");
    text
}

/// The headings of the findings a text report shows, in order.
fn headings(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            ["error[", "warning[", "info["]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect()
}

fn severity_rank(heading: &str) -> u8 {
    match heading.split('[').next() {
        Some("error") => 0,
        Some("warning") => 1,
        _ => 2,
    }
}

#[test]
fn findings_with_one_cause_are_one_diagnostic() {
    let file = shadowed_file();
    let out = crate::botwarden(&["robots", "check", "-"], file.as_bytes());
    assert_eq!(out.status.code(), Some(1), "a relative sitemap is an error");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let shown = headings(&text);
    assert!((2..=10).contains(&shown.len()), "{text}");
    let ranks: Vec<u8> = shown.iter().map(|h| severity_rank(h)).collect();
    assert!(
        ranks.is_sorted(),
        "errors, then warnings, then notes: {shown:?}"
    );
    assert!(
        text.contains("follow from line 2: R010 wildcard-for-strict on line(s) 4, 8, 12, 16, 20 and 5 more; R035 rule-shadowed on line(s) 3, 4, 5, 6, 7 and 38 more"),
        "{text}"
    );
    assert!(
        text.contains("2 more like it, on line(s) 44 and 45"),
        "{text}"
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace().join("testdata/snapshots/check"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("folded-text", text));

    // --verbose lists each, errors first too.
    let verbose = crate::botwarden(&["robots", "check", "-", "--verbose"], file.as_bytes());
    let verbose = String::from_utf8(verbose.stdout).expect("UTF-8");
    let every = headings(&verbose);
    let ranks: Vec<u8> = every.iter().map(|h| severity_rank(h)).collect();
    assert!(ranks.is_sorted(), "{every:?}");

    // JSON keeps every finding; the folded ones name what they are shown
    // with, and the line they follow from.
    let json = crate::botwarden(
        &["robots", "check", "-", "--format", "json"],
        file.as_bytes(),
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let diagnostics = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), every.len());
    let head = diagnostics
        .iter()
        .position(|d| d["code"] == "R009")
        .expect("the `Allow: /` finding");
    assert!(diagnostics[head]["cause"].is_null());
    let shadowed: Vec<&serde_json::Value> =
        diagnostics.iter().filter(|d| d["code"] == "R035").collect();
    assert_eq!(shadowed.len(), 43, "the misspelt rules too");
    for d in shadowed {
        assert_eq!(d["cause"]["line"], 2, "{d}");
        assert_eq!(d["cause"]["index"], head, "{d}");
    }
    let typos: Vec<&serde_json::Value> =
        diagnostics.iter().filter(|d| d["code"] == "R022").collect();
    assert_eq!(typos[0]["cause"], serde_json::Value::Null);
    let first = diagnostics
        .iter()
        .position(|d| d["code"] == "R022")
        .expect("R022");
    for d in &typos[1..] {
        assert_eq!(d["cause"]["index"], first, "{d}");
        assert_eq!(d["cause"]["line"], serde_json::Value::Null, "{d}");
    }
    // SARIF too, with the cause line as a related location.
    let sarif = crate::botwarden(
        &["robots", "check", "-", "--format", "sarif"],
        file.as_bytes(),
    );
    let v: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("SARIF");
    let results = v["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), every.len());
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "R035")
        .expect("an R035 result");
    assert_eq!(r["properties"]["cause"]["index"], head);
    assert_eq!(
        r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
}

#[test]
fn a_large_sites_file_reports_each_root_cause_once() {
    let Some(shared) = botwarden_testdata::shared("robots check (indeed)", "corpus/robots") else {
        return;
    };
    let body = std::fs::read(
        shared.join("corpus/robots/scrapy__protego__tests_test_data_www.indeed.com.txt"),
    )
    .expect("the indeed robots.txt");
    let out = crate::botwarden(&["robots", "check", "-"], &body);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let shown = headings(&text);
    assert!((3..=10).contains(&shown.len()), "{text}");
    let ranks: Vec<u8> = shown.iter().map(|h| severity_rank(h)).collect();
    assert!(ranks.is_sorted(), "{shown:?}");
    let rows = text
        .lines()
        .skip_while(|l| !l.starts_with("How robots read it"))
        .filter(|l| l.starts_with("! ") || l.starts_with("  ") && !l.starts_with("  agent"))
        .filter(|l| !l.starts_with("  …"))
        .count();
    assert!(rows <= 40, "{rows} matrix rows");
    assert!(
        text.contains("more row(s) where profiles disagree"),
        "{text}"
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace().join("testdata/snapshots/check"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("indeed-text", text));
    // Every finding is still in the JSON, each R035 tied to its `Allow: /`.
    let json = crate::botwarden(&["robots", "check", "-", "--format", "json"], &body);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let diagnostics = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 525);
    let shadowed: Vec<&serde_json::Value> =
        diagnostics.iter().filter(|d| d["code"] == "R035").collect();
    assert_eq!(shadowed.len(), 388);
    assert!(
        shadowed
            .iter()
            .all(|d| d["cause"]["line"] == 2 || d["cause"]["line"] == 199)
    );
}

/// Bytes a terminal would act on: ESC, the C1 controls (UTF-8 `C2 80` to
/// `C2 9F`), DEL, BEL and the bidirectional overrides.
fn acts_on_a_terminal(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    text.chars().any(|c| {
        (c.is_control() && !matches!(c, '\n' | '\t'))
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

#[test]
fn control_characters_from_the_file_are_shown_escaped() {
    let file = b"User-agent: *\n\
        Disallow: /a\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\n\
        Disalow: /\x1b[2J\x1b[31mred\x1b[0m\n\
        Allow: /b\xc2\x9b2J\xe2\x80\xae\x7f\n\
        Sitemap: /\x07bell.xml\n";
    for args in [
        &["robots", "check", "-"][..],
        &["robots", "check", "-", "--verbose", "--all-rows"],
        &["robots", "check", "-", "--format", "json"],
        &["robots", "check", "-", "--format", "sarif"],
    ] {
        let out = crate::botwarden(args, file);
        assert!(
            !acts_on_a_terminal(&out.stdout),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(!acts_on_a_terminal(&out.stderr), "{args:?}");
        if args.len() == 3 {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains(r"/\x1b[2J\x1b[31mred\x1b[0m"), "{text}");
            assert!(text.contains(r"/\x07bell.xml"), "{text}");
        } else if args.contains(&"json") {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            let paths: Vec<&str> = v["matrix"]
                .as_array()
                .expect("matrix")
                .iter()
                .filter_map(|r| r["path"].as_str())
                .collect();
            // Escaped in the bytes, the same string once read.
            assert!(paths.contains(&"/\x1b[2J\x1b[31mred\x1b[0m"), "{paths:?}");
        }
    }
    let verbose = crate::botwarden(&["robots", "check", "-", "--verbose", "--all-rows"], file);
    let text = String::from_utf8_lossy(&verbose.stdout);
    assert!(
        text.contains(r"/a\x1b]8;;https://evil.example/\x1b\click"),
        "{text}"
    );
    // The fixer's summary quotes the file too.
    let fix = crate::botwarden(&["robots", "fix", "-", "--verbose"], file);
    assert!(
        !acts_on_a_terminal(&fix.stderr),
        "{}",
        String::from_utf8_lossy(&fix.stderr)
    );
}

/// `n` one-rule groups, each for a robot of its own product token.
fn distinct_robots(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let mut name = String::new();
        let mut k = i + 1;
        while k > 0 {
            k -= 1;
            name.insert(0, char::from(b'a' + (k % 26) as u8));
            k /= 26;
        }
        text.push_str(&format!("User-agent: bot{name}\nDisallow: /p{i}/\n\n"));
    }
    text
}

/// One group of `n` wildcard rules that strict robots read literally.
fn wildcard_rules(n: usize) -> String {
    let mut text = String::from("User-agent: *\n");
    for i in 0..n {
        text.push_str(&format!("Disallow: /*a{i}*b*c$\nDisallow: /d{i}/x\n"));
    }
    text
}

/// Rules that each name another path, half of them shadowed for strict
/// robots.
fn many_paths(n: usize) -> String {
    let mut text = String::from("User-agent: *\n");
    for i in 0..n {
        text.push_str(&format!("Disallow: /dir{i}/page\nAllow: /dir{i}/page/ok\n"));
    }
    text
}

/// `check --format json` of a file made to be slow: the work stays within
/// the bounds, and the report says what was sampled.
fn check_bounded(label: &str, body: &str) -> serde_json::Value {
    let out = crate::botwarden(
        &["robots", "check", "-", "--format", "json"],
        body.as_bytes(),
    );
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{label}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = v["matrix"].as_array().expect("matrix").len();
    let m = &v["bounds"]["matrix"];
    assert!(
        rows <= botwarden_robots::MATRIX_ROWS,
        "{label}: {rows} rows"
    );
    assert_eq!(
        rows as u64,
        m["agents"].as_u64().unwrap_or(0) * m["paths"].as_u64().unwrap_or(0),
        "{label}"
    );
    assert_eq!(m["sampled"], true, "{label}: {m}");
    assert!(
        m["total_agents"].as_u64() > m["agents"].as_u64()
            || m["total_paths"].as_u64() > m["paths"].as_u64(),
        "{label}: {m}"
    );
    v
}

#[test]
fn hostile_files_are_checked_within_bounds() {
    // 9,200 one-rule groups for distinct robots (500 KiB): 85 million rows
    // unbounded.
    let body = distinct_robots(9_200);
    assert!(body.len() <= 500 * 1024, "{}", body.len());
    let v = check_bounded("distinct robots", &body);
    assert_eq!(v["bounds"]["matrix"]["total_agents"], 9_200 + 4);
    // robots-disagree asked about a spread of the rules, and says so.
    let lints = v["bounds"]["lints"].as_array().expect("lints");
    let r012 = lints
        .iter()
        .find(|l| l["code"] == "R012")
        .expect("R012 sampled");
    assert!(r012["asked"].as_u64() < r012["total"].as_u64(), "{r012}");
    // The fixer's proof: complete, or saying where it is not.
    let fix = &v["fix"];
    assert_eq!(
        fix["complete"],
        fix["unasked"].as_array().is_some_and(Vec::is_empty),
        "{fix}"
    );

    let v = check_bounded("wildcards", &wildcard_rules(4_000));
    assert!(v["bounds"]["matrix"]["paths"].as_u64() < Some(8_001));
    check_bounded("paths", &many_paths(4_000));

    // The text says so too.
    let out = crate::botwarden(&["robots", "check", "-"], wildcard_rules(4_000).as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("an even sample, to stay within the matrix's bound"),
        "{text}"
    );
    assert!(text.contains("Bound: robots-disagree (R012)"), "{text}");
}

#[test]
fn the_fixer_says_where_its_proof_is_partial() {
    // Robots that match names as substrings try every user-agent line of
    // 9,200 groups for each of 9,200 robots: past the bound.
    let body = distinct_robots(9_200).replace("Disallow: /p1/\n\n", "Disallow: /p1/\n");
    let out = crate::botwarden(&["robots", "fix", "-"], body.as_bytes());
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(summary.contains("the proof is PARTIAL"), "{summary}");
    assert!(summary.contains("strict: "), "{summary}");
    assert!(summary.contains("robot(s) not compared"), "{summary}");
}

#[test]
fn a_file_over_10_mib_is_refused_by_name_not_read() {
    let body = "Disallow: /x\n".repeat(10 * 1024 * 1024 / 13 + 1);
    let file = crate::TempFile::new("huge-robots.txt", body.as_bytes());
    for command in ["check", "fix"] {
        let out = run(&["robots", command, file.arg()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("huge-robots.txt")
                && err.contains("10 MiB")
                && err.contains("head -c 512000"),
            "{command}: {err}"
        );
    }
    // Just under the limit, the file is read and checked.
    let just = &body.as_bytes()[..10 * 1024 * 1024 - 13];
    let file = crate::TempFile::new("robots.txt", just);
    let out = run(&["robots", "fix", file.arg(), "-o", "/dev/null"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
