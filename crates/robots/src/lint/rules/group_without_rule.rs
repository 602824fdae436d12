//! R007 `group-without-rule`: a group without any allow or disallow.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds groups that have user-agent lines but no `Allow` or
    /// `Disallow`, and groups with `Allow` lines but no `Disallow`.
    ///
    /// ## Why
    /// A group with no rule still claims its robots: RFC 9309, Google, Bing
    /// and Yandex robots named there may fetch everything and no longer fall
    /// back to `*`. The 1994 standard requires at least one `Disallow` line
    /// per record, and strict robots drop a record without one, so they do
    /// fall back to `*`.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /private
    ///
    /// User-agent: examplebot
    /// ```
    ///
    /// ## Fix
    /// Add `Disallow:` (allow everything) to say it explicitly, or the rules
    /// that were meant.
    "R007", "group-without-rule", Warning, "a group without any allow or disallow"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let rules = cx.rules(block);
        if let Some(first_allow) = rules.first().filter(|_| rules.iter().all(|r| r.allow)) {
            // Rules, but no `Disallow`: the 1994 standard requires one.
            out.push(
                Diagnostic::new(
                    &LINT,
                    cx.line_span(first_allow.index),
                    "this group has `Allow` lines but no `Disallow`: the 1994 standard requires at least one `Disallow` per record",
                )
                .help("add `Disallow:` after the allows"),
            );
            continue;
        }
        if !rules.is_empty() {
            continue;
        }
        let Some(&first) = block.agents.first() else { continue };
        let names: Vec<String> = block.agents.iter().map(|&i| format!("`{}`", cx.value(i))).collect();
        let star_only = block.agents.iter().all(|&i| cx.token(i).is_none());
        let last = block.members.last().or(block.agents.last()).copied().unwrap_or(first);
        let line = cx.line(last);
        let ending = if line.ending.as_str().is_empty() { "\n" } else { line.ending.as_str() };
        let (at, replacement) = if line.ending.as_str().is_empty() {
            (line.span.end, format!("{ending}Disallow:"))
        } else {
            (line.span.end + ending.len(), format!("Disallow:{ending}"))
        };
        let message = if star_only {
            "this group has no rule: every robot without a group of its own may fetch everything; strict robots ignore the group".to_owned()
        } else {
            named_message(cx, block, &names)
        };
        out.push(
            Diagnostic::new(&LINT, cx.line_span(first), message)
            .help("add `Disallow:` to allow everything explicitly, or the rules that were meant")
            .fix("add `Disallow:`", vec![Edit { span: Span::new(at, at), replacement }]),
        );
    }
}

/// What each profile makes of a rule-less group naming robots, from the
/// profiles' own answers: which let them fetch everything, and which read
/// the group with rules from elsewhere (Google reads user-agent lines
/// without rules together with the next group's).
fn named_message(cx: &Context<'_>, block: &crate::lint::Block, names: &[String]) -> String {
    use crate::profile::AgentMatch;
    let robot = cx.robot_of(block);
    let first_line = block.agents.first().map_or(0, |&i| cx.line(i).number);
    let mut elsewhere: Vec<(&'static str, u32)> = Vec::new();
    let everything = crate::lint::readers(|p| {
        if p.agent_match != AgentMatch::ProductToken {
            return false;
        }
        let m = cx.robots(p).matcher(&robot);
        let rules: Vec<u32> = m.groups().flat_map(|g| g.rules().map(|r| r.line)).collect();
        match rules.first() {
            None => true,
            Some(&line) => {
                if m.groups().any(|g| g.agents().any(|a| a.line == first_line)) {
                    elsewhere.push((p.name, line));
                }
                false
            }
        }
    });
    let mut message = format!("this group has no rule: for {everything}, {} may fetch everything and do not fall back to `*`", names.join(", "));
    for (profile, line) in elsewhere {
        let who = crate::lint::readers(|p| p.name == profile);
        message.push_str(&format!("; {who} read these user-agent lines with the rules that follow them (line {line})"));
    }
    message.push_str("; strict robots ignore the group");
    message
}
