//! R003 `blank-line-in-group`: a blank line inside a group.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::LineKind;

declare_lint! {
    /// ## What it does
    /// Finds blank lines between the user-agent lines of a group and its last
    /// rule.
    ///
    /// ## Why
    /// RFC 9309 robots ignore blank lines, but 1994-standard robots end a
    /// record at a blank line: user-agent lines followed by a blank line form
    /// no record, and rules after a blank line belong to no record, so strict
    /// robots ignore them.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    ///
    /// Disallow: /private
    /// ```
    ///
    /// ## Fix
    /// Remove the blank line.
    "R003", "blank-line-in-group", Warning, "a blank line inside a group"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let lines = cx.txt.lines();
    for block in &cx.blocks {
        let (Some(&first), Some(&last)) = (block.agents.first(), block.members.last().or(block.agents.last())) else {
            continue;
        };
        let first_member = block.members.first().copied().unwrap_or(usize::MAX);
        for (i, line) in lines.iter().enumerate().take(last).skip(first) {
            if line.kind != LineKind::Blank {
                continue;
            }
            // Members are in line order: the ones below are found by
            // binary search, not counted anew for every blank line.
            let rules_below = block.members.len() - block.members.partition_point(|&m| m <= i);
            let message = if i < first_member {
                "strict (1994) robots end the record at this blank line: for them the user-agent lines above have no rules".to_owned()
            } else {
                format!("strict (1994) robots stop reading the group at this blank line: they ignore the {rules_below} line(s) below it")
            };
            out.push(
                Diagnostic::new(&LINT, cx.line_span(i), message)
                    .help("remove the blank line; RFC 9309, Google, Bing and Yandex robots read the group the same either way")
                    .fix("remove the blank line", vec![Edit { span: cx.line_with_ending(i), replacement: String::new() }]),
            );
        }
    }
}
