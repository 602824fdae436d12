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
    ] {
        assert!(d.get(key).is_some(), "diagnostic lacks {key}: {d}");
    }
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
