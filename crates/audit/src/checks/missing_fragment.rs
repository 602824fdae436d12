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
    /// A line anchor of a code viewer (`#12`, `#10-20` as rustdoc's source
    /// pages write them, `#L12`, `#L10-L20` as GitHub's) is not reported:
    /// the viewer's script reads it, and no element has that id on any
    /// such site, so reporting them would bury the broken sections (on the
    /// Rust documentation, 69,852 of 69,869 findings).
    ///
    /// The ids are kept as 32-bit hashes: a fragment that is missing but
    /// shares its hash with one of the target's ids is not reported (once
    /// in four million for a page of 1,000 ids); a fragment reported is
    /// missing.
    ///
    /// Measured: on the planted site of the audit's tests (a fragment
    /// missing, one in the wrong case, one inside a `<template>`, one on
    /// the page itself; as near misses an id, an `<a name>`, a
    /// percent-encoded id, text fragments, `#TOP`, an empty fragment, a
    /// target that is gone, another site, a page of too many ids),
    /// precision and recall 1.0; on the Rust documentation, 69,869
    /// findings before line anchors were left out (17 after), precision
    /// and recall 1.000 (`docs/audit.md`).
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

/// One link with a fragment: its page, its place there, the fragment and
/// its two hashes, its target.
struct Row {
    source: i64,
    position: i64,
    fragment: String,
    hashes: [u32; 2],
    target: i64,
}

/// The SQL of every link with a fragment to an HTML page, in the order of
/// its target. The joins stand in this order (`CROSS JOIN`): the pages
/// with fragment links, each link by its key, its target by its id;
/// SQLite would rather walk every link by target and read its page's
/// fragment links again for each.
fn links_sql() -> String {
    format!(
        "SELECT s.url_id, f.key, json_extract(f.value, '$[1]'), json_extract(f.value, '$[2]'),
                json_extract(f.value, '$[3]'), l.target_id
         FROM pages s CROSS JOIN json_each(s.quality, '$.fragment_links') f
         CROSS JOIN links l ON l.source_id = s.url_id AND l.position = json_extract(f.value, '$[0]')
         CROSS JOIN pages p ON p.url_id = l.target_id
         WHERE instr(s.quality, '\"fragment_links\"') > 0 AND {HTML_PAGE}
         ORDER BY l.target_id"
    )
}

/// The ids of the target met last, read once per target (the links come
/// in the order of their targets).
struct TargetIds<'c> {
    lookup: rusqlite::Statement<'c>,
    of: Option<i64>,
    /// `None`: a target read before its ids were kept, or with too many
    /// to keep: not judged.
    ids: Option<HashSet<u32>>,
}

impl<'c> TargetIds<'c> {
    fn new(cx: &Context<'c>) -> Result<Self, rusqlite::Error> {
        Ok(TargetIds {
            lookup: cx.conn.prepare(
                "SELECT CASE WHEN json_extract(quality, '$.fragment_targets_capped') THEN NULL
                        ELSE json_extract(quality, '$.fragment_targets') END
                 FROM pages WHERE url_id = ?1",
            )?,
            of: None,
            ids: None,
        })
    }

    /// Whether the link's fragment names nothing on its target (`false`
    /// for a target not judged).
    fn misses(&mut self, row: &Row) -> Result<bool, rusqlite::Error> {
        if self.of != Some(row.target) {
            let text: Option<String> = self.lookup.query_row([row.target], |t| t.get(0))?;
            self.ids = text.as_deref().map(hashes);
            self.of = Some(row.target);
        }
        Ok(self
            .ids
            .as_ref()
            .is_some_and(|ids| !row.hashes.iter().any(|h| ids.contains(h))))
    }
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut st = cx.conn.prepare(&links_sql())?;
    let mut targets = TargetIds::new(cx)?;
    let mut rows = st.query([])?;
    let mut seen: HashSet<(i64, i64, String)> = HashSet::default();
    let mut missing = Vec::new();
    while let Some(r) = rows.next()? {
        let row = Row {
            source: r.get(0)?,
            position: r.get(1)?,
            fragment: r.get(2)?,
            hashes: [r.get(3)?, r.get(4)?],
            target: r.get(5)?,
        };
        if is_line_anchor(&row.fragment) {
            continue;
        }
        if targets.misses(&row)? && seen.insert((row.source, row.target, row.fragment.clone())) {
            missing.push(row);
        }
    }
    missing.sort_by_key(|r| (r.source, r.position));
    findings(cx, missing)
}

/// The findings of the links whose fragment names nothing, in the order
/// of their pages and places, with their URLs.
fn findings(cx: &Context<'_>, missing: Vec<Row>) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut url = cx.conn.prepare("SELECT url FROM urls WHERE id = ?1")?;
    let mut out = Vec::with_capacity(missing.len());
    for row in missing {
        let source: String = url.query_row([row.source], |r| r.get(0))?;
        let target: String = url.query_row([row.target], |r| r.get(0))?;
        let to = format!("{target}#{}", row.fragment);
        let mut f = Finding::new(
            source,
            format!("links to {to}, which has no element with that id or name"),
        );
        f.related = vec![to];
        out.push(f);
    }
    Ok(out)
}

/// Whether a fragment is a code viewer's line anchor: a line or a range
/// of lines, each number with or without `L` (`12`, `10-20`, `L12`,
/// `L10-L20`).
fn is_line_anchor(fragment: &str) -> bool {
    let line = |s: &str| {
        let digits = s.strip_prefix('L').unwrap_or(s);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    match fragment.split_once('-') {
        Some((from, to)) => line(from) && line(to),
        None => line(fragment),
    }
}

/// The hashes of `fragment_targets`: eight hexadecimal digits each.
fn hashes(targets: &str) -> HashSet<u32> {
    targets
        .as_bytes()
        .chunks_exact(8)
        .filter_map(|h| u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::is_line_anchor;

    #[test]
    fn line_anchors_are_lines_and_ranges_of_digits() {
        for yes in ["12", "10-20", "L12", "L10-L20", "795-797"] {
            assert!(is_line_anchor(yes), "{yes}");
        }
        for no in ["", "L", "-", "12-", "L12x", "section-2", "l12", "1-2-3"] {
            assert!(!is_line_anchor(no), "{no}");
        }
    }
}
