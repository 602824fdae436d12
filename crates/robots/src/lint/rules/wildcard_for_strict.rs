//! R010 `wildcard-for-strict`: a wildcard that strict robots read literally.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds rules whose pattern contains `*` or ends with `$`.
    ///
    /// ## Why
    /// Wildcards are an extension (RFC 9309 §2.2.3): the 1994 standard and
    /// the 1997 draft compare paths by prefix, so strict robots read `*` and
    /// `$` literally and the rule matches almost nothing for them.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /*.pdf$
    /// ```
    ///
    /// ## Fix
    /// Nothing, if strict robots do not matter; otherwise add a prefix rule
    /// for them.
    "R010", "wildcard-for-strict", Info, "a wildcard that strict robots read literally"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let rules = cx.rules(block);
        let covers = Context::strict_covers(&rules);
        for (r, cover) in rules.iter().zip(covers) {
            if !r.value.contains('*') && !r.value.ends_with('$') {
                continue;
            }
            let verb = if r.allow { "allows" } else { "disallows" };
            let mut d = Diagnostic::new(
                &LINT,
                cx.line_span(r.index),
                format!("strict (1994/1997) robots read `*` and `$` literally: for them this rule {verb} only paths that start with `{}`", r.value),
            );
            // Strict robots never reach a rule that an earlier one covers:
            // the note follows from that line.
            if let Some(c) = cover {
                d = d.caused_by(cx.line(rules[c].index).number);
            }
            out.push(d);
        }
    }
}
