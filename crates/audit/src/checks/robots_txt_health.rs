//! `robots/txt-health`: robots.txt files that could not be read well.

use crate::{Context, Finding, answer};

/// RFC 9309: crawlers must read at least this much of a robots.txt.
pub(crate) const MAX_BYTES: i64 = 500 * 1024;

declare_check! {
    /// ## What it finds
    /// Every origin whose robots.txt (as last fetched by the crawl) was
    /// unreachable (no answer), answered a server error (`5xx`), was
    /// reached through redirects, or was larger than 500 KiB (RFC 9309's
    /// minimum that crawlers must read; the crawl reads up to
    /// `--max-bytes`). A `4xx` is not a problem (it allows everything,
    /// which is often meant), and the operator's file of a verified site
    /// (`--robots-file`) is not judged.
    ///
    /// ## Why it matters
    /// An unreachable robots.txt or a `5xx` makes careful crawlers
    /// (Google among them) stop crawling the whole origin until it can be
    /// read again; past 500 KiB, rules may be ignored; each redirect is
    /// one more request, and a robots.txt redirected to another host
    /// rules this origin with another's rules.
    ///
    /// ## Fix
    /// Serve `/robots.txt` from the origin itself with `200` (or `404`
    /// when there is nothing to say), quickly and under 500 KiB: group
    /// the rules by path prefix instead of listing URLs.
    "robots/txt-health", Error, "robots.txt unreachable, answering 5xx, redirected or over 500 KiB"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT origin, status, error, coalesce(length(body), 0), coalesce(redirects, 0),
                coalesce(truncated, 0)
         FROM robots_files WHERE source = 'site' ORDER BY origin",
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<u16>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, bool>(5)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for (origin, status, error, bytes, redirects, truncated) in rows {
        let mut problems = Vec::new();
        match status {
            None => problems.push(format!("unreachable: {}", answer(None, error.as_deref()))),
            Some(s) if s >= 500 => problems.push(format!("answered {s}")),
            Some(_) => {}
        }
        if redirects > 0 {
            problems.push(format!("reached through {redirects} redirect(s)"));
        }
        if truncated {
            problems.push(format!(
                "larger than the {bytes} bytes read (over {} KiB)",
                bytes / 1024
            ));
        } else if bytes > MAX_BYTES {
            problems.push(format!("{bytes} bytes, over 500 KiB"));
        }
        if !problems.is_empty() {
            let url = format!("{origin}/robots.txt");
            out.push(Finding::new(url, problems.join("; ")));
        }
    }
    Ok(out)
}
