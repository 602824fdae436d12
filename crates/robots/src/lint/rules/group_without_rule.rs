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
        out.push(
            Diagnostic::new(
                &LINT,
                cx.line_span(first),
                if star_only {
                    "this group has no rule: every robot without a group of its own may fetch everything; strict robots ignore the group".to_owned()
                } else {
                    format!(
                        "this group has no rule: for RFC 9309, Google, Bing and Yandex robots, {} may fetch everything and do not fall back to `*`; strict robots ignore the group",
                        names.join(", ")
                    )
                },
            )
            .help("add `Disallow:` to allow everything explicitly, or the rules that were meant")
            .fix("add `Disallow:`", vec![Edit { span: Span::new(at, at), replacement }]),
        );
    }
}
