//! `encoding/charset-conflict`: encodings declared in ways that disagree.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose declarations of its character encoding name
    /// different encodings: the `Content-Type` header's `charset`, the
    /// `<meta charset>` (or `http-equiv="content-type"`), and a byte-order
    /// mark. Labels are compared by the encoding they name (`utf8` and
    /// `UTF-8` agree; `latin1` and `iso-8859-1` are both windows-1252, as
    /// browsers read them). A label no browser knows is reported too. The
    /// finding says what the crawl read the page as: a byte-order mark
    /// first, then the header, then the `<meta>`.
    ///
    /// ## Why it matters
    /// Browsers follow that order and ignore the rest: when the losing
    /// declaration is the true one (a header set by the server for every
    /// file, a page saved in another encoding), the text is garbled for
    /// visitors and robots alike.
    ///
    /// ## Fix
    /// Save the page in UTF-8 and declare UTF-8 everywhere, or make the
    /// header and the `<meta>` say the encoding the file is in.
    "encoding/charset-conflict", Warning, "header, <meta> and byte-order mark name different encodings"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.header_charset, p.meta_charset, p.bom, p.charset
             FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE {HTML_PAGE} AND (p.header_charset IS NOT NULL OR p.meta_charset IS NOT NULL
                                    OR p.bom IS NOT NULL)
             ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                [
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ],
                r.get::<_, Option<String>>(5)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for (_, url, [header, meta, bom], read_as) in rows {
        if let Some(problem) = conflict(header.as_deref(), meta.as_deref(), bom.as_deref()) {
            let message = format!("{problem}; read as {}", read_as.unwrap_or_default());
            out.push(Finding::new(url, message));
        }
    }
    Ok(out)
}

/// What is wrong with a page's declarations, if anything.
pub(crate) fn conflict(header: Option<&str>, meta: Option<&str>, bom: Option<&str>) -> Option<String> {
    let named = [("the header", header), ("<meta>", meta), ("the byte-order mark", bom)];
    let mut seen: Vec<(&str, &str, &'static encoding_rs::Encoding)> = Vec::new();
    let mut unknown = Vec::new();
    for (place, label) in named {
        let Some(label) = label else { continue };
        match encoding_rs::Encoding::for_label(label.trim().as_bytes()) {
            Some(e) => seen.push((place, label, e)),
            None => unknown.push(format!("{place} names the unknown charset \"{label}\"")),
        }
    }
    let mut problems = unknown;
    if let Some((first_place, first_label, first)) = seen.first()
        && let Some((place, label, _)) = seen.iter().find(|(_, _, e)| e != first)
    {
        problems.push(format!(
            "{first_place} says {first_label}, {place} says {label}"
        ));
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_compared_by_encoding() {
        assert_eq!(conflict(Some("UTF-8"), Some("utf8"), None), None);
        assert_eq!(conflict(Some("latin1"), Some("ISO-8859-1"), None), None);
        assert_eq!(
            conflict(Some("utf-8"), Some("iso-8859-1"), None).as_deref(),
            Some("the header says utf-8, <meta> says iso-8859-1")
        );
        assert_eq!(
            conflict(None, Some("utf-8"), Some("UTF-16LE")).as_deref(),
            Some("<meta> says utf-8, the byte-order mark says UTF-16LE")
        );
        assert!(conflict(Some("klingon"), None, None).is_some());
    }
}
