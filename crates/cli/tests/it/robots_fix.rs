//! `botwarden robots fix`.

use crate::{TempFile, botwarden};

const MESSY: &[u8] = b"\xEF\xBB\xBFUser-agent: *\r\nDisalow: /private # keep out\r\nAllow: /\r\nDisallow: /shop\r\nAllow: /shop/help\r\nSitemap: https://example.com/sitemap.xml\r\n\r\nUser-agent: examplebot\r\n";

#[test]
fn fixes_and_proves_the_meaning_unchanged() {
    let file = TempFile::new("robots.txt", MESSY);
    let out = botwarden(&["robots", "fix", file.arg()], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(
        fixed,
        "User-agent: examplebot\nDisallow:\n\nUser-agent: *\n# keep out\nDisallow: /private\nAllow: /shop/help\nDisallow: /shop\nAllow: /\n\nSitemap: https://example.com/sitemap.xml\n",
    );
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(summary.contains("[key-spelling]"), "{summary}");
    assert!(summary.contains("no unintended difference"), "{summary}");
}

#[test]
fn fixing_a_fixed_file_changes_nothing() {
    let file = TempFile::new("robots.txt", MESSY);
    let first = botwarden(&["robots", "fix", file.arg()], b"");
    let again = botwarden(&["robots", "fix", "-"], &first.stdout);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(again.stdout, first.stdout);
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to fix"));
}

#[test]
fn writes_to_a_file_with_o() {
    let file = TempFile::new("robots.txt", MESSY);
    let target = file.path.with_file_name("fixed.txt");
    let target_arg = target.to_str().expect("UTF-8 path");
    let out = botwarden(&["robots", "fix", file.arg(), "-o", target_arg], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&target).expect("the fixed file");
    assert!(written.starts_with("User-agent: examplebot\n"), "{written}");
}

#[test]
fn check_reports_what_fix_would_do() {
    let file = TempFile::new("robots.txt", MESSY);
    let out = botwarden(&["robots", "check", file.arg(), "--format", "json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        v["fix"]["changes"].as_u64().is_some_and(|n| n > 0),
        "{}",
        v["fix"]
    );
    assert_eq!(v["fix"]["unintended_differences"], 0);
}

#[test]
fn many_changes_of_a_kind_are_counted_and_verbose_lists_each() {
    let mut body = String::new();
    for i in 0..20 {
        body.push_str(&format!("User-agent: bot\nDisallow: /p{i}/\n\n"));
    }
    let out = botwarden(&["robots", "fix", "-"], body.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let summary = String::from_utf8_lossy(&out.stderr);
    let listed = summary.matches("[groups-merged] the group").count();
    assert_eq!(listed, 5, "{summary}");
    assert!(
        summary.contains("… and 14 more [groups-merged] change(s) (--verbose lists each)"),
        "{summary}"
    );
    let verbose = botwarden(&["robots", "fix", "-", "--verbose"], body.as_bytes());
    let summary = String::from_utf8_lossy(&verbose.stderr);
    assert_eq!(
        summary.matches("[groups-merged] the group").count(),
        19,
        "{summary}"
    );
}
