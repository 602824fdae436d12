//! Fuzz target `check`: arbitrary bytes through what `botwarden robots
//! check` and `botwarden robots fix` do with a file.
//!
//! The whole input is the robots.txt body (NULs included). The target builds
//! the check report (findings, folding, the interpretation matrix under every
//! profile, the fixer and its proof), renders it as text (folded and
//! verbose, the matrix's disagreeing rows and all rows), JSON and SARIF, and
//! builds and renders the fix report, and checks that
//!
//! - the JSON and SARIF renderings are JSON documents;
//! - every finding's span lies inside the file;
//! - the fix report's file parses, and the fixer's proof holds.
//!
//! Its purpose is speed as much as panics: run it with a per-input time
//! limit and large inputs (`fuzz/README.md`), so that an input whose cost
//! grows faster than its size is reported as a timeout.

#![no_main]

use botwarden_robots::RobotsTxt;
use botwarden_robots::report::{
    CheckReport, FixReport, TextView, check_json, check_sarif, check_text, fix_text,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let txt = RobotsTxt::parse(data);
    let report = CheckReport::new("robots.txt", &txt, &[], &[], None);
    for d in &report.diagnostics {
        assert!(
            d.span.start <= d.span.end && d.span.end <= data.len(),
            "{} span {:?} out of the file",
            d.lint.code,
            d.span
        );
    }
    for (verbose, all_rows) in [(false, false), (true, true)] {
        let text = check_text(&report, TextView { verbose, all_rows });
        assert!(text.contains("robots.txt"), "the text names no file");
    }
    let json = check_json(&report).expect("the check report serialises");
    serde_json::from_str::<serde_json::Value>(&json).expect("check JSON is JSON");
    let sarif = check_sarif(&report).expect("the SARIF report serialises");
    serde_json::from_str::<serde_json::Value>(&sarif).expect("SARIF is JSON");

    let fixed = FixReport::new("robots.txt", &txt);
    let _ = RobotsTxt::parse(fixed.fixed.text.as_bytes());
    assert!(
        fixed.equivalence.holds(),
        "the fixer's proof fails: {:?}",
        fixed.equivalence.unintended().next()
    );
    let _ = fix_text(&fixed, true);
});
