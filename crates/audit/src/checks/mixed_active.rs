//! `security/mixed-content-active`: HTTPS pages that load scripts, style
//! sheets, frames or objects over plain HTTP.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTTPS page whose HTML loads active content from a plain
    /// `http://` URL: `<script src>`, `<link rel="stylesheet" href>`,
    /// `<iframe src>`, `<frame src>`, `<object data>`, `<embed src>`, or
    /// sends a form to one (`<form action>`), with the count and the
    /// first ten (element, URL, line). URLs are read as written:
    /// relative URLs under an `http://` `<base>`, and what scripts load,
    /// are not seen.
    ///
    /// ## Why it matters
    /// Browsers block active mixed content: the script does not run, the
    /// style sheet does not apply, the frame stays empty, so the page
    /// breaks for visitors, and for search engines that render it. A form
    /// that posts over HTTP sends what visitors type in clear, and
    /// browsers warn before sending it.
    ///
    /// ## Fix
    /// Write the URLs as `https://` (or relative, or `//host/path`) and
    /// make sure the other host serves them over HTTPS; a
    /// `Content-Security-Policy: upgrade-insecure-requests` header
    /// upgrades them in browsers meanwhile.
    "security/mixed-content-active", Error, "HTTPS pages that load scripts, styles, frames or forms over HTTP"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    mixed(cx, "p.mixed_active", "active")
}

/// One finding per HTTPS page whose count `column` is above 0, its
/// examples of that kind in `related`.
pub(crate) fn mixed(
    cx: &Context<'_>,
    column: &str,
    kind: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.url, {column}, p.mixed_examples FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE {HTML_PAGE} AND {column} > 0 ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, u32>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        },
    )?;
    let active = kind == "active";
    Ok(rows
        .into_iter()
        .map(|(url, n, examples)| {
            let mut f = Finding::new(url, format!("{n} {kind} subresource(s) over http://"));
            f.related = examples
                .unwrap_or_default()
                .lines()
                .filter(|l| is_active(l) == active)
                .map(str::to_owned)
                .collect();
            f
        })
        .collect())
}

/// Whether an example line (`script src http://… (line 3)`) is of active
/// content.
fn is_active(example: &str) -> bool {
    let element = example.split(' ').next().unwrap_or_default();
    matches!(
        element,
        "script" | "link" | "iframe" | "frame" | "object" | "embed" | "form"
    )
}
