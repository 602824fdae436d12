//! The crawl's link graph: every URL met with its status, depth, links in
//! and out and link score, its exports (CSV, GraphML) and the link score
//! itself (`docs/audit.md`, "The link graph").

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use botwarden_store::{Error as StoreError, Store};
use serde::Serialize;

use super::SITE_LINK;
use super::csv::{CsvCell, csv_row, push_row};
use crate::error::Error;

/// The damping of the link score: the share of a page's score passed on
/// through its links.
pub const DAMPING: f64 = 0.85;

/// The link score iterates until the scores (as shares summing to 1)
/// change by less than this in all (L1 distance)...
pub const TOLERANCE: f64 = 1e-9;

/// ... or this many times at most.
pub const MAX_ITERATIONS: u32 = 200;

/// A URL of the crawl, as a node of its link graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// The URL.
    pub url: String,
    /// `fetched`, `skipped` or `queued`.
    pub state: String,
    /// Why it was not fetched (`robots`, `scope`, …), for a skipped URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    /// The HTTP status of its answer, if it was fetched and answered.
    pub status: Option<u16>,
    /// Clicks from the start URL, as the crawl met it.
    pub depth: u32,
    /// Whether it answered `200` with an HTML body that was read.
    pub html: bool,
    /// Links of the site's pages (`<a>`, `<area>`, frames) that lead here.
    pub in_links: u64,
    /// Such links on this page to URLs of the store.
    pub out_links: u64,
    /// Its link score (HTML pages only; the mean over them is 1).
    pub score: Option<f64>,
}

/// How the link score was worked out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScoreRun {
    /// HTML pages scored.
    pub pages: u64,
    /// Distinct followed links between two different HTML pages.
    pub links: u64,
    /// Followed links of the site's pages left out of the score: to a
    /// page that is not an HTML page, from or to the same page, or a second
    /// link between the same two pages.
    pub links_left_out: u64,
    /// Iterations run.
    pub iterations: u32,
    /// Whether the scores settled within [`TOLERANCE`] before
    /// [`MAX_ITERATIONS`].
    pub converged: bool,
}

/// The link graph of a crawl: its nodes in the order of discovery, and
/// the link score.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkGraph {
    /// Every URL of the store.
    pub nodes: Vec<Node>,
    /// The store's URL ids, one per node.
    ids: Vec<i64>,
    /// How the link score was worked out.
    pub run: ScoreRun,
}

/// Link scores: one per page, their mean 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Per page, in the order of the pages.
    pub values: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// Whether they settled within [`TOLERANCE`].
    pub converged: bool,
}

/// The link score of `n` pages joined by `links` (`(from, to)`, indexes
/// below `n`; a link from a page to itself and a repeated link are left
/// out): the share of time a visitor who follows a link at random with
/// probability [`DAMPING`], and otherwise opens any page at random,
/// spends on each page (PageRank). A page without links passes its score
/// to every page alike. The values are scaled so that their mean is 1: a
/// score of 2 is twice an average page's.
///
/// # Panics
/// If a link names a page at or beyond `n`.
#[must_use]
pub fn link_scores(n: usize, links: &[(u32, u32)]) -> Scores {
    if n == 0 {
        return Scores {
            values: Vec::new(),
            iterations: 0,
            converged: true,
        };
    }
    let mut edges: Vec<(u32, u32)> = links.iter().copied().filter(|(a, b)| a != b).collect();
    edges.sort_unstable();
    edges.dedup();
    let mut out = vec![0u32; n];
    for &(from, _) in &edges {
        out[from as usize] += 1;
    }
    let size = n as f64;
    let mut score = vec![1.0 / size; n];
    let mut next = vec![0.0; n];
    let mut iterations = 0;
    let mut converged = false;
    while iterations < MAX_ITERATIONS {
        iterations += 1;
        let dangling: f64 = score
            .iter()
            .zip(&out)
            .filter(|(_, o)| **o == 0)
            .map(|(s, _)| s)
            .sum();
        let base = (1.0 - DAMPING) / size + DAMPING * dangling / size;
        next.fill(base);
        for &(from, to) in &edges {
            let from = from as usize;
            next[to as usize] += DAMPING * score[from] / f64::from(out[from]);
        }
        let change: f64 = score.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut score, &mut next);
        if change < TOLERANCE {
            converged = true;
            break;
        }
    }
    for s in &mut score {
        *s *= size;
    }
    Scores {
        values: score,
        iterations,
        converged,
    }
}

fn fail(store: &Store, doing: &str) -> impl Fn(rusqlite::Error) -> Error {
    let path = store.path().to_owned();
    let doing = doing.to_owned();
    move |e| {
        Error::Store(StoreError {
            path: path.clone(),
            message: format!("{doing}: {e}"),
        })
    }
}

impl LinkGraph {
    /// Reads the link graph of the crawl in `store` and works out the
    /// link score.
    ///
    /// # Errors
    /// [`Error::Store`] if SQLite fails.
    pub fn load(store: &Store) -> Result<LinkGraph, Error> {
        let fail = fail(store, "cannot read the link graph");
        let conn = store.connection();
        let mut nodes = Vec::new();
        let mut ids = Vec::new();
        {
            let mut st = conn
                .prepare(&format!(
                    "SELECT u.id, u.url, u.state, u.skip_reason, p.status, u.depth,
                            ({}) FROM urls u LEFT JOIN pages p ON p.url_id = u.id ORDER BY u.id",
                    super::HTML_PAGE
                ))
                .map_err(&fail)?;
            let mut rows = st.query([]).map_err(&fail)?;
            while let Some(r) = rows.next().map_err(&fail)? {
                ids.push(r.get::<_, i64>(0).map_err(&fail)?);
                nodes.push(Node {
                    url: r.get(1).map_err(&fail)?,
                    state: r.get(2).map_err(&fail)?,
                    skip_reason: r.get(3).map_err(&fail)?,
                    status: r.get(4).map_err(&fail)?,
                    depth: r.get(5).map_err(&fail)?,
                    html: r.get::<_, Option<bool>>(6).map_err(&fail)?.unwrap_or(false),
                    in_links: 0,
                    out_links: 0,
                    score: None,
                });
            }
        }
        let index = IdIndex::new(&ids);
        // Pages: the HTML pages, numbered in order.
        let mut page_of = vec![u32::MAX; nodes.len()];
        let mut pages = 0u32;
        for (i, node) in nodes.iter().enumerate() {
            if node.html {
                page_of[i] = pages;
                pages += 1;
            }
        }
        let mut edges = Vec::new();
        let mut followed = 0u64;
        // Apart from the nodes: counted once per link, they stay in cache.
        let mut in_links = vec![0u64; nodes.len()];
        let mut out_links = vec![0u64; nodes.len()];
        {
            let mut st = conn
                .prepare(&format!(
                    "SELECT source_id, target_id, followed FROM links l
                     WHERE l.target_id IS NOT NULL AND {SITE_LINK}"
                ))
                .map_err(&fail)?;
            let mut rows = st.query([]).map_err(&fail)?;
            while let Some(r) = rows.next().map_err(&fail)? {
                let source: i64 = r.get(0).map_err(&fail)?;
                let target: i64 = r.get(1).map_err(&fail)?;
                let is_followed: bool = r.get(2).map_err(&fail)?;
                let (Some(s), Some(t)) = (index.get(source), index.get(target)) else {
                    continue;
                };
                out_links[s as usize] += 1;
                in_links[t as usize] += 1;
                if is_followed {
                    followed += 1;
                    let (ps, pt) = (page_of[s as usize], page_of[t as usize]);
                    if ps != u32::MAX && pt != u32::MAX {
                        edges.push((ps, pt));
                    }
                }
            }
        }
        edges.retain(|(a, b)| a != b);
        edges.sort_unstable();
        edges.dedup();
        let scores = link_scores(pages as usize, &edges);
        for (i, node) in nodes.iter_mut().enumerate() {
            node.in_links = in_links[i];
            node.out_links = out_links[i];
            if page_of[i] != u32::MAX {
                node.score = Some(scores.values[page_of[i] as usize]);
            }
        }
        Ok(LinkGraph {
            nodes,
            ids,
            run: ScoreRun {
                pages: u64::from(pages),
                links: edges.len() as u64,
                links_left_out: followed - edges.len() as u64,
                iterations: scores.iterations,
                converged: scores.converged,
            },
        })
    }

    /// Writes the nodes as CSV (`docs/audit.md`): a header, then one row
    /// per URL. Returns the rows written.
    ///
    /// # Errors
    /// If writing fails.
    pub fn write_nodes_csv(&self, mut out: impl Write) -> io::Result<u64> {
        out.write_all(
            csv_row(&[
                CsvCell::Text("url"),
                CsvCell::Text("state"),
                CsvCell::Text("status"),
                CsvCell::Text("depth"),
                CsvCell::Text("in_links"),
                CsvCell::Text("out_links"),
                CsvCell::Text("link_score"),
            ])
            .as_bytes(),
        )?;
        for node in &self.nodes {
            let row = csv_row(&[
                CsvCell::Text(&node.url),
                CsvCell::Text(&node.state),
                CsvCell::Number(node.status.map(|s| s.to_string()).unwrap_or_default()),
                CsvCell::Number(node.depth.to_string()),
                CsvCell::Number(node.in_links.to_string()),
                CsvCell::Number(node.out_links.to_string()),
                CsvCell::Number(node.score.map(score_text).unwrap_or_default()),
            ]);
            out.write_all(row.as_bytes())?;
        }
        Ok(self.nodes.len() as u64)
    }

    /// Calls `f` with each link of the store whose target is a URL of the
    /// store, in the order the crawl stored them (a page's links in their
    /// order on the page): `(source node, target node, kind, anchor, rel,
    /// followed)`.
    fn each_edge(
        &self,
        store: &Store,
        mut f: impl FnMut(usize, usize, &str, Option<&str>, Option<&str>, bool) -> io::Result<()>,
    ) -> Result<u64, EdgeError> {
        let fail = fail(store, "cannot read the links");
        let index = IdIndex::new(&self.ids);
        let mut st = store
            .connection()
            .prepare(
                "SELECT source_id, target_id, kind, anchor, rel, followed FROM links
                 WHERE target_id IS NOT NULL AND same_page = 0 ORDER BY source_id, position",
            )
            .map_err(&fail)?;
        let mut rows = st.query([]).map_err(&fail)?;
        let mut n = 0;
        while let Some(r) = rows.next().map_err(&fail)? {
            let source: i64 = r.get(0).map_err(&fail)?;
            let target: i64 = r.get(1).map_err(&fail)?;
            let (Some(s), Some(t)) = (index.get(source), index.get(target)) else {
                continue;
            };
            let (s, t) = (s as usize, t as usize);
            let text = |i: usize| -> Result<Option<&str>, Error> {
                r.get_ref(i).map_err(&fail)?.as_str_or_null().map_err(|e| {
                    fail(rusqlite::Error::FromSqlConversionFailure(
                        i,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    ))
                })
            };
            let kind = text(2)?.unwrap_or("");
            let (anchor, rel) = (text(3)?, text(4)?);
            let followed: bool = r.get(5).map_err(&fail)?;
            f(s, t, kind, anchor, rel, followed)?;
            n += 1;
        }
        Ok(n)
    }

    /// Writes the links as CSV (`docs/audit.md`): a header, then one row
    /// per link between two URLs of the store. Returns the rows written.
    ///
    /// # Errors
    /// [`EdgeError`] if SQLite or writing fails.
    pub fn write_edges_csv(&self, store: &Store, mut out: impl Write) -> Result<u64, EdgeError> {
        out.write_all(
            csv_row(&[
                CsvCell::Text("source"),
                CsvCell::Text("target"),
                CsvCell::Text("kind"),
                CsvCell::Text("anchor"),
                CsvCell::Text("rel"),
                CsvCell::Text("followed"),
            ])
            .as_bytes(),
        )?;
        let mut row = String::new();
        let n = self.each_edge(store, |s, t, kind, anchor, rel, followed| {
            row.clear();
            push_row(
                &mut row,
                &[
                    CsvCell::Text(&self.nodes[s].url),
                    CsvCell::Text(&self.nodes[t].url),
                    CsvCell::Text(kind),
                    CsvCell::Text(anchor.unwrap_or("")),
                    CsvCell::Text(rel.unwrap_or("")),
                    CsvCell::Text(if followed { "true" } else { "false" }),
                ],
            );
            out.write_all(row.as_bytes())
        })?;
        Ok(n)
    }

    /// Writes the graph as GraphML (`docs/audit.md`), which Gephi, yEd and
    /// NetworkX read: a node per URL (`n` and its store id), an edge per
    /// link. Returns `(nodes, edges)` written.
    ///
    /// # Errors
    /// [`EdgeError`] if SQLite or writing fails.
    pub fn write_graphml(
        &self,
        store: &Store,
        mut out: impl Write,
    ) -> Result<(u64, u64), EdgeError> {
        out.write_all(
            br#"<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">
  <key id="label" for="node" attr.name="label" attr.type="string"/>
  <key id="state" for="node" attr.name="state" attr.type="string"/>
  <key id="status" for="node" attr.name="status" attr.type="int"/>
  <key id="depth" for="node" attr.name="depth" attr.type="int"/>
  <key id="in_links" for="node" attr.name="in_links" attr.type="long"/>
  <key id="out_links" for="node" attr.name="out_links" attr.type="long"/>
  <key id="link_score" for="node" attr.name="link_score" attr.type="double"/>
  <key id="kind" for="edge" attr.name="kind" attr.type="string"/>
  <key id="anchor" for="edge" attr.name="anchor" attr.type="string"/>
  <key id="rel" for="edge" attr.name="rel" attr.type="string"/>
  <key id="followed" for="edge" attr.name="followed" attr.type="boolean"/>
  <graph id="crawl" edgedefault="directed">
"#,
        )?;
        let mut buf = String::new();
        for (node, id) in self.nodes.iter().zip(&self.ids) {
            buf.clear();
            buf.push_str("    <node id=\"n");
            buf.push_str(&id.to_string());
            buf.push_str("\">");
            data(&mut buf, "label", &node.url);
            data(&mut buf, "state", &node.state);
            if let Some(s) = node.status {
                data(&mut buf, "status", &s.to_string());
            }
            data(&mut buf, "depth", &node.depth.to_string());
            data(&mut buf, "in_links", &node.in_links.to_string());
            data(&mut buf, "out_links", &node.out_links.to_string());
            if let Some(s) = node.score {
                data(&mut buf, "link_score", &score_text(s));
            }
            buf.push_str("</node>\n");
            out.write_all(buf.as_bytes())?;
        }
        let mut e = 0u64;
        let edges = self.each_edge(store, |s, t, kind, anchor, rel, followed| {
            e += 1;
            buf.clear();
            let _ = write!(
                buf,
                "    <edge id=\"e{e}\" source=\"n{}\" target=\"n{}\">",
                self.ids[s], self.ids[t]
            );
            data(&mut buf, "kind", kind);
            if let Some(a) = anchor {
                data(&mut buf, "anchor", a);
            }
            if let Some(r) = rel {
                data(&mut buf, "rel", r);
            }
            data(
                &mut buf,
                "followed",
                if followed { "true" } else { "false" },
            );
            buf.push_str("</edge>\n");
            out.write_all(buf.as_bytes())
        })?;
        out.write_all(b"  </graph>\n</graphml>\n")?;
        Ok((self.nodes.len() as u64, edges))
    }
}

/// The node of each store id: a table when the ids are dense (as SQLite
/// gives them), a map otherwise.
enum IdIndex {
    Dense(Vec<u32>),
    Sparse(HashMap<i64, u32>),
}

impl IdIndex {
    fn new(ids: &[i64]) -> IdIndex {
        let node = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        let max = ids.iter().copied().max().unwrap_or(0);
        let min = ids.iter().copied().min().unwrap_or(0);
        match usize::try_from(max) {
            Ok(max) if min >= 0 && max <= ids.len().saturating_mul(4) + 1024 => {
                let mut table = vec![u32::MAX; max + 1];
                for (i, &id) in ids.iter().enumerate() {
                    table[usize::try_from(id).unwrap_or(0)] = node(i);
                }
                IdIndex::Dense(table)
            }
            _ => IdIndex::Sparse(
                ids.iter()
                    .enumerate()
                    .map(|(i, &id)| (id, node(i)))
                    .collect(),
            ),
        }
    }

    fn get(&self, id: i64) -> Option<u32> {
        match self {
            IdIndex::Dense(t) => usize::try_from(id)
                .ok()
                .and_then(|i| t.get(i).copied())
                .filter(|&n| n != u32::MAX),
            IdIndex::Sparse(m) => m.get(&id).copied(),
        }
    }
}

/// A link score as exported: six decimals.
fn score_text(s: f64) -> String {
    format!("{s:.6}")
}

/// A `<data>` element, its text escaped for XML 1.0.
fn data(buf: &mut String, key: &str, value: &str) {
    buf.push_str("<data key=\"");
    buf.push_str(key);
    buf.push_str("\">");
    xml_escape(buf, value);
    buf.push_str("</data>");
}

/// Escapes `s` as XML text or an attribute value; characters XML 1.0 does
/// not allow (most control characters) become U+FFFD.
pub(crate) fn xml_escape(buf: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => buf.push_str("&amp;"),
            '<' => buf.push_str("&lt;"),
            '>' => buf.push_str("&gt;"),
            '"' => buf.push_str("&quot;"),
            '\'' => buf.push_str("&apos;"),
            '\t' | '\n' | '\r' => buf.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{fffe}' | '\u{ffff}') => buf.push('\u{fffd}'),
            c => buf.push(c),
        }
    }
}

/// Exporting the links failed: reading the store or writing.
#[derive(Debug, thiserror::Error)]
pub enum EdgeError {
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] Error),
    /// The output could not be written.
    #[error("cannot write the export: {0}")]
    Write(#[from] io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn a_cycle_scores_every_page_alike() {
        let s = link_scores(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert!(s.converged);
        for v in &s.values {
            assert!(close(*v, 1.0), "{:?}", s.values);
        }
    }

    /// A hub linked both ways with three leaves. By hand: with `x` a leaf's
    /// share and `y` the hub's, `y = 0.15/4 + 0.85·3x`, `x = 0.15/4 +
    /// 0.85·y/3` and `3x + y = 1` give `x = 0.048125/0.2775 = 0.173423`
    /// and `y = 0.479730`; times 4 pages: 0.693694 and 1.918919.
    #[test]
    fn a_star_scores_its_hub_highest() {
        let links = [(0, 1), (0, 2), (0, 3), (1, 0), (2, 0), (3, 0)];
        let s = link_scores(4, &links);
        assert!(s.converged);
        assert!(close(s.values[0], 1.918_919), "{:?}", s.values);
        for leaf in &s.values[1..] {
            assert!(close(*leaf, 0.693_694), "{:?}", s.values);
        }
    }

    /// `A → B`, `B` without links: `a = 0.15/2 + 0.85·b/2`, `a + b = 1`
    /// give `a = 0.5/1.425 = 0.350877`; times 2: 0.701754 and 1.298246.
    #[test]
    fn a_page_without_links_shares_its_score_with_all() {
        let s = link_scores(2, &[(0, 1), (0, 1), (1, 1)]);
        assert!(s.converged);
        assert!(close(s.values[0], 0.701_754), "{:?}", s.values);
        assert!(close(s.values[1], 1.298_246), "{:?}", s.values);
        let total: f64 = s.values.iter().sum();
        assert!(close(total, 2.0));
    }

    #[test]
    fn store_ids_find_their_nodes_dense_or_sparse() {
        let dense = IdIndex::new(&[1, 2, 4]);
        assert!(matches!(dense, IdIndex::Dense(_)));
        let sparse = IdIndex::new(&[7, 9_000_000_000, -3]);
        assert!(matches!(sparse, IdIndex::Sparse(_)));
        for (index, ids) in [(dense, [1, 2, 4]), (sparse, [7, 9_000_000_000, -3])] {
            for (i, id) in ids.into_iter().enumerate() {
                assert_eq!(index.get(id), Some(i as u32));
            }
            assert_eq!(index.get(3), None);
            assert_eq!(index.get(-1), None);
            assert_eq!(index.get(10_000_000_000), None);
        }
    }

    #[test]
    fn no_pages_no_scores() {
        let s = link_scores(0, &[]);
        assert!(s.values.is_empty() && s.converged);
    }

    #[test]
    fn xml_text_is_escaped_and_valid() {
        let mut buf = String::new();
        xml_escape(&mut buf, "a<b>&\"c'\u{1}\u{0}d\té");
        assert_eq!(buf, "a&lt;b&gt;&amp;&quot;c&apos;\u{fffd}\u{fffd}d\té");
    }
}
