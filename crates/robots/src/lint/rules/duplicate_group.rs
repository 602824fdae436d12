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
    let managed = crate::managed::find(cx.txt);
    for (token, places) in seen {
        let [(_, first), rest @ ..] = &places[..] else { continue };
        let name = token.as_deref().map_or("*".to_owned(), |t| format!("`{t}`"));
        let lines: Vec<u32> = places.iter().map(|&(_, i)| cx.line(i).number).collect();
        let lines = line_list(&lines);
        for &(_, i) in rest {
            let line = cx.line(i).number;
            // A group of a CDN's managed block and one of the site's own:
            // the block is not the site's to edit.
            let across = managed.filter(|m| cx.line(*first).number < m.end && line > m.end);
            let help = match across {
                Some(m) => format!(
                    "the group on line {} is {}'s managed content, which its edge prepends to the site's file: leave both (RFC 9309 robots merge them), and change the managed part in {}'s settings",
                    cx.line(*first).number,
                    m.vendor,
                    m.vendor
                ),
                None => "merge the groups into one".to_owned(),
            };
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
                .help(help)
                .caused_by(cx.line(*first).number),
            );
        }
    }
}
