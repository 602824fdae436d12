//! `canonical/to-blocked`: canonicals that name a URL robots.txt blocks.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page whose canonical names a URL that robots.txt disallows
    /// (the reading the crawl obeyed), with the rule and its line.
    ///
    /// ## Why it matters
    /// A search engine cannot fetch the canonical target, so it cannot
    /// confirm it: the canonical is ignored, and the target may be indexed
    /// from links alone, without its content.
    ///
    /// ## Fix
    /// Name a URL robots.txt allows, or allow the target.
    "canonical/to-blocked", Warning, "canonicals that name a URL robots.txt disallows"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(
        "SELECT u.id, u.url, 'its canonical ' || p.canonical || ' is disallowed by ' ||
                coalesce(d.relaxed_rule || ' (line ' || d.relaxed_line || ')', 'robots.txt'),
                p.canonical
         FROM pages p JOIN urls u ON u.id = p.url_id
         JOIN urls c ON c.url = p.canonical JOIN robots_decisions d ON d.url_id = c.id
         WHERE p.canonical != u.url AND d.relaxed_allowed = 0
         ORDER BY u.id",
    )
}
