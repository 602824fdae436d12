//! `botwarden robots test`.

use botwarden_testdata::{PROFILES, robots_cases};

use crate::{TempFile, botwarden};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn fixtures_through_the_binary() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for case in robots_cases() {
        let file = TempFile::new("robots.txt", &case.robots);
        let urls: Vec<&str> = case.checks.iter().map(|c| c.url.as_str()).collect();
        for profile in PROFILES {
            let mut args = vec![
                "robots",
                "test",
                file.arg(),
                "--agent",
                &case.agent,
                "--profile",
                profile,
            ];
            args.extend(&urls);
            let out = botwarden(&args, b"");
            assert!(out.status.success(), "{}: {:?}", case.id, out);
            let text = stdout(&out);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(
                lines.len(),
                case.checks.len(),
                "{}: one line per URL",
                case.id
            );
            for (check, line) in case.checks.iter().zip(lines) {
                checked += 1;
                let want = if check.allowed_under(profile) {
                    "allowed"
                } else {
                    "disallowed"
                };
                if line != format!("{want}\t{}", check.url) {
                    wrong.push(format!(
                        "{} [{profile}]: want {want} {}, got {line:?}",
                        case.id, check.url
                    ));
                }
            }
        }
    }
    assert!(checked >= 400, "only {checked} checks ran");
    assert!(
        wrong.is_empty(),
        "{} of {checked} failed:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

const ROBOTS: &str = "User-agent: botwarden\nDisallow: /search\n\nUser-agent: *\nDisallow: /\n";

#[test]
fn urls_from_standard_input_with_explanations() {
    let file = TempFile::new("robots.txt", ROBOTS.as_bytes());
    let out = botwarden(
        &[
            "robots",
            "test",
            file.arg(),
            "--agent",
            "botwarden-phone,botwarden",
            "--explain",
        ],
        b"https://example.com/search?q=1\n\n/about\n",
    );
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "disallowed\thttps://example.com/search?q=1\tgroup for 'botwarden' (line 1), rule 'Disallow: /search' at line 2\n\
         allowed\t/about\tgroup for 'botwarden' (line 1), no rule matched\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("skipped 1 blank line"), "{err}");
}

#[test]
fn json_output_has_the_documented_fields() {
    let file = TempFile::new("robots.txt", ROBOTS.as_bytes());
    let out = botwarden(
        &[
            "robots",
            "test",
            file.arg(),
            "-a",
            "otherbot",
            "--format",
            "json",
            "--profile",
            "google",
            "/x",
        ],
        b"",
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
    assert_eq!(v["url"], "/x");
    assert_eq!(v["allowed"], false);
    assert_eq!(v["profile"], "google");
    assert_eq!(v["agent"], "otherbot");
    assert_eq!(v["rule"], "Disallow: /");
    assert_eq!(v["line"], 5);
    assert_eq!(v["group"], "*");
}

#[test]
fn json_rule_and_line_are_null_when_no_rule_matched() {
    let file = TempFile::new("robots.txt", b"User-agent: a\nDisallow: /\n");
    let out = botwarden(
        &[
            "robots",
            "test",
            file.arg(),
            "-a",
            "b",
            "--format",
            "json",
            "/x",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
    assert_eq!(v["allowed"], true);
    assert!(v["rule"].is_null() && v["line"].is_null(), "{v}");
    assert!(v["group"].is_null());
}

#[test]
fn robots_from_standard_input() {
    let out = botwarden(
        &["robots", "test", "-", "-a", "x", "/a", "/b"],
        b"User-agent: *\nDisallow: /a\n",
    );
    assert!(out.status.success());
    assert_eq!(stdout(&out), "disallowed\t/a\nallowed\t/b\n");
}

#[test]
fn a_missing_file_is_named_and_exits_2() {
    let out = botwarden(
        &["robots", "test", "no-such-robots.txt", "-a", "x", "/"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-robots.txt"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let unknown_profile = botwarden(&["robots", "test", "-", "-a", "x", "-p", "nope", "/"], b"");
    assert_eq!(unknown_profile.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown_profile.stderr).contains("rfc9309, google"));
    let no_urls = botwarden(&["robots", "test", "-", "-a", "x"], b"User-agent: *\n");
    assert_eq!(no_urls.status.code(), Some(2));
    let no_agent = botwarden(&["robots", "test", "-", "/"], b"");
    assert_eq!(no_agent.status.code(), Some(2));
}

#[test]
fn tokens_that_are_not_product_tokens_are_warned_about() {
    let out = botwarden(
        &["robots", "test", "-", "-a", "Googlebot/2.1", "/"],
        b"User-agent: googlebot\nDisallow: /\n",
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a product token"));
}

#[test]
fn many_urls_on_standard_input_cross_read_blocks() {
    let file = TempFile::new("robots.txt", ROBOTS.as_bytes());
    // Over a megabyte of URLs, so that lines straddle the reader's blocks.
    let mut input = String::new();
    let mut want = String::new();
    for i in 0..40_000 {
        let (url, verdict) = if i % 3 == 0 {
            (
                format!("https://example.com/search/{i}?q={i}"),
                "disallowed",
            )
        } else {
            (
                format!("/about/{i}/page-with-a-longer-name.html"),
                "allowed",
            )
        };
        input.push_str(&url);
        input.push_str(if i % 2 == 0 { "\n" } else { "\r\n" });
        want.push_str(&format!("{verdict}\t{url}\n"));
    }
    let out = botwarden(
        &["robots", "test", file.arg(), "--agent", "botwarden"],
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out) == want,
        "answers differ from the expected ones"
    );
}

#[test]
fn a_url_line_that_is_not_utf8_is_named_and_exits_2() {
    let file = TempFile::new("robots.txt", ROBOTS.as_bytes());
    let out = botwarden(
        &["robots", "test", file.arg(), "--agent", "botwarden"],
        b"/a\n/b\xff\n/c\n",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.contains("not UTF-8"), "{err}");
    // The answers before the bad line were written.
    assert_eq!(stdout(&out), "allowed\t/a\n");
}

/// A file of many wildcard rules that every URL meets: `/*aN*b*c$`, and
/// URLs that hold a `b` first, then the `aN`s, and end in `c`: no `b`
/// after an `aN`, so that every rule walks every URL to its end.
fn wildcard_flood(rules: usize) -> (String, String) {
    let mut file = String::from("User-agent: *\n");
    for n in 0..rules {
        file.push_str(&format!("Disallow: /*a{n}*b*c$\n"));
    }
    let mut urls = String::new();
    for k in 0..200 {
        let path: String = (0..40)
            .map(|i| format!("a{}", (k * 40 + i) % rules))
            .collect();
        urls.push_str(&format!("https://example.com/b{path}c\n"));
    }
    (file, urls)
}

#[test]
fn matching_work_over_the_bound_stops_with_an_error_naming_the_file() {
    let (robots, urls) = wildcard_flood(20_000);
    let file = TempFile::new("robots.txt", robots.as_bytes());
    let args = |work: &'static str| {
        vec![
            "robots",
            "test",
            file.arg(),
            "--agent",
            "botwarden",
            "--max-match-work",
            work,
        ]
    };
    // 20,000 rules walk each 200-byte URL: about 4 MB per URL, far over
    // one byte per byte of URL once the slack (64 MiB) is spent.
    let out = botwarden(&args("1"), urls.as_bytes());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("stopped after")
            && err.contains(file.arg())
            && err.contains("--max-match-work 0"),
        "{err}"
    );
    let answered = stdout(&out).lines().count();
    assert!(
        answered > 0 && answered < 200,
        "{answered} answers before the stop"
    );
    assert!(
        err.contains(&format!("stopped after {answered} URL(s)")),
        "{err}"
    );
    // Lifted, every URL is answered (none has a `b` after an `aN`).
    let first: String = urls.lines().take(20).map(|l| format!("{l}\n")).collect();
    let out = botwarden(&args("0"), first.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 20);
    let allowed = text.lines().filter(|l| l.starts_with("allowed\t")).count();
    assert_eq!(allowed, 20);
}

/// `--usage` against a table worked out by hand from the sources: the
/// attach draft's Figure 2 with a Cloudflare `Content-Signal` in a named
/// group and one before the first group. Expected, per robot and path:
/// the group reading, then the file-wide one where it differs.
#[test]
fn usage_answers_both_readings() {
    let file = TempFile::new(
        "robots.txt",
        b"Content-Signal: ai-input=no\n\
          \n\
          User-Agent: *\n\
          Allow: /\n\
          Disallow: /never/\n\
          Content-Usage: train-ai=n\n\
          Content-Usage: /ai-ok/ train-ai=y\n\
          \n\
          User-Agent: ExampleBot\n\
          Allow: /\n\
          Content-Usage: train-ai=y\n\
          Content-Signal: search=yes, ai-train=no\n",
    );
    let table = [
        (
            "otherbot",
            "/test",
            "allowed\t/test\tsearch=- train-ai=n ai-input=-\tfile-wide: search=y train-ai=n ai-input=n",
        ),
        (
            "otherbot",
            "/never/x",
            "disallowed\t/never/x\tusage n/a (may not fetch)",
        ),
        (
            "otherbot",
            "/ai-ok/x",
            "allowed\t/ai-ok/x\tsearch=- train-ai=y ai-input=-\tfile-wide: search=y train-ai=n ai-input=n",
        ),
        // ExampleBot: its Content-Usage allows training, its
        // Content-Signal refuses it; any `n` wins. File-wide, the signal
        // before the first group adds `ai-input=no`.
        (
            "ExampleBot",
            "/test",
            "allowed\t/test\tsearch=y train-ai=n ai-input=-\tfile-wide: search=y train-ai=n ai-input=n",
        ),
    ];
    for (agent, url, want) in table {
        let out = botwarden(
            &["robots", "test", file.arg(), "-a", agent, "--usage", url],
            b"",
        );
        assert!(out.status.success(), "{out:?}");
        assert_eq!(stdout(&out).trim_end(), want, "{agent} {url}");
    }
    let out = botwarden(
        &[
            "robots",
            "test",
            file.arg(),
            "-a",
            "ExampleBot",
            "--usage",
            "--explain",
            "/t",
        ],
        b"",
    );
    assert!(
        stdout(&out).contains("search=y (line 12) train-ai=n (line 12) ai-input=-"),
        "{}",
        stdout(&out)
    );
    let out = botwarden(
        &[
            "robots",
            "test",
            file.arg(),
            "-a",
            "otherbot",
            "--usage",
            "--format",
            "json",
            "/ai-ok/x",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON");
    assert_eq!(v["usage"]["group"]["train-ai"]["preference"], "y");
    assert_eq!(
        v["usage"]["group"]["train-ai"]["lines"],
        serde_json::json!([7])
    );
    assert_eq!(v["usage"]["file_wide"]["train-ai"]["preference"], "n");
    assert_eq!(v["usage"]["disagree"], true);
}
