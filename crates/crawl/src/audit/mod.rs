//! The site audit: the problems of a crawled site, found exactly by SQL
//! over its store (`docs/audit.md`).
//!
//! Every check lives in its own file under `audit/checks/`, with its
//! documentation as the doc comment of its declaration; [`CHECKS`] lists
//! them all. [`Audit::run`] runs each over a [`Store`] and gives an
//! [`AuditReport`]: per check, every finding with its evidence (the URLs,
//! the links that lead there with their anchor text, the robots.txt rule
//! and line). The report renders as text (`Display`) and JSON
//! (`Serialize`, shape in `docs/audit.md`).

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::error::Error;
use crate::store::Store;
use crate::summary::UrlCounts;

mod compare;
mod csv;
mod document;
mod graph;
mod html;
mod render;
mod site;

pub use compare::{CheckChange, Comparison};
pub use csv::{
    CSV_COMPARE, CSV_INDEX, check_csv, compare_csv, csv_file_name, index_csv, write_check_csv,
    write_csv,
};
pub use document::AuditDocument;
pub use graph::{
    DAMPING, EdgeError, LinkGraph, MAX_ITERATIONS, Node as GraphNode, ScoreRun, Scores, TOLERANCE,
    link_scores,
};
pub use html::{HTML_FINDINGS, render_html as render_audit_html};
pub use render::SHOWN_FINDINGS;
pub use site::{Count, DepthCount, PageRank, SiteOverview, TOP_PAGES};

/// The `schema` of the JSON report; it changes when the shape does.
pub const AUDIT_SCHEMA: &str = "botwarden-audit/1";

/// Pages deeper than this many clicks from the start URL are reported by
/// default (`structure/deep-page`).
pub const DEFAULT_MAX_DEPTH: u32 = 5;

/// A finding lists at most this many of the links that lead to its URL;
/// [`Finding::link_count`] counts them all.
pub const MAX_LINKS: usize = 100;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Visitors or robots meet a failure: a broken page, a loop.
    Error,
    /// Robots and visitors get there, at a cost or with mixed signals.
    Warning,
    /// Worth knowing; often meant.
    Notice,
}

impl Severity {
    /// `error`, `warning` or `notice`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }
}

/// A check: a kind of finding, with its documentation.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Check {
    /// Stable code, `area/name` (`links/broken-internal`).
    pub code: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// One line saying what it finds.
    pub summary: &'static str,
    /// Markdown: `## What it finds`, `## Why it matters`, `## Fix`.
    pub docs: &'static str,
}

/// Declares a check from its doc comment and its code, severity and
/// summary.
macro_rules! declare_check {
    ($(#[doc = $doc:literal])* $code:literal, $severity:ident, $summary:literal) => {
        $(#[doc = $doc])*
        pub(crate) const CHECK: crate::audit::Check = crate::audit::Check {
            code: $code,
            severity: crate::audit::Severity::$severity,
            summary: $summary,
            docs: concat!($($doc, "\n"),*),
        };
    };
}

/// Lists the check modules once: declares them, registers them in
/// [`CHECKS`] and runs them.
macro_rules! checks {
    ($($module:ident),* $(,)?) => {
        mod checks {
            // What several checks share.
            pub(super) mod bad_href;
            pub(super) mod listed;
            $(pub(super) mod $module;)*
        }
        /// Every check, in the order of the documentation.
        pub const CHECKS: &[&Check] = &[$(&checks::$module::CHECK),*];
        fn run_all(cx: &Context<'_>) -> Result<Vec<CheckReport>, rusqlite::Error> {
            Ok(vec![$(CheckReport::new(&checks::$module::CHECK, checks::$module::check(cx)?)),*])
        }
    };
}

checks![
    broken_internal,
    redirect_loop,
    link_to_redirect,
    redirect_chain,
    canonical_not_ok,
    noindex_linked,
    exact_duplicate,
    duplicate_title,
    missing_title,
    strict_differs,
    robots_blocked,
    deep_page,
    near_duplicate,
    canonical_missing,
    canonical_relative,
    canonical_multiple,
    canonical_outside_head,
    canonical_header_conflict,
    canonical_to_noindex,
    canonical_to_blocked,
    canonical_chain,
    missing_description,
    empty_description,
    duplicate_description,
    long_description,
    long_title,
    missing_h1,
    empty_h1,
    multiple_h1,
    duplicate_h1,
    long_h1,
    robots_txt_health,
    nofollow_internal,
    conflicting_directives,
    temporary_redirect,
    refresh_redirect,
    malformed_href,
    javascript_href,
    empty_href,
    orphan,
    url_hygiene,
    base_href,
    hreflang_no_return,
    hreflang_no_self,
    hreflang_invalid_code,
    hreflang_not_200,
    hreflang_no_x_default,
    sitemap_redirect,
    sitemap_error,
    sitemap_noindex,
    sitemap_blocked,
    sitemap_not_canonical,
    sitemap_unreadable,
    slow_response,
    large_page,
    charset_missing,
    charset_conflict,
];

/// The check with this code.
#[must_use]
pub fn check(code: &str) -> Option<&'static Check> {
    CHECKS.iter().copied().find(|c| c.code == code)
}

/// The audit's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Audit {
    /// Pages more than this many clicks from the start URL are reported
    /// (`structure/deep-page`).
    pub max_depth: u32,
}

impl Default for Audit {
    fn default() -> Self {
        Audit {
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// What the audit found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    /// [`AUDIT_SCHEMA`].
    pub schema: &'static str,
    /// The crawl's start URL.
    pub seed: String,
    /// The crawl's state (`running`, `stopped`, `finished`): a crawl not
    /// finished is audited as far as it went.
    pub state: String,
    /// The depth beyond which pages are reported.
    pub max_depth: u32,
    /// URLs by state.
    pub urls: UrlCounts,
    /// Every check, most severe first (in registry order within a
    /// severity), with or without findings.
    pub checks: Vec<CheckReport>,
    /// What the audit could not judge, once each: pages of a store written
    /// before it recorded what some checks read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One check's findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// The check's code.
    pub code: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// What it finds.
    pub summary: &'static str,
    /// How many findings.
    pub count: u64,
    /// Every finding, in the order of the URLs' discovery.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    fn new(check: &'static Check, findings: Vec<Finding>) -> CheckReport {
        CheckReport {
            code: check.code,
            severity: check.severity,
            summary: check.summary,
            count: findings.len() as u64,
            findings,
        }
    }
}

/// One problem, with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The URL it is about (a group's first URL for groups).
    pub url: String,
    /// What was found, in one line.
    pub message: String,
    /// The other URLs involved, in order: a redirect chain's or loop's
    /// next URLs, the other pages of a group, a canonical's target.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
    /// How robots.txt decides the URL, for the robots checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots: Option<RobotsEvidence>,
    /// The links of the site's pages (`<a>`, `<area>`, frames) that lead to
    /// `url`, the first [`MAX_LINKS`] in the order of their pages'
    /// discovery.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkSource>,
    /// How many such links there are in all.
    pub link_count: u64,
}

impl Finding {
    fn new(url: String, message: String) -> Finding {
        Finding {
            url,
            message,
            related: Vec::new(),
            robots: None,
            links: Vec::new(),
            link_count: 0,
        }
    }
}

/// A link that leads to a finding's URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkSource {
    /// The page that holds it.
    pub source: String,
    /// `a`, `area` or `iframe`.
    pub kind: String,
    /// Its anchor text (an `<area>`'s `alt`), if any.
    pub anchor: Option<String>,
}

/// How the two readings of robots.txt decide a URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RobotsEvidence {
    /// The reading the crawl obeyed (RFC 9309, or a verified site's
    /// simulated profile).
    pub obeyed: RobotsReading,
    /// The 1994 standard and 1997 draft (first match, no wildcards).
    pub strict: RobotsReading,
}

/// One reading's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RobotsReading {
    /// Allowed or not.
    pub allowed: bool,
    /// The deciding rule as written, if a rule decided.
    pub rule: Option<String>,
    /// Its line in robots.txt.
    pub line: Option<u32>,
}

impl RobotsReading {
    fn describe(&self) -> String {
        let verdict = if self.allowed {
            "allowed"
        } else {
            "disallowed"
        };
        match (&self.rule, self.line) {
            (Some(rule), Some(line)) => format!("{verdict} by {rule} (line {line})"),
            _ => format!("{verdict} (no rule)"),
        }
    }
}

impl Audit {
    /// Runs every check over the crawl in `store`.
    ///
    /// # Errors
    /// [`Error::Store`] if SQLite fails.
    pub fn run(&self, store: &Store) -> Result<AuditReport, Error> {
        let fail = |e: rusqlite::Error| Error::Store {
            path: store.path().to_owned(),
            message: format!("cannot audit the crawl: {e}"),
        };
        let cx = Context {
            conn: store.connection(),
            max_depth: self.max_depth,
        };
        // The links of heads and headers, read once for the checks that
        // look at them, into a table of the connection's own (`temp`):
        // nothing is written to the store.
        cx.conn
            .execute_batch(&format!(
                "DROP TABLE IF EXISTS temp.{HEAD_LINKS};
                 CREATE TEMP TABLE {HEAD_LINKS} AS
                     SELECT source_id, target_id, target, kind, anchor, position FROM links
                     WHERE kind NOT IN {LINK_KINDS};
                 CREATE INDEX temp.{HEAD_LINKS}_target ON {HEAD_LINKS} (target_id);
                 CREATE INDEX temp.{HEAD_LINKS}_source ON {HEAD_LINKS} (source_id);"
            ))
            .map_err(fail)?;
        let checks = run_all(&cx);
        cx.conn
            .execute_batch(&format!("DROP TABLE IF EXISTS temp.{HEAD_LINKS};"))
            .map_err(fail)?;
        let mut checks = checks.map_err(fail)?;
        // Stable: registry order within a severity.
        checks.sort_by_key(|c| c.severity);
        let (queued, fetched, skipped) = store.counts()?;
        let meta = |k: &str| store.meta(k).map(Option::unwrap_or_default);
        Ok(AuditReport {
            schema: AUDIT_SCHEMA,
            seed: meta("seed")?,
            state: meta("state")?,
            max_depth: self.max_depth,
            urls: UrlCounts {
                known: queued + fetched + skipped,
                fetched,
                queued,
                skipped,
            },
            checks,
            notes: notes(&cx).map_err(fail)?,
        })
    }
}

/// The checks that read what the crawler records since schema version 4.
pub(crate) const VERSION_4_CHECKS: &[&str] = &[
    "content/near-duplicate",
    "canonical/missing",
    "canonical/relative",
    "canonical/multiple",
    "canonical/outside-head",
    "canonical/header-conflict",
    "content/missing-description",
    "content/empty-description",
    "content/duplicate-description",
    "content/long-description",
    "content/missing-h1",
    "content/empty-h1",
    "content/multiple-h1",
    "content/duplicate-h1",
    "content/long-h1",
    "robots/conflicting-directives",
    "structure/base-href",
    "structure/orphan",
    "sitemaps/redirect",
    "sitemaps/error",
    "sitemaps/noindex",
    "sitemaps/blocked",
    "sitemaps/not-canonical",
    "encoding/charset-missing",
    "encoding/charset-conflict",
];

/// Says, once, which pages the checks of [`VERSION_4_CHECKS`] cannot judge.
fn notes(cx: &Context<'_>) -> Result<Vec<String>, rusqlite::Error> {
    let old: i64 = cx.conn.query_row(
        &format!("SELECT count(*) FROM pages p WHERE {HTML_PAGE} AND p.description_count IS NULL"),
        [],
        |r| r.get(0),
    )?;
    Ok(if old > 0 {
        vec![format!(
            "{old} HTML page(s) were crawled before the store recorded SimHash, description, \
             H1, canonical, charset, robots meta and sitemap details (schema version 4): {} \
             do not judge them; crawl again to audit them",
            VERSION_4_CHECKS.join(", ")
        )]
    } else {
        Vec::new()
    })
}

impl AuditReport {
    /// The findings of the check with this code.
    #[must_use]
    pub fn check(&self, code: &str) -> Option<&CheckReport> {
        self.checks.iter().find(|c| c.code == code)
    }

    /// Findings in all.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.checks.iter().map(|c| c.count).sum()
    }
}

/// The link kinds a visitor follows: the site's internal links.
pub(crate) const LINK_KINDS: &str = "('a', 'area', 'iframe')";

/// The links that are not the site's own (`links` of the kinds
/// `redirect`, `canonical`, `hreflang`, `refresh`), copied into a
/// temporary table when the audit starts: a few per page where the site
/// has millions of links, looked up by source and target.
pub(crate) const HEAD_LINKS: &str = "head_links";

/// A page that answered HTML whose body was read (what the content checks
/// look at); `p` is `pages`.
pub(crate) const HTML_PAGE: &str = "p.status = 200 AND p.body_read = 1 AND p.error IS NULL
     AND p.content_type IN ('text/html', 'application/xhtml+xml')";

/// A redirect answer; `p` is `pages`.
pub(crate) const REDIRECT: &str = "p.status IN (301, 302, 303, 307, 308)";

/// Whether a page names another URL as its canonical (the duplicate checks
/// leave such pages out: they say which page is the original); `p` is
/// `pages`, `u` its URL.
pub(crate) const CANONICAL_ELSEWHERE: &str = "(p.canonical IS NOT NULL AND p.canonical != u.url)";

/// What every check may look at.
pub(crate) struct Context<'a> {
    pub(crate) conn: &'a Connection,
    pub(crate) max_depth: u32,
}

impl Context<'_> {
    /// The links of the site's pages that lead to the URL `id`: the first
    /// [`MAX_LINKS`] and how many in all.
    pub(crate) fn links_to(&self, id: i64) -> Result<(Vec<LinkSource>, u64), rusqlite::Error> {
        let count: i64 = self.conn.query_row(
            &format!("SELECT count(*) FROM links WHERE target_id = ?1 AND kind IN {LINK_KINDS}"),
            params![id],
            |r| r.get(0),
        )?;
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT u.url, l.kind, l.anchor FROM links l JOIN urls u ON u.id = l.source_id
             WHERE l.target_id = ?1 AND l.kind IN {LINK_KINDS}
             ORDER BY l.source_id, l.position LIMIT {MAX_LINKS}"
        ))?;
        let links = st
            .query_map(params![id], |r| {
                Ok(LinkSource {
                    source: r.get(0)?,
                    kind: r.get(1)?,
                    anchor: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok((links, u64::try_from(count).unwrap_or(0)))
    }

    /// A finding about the URL `id`, with the links that lead to it.
    pub(crate) fn linked_finding(
        &self,
        id: i64,
        url: String,
        message: String,
    ) -> Result<Finding, rusqlite::Error> {
        let mut f = Finding::new(url, message);
        (f.links, f.link_count) = self.links_to(id)?;
        Ok(f)
    }

    /// Findings from the rows of `sql`: `(url id, url, message, related)`,
    /// `related` the other URLs involved, one per line, or `NULL`. The
    /// finding is about the page itself (its head, its headers): the links
    /// that lead to it are not its evidence and are not looked up, which
    /// keeps a check that fires on every page of a large site cheap.
    pub(crate) fn findings(&self, sql: &str) -> Result<Vec<Finding>, rusqlite::Error> {
        self.findings_with(sql, false)
    }

    /// As [`Context::findings`], each finding with the links that lead to
    /// its URL (the pages to fix when the URL is the problem).
    pub(crate) fn linked_findings(&self, sql: &str) -> Result<Vec<Finding>, rusqlite::Error> {
        self.findings_with(sql, true)
    }

    fn findings_with(&self, sql: &str, linked: bool) -> Result<Vec<Finding>, rusqlite::Error> {
        let mut st = self.conn.prepare(sql)?;
        let mut rows = st.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let (id, url, message): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            let related: Option<String> = r.get(3)?;
            let mut f = if linked {
                self.linked_finding(id, url, message)?
            } else {
                Finding::new(url, message)
            };
            f.related = related
                .map(|r| r.lines().map(str::to_owned).collect())
                .unwrap_or_default();
            out.push(f);
        }
        Ok(out)
    }

    /// Rows of `sql` (no parameters) mapped by `f`.
    pub(crate) fn rows<T>(
        &self,
        sql: &str,
        f: impl FnMut(&rusqlite::Row<'_>) -> Result<T, rusqlite::Error>,
    ) -> Result<Vec<T>, rusqlite::Error> {
        let mut st = self.conn.prepare(sql)?;
        st.query_map([], f)?.collect()
    }

    /// Every redirect of the crawl: its URL id, URL and the URL id
    /// its `Location` leads to (`None` when the `Location` is not a
    /// crawlable URL), in the order of discovery.
    pub(crate) fn redirects(&self) -> Result<Vec<Redirect>, rusqlite::Error> {
        self.rows(
            &format!(
                "SELECT p.url_id, u.url,
                        (SELECT l.target_id FROM links l
                         WHERE l.source_id = p.url_id AND l.kind = 'redirect' LIMIT 1)
                 FROM pages p JOIN urls u ON u.id = p.url_id WHERE {REDIRECT} ORDER BY p.url_id"
            ),
            |r| {
                Ok(Redirect {
                    id: r.get(0)?,
                    url: r.get(1)?,
                    target: r.get(2)?,
                })
            },
        )
    }

    /// A URL of the store and what became of it: `(url, outcome)`, the
    /// outcome as a report says it (`200`, `404`, `no answer`, `not fetched
    /// (robots)`, `queued`).
    pub(crate) fn outcome(&self, id: i64) -> Result<(String, String), rusqlite::Error> {
        self.conn.query_row(
            "SELECT u.url, u.state, u.skip_reason, p.status, p.error
             FROM urls u LEFT JOIN pages p ON p.url_id = u.id WHERE u.id = ?1",
            params![id],
            |r| {
                let url: String = r.get(0)?;
                let state: String = r.get(1)?;
                let reason: Option<String> = r.get(2)?;
                let status: Option<u16> = r.get(3)?;
                let error: Option<String> = r.get(4)?;
                let outcome = match (state.as_str(), status) {
                    ("fetched", Some(s)) => s.to_string(),
                    ("fetched", None) => answer(None, error.as_deref()),
                    ("skipped", _) => {
                        format!("not fetched ({})", reason.unwrap_or_default())
                    }
                    _ => "not fetched yet (queued)".to_owned(),
                };
                Ok((url, outcome))
            },
        )
    }
}

/// A redirect answer.
#[derive(Debug, Clone)]
pub(crate) struct Redirect {
    pub(crate) id: i64,
    pub(crate) url: String,
    pub(crate) target: Option<i64>,
}

/// A status, or `no answer (why)`.
pub(crate) fn answer(status: Option<u16>, error: Option<&str>) -> String {
    match (status, error) {
        (Some(s), _) => s.to_string(),
        (None, Some(e)) => format!("no answer ({e})"),
        (None, None) => "no answer".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_is_documented_and_listed_once() {
        let listed = include_str!("../../docs/audit.md");
        let mut codes = std::collections::HashSet::new();
        for c in CHECKS {
            assert!(codes.insert(c.code), "{} twice", c.code);
            let (area, name) = c.code.split_once('/').expect("area/name");
            assert!(!area.is_empty() && !name.is_empty(), "{}", c.code);
            for section in ["## What it finds", "## Why it matters", "## Fix"] {
                assert!(c.docs.contains(section), "{}: no {section}", c.code);
            }
            let row = format!("| `{}` | {} |", c.code, c.severity.as_str());
            assert!(listed.contains(&row), "docs/audit.md lacks {row}");
            assert_eq!(check(c.code), Some(*c));
        }
        let table = listed
            .split("## Checks")
            .nth(1)
            .and_then(|t| t.split("## The text").next())
            .expect("a Checks section");
        assert_eq!(
            table.lines().filter(|l| l.starts_with("| `")).count(),
            CHECKS.len(),
            "docs/audit.md lists a check the registry lacks"
        );
    }
}
