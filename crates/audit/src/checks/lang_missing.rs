//! `content/lang-missing`: HTML pages that do not say their language (`<html lang>`).

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<html>` element has no `lang` attribute, or
    /// an empty one.
    ///
    /// ## Why it matters
    /// Screen readers choose their voice and pronunciation by it,
    /// browsers their hyphenation, spelling and translation offers; search
    /// engines guess instead.
    ///
    /// ## Fix
    /// Write the page's language on `<html>`: `<html lang="en">`.
    "content/lang-missing", Notice, "HTML pages that do not say their language (<html lang>)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("coalesce({}, '') = ''", q("$.lang")), &format!("CASE WHEN {} IS NULL THEN 'no lang attribute on <html>' ELSE 'an empty lang attribute' END", q("$.lang")), "NULL")
}
