//! `hreflang/lang-mismatch`: pages whose `<html lang>` says another
//! language than the hreflang that names them.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<html lang>` names another language than an
    /// hreflang code the site gives the page: its own self-referencing
    /// alternate, or another page's alternate that points at it. The
    /// languages are compared by their primary subtag, in any case (`en`
    /// and `en-GB`, `zh-Hant` and `zh-TW` agree; `en` and `de` do not),
    /// since a region or script in one and not the other says nothing
    /// against it. One finding per page, with the disagreeing codes in the
    /// message and the pages that give them in `related`.
    ///
    /// Not judged: `x-default`; a page without a `lang`, or whose `lang` or
    /// code is not a well-formed tag (`content/lang-missing`,
    /// `content/lang-invalid` and `hreflang/invalid-code` report those).
    ///
    /// ## Why it matters
    /// One of the two is wrong: either the annotation sends searchers of
    /// one language to a page in another, or the page tells browsers,
    /// screen readers and translators the wrong language.
    ///
    /// ## Fix
    /// Correct the page's `lang` or the hreflang code (on every page that
    /// lists it).
    "hreflang/lang-mismatch", Warning, "pages whose lang says another language than their hreflang"
}

/// One hreflang link to a page with a `lang`.
struct Row {
    target: i64,
    target_url: String,
    lang: String,
    code: String,
    source_url: String,
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT t.id, t.url, json_extract(p.quality, '$.lang'), coalesce(l.anchor, ''), s.url
             FROM head_links l JOIN urls s ON s.id = l.source_id JOIN urls t ON t.id = l.target_id
             JOIN pages p ON p.url_id = t.id
             WHERE l.kind = 'hreflang' AND {HTML_PAGE} AND p.quality IS NOT NULL
               AND coalesce(json_extract(p.quality, '$.lang'), '') != ''
             ORDER BY t.id, l.source_id, l.position"
        ),
        |r| {
            Ok(Row {
                target: r.get(0)?,
                target_url: r.get(1)?,
                lang: r.get(2)?,
                code: r.get(3)?,
                source_url: r.get(4)?,
            })
        },
    )?;
    let mut out: Vec<Finding> = Vec::new();
    let mut last = None;
    for row in rows {
        if !disagree(&row.lang, &row.code) {
            continue;
        }
        if last != Some(row.target) {
            last = Some(row.target);
            out.push(Finding::new(row.target_url.clone(), String::new()));
        }
        if let Some(f) = out.last_mut() {
            add(f, &row);
        }
    }
    Ok(out)
}

/// Adds a disagreeing code and the page that gives it to a page's finding.
fn add(f: &mut Finding, row: &Row) {
    let code = format!("\"{}\"", row.code);
    if f.message.is_empty() {
        f.message = format!("lang=\"{}\", but hreflang names it {code}", row.lang);
    } else if !f.message.contains(&code) {
        f.message.push_str(", ");
        f.message.push_str(&code);
    }
    if !f.related.contains(&row.source_url) {
        f.related.push(row.source_url.clone());
    }
}

/// Whether a page's `lang` and an hreflang code name different primary
/// languages (both well formed, the code not `x-default`).
fn disagree(lang: &str, code: &str) -> bool {
    if code.eq_ignore_ascii_case("x-default")
        || super::lang_invalid::invalid(lang).is_some()
        || super::hreflang_invalid_code::invalid(code).is_some()
    {
        return false;
    }
    let primary = |t: &str| t.split('-').next().unwrap_or_default().to_ascii_lowercase();
    primary(lang) != primary(code)
}

#[cfg(test)]
mod tests {
    use super::disagree;

    #[test]
    fn primary_languages_are_compared() {
        assert!(disagree("en", "de"));
        assert!(disagree("EN-us", "fr-FR"));
        for (lang, code) in [
            ("en", "en-GB"),
            ("en-US", "EN"),
            ("zh-Hant", "zh-TW"),
            ("de", "x-default"),
            ("en_US", "de"),
            ("en", "de_DE"),
        ] {
            assert!(!disagree(lang, code), "{lang} {code}");
        }
    }
}
