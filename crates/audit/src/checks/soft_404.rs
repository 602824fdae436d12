//! `content/soft-404`: pages that answer `200` but read as not found.

use crate::{Context, Finding, HTML_PAGE};

/// The most not-found pages of the site compared with (they are usually
/// one template).
const NOT_FOUND_PAGES: usize = 1000;

/// The most bits two SimHashes may differ in for a page to be the site's
/// not-found page (as `content/near-duplicate` reads nearness).
const MAX_DISTANCE: u32 = 3;

declare_check! {
    /// ## What it finds
    /// Every HTML page that answered `200` and either
    ///
    /// - has a title or first `<h1>` that says it is not found: `404` (as a
    ///   number of its own, so `E0404` is not), `not found`, `page not
    ///   found`, `cannot be found`, `can't be found`, `could not be
    ///   found`, `does not exist`,
    ///   `no longer exists`, `nicht gefunden`, `introuvable`, `no
    ///   encontrada`, `no encontrado`, `non trovata`, `não encontrada`,
    ///   `niet gevonden` (in any case); or
    /// - has the text of a page of the site that answered `404` or `410`
    ///   (their SimHashes at most 3 bits apart, as
    ///   `content/near-duplicate` reads nearness; the first 1,000 such
    ///   pages are compared), which is named in `related`.
    ///
    /// ## Why it matters
    /// A missing page that answers `200` is indexed as a page (an empty
    /// one, many times over), wastes crawl budget on URLs that should be
    /// dropped, and hides broken links from every tool that reads status
    /// codes.
    ///
    /// ## Fix
    /// Answer `404` (or `410`) for pages that do not exist, with the same
    /// friendly page as the body.
    "content/soft-404", Warning, "pages that answer 200 but read as not found"
}

/// The phrases that say a page is not found, lower case.
const PHRASES: &[&str] = &[
    "page not found",
    "not found",
    "cannot be found",
    "can't be found",
    "can’t be found",
    "could not be found",
    "does not exist",
    "no longer exists",
    "nicht gefunden",
    "introuvable",
    "no encontrada",
    "no encontrado",
    "non trovata",
    "não encontrada",
    "niet gevonden",
];

/// Why `text` (a title or heading) reads as a not-found page, if it does.
pub(crate) fn reads_not_found(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let bytes = lower.as_bytes();
    let alnum = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_alphanumeric);
    if lower
        .match_indices("404")
        .any(|(at, _)| (at == 0 || !alnum(at - 1)) && !alnum(at + 3))
    {
        return Some("404");
    }
    PHRASES.iter().copied().find(|p| lower.contains(p))
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut st = cx.conn.prepare(&format!(
        "SELECT p.simhash, u.url FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.status IN (404, 410) AND p.simhash IS NOT NULL ORDER BY u.id LIMIT {NOT_FOUND_PAGES}"
    ))?;
    let not_found: Vec<(u64, String)> = st
        .query_map([], |r| Ok((r.get::<_, i64>(0)?.cast_unsigned(), r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut st = cx.conn.prepare(&format!(
        "SELECT u.url, p.title, p.h1, p.simhash FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} ORDER BY u.id"
    ))?;
    let mut rows = st.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let (url, title, h1, simhash): (String, Option<String>, Option<String>, Option<i64>) =
            (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
        let said = [("title", title), ("<h1>", h1)]
            .into_iter()
            .find_map(|(what, text)| {
                let text = text?;
                reads_not_found(&text).map(|p| (what, text, p))
            });
        if let Some((what, text, phrase)) = said {
            out.push(Finding::new(
                url,
                format!("answers 200, and its {what} says \"{phrase}\": \"{text}\""),
            ));
            continue;
        }
        let Some(h) = simhash.map(i64::cast_unsigned) else {
            continue;
        };
        if let Some((bits, page)) = not_found
            .iter()
            .map(|(n, page)| ((n ^ h).count_ones(), page))
            .filter(|(bits, _)| *bits <= MAX_DISTANCE)
            .min_by_key(|(bits, _)| *bits)
        {
            let mut f = Finding::new(
                url,
                format!(
                    "answers 200 with the text of a page that answered not found ({bits} bit(s) of 64 apart)"
                ),
            );
            f.related = vec![page.clone()];
            out.push(f);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_that_read_as_not_found_and_near_misses() {
        for t in [
            "404",
            "Error 404 - Example",
            "Page Not Found",
            "Seite nicht gefunden",
            "Oops! That page can't be found",
        ] {
            assert!(reads_not_found(t).is_some(), "{t}");
        }
        for t in ["E0404", "Error code E0404", "Home", "The 4040 plan", "Found it"] {
            assert_eq!(reads_not_found(t), None, "{t}");
        }
    }
}
