//! `encoding/charset-missing`: HTML pages that do not say their encoding.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page that declares its character encoding nowhere: no
    /// `charset` in the `Content-Type` header, no `<meta charset>` (or
    /// `http-equiv="content-type"`), no byte-order mark. The finding says
    /// what the crawl read it as (UTF-8 when the bytes are valid UTF-8,
    /// else windows-1252, as browsers do).
    ///
    /// ## Why it matters
    /// Browsers and robots then guess; a guess that differs from what was
    /// meant turns every accented letter into mojibake (`Ã©` for `é`),
    /// and the guess can change from one browser or visit to another.
    ///
    /// ## Fix
    /// Send `Content-Type: text/html; charset=utf-8` and put `<meta
    /// charset="utf-8">` first in the `<head>`.
    "encoding/charset-missing", Notice, "HTML pages that declare no character encoding"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'no charset in Content-Type, no <meta charset>, no byte-order mark; '
                || 'read as ' || coalesce(p.charset, 'unknown'), NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.description_count IS NOT NULL AND p.header_charset IS NULL
           AND p.meta_charset IS NULL AND p.bom IS NULL
         ORDER BY u.id"
    ))
}
