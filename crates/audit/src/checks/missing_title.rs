//! `content/missing-title`: HTML pages without a title.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page that answered `200` with no `<title>`, or one of
    /// white space only. Pages of other types (PDF, text, images) have no
    /// title to give and are not judged. As a check of the page's own
    /// head, the links to the page are not listed.
    ///
    /// ## Why it matters
    /// Search engines then write a title themselves from the page's text,
    /// and browsers show the address in tabs and bookmarks.
    ///
    /// ## Fix
    /// Add a `<title>` in the `<head>` that says what is on the page.
    "content/missing-title", Warning, "HTML pages without a title"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.title FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE {HTML_PAGE} AND trim(coalesce(p.title, '')) = ''
             ORDER BY u.id"
        ),
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)),
    )?;
    rows.into_iter()
        .map(|(_, url, title)| {
            let message = if title.is_some() {
                "its <title> is empty"
            } else {
                "it has no <title>"
            };
            Ok(Finding::new(url, message.to_owned()))
        })
        .collect()
}
