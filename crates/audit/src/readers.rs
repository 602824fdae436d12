//! What each robot sees of a crawl rendered with `crawl --render`: the
//! pages whose raw and rendered readings differ, and for each robot of
//! the registry whether it renders (as a source says), so which reading
//! it gets.

use rusqlite::Connection;
use serde::Serialize;

use crate::checks::render_facts::{
    canonical_differs, head_differs, links_only_rendered, noindex_differs, text_only_rendered,
};

/// A robot, and whether it runs the pages' scripts (the registry's
/// `renders`, with its source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader {
    /// Its name in the registry.
    pub name: String,
    /// Whether it renders; `None`: no source says.
    pub renders: Option<bool>,
    /// Where that comes from.
    pub source: Option<String>,
}

/// What rendering changed on the crawl's pages, and which reading each
/// robot gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderView {
    /// Pages rendered.
    pub rendered: u64,
    /// Of those, whose renders failed or ran out of time.
    pub failed: u64,
    /// Pages whose text is mostly written by scripts.
    pub text_only_rendered: u64,
    /// Pages with links only scripts write.
    pub links_only_rendered: u64,
    /// Pages whose noindex differs between the readings.
    pub noindex_differs: u64,
    /// Pages whose canonical differs.
    pub canonical_differs: u64,
    /// Pages whose title, description or `<h1>` differs.
    pub head_differs: u64,
    /// Pages that move themselves by script.
    pub js_redirects: u64,
    /// Pages with any of these differences: what a robot that renders
    /// and one that does not see differently.
    pub differ: u64,
    /// The robots whose rendering a source states, renderers first.
    pub robots: Vec<RobotView>,
    /// Robots of the registry of which no source says whether they
    /// render.
    pub unknown: u64,
}

/// One robot's reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RobotView {
    /// Its name.
    pub name: String,
    /// Whether it renders.
    pub renders: bool,
    /// `rendered` or `raw`: the reading of each page it gets.
    pub reads: &'static str,
    /// Where that comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The view of a store's renders; `None` when nothing was rendered.
pub(crate) fn render_view(
    conn: &Connection,
    readers: &[Reader],
) -> Result<Option<RenderView>, rusqlite::Error> {
    let count = |condition: &str| -> Result<u64, rusqlite::Error> {
        conn.query_row(
            &format!("SELECT count(*) FROM renders r WHERE {condition}"),
            [],
            |row| row.get(0),
        )
    };
    let rendered = count("1")?;
    if rendered == 0 {
        return Ok(None);
    }
    let any = [
        text_only_rendered(),
        links_only_rendered(),
        noindex_differs(),
        canonical_differs(),
        head_differs(),
        "(r.final_url IS NOT NULL)".to_owned(),
    ]
    .join(" OR ");
    let mut robots: Vec<RobotView> = readers
        .iter()
        .filter_map(|r| {
            r.renders.map(|renders| RobotView {
                name: r.name.clone(),
                renders,
                reads: if renders { "rendered" } else { "raw" },
                source: r.source.clone(),
            })
        })
        .collect();
    robots.sort_by_key(|r| !r.renders);
    Ok(Some(RenderView {
        rendered,
        failed: count("r.outcome IN ('failed', 'timeout')")?,
        text_only_rendered: count(&text_only_rendered())?,
        links_only_rendered: count(&links_only_rendered())?,
        noindex_differs: count(&noindex_differs())?,
        canonical_differs: count(&canonical_differs())?,
        head_differs: count(&head_differs())?,
        js_redirects: count("r.final_url IS NOT NULL")?,
        differ: count(&any)?,
        unknown: readers.iter().filter(|r| r.renders.is_none()).count() as u64,
        robots,
    }))
}

impl RenderView {
    /// What a robot that reads `reads` misses or gets otherwise, in one
    /// line.
    #[must_use]
    pub fn what_it_sees(&self, renders: bool) -> String {
        if renders {
            format!(
                "the rendered pages: all {} pages as the browser showed them (after rendering, later than their HTML)",
                self.rendered
            )
        } else {
            format!(
                "the raw HTML: {} page(s) without the text scripts write, {} without the links they write, {} with another noindex, {} with another canonical, {} with another title, description or h1, {} script redirect(s) not followed",
                self.text_only_rendered,
                self.links_only_rendered,
                self.noindex_differs,
                self.canonical_differs,
                self.head_differs,
                self.js_redirects
            )
        }
    }
}
