//! `structure/base-href`: `<base href>` elements that lead links astray.

use url::Url;

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<base href>` is a problem: more than one
    /// `<base>` (browsers use the first), a `href` that is not a URL or
    /// not `http(s)` (browsers then ignore it), or one that resolves to
    /// another origin (scheme, host, port) than the page's; the base as
    /// resolved, when it is a URL, in `related`.
    ///
    /// ## Why it matters
    /// Every relative link and resource of the page is resolved against
    /// the base: a base on another host (a staging server, the old domain)
    /// sends visitors and robots there, and a wrong one breaks every
    /// relative link of the page at once.
    ///
    /// ## Fix
    /// Remove the `<base>` and write links relative to the page, or set
    /// one `<base href>` on the page's own origin.
    "structure/base-href", Warning, "<base href> elements that are repeated, invalid or on another origin"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.base_href, p.base_count
             FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE {HTML_PAGE} AND p.base_href IS NOT NULL ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, u32>(3)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for (_, url, base, count) in rows {
        let mut problems = Vec::new();
        if count > 1 {
            problems.push(format!("{count} <base> elements"));
        }
        let page = Url::parse(&url).ok();
        let resolved = page.as_ref().map(|p| p.join(&base));
        let related: Vec<String> = match &resolved {
            Some(Ok(b)) => vec![b.to_string()],
            _ => Vec::new(),
        };
        match resolved {
            Some(Ok(b)) if !matches!(b.scheme(), "http" | "https") => {
                problems.push(format!("<base href=\"{base}\"> is not an http(s) URL"));
            }
            Some(Ok(b)) if page.as_ref().is_some_and(|p| p.origin() != b.origin()) => {
                problems.push(format!("<base href=\"{base}\"> is on another origin"));
            }
            Some(Ok(_)) | None => {}
            Some(Err(e)) => problems.push(format!("<base href=\"{base}\"> is not a URL ({e})")),
        }
        if !problems.is_empty() {
            let mut f = Finding::new(url, problems.join("; "));
            f.related = related;
            out.push(f);
        }
    }
    Ok(out)
}
