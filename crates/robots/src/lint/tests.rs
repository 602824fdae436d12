//! Every lint against its own documented example, and the registry's
//! invariants.

use super::*;

/// The `text` block of a lint's `## Example` section.
fn example(lint: &Lint) -> Option<String> {
    let docs: Vec<&str> = lint.docs.lines().map(str::trim).collect();
    let start = docs.iter().position(|l| *l == "## Example")?;
    let open = start + docs[start..].iter().position(|l| l.starts_with("```"))? + 1;
    let close = open + docs[open..].iter().position(|l| l.starts_with("```"))?;
    let text = docs[open..close].join("\n");
    // Examples that describe bytes rather than show them.
    (!text.starts_with('(')).then(|| text.replace("\\u{FEFF}", "\u{FEFF}").replace("\\0", "\0"))
}

#[test]
fn codes_and_names_are_unique_and_in_order() {
    for (i, lint) in LINTS.iter().enumerate() {
        assert_eq!(lint.code, format!("R{:03}", i + 1), "{}", lint.name);
        assert!(
            LINTS.iter().filter(|l| l.name == lint.name).count() == 1,
            "{}",
            lint.name
        );
        for section in ["## What it does", "## Why", "## Example", "## Fix"] {
            assert!(lint.docs.contains(section), "{} lacks {section}", lint.code);
        }
    }
    assert_eq!(super::lint("R022").map(|l| l.name), Some("misspelt-key"));
    assert_eq!(super::lint("html").map(|l| l.code), Some("R031"));
}

#[test]
fn every_lint_fires_on_its_own_example() {
    let mut silent = Vec::new();
    for lint in LINTS {
        let Some(text) = example(lint) else { continue };
        let found = check(&RobotsTxt::parse(text.as_bytes().to_vec()));
        if !found.iter().any(|d| d.lint.code == lint.code) {
            silent.push(format!("{} {}: {text:?}", lint.code, lint.name));
        }
    }
    assert!(
        silent.is_empty(),
        "lints silent on their own example:\n{}",
        silent.join("\n")
    );
}

#[test]
fn fixes_remove_their_findings() {
    for lint in LINTS {
        let Some(text) = example(lint) else { continue };
        let txt = RobotsTxt::parse(text.as_bytes().to_vec());
        let found: Vec<Diagnostic> = check(&txt)
            .into_iter()
            .filter(|d| d.lint.code == lint.code && d.fix.is_some())
            .collect();
        if found.is_empty() {
            continue;
        }
        let fixed = RobotsTxt::parse(apply_fixes(&txt, &found));
        let again = check(&fixed)
            .into_iter()
            .filter(|d| d.lint.code == lint.code)
            .count();
        assert_eq!(
            again,
            0,
            "{} still fires after its fix: {:?}",
            lint.code,
            String::from_utf8_lossy(fixed.bytes())
        );
    }
}

#[test]
fn a_clean_file_has_no_findings() {
    let txt = RobotsTxt::parse(
        "# Example\nUser-agent: examplebot\nAllow: /private/press/\nDisallow: /private/\n\nUser-agent: *\nDisallow: /tmp/\n\nSitemap: https://example.com/sitemap.xml\n",
    );
    let found = check(&txt);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn robots_disagree_names_who_does_what() {
    let txt = RobotsTxt::parse("User-agent: *\nDisallow: /a%2fb\n");
    let found = check(&txt);
    let d = found
        .iter()
        .find(|d| d.lint.code == "R012")
        .expect("R012 fires");
    assert_eq!(
        d.message,
        "robots disagree on `/a%2fb`: allowed by google; disallowed by rfc9309, bing, yandex and strict (line 2)"
    );
    assert_eq!(txt.position(d.span.start), (2, 1));
}

#[test]
fn strict_readings_are_explained_once() {
    let txt = RobotsTxt::parse("User-agent: *\nDisallow: /shop\nAllow: /shop/help\n");
    let codes: Vec<&str> = check(&txt).iter().map(Diagnostic::code).collect();
    assert_eq!(codes, ["R035"]);
}

#[test]
fn lints_whose_examples_are_bytes() {
    let codes = |bytes: &[u8]| -> Vec<&'static str> {
        check(&RobotsTxt::parse(bytes.to_vec()))
            .iter()
            .map(Diagnostic::code)
            .collect()
    };
    assert!(codes(b"User-agent: *\nDisallow: /caf\xE9\n").contains(&"R025"));
    let long = format!("User-agent: *\nDisallow: /{}\n", "a".repeat(20_000));
    assert!(codes(long.as_bytes()).contains(&"R037"));
    let big = format!(
        "User-agent: *\n{}",
        "Disallow: /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n".repeat(12_000)
    );
    assert!(codes(big.as_bytes()).contains(&"R026"));
    assert!(codes(b"\xFF\xFEU\0s\0e\0r\0").contains(&"R032"));
    assert!(codes(&[0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2]).contains(&"R039"));
    assert!(codes(b"User-agent: *\nAllow: /x\n").contains(&"R007"));
}

#[test]
fn example_paths_are_what_crawlers_request() {
    assert_eq!(example_path("/*.pdf$"), "/x.pdf");
    assert_eq!(example_path("private"), "/private");
    assert_eq!(example_path("/café"), "/caf%C3%A9");
}

/// Found by fuzzing: a span computed in a lossily decoded line pointed past
/// the file when invalid UTF-8 came before the marker.
#[test]
fn spans_are_offsets_in_the_raw_bytes() {
    let txt = RobotsTxt::parse(b"Disallow: /\x89\x8d {{ x }}\n".to_vec());
    let found = check(&txt);
    let d = found
        .iter()
        .find(|d| d.code() == "R030")
        .expect("R030 fires");
    assert_eq!(&txt.bytes()[d.span.start..d.span.end], b"{{ x }}");
    for d in &found {
        assert!(
            d.span.end <= txt.bytes().len(),
            "{} span out of the file",
            d.code()
        );
    }
}

#[test]
fn strict_covers_are_the_first_earlier_prefix() {
    let rule = |index: usize, allow: bool, value: &str| RuleLine {
        index,
        allow,
        value: value.to_owned(),
    };
    let rules = [
        rule(0, false, "/b"),
        rule(1, true, "/a/x"),
        rule(2, false, "/a"),
        rule(3, true, "/a/x/y*"),
        rule(4, false, ""),
        rule(5, true, "/a"),
        rule(6, false, "/c"),
    ];
    assert_eq!(
        Context::strict_covers(&rules),
        [None, None, None, Some(1), None, Some(2), None]
    );
}

#[test]
fn rule_shadowed_finds_the_shortest_earlier_cover_of_the_other_kind() {
    let txt = RobotsTxt::parse(
        "User-agent: *\nDisallow: /a\nDisallow: /a/b\nAllow: /a/b/c\nAllow: /a/b/c\nAllow: /a*/d\n",
    );
    let found: Vec<(u32, String, Option<u32>)> = check(&txt)
        .into_iter()
        .filter(|d| d.code() == "R035")
        .map(|d| (txt.position(d.span.start).0, d.message, d.cause))
        .collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0].0, 4);
    assert!(found[0].1.contains("line 2 matches"), "{found:#?}");
    assert_eq!(found[0].2, Some(2));
    assert_eq!((found[1].0, found[1].2), (5, Some(4)), "a repeat");
    // `/a*/d` starts with `/a`, literally.
    assert_eq!((found[2].0, found[2].2), (6, Some(2)));
}

#[test]
fn robots_disagree_asks_about_a_spread_of_the_rules_past_its_bound() {
    let mut text = String::from("User-agent: *\n");
    for i in 0..3_000 {
        text.push_str(&format!("Disallow: /p{i}/\nDisallow: /*q{i}*z$\n"));
    }
    let checked = check_bounded(&RobotsTxt::parse(text.as_str()));
    let sampled = checked
        .sampled
        .iter()
        .find(|s| s.lint.code == "R012")
        .expect("R012 sampled");
    assert_eq!(sampled.total, 3_000);
    assert!(
        sampled.asked > 0 && sampled.asked < sampled.total,
        "{sampled:?}"
    );
    // Each question may try every wildcard rule under the four profiles
    // with wildcards; strict robots try the one user-agent line.
    let each = 4 * (1 + 3_000) + (1 + 1);
    assert!(sampled.asked as u64 * each <= LINT_WORK);
    // A small file is looked at whole.
    let small = check_bounded(&RobotsTxt::parse("User-agent: *\nDisallow: /a%2fb\n"));
    assert!(small.sampled.is_empty());
    assert_eq!(
        small.diagnostics,
        check(&RobotsTxt::parse("User-agent: *\nDisallow: /a%2fb\n"))
    );
}
