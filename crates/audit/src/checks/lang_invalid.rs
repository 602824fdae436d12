//! `content/lang-invalid`: `<html lang>` values that are not language
//! tags.

use super::page_quality::q;
use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<html lang>` is not a well-formed language
    /// tag (BCP 47, RFC 5646: a language of 2 to 8 letters, then
    /// optionally extended languages, a script of 4 letters, a region of
    /// 2 letters or 3 digits, variants, extensions and a private use
    /// part, separated by hyphens), with why. `en_US` (an underscore),
    /// `englishlanguage` and `en-US-x` are reported; `de-CH-1996` and
    /// `en-US-x-twain` are not.
    /// Whether the subtags are registered is not checked.
    ///
    /// ## Why it matters
    /// Screen readers, browsers and search engines read the tag to know
    /// the language; one they cannot read is as good as none.
    ///
    /// ## Fix
    /// Write a tag such as `en`, `en-GB`, `pt-BR` or `zh-Hant`.
    "content/lang-invalid", Warning, "<html lang> values that are not language tags"
}

/// Why `tag` is not a well-formed language tag, if it is not.
pub(crate) fn invalid(tag: &str) -> Option<&'static str> {
    if tag.contains('_') {
        return Some("an underscore where a hyphen goes");
    }
    let parts: Vec<&str> = tag.split('-').collect();
    let alnum = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
    let alpha = |s: &str| s.bytes().all(|b| b.is_ascii_alphabetic());
    if parts.iter().any(|p| p.is_empty() || !alnum(p) || p.len() > 8) {
        return Some("empty, too long or not letters and digits between the hyphens");
    }
    let first = parts[0];
    if first.eq_ignore_ascii_case("x") || first.eq_ignore_ascii_case("i") {
        // Private use, or an irregular grandfathered tag (i-klingon).
        return (parts.len() < 2).then_some("a prefix without a subtag");
    }
    if !(2..=8).contains(&first.len()) || !alpha(first) {
        return Some("the language is not 2 to 8 letters");
    }
    let mut i = 1;
    // Extended languages (after a 2- or 3-letter language), then a script,
    // a region, variants.
    let mut extlangs = 0;
    while first.len() <= 3 && extlangs < 3 && parts.get(i).is_some_and(|p| p.len() == 3 && alpha(p)) {
        i += 1;
        extlangs += 1;
    }
    if parts.get(i).is_some_and(|p| p.len() == 4 && alpha(p)) {
        i += 1;
    }
    if parts.get(i).is_some_and(|p| {
        (p.len() == 2 && alpha(p)) || (p.len() == 3 && p.bytes().all(|b| b.is_ascii_digit()))
    }) {
        i += 1;
    }
    while parts.get(i).is_some_and(|p| {
        (5..=8).contains(&p.len()) || (p.len() == 4 && p.as_bytes()[0].is_ascii_digit())
    }) {
        i += 1;
    }
    // Extensions: a singleton other than x, then subtags of 2 to 8.
    while parts
        .get(i)
        .is_some_and(|p| p.len() == 1 && !p.eq_ignore_ascii_case("x"))
    {
        i += 1;
        let start = i;
        while parts.get(i).is_some_and(|p| p.len() >= 2) {
            i += 1;
        }
        if i == start {
            return Some("an extension without subtags");
        }
    }
    if parts.get(i).is_some_and(|p| p.eq_ignore_ascii_case("x")) {
        return (i + 1 >= parts.len()).then_some("a private use part without subtags");
    }
    (i < parts.len()).then_some("a subtag out of place (script, region, variant)")
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let lang = q("$.lang");
    let mut st = cx.conn.prepare(&format!(
        "SELECT u.url, {lang} FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.quality IS NOT NULL AND coalesce({lang}, '') != ''
         ORDER BY u.id"
    ))?;
    let mut rows = st.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let (url, tag): (String, String) = (r.get(0)?, r.get(1)?);
        if let Some(why) = invalid(&tag) {
            out.push(Finding::new(url, format!("lang=\"{tag}\": {why}")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_near_misses() {
        for ok in [
            "en", "EN-gb", "zh-Hant-TW", "es-419", "fil", "sr-Latn", "de-CH-1996",
            "en-US-x-twain", "x-whatever", "i-klingon", "zh-yue-HK", "sl-rozaj-biske",
            "en-a-bbb-x-a-ccc",
        ] {
            assert_eq!(invalid(ok), None, "{ok}");
        }
        for bad in [
            "en_US", "e", "en-", "-en", "en--us", "englishlanguage", "123", "en-US-x",
            "en-a", "de-419-DE", "a1b",
        ] {
            assert!(invalid(bad).is_some(), "{bad}");
        }
    }
}
