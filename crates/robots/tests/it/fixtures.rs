//! The data-driven cases of `testdata/robots/`, through the library.

use botwarden_robots::{Profile, Robots, TokenChain};
use botwarden_testdata::{PROFILES, robots_cases};

#[test]
fn every_case_under_every_profile() {
    let cases = robots_cases();
    assert!(
        cases.len() >= 40,
        "expected the full fixture set, found {}",
        cases.len()
    );
    let mut wrong = Vec::new();
    let mut checked = 0;
    for case in &cases {
        let chain = TokenChain::parse(&case.agent);
        for name in PROFILES {
            let profile = Profile::by_name(name).expect("fixture profile exists");
            let robots = Robots::parse(case.robots.clone(), profile);
            for check in &case.checks {
                checked += 1;
                let got = robots.is_allowed(&chain, &check.url);
                if got != check.allowed_under(name) {
                    wrong.push(format!(
                        "{} [{name}] {} (§{}): expected {}, got {}",
                        case.id,
                        check.url,
                        case.design,
                        if check.allowed_under(name) {
                            "allowed"
                        } else {
                            "disallowed"
                        },
                        if got { "allowed" } else { "disallowed" },
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} checks failed:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_design_section_has_cases() {
    let cases = robots_cases();
    for section in ["2.1", "2.2", "2.3", "2.4"] {
        assert!(
            cases.iter().any(|c| c.design == section),
            "no fixture pins down DESIGN §{section}"
        );
    }
}
