//! `hreflang/invalid-code`: hreflang values that are not language codes.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page with hreflang alternates whose language is not of the
    /// form search engines accept: `x-default`, or a language (two or
    /// three letters), optionally a script (four letters) and a region
    /// (two letters or three digits), separated by hyphens (`en`,
    /// `en-GB`, `zh-Hant-TW`, `es-419`). `en_GB` (underscore), `english`,
    /// `en-` and the common `-UK` (the United Kingdom's code is `GB`) are
    /// reported. Case does not matter. The check reads the form, not the
    /// registry: a well-formed code no language has (`qq`) passes.
    ///
    /// ## Why it matters
    /// Search engines ignore an alternate whose code they cannot read: the
    /// version is then not offered to its language's searchers.
    ///
    /// ## Fix
    /// Use ISO 639-1 language codes and ISO 3166-1 alpha-2 region codes,
    /// joined by a hyphen.
    "hreflang/invalid-code", Warning, "hreflang values that are not language codes"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT s.id, s.url, l.anchor FROM head_links l JOIN urls s ON s.id = l.source_id
         WHERE l.kind = 'hreflang' ORDER BY l.source_id, l.position",
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        },
    )?;
    let mut out: Vec<Finding> = Vec::new();
    let mut last = None;
    let mut bad: Vec<String> = Vec::new();
    let mut flush = |last: Option<(i64, String)>, bad: &mut Vec<String>| {
        if let Some((_, url)) = last
            && !bad.is_empty()
        {
            let message = format!("hreflang {}", bad.join(", "));
            out.push(Finding::new(url, message));
        }
        bad.clear();
        Ok::<_, rusqlite::Error>(())
    };
    for (id, url, code) in rows {
        if last.as_ref().is_none_or(|(l, _)| *l != id) {
            flush(last.take(), &mut bad)?;
            last = Some((id, url));
        }
        let code = code.unwrap_or_default();
        if let Some(why) = invalid(&code) {
            bad.push(format!("\"{code}\" ({why})"));
        }
    }
    flush(last, &mut bad)?;
    Ok(out)
}

/// Why a hreflang value is not a language code, if it is not.
pub(crate) fn invalid(code: &str) -> Option<&'static str> {
    if code.eq_ignore_ascii_case("x-default") {
        return None;
    }
    if code.contains('_') {
        return Some("underscore instead of hyphen");
    }
    let mut parts = code.split('-');
    let lang = parts.next().unwrap_or_default();
    if !(2..=3).contains(&lang.len()) || !lang.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Some("not a two- or three-letter language");
    }
    let mut rest: Vec<&str> = parts.collect();
    if rest.first().is_some_and(|s| s.len() == 4) {
        if !rest[0].bytes().all(|b| b.is_ascii_alphabetic()) {
            return Some("not a script code");
        }
        rest.remove(0);
    }
    match rest.as_slice() {
        [] => None,
        [r] if r.eq_ignore_ascii_case("uk") => Some("UK is not a region code: GB"),
        [r] if r.len() == 2 && r.bytes().all(|b| b.is_ascii_alphabetic()) => None,
        [r] if r.len() == 3 && r.bytes().all(|b| b.is_ascii_digit()) => None,
        _ => Some("not a region code"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        for ok in ["en", "EN-gb", "x-default", "zh-Hant-TW", "es-419", "fil", "sr-Latn"] {
            assert_eq!(invalid(ok), None, "{ok}");
        }
        for bad in ["en_GB", "english", "en-", "en-UK", "", "e1", "en-GB-x", "zh-Ha1t"] {
            assert!(invalid(bad).is_some(), "{bad}");
        }
    }
}
