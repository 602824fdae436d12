//! `links/missing-fragment`: links whose fragment names no element of
//! their target.

use foldhash::HashSet;

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every `<a href>` and `<area href>` whose fragment (`/guide#setup`,
    /// `#setup`) names no element of its target page: no element with that
    /// `id`, and no `<a>` with that `name`, as the fragment is written or
    /// percent-decoded (the two forms a browser looks for; ids are
    /// compared case for case). One finding per page, target and fragment,
    /// with the target and fragment in `related`; the page's first link
    /// to it sets the order.
    ///
    /// Not reported: an empty fragment and `#top` (in any case), which
    /// lead to the top of the page; a text fragment (`#:~:text=…`), which
    /// names text, not an element (`#setup:~:text=x` is judged by
    /// `setup`); an id inside a `<template>` does not count, as it is not
    /// the document's. Only targets the crawl read as HTML pages (status
    /// 200) are judged, not redirects nor other sites; nor pages of more
    /// than 10,000 ids and names, whose ids the crawler does not keep. A
    /// page's first 1,000 links with a fragment are judged. The ids are
    /// those of the page as served: an element a script adds is not seen.
    ///
    /// The ids are kept as 32-bit hashes: a fragment that is missing but
    /// shares its hash with one of the target's ids is not reported (once
    /// in four million for a page of 1,000 ids); a fragment reported is
    /// missing.
    ///
    /// ## Why it matters
    /// The link lands at the top of the page instead of the section it
    /// promises, and search engines' links to sections (and their
    /// sitelinks) are lost; it happens when a heading is renamed.
    ///
    /// ## Fix
    /// Point the link at an id the target has, or give the section back
    /// its old id.
    "links/missing-fragment", Warning, "links whose fragment names no element of their target"
}

/// One link with a fragment, and its target's ids.
struct Row {
    source: i64,
    position: i64,
    source_url: String,
    fragment: String,
    hashes: [u32; 2],
    target: i64,
    target_url: String,
    targets: String,
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT s.id, f.key, s.url, json_extract(f.value, '$[1]'), json_extract(f.value, '$[2]'),
                    json_extract(f.value, '$[3]'), t.id, t.url,
                    json_extract(p.quality, '$.fragment_targets')
             FROM pages sp JOIN urls s ON s.id = sp.url_id,
                  json_each(sp.quality, '$.fragment_links') f
             JOIN links l ON l.source_id = s.id AND l.position = json_extract(f.value, '$[0]')
             JOIN urls t ON t.id = l.target_id
             JOIN pages p ON p.url_id = t.id
             WHERE instr(sp.quality, '\"fragment_links\"') > 0 AND {HTML_PAGE}
               AND json_extract(p.quality, '$.fragment_targets') IS NOT NULL
             ORDER BY t.id"
        ),
        |r| {
            Ok(Row {
                source: r.get(0)?,
                position: r.get(1)?,
                source_url: r.get(2)?,
                fragment: r.get(3)?,
                hashes: [r.get(4)?, r.get(5)?],
                target: r.get(6)?,
                target_url: r.get(7)?,
                targets: r.get(8)?,
            })
        },
    )?;
    Ok(missing(rows))
}

/// The links whose fragment's hashes are not among their target's, one
/// per page, target and fragment, in the order of the pages and links.
fn missing(rows: Vec<Row>) -> Vec<Finding> {
    let mut ids: HashSet<u32> = HashSet::default();
    let mut ids_of = None;
    let mut seen: HashSet<(i64, i64, String)> = HashSet::default();
    let mut out = Vec::new();
    for row in rows {
        if ids_of != Some(row.target) {
            ids = hashes(&row.targets);
            ids_of = Some(row.target);
        }
        if row.hashes.iter().any(|h| ids.contains(h))
            || !seen.insert((row.source, row.target, row.fragment.clone()))
        {
            continue;
        }
        let to = format!("{}#{}", row.target_url, row.fragment);
        let mut f = Finding::new(
            row.source_url,
            format!("links to {to}, which has no element with that id or name"),
        );
        f.related = vec![to];
        out.push((row.source, row.position, f));
    }
    out.sort_by_key(|(source, position, _)| (*source, *position));
    out.into_iter().map(|(_, _, f)| f).collect()
}

/// The hashes of `fragment_targets`: eight hexadecimal digits each.
fn hashes(targets: &str) -> HashSet<u32> {
    targets
        .as_bytes()
        .chunks_exact(8)
        .filter_map(|h| u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
        .collect()
}
