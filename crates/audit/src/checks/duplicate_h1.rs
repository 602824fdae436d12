//! `content/duplicate-h1`: HTML pages with the same `<h1>`.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every group of HTML pages whose first `<h1>` has the same
    /// non-empty text (white space collapsed) and not all the same body
    /// (those are `content/exact-duplicate`). One finding per group, at
    /// its first page in the order of discovery, with the others. Pages
    /// that name another URL as canonical are left out.
    ///
    /// ## Why it matters
    /// Pages with the same main heading look like the same page to
    /// visitors scanning results and to search engines choosing which to
    /// show; it often means a template heading ("Products") that should
    /// name the page's own subject.
    ///
    /// ## Fix
    /// Give each page a heading of its own.
    "content/duplicate-h1", Notice, "HTML pages with the same <h1>"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::duplicate_description::grouped(cx, "h1", &|n, h| {
        format!("{n} pages have the <h1> \"{h}\"")
    })
}
