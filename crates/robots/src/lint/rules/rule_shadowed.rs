//! R035 `rule-shadowed`: a rule that another rule makes useless.

use crate::lint::{Context, Diagnostic, Edit, Prefixes};

declare_lint! {
    /// ## What it does
    /// Finds rules that repeat an earlier rule of their group, and rules that
    /// strict robots never reach because an earlier rule of the group matches
    /// every path this one does.
    ///
    /// ## Why
    /// A repeated rule is noise. Strict robots obey the first matching rule,
    /// so after `Disallow: /shop` they never reach `Allow: /shop/help`, which
    /// robots that pick the longest match obey.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /shop
    /// Allow: /shop/help
    /// ```
    ///
    /// ## Fix
    /// Remove repeated rules; put the more specific rule first.
    "R035", "rule-shadowed", Info, "a rule that another rule makes useless"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let rules = cx.rules(block);
        // The values that are prefixes of each rule's, without comparing
        // every pair or every prefix of a long rule.
        let prefixes = Prefixes::new(&rules);
        let line = |k: usize| cx.line(rules[k].index).number;
        for (k, r) in rules.iter().enumerate() {
            if r.value.is_empty() {
                continue;
            }
            let mut chain = prefixes.chain(k);
            let own = chain.next().and_then(|node| node.first[usize::from(r.allow)]);
            if let Some(same) = own.filter(|&same| same < k) {
                out.push(
                    Diagnostic::new(&LINT, cx.line_span(r.index), format!("this rule repeats line {}", line(same)))
                        .help("remove the repeated rule")
                        .fix("remove the repeated rule", vec![Edit { span: cx.line_with_ending(r.index), replacement: String::new() }])
                        .caused_by(line(same)),
                );
                continue;
            }
            // The shortest earlier rule of the other kind whose literal
            // value is a proper prefix of this one.
            let cover = chain
                .filter(|node| node.literal)
                .filter_map(|node| node.first[usize::from(!r.allow)])
                .filter(|&o| o < k)
                .last();
            if let Some(o) = cover {
                out.push(
                    Diagnostic::new(
                        &LINT,
                        cx.line_span(r.index),
                        format!("strict robots never reach this rule: line {} matches every path it does first; robots that pick the longest match do obey it", line(o)),
                    )
                    .help("put the more specific rule first")
                    .caused_by(line(o)),
                );
            }
        }
    }
}
