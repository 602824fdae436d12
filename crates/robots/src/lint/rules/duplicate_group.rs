//! R004 `duplicate-group`: several groups name the same robot.

use std::collections::BTreeMap;

use crate::lint::{Context, Diagnostic, line_list};

declare_lint! {
    /// ## What it does
    /// Finds robots (product tokens, or `*`) named by more than one group.
    ///
    /// ## Why
    /// RFC 9309, Google, Bing and Yandex robots merge all the groups that
    /// name them; strict robots read only the first. The two readings differ
    /// as soon as the later groups have rules.
    ///
    /// ## Example
    /// ```text
    /// User-agent: googlebot
    /// Disallow: /a
    ///
    /// User-agent: googlebot
    /// Disallow: /b
    /// ```
    ///
    /// ## Fix
    /// Merge the groups into one.
    "R004", "duplicate-group", Warning, "several groups name the same robot"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<Option<String>, Vec<(usize, usize)>> = BTreeMap::new();
    for (b, block) in cx.blocks.iter().enumerate() {
        for &i in &block.agents {
            let list = seen.entry(cx.token(i)).or_default();
            if list.last().is_none_or(|&(lb, _)| lb != b) {
                list.push((b, i));
            }
        }
    }
    for (token, places) in seen {
        let [(_, first), rest @ ..] = &places[..] else { continue };
        let name = token.as_deref().map_or("*".to_owned(), |t| format!("`{t}`"));
        let lines: Vec<u32> = places.iter().map(|&(_, i)| cx.line(i).number).collect();
        let lines = line_list(&lines);
        for &(_, i) in rest {
            out.push(
                Diagnostic::new(
                    &LINT,
                    cx.line_span(i),
                    format!(
                        "{name} is named by {} groups (lines {}): RFC 9309, Google, Bing and Yandex robots merge them; strict robots read only the first (line {})",
                        places.len(),
                        lines,
                        cx.line(*first).number
                    ),
                )
                .help("merge the groups into one")
                .caused_by(cx.line(*first).number),
            );
        }
    }
}
