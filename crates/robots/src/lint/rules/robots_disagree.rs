//! R012 `robots-disagree`: robots resolve this rule differently.

use crate::lint::{Context, Diagnostic, RuleLine, example_path};
use crate::profile::{Profile, name_list};
use crate::robots::{Cut, Reason};

declare_lint! {
    /// ## What it does
    /// Finds rules for whose own path robots that pick the longest match
    /// (RFC 9309, Google, Bing, Yandex) reach different decisions, and says
    /// what strict robots do too. Wildcards, `/robots.txt` and strict
    /// robots' first-match reading have lints of their own (R010, R011,
    /// R035).
    ///
    /// ## Why
    /// Google compares the URL as given with percent-escaped patterns, RFC
    /// 9309 robots normalise both sides, and profiles read keys and groups
    /// differently, so the same rule can decide one way for one robot and
    /// the other way for another; the message says which robot does what,
    /// and which line decides for it.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /a%2fb
    /// ```
    ///
    /// ## Fix
    /// Order rules from the most specific to the least (the fixer puts allows
    /// first), or remove the overlap.
    "R012", "robots-disagree", Warning, "robots resolve this rule differently"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // The rules to ask about: every literal rule, or an even spread of
    // them when asking about each would take too long.
    let mut asked: Vec<(usize, RuleLine)> = Vec::new();
    for (b, block) in cx.blocks.iter().enumerate() {
        for r in cx.rules(block) {
            if r.value.is_empty() || r.value.contains('*') || r.value.ends_with('$') || r.value.contains("robots.txt") {
                continue;
            }
            asked.push((b, r));
        }
    }
    let total = asked.len();
    let k = cx.affordable(total);
    if k < total {
        asked = (0..k).map(|i| asked[i * total / k].clone()).collect();
    }
    cx.sample(&LINT, asked.len(), total);
    // The robot of a block and its matchers, for every rule of the block.
    let mut at: Option<usize> = None;
    let mut matchers = Vec::new();
    for (b, r) in asked {
        if at != Some(b) {
            matchers = cx.matchers(&cx.robot_of(&cx.blocks[b]));
            at = Some(b);
        }
        {
            let path = example_path(&r.value);
            // Profiles that do not read this line at all (a size limit,
            // which R026 reports) are left out.
            let end = cx.line_span(r.index).end;
            let unread = |name: &str| match cx.robots_named(name).cut() {
                Some(Cut::FileIgnored { .. }) => true,
                Some(Cut::Truncated { at }) => end > at,
                None => false,
            };
            let decisions: Vec<(&str, bool, Option<u32>)> = matchers
                .iter()
                .filter(|(name, _)| !unread(name))
                .map(|(name, m)| {
                    let d = m.check(&path);
                    let line = match d.reason {
                        Reason::Rule { line, .. } => Some(line),
                        _ => None,
                    };
                    (*name, d.allowed, line)
                })
                .collect();
            // Strict robots' own reading (first match, no wildcards) is
            // explained by R009, R010 and R035; report what splits the
            // robots that pick the longest match.
            let longest: Vec<_> = decisions.iter().filter(|d| d.0 != Profile::STRICT.name).collect();
            if longest.iter().all(|d| d.1 == longest[0].1) || longest.len() < 2 {
                continue;
            }
            let side = |allowed: bool| {
                let names: Vec<&str> = decisions.iter().filter(|d| d.1 == allowed).map(|d| d.0).collect();
                let mut lines: Vec<u32> = decisions.iter().filter(|d| d.1 == allowed).filter_map(|d| d.2).collect();
                lines.dedup();
                let why = match lines.as_slice() {
                    [] => String::new(),
                    [l] => format!(" (line {l})"),
                    many => format!(" (lines {})", many.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
                };
                format!("{}{why}", name_list(&names))
            };
            out.push(
                Diagnostic::new(&LINT, cx.line_span(r.index), format!("robots disagree on `{path}`: allowed by {}; disallowed by {}", side(true), side(false)))
                    .help("write the rule so that every robot reads it alike (upper-case percent-escapes, no overlap)"),
            );
        }
    }
}
