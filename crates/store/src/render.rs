//! What a crawl with `--render` stores of each page it rendered in a
//! browser: the render ([`RenderRecord`], table `renders`) and each
//! request the browser made for it ([`RenderRequestRecord`], table
//! `render_requests`). Links found only in the rendered page are rows
//! of `links` like any other, numbered from the render's `links_from`.

use rusqlite::{Transaction, params};

/// From version 11 to 12: renders and the requests they made.
pub(crate) const MIGRATE_11_TO_12: &str = "
CREATE TABLE renders (
    url_id      INTEGER PRIMARY KEY REFERENCES urls (id),
    rendered_at TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    error       TEXT,
    final_url   TEXT,
    elapsed_ms  REAL NOT NULL,
    requests    INTEGER NOT NULL,
    blocked     INTEGER NOT NULL,
    failed      INTEGER NOT NULL,
    links_from  INTEGER,
    facts       TEXT
);
CREATE TABLE render_requests (
    url_id   INTEGER NOT NULL REFERENCES urls (id),
    position INTEGER NOT NULL,
    url      TEXT NOT NULL,
    kind     TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    status   INTEGER,
    detail   TEXT,
    PRIMARY KEY (url_id, position)
);
";

/// How a render ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderOutcome {
    /// The page loaded and the network went quiet within the budget.
    Rendered,
    /// The budget ran out first: what the page held then was read.
    TimedOut,
    /// The browser failed (it crashed, or the page could not be opened).
    Failed,
}

impl RenderOutcome {
    /// As the store writes it: `rendered`, `timeout`, `failed`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            RenderOutcome::Rendered => "rendered",
            RenderOutcome::TimedOut => "timeout",
            RenderOutcome::Failed => "failed",
        }
    }
}

/// One page rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderRecord {
    /// The page's URL id.
    pub url_id: u64,
    /// When (RFC 3339).
    pub rendered_at: String,
    /// How it ended.
    pub outcome: RenderOutcome,
    /// Why it failed or timed out.
    pub error: Option<String>,
    /// Where the page went by script (`location` changed): a redirect
    /// made by JavaScript.
    pub final_url: Option<String>,
    /// From opening the page to reading it.
    pub elapsed_ms: f64,
    /// Requests the browser made for it, the page's own included.
    pub requests: u32,
    /// Of those, refused by robots.txt.
    pub blocked: u32,
    /// Of those, failed (no answer, `4xx`, `5xx`, refused by the address
    /// guard).
    pub failed: u32,
    /// The page's links from this place on are found only in the
    /// rendered page (`None`: the render gave no page to read).
    pub links_from: Option<u32>,
    /// The page raw and rendered, as JSON (`{"raw": …, "rendered": …}`):
    /// title, description, robots directives, canonical, hreflang,
    /// `<h1>`, text size and hash, links.
    pub facts: Option<String>,
}

/// One request a browser made for a page it rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderRequestRecord {
    /// The page's URL id.
    pub url_id: u64,
    /// Its place among the page's requests, from 0.
    pub position: u32,
    /// The URL asked.
    pub url: String,
    /// What the browser asked it for (`Document`, `Script`,
    /// `Stylesheet`, `Image`, `XHR`, `Fetch`, `Font`, …).
    pub kind: String,
    /// `fetched`, `cached` (answered from an earlier answer of the
    /// crawl), `blocked` (by robots.txt), `failed`, `page` (the page
    /// itself, from the crawl's raw answer).
    pub outcome: String,
    /// The status answered.
    pub status: Option<u16>,
    /// The robots.txt rule that blocked it, or why it failed.
    pub detail: Option<String>,
}

/// Writes renders and their requests (a page rendered again replaces
/// its rows).
pub(crate) fn write(
    tx: &Transaction<'_>,
    renders: &[RenderRecord],
    requests: &[RenderRequestRecord],
) -> rusqlite::Result<()> {
    if renders.is_empty() && requests.is_empty() {
        return Ok(());
    }
    let mut st = tx.prepare_cached(
        "INSERT OR REPLACE INTO renders (url_id, rendered_at, outcome, error, final_url,
         elapsed_ms, requests, blocked, failed, links_from, facts)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    let mut clear = tx.prepare_cached("DELETE FROM render_requests WHERE url_id = ?1")?;
    for r in renders {
        let id = i64::try_from(r.url_id).unwrap_or(i64::MAX);
        clear.execute([id])?;
        st.execute(params![
            id,
            r.rendered_at,
            r.outcome.as_str(),
            r.error,
            r.final_url,
            r.elapsed_ms,
            r.requests,
            r.blocked,
            r.failed,
            r.links_from,
            r.facts,
        ])?;
    }
    let mut st = tx.prepare_cached(
        "INSERT OR REPLACE INTO render_requests (url_id, position, url, kind, outcome, status,
         detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for q in requests {
        st.execute(params![
            i64::try_from(q.url_id).unwrap_or(i64::MAX),
            q.position,
            q.url,
            q.kind,
            q.outcome,
            q.status,
            q.detail,
        ])?;
    }
    Ok(())
}
