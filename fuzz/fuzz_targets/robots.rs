//! Fuzz target `robots`: arbitrary bytes through the whole engine.
//!
//! The input is `body [NUL tail]`: everything before the last NUL byte is
//! the robots.txt body (it may hold NULs of its own); the tail's first line
//! is a comma-separated token chain and its next lines are URLs. An input
//! without NUL is all body, which is how the seed files (real robots.txt
//! files) are read.
//!
//! For the body the target checks that parsing is lossless and numbers
//! lines consecutively; then, under every profile, it compiles the body
//! twice and asks a handful of URLs (the tail's, fixed ones, and paths made
//! from the file's own rules) with a handful of chains, and checks that
//!
//! - both compilations, `Robots::check`, `Matcher::check` and
//!   `Matcher::check_path` give the same decision;
//! - a deciding rule exists and names its own line;
//! - the decision is the one a naive matcher gives over the rules of the
//!   groups the matcher chose (longest match by pattern length with `allow`
//!   winning ties, or first match in file order; `*` and a final `$` by a
//!   quadratic dynamic programme).

#![no_main]

use botwarden_robots::{
    Decision, Profile, Reason, Robots, RobotsTxt, RuleChoice, RuleInfo, TokenChain, normalize_path,
    path_of,
};
use libfuzzer_sys::fuzz_target;

/// Above these sizes the naive reference is skipped (it is quadratic).
const REFERENCE_MAX_RULES: usize = 500;
const REFERENCE_MAX_PATH: usize = 2_048;

fuzz_target!(|data: &[u8]| {
    let (body, tail) = match data.iter().rposition(|&b| b == 0) {
        Some(nul) => (&data[..nul], &data[nul + 1..]),
        None => (data, &[][..]),
    };
    let tail = String::from_utf8_lossy(tail);
    let mut tail_lines = tail.split('\n');
    let tail_chain = tail_lines.next().map(TokenChain::parse);
    let tail_urls: Vec<&str> = tail_lines.take(8).collect();

    let txt = RobotsTxt::parse(body);
    check_lossless(&txt, body);
    check_checker(&txt);

    for profile in Profile::ALL {
        let robots = Robots::new(&txt, profile);
        let again = Robots::new(&txt, profile);

        let mut urls: Vec<String> = [
            "/",
            "/robots.txt",
            "/index.html",
            "http://example.com/a/b?c=d#e",
            "/%7Efoo/%E3%83%84?x=%2F",
            "/ツ/",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        urls.extend(tail_urls.iter().map(|s| (*s).to_owned()));
        for index in 0..robots.rule_count().min(6) as u32 {
            let pattern = robots.rule(index).pattern.into_owned();
            let concrete = pattern.trim_end_matches('$').replace('*', "x");
            urls.push(format!("{concrete}/more"));
            urls.push(concrete);
            urls.push(pattern);
        }

        let mut chains = vec![
            TokenChain::default(),
            TokenChain::parse("googlebot-image,googlebot"),
            TokenChain::parse("bingbot"),
            TokenChain::parse("YandexImages"),
        ];
        if let Some(agent) = robots.groups().flat_map(|g| g.agents()).next() {
            chains.push(TokenChain::new([agent.value]));
        }
        chains.extend(tail_chain.clone());

        for chain in &chains {
            let matcher = robots.matcher(chain);
            let other = again.matcher(chain);
            let mut rules: Vec<RuleInfo<'_>> = matcher
                .groups()
                .flat_map(|g| g.rules())
                .collect();
            rules.sort_by_key(|r| r.line);
            for url in &urls {
                let d = robots.check(chain, url);
                assert_eq!(d, matcher.check(url), "matcher differs for {url:?}");
                assert_eq!(
                    d,
                    matcher.check_path(path_of(url).as_bytes()),
                    "check_path differs for {url:?}"
                );
                assert_eq!(
                    d.allowed,
                    other.check(url).allowed,
                    "two compilations differ for {url:?}"
                );
                check_reason(&robots, d);
                check_reference(&matcher, &rules, profile, d, url);
            }
        }
    }
});

/// Lines reproduce the body exactly and are numbered 1, 2, 3, ...
/// The checker, the matrix and the fixer: no panic; spans inside the file;
/// applying every fix gives a parseable file; the fixer is idempotent and its
/// own equivalence check finds no unintended difference.
fn check_checker(txt: &RobotsTxt) {
    let diagnostics = botwarden_robots::check(txt);
    for d in &diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= txt.bytes().len(), "{} span out of the file", d.lint.code);
    }
    let _ = RobotsTxt::parse(botwarden_robots::apply_fixes(txt, &diagnostics));
    let matrix = botwarden_robots::Matrix::new(txt, &Profile::ALL, &[]);
    assert!(matrix.rows().all(|r| r.cells.len() == Profile::ALL.len()));
    let fixed = botwarden_robots::fix(txt);
    let equivalence = botwarden_robots::compare_fixed(txt, &fixed);
    assert!(
        equivalence.unintended().next().is_none(),
        "unintended difference: {:?}",
        equivalence.unintended().next()
    );
    let again = botwarden_robots::fix(&RobotsTxt::parse(fixed.text.as_bytes()));
    assert_eq!(again.text, fixed.text, "fixing a fixed file changed it");
    assert!(again.is_unchanged(), "fixing a fixed file reported changes: {:?}", again.changes);
}

fn check_lossless(txt: &RobotsTxt, body: &[u8]) {
    let mut rebuilt = Vec::with_capacity(body.len());
    if txt.has_bom() {
        rebuilt.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    for (i, line) in txt.lines().iter().enumerate() {
        assert_eq!(
            line.number as usize,
            i + 1,
            "line numbers are not consecutive"
        );
        assert_eq!(
            line.span.start,
            rebuilt.len(),
            "line {} does not start where the last ended",
            i + 1
        );
        rebuilt.extend_from_slice(txt.slice(line.span));
        rebuilt.extend_from_slice(line.ending.as_str().as_bytes());
    }
    assert!(rebuilt == body, "parse is not lossless");
    assert_eq!(txt.bytes(), body);
}

fn check_reason(robots: &Robots, d: Decision) {
    if let Reason::Rule { index, line } = d.reason {
        assert!(
            (index as usize) < robots.rule_count(),
            "rule index out of range"
        );
        let rule = robots.rule(index);
        assert_eq!(rule.line, line, "the reason's line is not its rule's");
        assert_eq!(
            d.allowed,
            rule.allow || rule.pattern.is_empty(),
            "the decision is not its rule's"
        );
    } else {
        assert!(d.allowed, "{:?} must allow", d.reason);
    }
}

/// The naive matcher: `*` anywhere, `$` only at the end.
fn glob(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    // row[j]: the pattern so far matches path[..j].
    let mut row = vec![false; path.len() + 1];
    row[0] = true;
    for &p in pattern {
        let mut next = vec![false; path.len() + 1];
        if p == b'*' {
            let mut any = false;
            for j in 0..=path.len() {
                any |= row[j];
                next[j] = any;
            }
        } else {
            for j in 0..path.len() {
                next[j + 1] = row[j] && path[j] == p;
            }
        }
        row = next;
    }
    if anchored {
        row[path.len()]
    } else {
        row.iter().any(|&b| b)
    }
}

fn check_reference(
    matcher: &botwarden_robots::Matcher<'_>,
    rules: &[RuleInfo<'_>],
    profile: &Profile,
    d: Decision,
    url: &str,
) {
    match d.reason {
        Reason::RobotsTxt => {
            assert!(
                profile.robots_txt_allowed,
                "RobotsTxt reason under {profile}"
            );
            return;
        }
        Reason::NoGroup => {
            assert_eq!(matcher.groups().count(), 0, "NoGroup with groups");
            return;
        }
        Reason::Rule { .. } | Reason::NoRuleMatched => {}
    }
    let raw = path_of(url);
    let path = normalize_path(raw.as_bytes(), profile.path_form);
    if path.len() > REFERENCE_MAX_PATH || rules.len() > REFERENCE_MAX_RULES {
        return;
    }
    let hit = |pattern: &[u8]| {
        let wild = pattern.contains(&b'*') || pattern.last() == Some(&b'$');
        if profile.wildcards && wild {
            glob(pattern, &path)
        } else {
            path.starts_with(pattern)
        }
    };
    let want = match profile.rule_choice {
        RuleChoice::LongestMatch => rules
            .iter()
            .filter(|r| r.priority > 0 && hit(r.pattern.as_bytes()))
            .max_by_key(|r| (r.priority, r.allow))
            .is_none_or(|r| r.allow),
        // `rules` is in file order.
        RuleChoice::FirstMatch => rules
            .iter()
            .find(|r| hit(r.pattern.as_bytes()))
            .is_none_or(|r| r.allow || r.pattern.is_empty()),
    };
    assert_eq!(
        d.allowed,
        want,
        "{profile}: fast matcher says {d:?} for {url:?} (path {:?}), naive matcher says allowed={want}",
        String::from_utf8_lossy(&path)
    );
}
