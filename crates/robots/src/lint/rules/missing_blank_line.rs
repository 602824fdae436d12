//! R002 `missing-blank-line`: no blank line before a group.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::{LineKind, Span};

declare_lint! {
    /// ## What it does
    /// Finds groups that do not start after a blank line (comments directly
    /// above a group count as part of it).
    ///
    /// ## Why
    /// The 1994 standard separates records by blank lines. Modern robots
    /// start a new group at a `User-agent` line after rules, but old and
    /// strict parsers, and people reading the file, rely on the blank line.
    ///
    /// ## Example
    /// ```text
    /// User-agent: a
    /// Disallow: /x
    /// User-agent: b
    /// Disallow: /y
    /// ```
    ///
    /// ## Fix
    /// Insert a blank line before the group (and its comments).
    "R002", "missing-blank-line", Info, "no blank line before a group"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let lines = cx.txt.lines();
    for block in cx.blocks.iter().skip(1) {
        let Some(&first) = block.agents.first() else { continue };
        // Comments directly above a group belong to it.
        let mut top = first;
        while top > 0 && lines[top - 1].kind == LineKind::Comment {
            top -= 1;
        }
        if top == 0 || lines[top - 1].kind == LineKind::Blank {
            continue;
        }
        let ending = lines[top - 1].ending.as_str();
        let ending = if ending.is_empty() { "\n" } else { ending };
        let at = lines[top].span.start;
        out.push(
            Diagnostic::new(&LINT, cx.line_span(first), "no blank line before this group: 1994-standard robots expect one between records")
                .help("insert a blank line before the group")
                .fix("insert a blank line", vec![Edit { span: Span::new(at, at), replacement: ending.to_owned() }]),
        );
    }
}
