//! R035 `rule-shadowed`: a rule that another rule makes useless.

use std::collections::{BTreeSet, HashMap};

use crate::lint::{Context, Diagnostic, Edit, RuleLine};

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
    let literal = |v: &str| !v.contains('*') && !v.ends_with('$');
    for block in &cx.blocks {
        // Earlier rules by (value, kind), to find repeats and covering
        // prefixes without comparing every pair; the lengths of the earlier
        // literal values of each kind, so that only prefixes that one of
        // them could equal are looked up (a long rule costs its length
        // times the number of distinct lengths, not its length squared).
        let mut earlier: HashMap<(&str, bool), &RuleLine> = HashMap::new();
        let mut lengths: [BTreeSet<usize>; 2] = Default::default();
        let rules = cx.rules(block);
        for r in &rules {
            if r.value.is_empty() {
                continue;
            }
            let line = |o: &RuleLine| cx.line(o.index).number;
            if let Some(same) = earlier.get(&(r.value.as_str(), r.allow)) {
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
            let cover = lengths[usize::from(!r.allow)]
                .range(1..r.value.len())
                .filter(|&&n| r.value.is_char_boundary(n))
                .filter_map(|&n| earlier.get(&(&r.value[..n], !r.allow)))
                .find(|o| literal(&o.value));
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
            earlier.entry((r.value.as_str(), r.allow)).or_insert(r);
            if literal(&r.value) {
                lengths[usize::from(r.allow)].insert(r.value.len());
            }
        }
    }
}
