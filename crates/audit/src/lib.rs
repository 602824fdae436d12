//! The site audit of botwarden: the problems of a crawled site, found
//! exactly by SQL over its store (`docs/audit.md`).
//!
//! [`Audit::run`] finds the problems of a crawled site by SQL over its
//! store, one [`Check`] per kind ([`CHECKS`], codes such as
//! `links/broken-internal`), into an [`AuditReport`].
//!
//! Every check lives in its own file under `checks/`, with its
//! documentation as the doc comment of its declaration; [`CHECKS`] lists
//! them all. [`Audit::run`] runs each over a [`Store`] and gives an
//! [`AuditReport`]: per check, every finding with its evidence (the URLs,
//! the links that lead there with their anchor text, the robots.txt rule
//! and line). The report renders as text (`Display`) and JSON
//! (`Serialize`, shape in `docs/audit.md`); with the site's overview and
//! link graph ([`AuditDocument`], [`LinkGraph`]) and a comparison with an
//! earlier crawl ([`Comparison`]), as one HTML page ([`render_html`]) and
//! as CSV files ([`write_csv`]).

// foldhash, seeded per process: the keys are read from crawled pages.
use foldhash::{HashMap, HashMapExt as _, HashSet};
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension as _, params};
use serde::{Serialize, Serializer};

use botwarden_store::{Error as StoreError, LinkKind, Store, UrlCounts};

mod compare;
mod csv;
mod document;
mod error;
mod graph;
mod html;
mod readers;
mod render;
mod settings;
mod site;

pub use compare::{CheckChange, Comparison};
pub use csv::{
    CSV_COMPARE, CSV_INDEX, CsvCell, check_csv, compare_csv, csv_file_name, csv_row, index_csv,
    write_check_csv, write_csv,
};
pub use document::AuditDocument;
pub use error::Error;
pub use graph::{
    DAMPING, EdgeError, LinkGraph, MAX_ITERATIONS, Node as GraphNode, ScoreRun, Scores, TOLERANCE,
    link_scores,
};
pub use html::{HTML_FINDINGS, render_html};
pub use readers::{Reader, RenderView, RobotView};
pub use render::SHOWN_FINDINGS;
pub use settings::{AuditSettings, CONFIG_FILE, DEFAULT_MAX_EVIDENCE, Selection};
pub use site::{Count, DepthCount, PageRank, SiteOverview, TOP_PAGES};

/// The `schema` of the JSON report; it changes when the shape does.
pub const AUDIT_SCHEMA: &str = "botwarden-audit/1";

/// Pages deeper than this many clicks from the start URL are reported by
/// default (`structure/deep-page`).
pub const DEFAULT_MAX_DEPTH: u32 = 5;

/// A finding lists at most this many of the links that lead to its URL;
/// [`Finding::link_count`] counts them all.
pub const MAX_LINKS: usize = 100;

/// Up to this many URLs whose findings need their in-links, the links are
/// looked up URL by URL (two index lookups each); above it, one scan of
/// the links table gathers them for every finding at once.
pub(crate) const SCAN_ABOVE: usize = 1_000;

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
        pub(crate) const CHECK: crate::Check = crate::Check {
            code: $code,
            severity: crate::Severity::$severity,
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
            pub(super) mod page_quality;
            pub(super) mod resource_pages;
            pub(super) mod render_facts;
            $(pub(super) mod $module;)*
        }
        /// Every check, in the order of the documentation.
        pub const CHECKS: &[&Check] = &[$(&checks::$module::CHECK),*];
        fn run_all(cx: &Context<'_>) -> Result<Vec<CheckReport>, rusqlite::Error> {
            let mut out = Vec::new();
            $(
                if cx.selection.includes(checks::$module::CHECK.code) {
                    out.push(CheckReport::new(&checks::$module::CHECK, checks::$module::check(cx)?));
                }
            )*
            Ok(out)
        }
    };
}

checks![
    broken_internal,
    broken_external,
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
    robots_tag_invalid,
    usage_conflict,
    usage_reader_dependent,
    temporary_redirect,
    refresh_redirect,
    malformed_href,
    long_url,
    unknown_scheme,
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
    body_in_head,
    mixed_active,
    mixed_passive,
    dead_end,
    too_many_links,
    private_address,
    follow_and_nofollow,
    generic_anchor,
    multiple_description,
    sitemap_missing,
    sitemap_listed_twice,
    image_alt,
    image_long_alt,
    image_size,
    multiple_title,
    lang_missing,
    lang_invalid,
    viewport_missing,
    duplicate_id,
    heading_skip,
    thin_page,
    invalid_json_ld,
    security_headers,
    protocol_relative,
    soft_404,
    missing_fragment,
    missing_required,
    conflicting_context,
    lang_mismatch,
    hreflang_to_non_canonical,
    hreflang_to_noindex,
    hreflang_relative,
    resource_broken,
    resource_blocked,
    image_heavy,
    external_unverified,
    certificate_expiring,
    http_page,
    render_content,
    render_links,
    render_noindex_rendered,
    render_noindex_raw,
    render_canonical,
    render_head,
    render_blocked,
    render_redirect,
    render_failed,
];

/// The check with this code.
#[must_use]
pub fn check(code: &str) -> Option<&'static Check> {
    CHECKS.iter().copied().find(|c| c.code == code)
}

/// The audit's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Pages more than this many clicks from the start URL are reported
    /// (`structure/deep-page`).
    pub max_depth: u32,
    /// The checks that run (all by default); the report lists only them.
    pub selection: Selection,
    /// The robots whose reading of rendered pages the report shows (the
    /// registry's, with whether each renders).
    pub readers: Vec<Reader>,
}

impl Default for Audit {
    fn default() -> Self {
        Audit {
            max_depth: DEFAULT_MAX_DEPTH,
            selection: Selection::default(),
            readers: Vec::new(),
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
    /// What rendering changed and which reading each robot gets, for a
    /// crawl with `--render`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderView>,
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
    fn new(check: &'static Check, mut findings: Vec<Finding>) -> CheckReport {
        for f in &mut findings {
            f.related_count = f.related_count.max(f.related.len() as u64);
        }
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
    /// How many such URLs (or hrefs) there are in all: `related` may list
    /// fewer ([`AuditReport::limit_evidence`], the first ten hrefs of a
    /// page).
    #[serde(skip_serializing_if = "is_zero")]
    pub related_count: u64,
    /// How robots.txt decides the URL, for the robots checks (boxed: most
    /// findings have none, and a large report holds many findings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots: Option<Box<RobotsEvidence>>,
    /// The links of the site's pages (`<a>`, `<area>`, frames) that lead to
    /// `url`, the first [`MAX_LINKS`] in the order of their pages'
    /// discovery.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkSource>,
    /// How many such links there are in all.
    pub link_count: u64,
    /// The URL id whose in-links are the evidence, gathered for every
    /// finding at once when the checks are done.
    #[serde(skip)]
    pub(crate) evidence_of: Option<i64>,
}

impl Finding {
    fn new(url: String, message: String) -> Finding {
        Finding {
            url,
            message,
            related: Vec::new(),
            related_count: 0,
            robots: None,
            links: Vec::new(),
            link_count: 0,
            evidence_of: None,
        }
    }
}

/// A link that leads to a finding's URL. The page's URL and the anchor
/// text are shared between the findings that cite the same link or page:
/// a large report holds millions of these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkSource {
    /// The page that holds it.
    #[serde(serialize_with = "shared_str")]
    pub source: Arc<str>,
    /// `a`, `area` or `iframe`.
    pub kind: &'static str,
    /// Its anchor text (an `<area>`'s `alt`), if any.
    #[serde(serialize_with = "shared_opt")]
    pub anchor: Option<Arc<str>>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn shared_str<S: Serializer>(s: &Arc<str>, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s)
}

fn shared_opt<S: Serializer>(s: &Option<Arc<str>>, ser: S) -> Result<S::Ok, S::Error> {
    match s {
        Some(s) => ser.serialize_some(&**s),
        None => ser.serialize_none(),
    }
}

/// A link kind of the store as a constant (`a`, `area`, `iframe`, …).
pub(crate) fn link_kind(kind: &str) -> Result<&'static str, rusqlite::Error> {
    store_kind(kind).map(LinkKind::as_str)
}

/// Strings shared rather than copied: the same page URL or anchor text
/// cited by many findings is held once.
#[derive(Default)]
pub(crate) struct Interner(HashSet<Arc<str>>);

impl Interner {
    pub(crate) fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return Arc::clone(a);
        }
        let a: Arc<str> = Arc::from(s);
        self.0.insert(Arc::clone(&a));
        a
    }
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
        let fail = |e: rusqlite::Error| {
            Error::Store(StoreError {
                path: store.path().to_owned(),
                message: format!("cannot audit the crawl: {e}"),
            })
        };
        let cx = Context {
            conn: store.connection(),
            max_depth: self.max_depth,
            selection: &self.selection,
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
        attach_links(cx.conn, &mut checks, SCAN_ABOVE).map_err(fail)?;
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
            render: readers::render_view(cx.conn, &self.readers).map_err(fail)?,
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

/// The checks that read what the crawler records since schema version 5.
pub(crate) const VERSION_5_CHECKS: &[&str] = &[
    "structure/body-in-head",
    "security/mixed-content-active",
    "security/mixed-content-passive",
];

/// The checks that read what the crawler records since schema version 10
/// (`pages.quality`).
pub(crate) const VERSION_10_CHECKS: &[&str] = &[
    "images/missing-alt",
    "images/long-alt",
    "images/missing-size",
    "content/multiple-title",
    "content/lang-missing",
    "content/lang-invalid",
    "content/viewport-missing",
    "content/duplicate-id",
    "content/heading-skip",
    "content/thin",
    "structured-data/invalid-json-ld",
    "security/missing-headers",
    "links/protocol-relative",
];

/// Says, once, which pages the checks of [`VERSION_4_CHECKS`],
/// [`VERSION_5_CHECKS`] and [`VERSION_10_CHECKS`] cannot judge.
fn notes(cx: &Context<'_>) -> Result<Vec<String>, rusqlite::Error> {
    let (before_4, before_5): (i64, i64) = cx.conn.query_row(
        &format!(
            "SELECT count(*) FILTER (WHERE p.description_count IS NULL),
                    count(*) FILTER (WHERE p.description_count IS NOT NULL
                                     AND p.head_ignored_count IS NULL)
             FROM pages p WHERE {HTML_PAGE}"
        ),
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut notes = Vec::new();
    if before_4 > 0 {
        notes.push(format!(
            "{before_4} HTML page(s) were crawled before the store recorded SimHash, description, \
             H1, canonical, charset, robots meta and sitemap details (schema version 4): {}, {} \
             do not judge them; crawl again to audit them",
            VERSION_4_CHECKS.join(", "),
            VERSION_5_CHECKS.join(", ")
        ));
    }
    if before_5 > 0 {
        notes.push(format!(
            "{before_5} HTML page(s) were crawled before the store recorded head breaks and \
             insecure subresources (schema version 5): {} do not judge them; crawl again to \
             audit them",
            VERSION_5_CHECKS.join(", ")
        ));
    }
    let before_10: i64 = cx.conn.query_row(
        &format!("SELECT count(*) FROM pages p WHERE {HTML_PAGE} AND p.quality IS NULL"),
        [],
        |r| r.get(0),
    )?;
    if before_10 > 0 {
        notes.push(format!(
            "{before_10} HTML page(s) were crawled before the store recorded images, titles, \
             language, ids, headings, words, JSON-LD and security headers (schema version 10): \
             {} do not judge them; crawl again to audit them",
            VERSION_10_CHECKS.join(", ")
        ));
    }
    // Fingerprints of a store that does not name its text reading were
    // made by the older one: a crawl keeps its store's reading, so they
    // are compared with each other only, never with newer ones.
    let reading: Option<String> = cx
        .conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [botwarden_store::TextReading::META],
            |r| r.get(0),
        )
        .optional()?;
    if botwarden_store::TextReading::of_store(reading.as_deref())
        == botwarden_store::TextReading::Parser
    {
        let older: i64 = cx.conn.query_row(
            "SELECT count(*) FROM pages WHERE simhash IS NOT NULL",
            [],
            |r| r.get(0),
        )?;
        if older > 0 {
            notes.push(format!(
                "{older} HTML page(s) have SimHash fingerprints of the older reading of their \
                 text (the HTML parser's text, before the store named its reading): \
                 content/near-duplicate compares them with each other as they are; a new \
                 crawl reads the text as `{}`",
                botwarden_store::TextReading::Scan.name()
            ));
        }
    }
    Ok(notes)
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

    /// Keeps at most `max` related URLs and `max` links per finding (the
    /// first ones); `related_count` and `link_count` still count them all.
    pub fn limit_evidence(&mut self, max: usize) {
        for f in self.checks.iter_mut().flat_map(|c| c.findings.iter_mut()) {
            f.related.truncate(max);
            f.links.truncate(max);
        }
    }

    /// The checks with findings, most severe first (errors, warnings,
    /// notices; registry order within a severity), then those without.
    pub fn checks_with_findings_first(&self) -> impl Iterator<Item = &CheckReport> {
        let with = self.checks.iter().filter(|c| c.count > 0);
        with.chain(self.checks.iter().filter(|c| c.count == 0))
    }
}

/// The origin (`scheme://host[:port]`) of a stored URL in `column`: the
/// text before the first `/` after the scheme's `//` (stored URLs are
/// normal, `http://` or `https://` and a host).
macro_rules! origin {
    ($column:literal) => {
        concat!(
            "substr(",
            $column,
            ", 1, instr(substr(",
            $column,
            ", 9), '/') + 7)"
        )
    };
}
pub(crate) use origin;

/// Whether the URL `t` is on an origin the crawl fetched pages from.
pub(crate) const OWN_ORIGINS: &str = concat!(
    "substr(t.url, 1, instr(substr(t.url, 9), '/') + 7)",
    " IN (SELECT DISTINCT substr(f.url, 1, instr(substr(f.url, 9), '/') + 7)",
    " FROM urls f WHERE f.state = 'fetched')"
);

/// Whether the target `t` is one of the site's own: not left out of the
/// crawl's scope, and on an origin the crawl fetched pages from (a link
/// to another site marked nofollow is not followed, so its URL is
/// recorded as skipped for nofollow, not for scope).
pub(crate) const OWN_TARGET: &str = concat!(
    "coalesce(t.skip_reason, '') != 'scope' AND ",
    "substr(t.url, 1, instr(substr(t.url, 9), '/') + 7)",
    " IN (SELECT DISTINCT substr(f.url, 1, instr(substr(f.url, 9), '/') + 7)",
    " FROM urls f WHERE f.state = 'fetched')"
);

/// The link kinds a visitor follows: the site's internal links.
pub(crate) const LINK_KINDS: &str = "('a', 'area', 'iframe')";

/// A link of the site's graph, `l` being `links`: of the [`LINK_KINDS`],
/// and not to the page it stands on (`#top`, the page's own URL, an empty
/// `href`: `same_page`). Whatever counts the site's links (in-links, the
/// link score, a finding's evidence) counts these only.
pub(crate) const SITE_LINK: &str = "l.kind IN ('a', 'area', 'iframe') AND l.same_page = 0";

/// The links that are not the site's own (`links` of the kinds
/// `redirect`, `canonical`, `hreflang`, `refresh`), copied into a
/// temporary table when the audit starts: a few per page where the site
/// has millions of links, looked up by source and target.
pub(crate) const HEAD_LINKS: &str = "head_links";

/// [`INSTANT_REFRESH_PAGE`] as a literal, for the predicates built on it.
macro_rules! instant_refresh_page {
    () => {
        "coalesce(p.status = 200 AND p.refresh_delay <= 1, 0)"
    };
}

/// A page that answered `200` and refreshes to a URL at once (a delay of
/// at most [`crate::INSTANT_REFRESH`] seconds): a redirect, not a page
/// to read; `p` is `pages`.
pub(crate) const INSTANT_REFRESH_PAGE: &str = instant_refresh_page!();

/// A page that answered HTML whose body was read and that does not
/// refresh at once (what the content checks look at); `p` is `pages`.
pub(crate) const HTML_PAGE: &str = concat!(
    "p.status = 200 AND p.body_read = 1 AND p.error IS NULL
     AND p.content_type IN ('text/html', 'application/xhtml+xml') AND NOT ",
    instant_refresh_page!()
);

/// A redirect: a redirect answer, or a page that refreshes at once
/// ([`INSTANT_REFRESH_PAGE`]), whose target is its `location`; `p` is
/// `pages`.
pub(crate) const REDIRECT: &str = concat!(
    "(p.status IN (301, 302, 303, 307, 308) OR ",
    instant_refresh_page!(),
    ")"
);

/// Whether a page names another URL as its canonical (the duplicate checks
/// leave such pages out: they say which page is the original); `p` is
/// `pages`, `u` its URL.
pub(crate) const CANONICAL_ELSEWHERE: &str = "(p.canonical IS NOT NULL AND p.canonical != u.url)";

/// What every check may look at.
pub(crate) struct Context<'a> {
    pub(crate) conn: &'a Connection,
    pub(crate) max_depth: u32,
    pub(crate) selection: &'a Selection,
}

impl Context<'_> {
    /// A finding about the URL `id`, with the links that lead to it: they
    /// are gathered when every check is done, for all findings at once
    /// ([`attach_links`]).
    pub(crate) fn linked_finding(
        &self,
        id: i64,
        url: String,
        message: String,
    ) -> Result<Finding, rusqlite::Error> {
        let mut f = Finding::new(url, message);
        f.evidence_of = Some(id);
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
                         WHERE l.source_id = p.url_id AND l.kind IN ('redirect', 'refresh')
                         LIMIT 1)
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

/// A link kept as evidence while the links are read, in order: 16 bytes,
/// its kind an index into [`LinkKind::ALL`] and its anchor into the anchors read
/// ([`Anchors`]).
#[derive(Debug, Clone, Copy)]
struct Kept {
    source: i64,
    /// [`NO_ANCHOR`] for none.
    anchor: u32,
    kind: u8,
}

/// [`Kept::anchor`] of a link without anchor text.
const NO_ANCHOR: u32 = u32::MAX;

/// The in-links of one URL as gathered: how many, and the first
/// [`MAX_LINKS`] in the order of their pages' discovery, then their place
/// in the page.
#[derive(Default)]
struct InLinks {
    count: u64,
    kept: Vec<Kept>,
}

/// The anchor texts read, each held once.
#[derive(Default)]
struct Anchors {
    texts: Vec<Arc<str>>,
    index: HashMap<Arc<str>, u32>,
}

impl Anchors {
    fn get(&mut self, text: Option<&str>) -> u32 {
        let Some(text) = text else { return NO_ANCHOR };
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        let i = u32::try_from(self.texts.len()).unwrap_or(NO_ANCHOR - 1);
        let a: Arc<str> = Arc::from(text);
        self.texts.push(Arc::clone(&a));
        self.index.insert(a, i);
        i
    }

    fn text(&self, i: u32) -> Option<Arc<str>> {
        self.texts.get(i as usize).map(Arc::clone)
    }
}

/// A link kind as the store wrote it; an error for a kind not known.
fn store_kind(kind: &str) -> Result<LinkKind, rusqlite::Error> {
    LinkKind::of_store(kind).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            2,
            rusqlite::types::Type::Text,
            format!("unknown link kind '{kind}'").into(),
        )
    })
}

/// A link kind of the store as its index in [`LinkKind::ALL`].
fn kind_index(kind: &str) -> Result<u8, rusqlite::Error> {
    store_kind(kind).map(LinkKind::index)
}

/// Fills in the links that lead to each finding's URL
/// ([`Finding::evidence_of`]), for every finding of every check at once:
/// the URLs are gathered, their in-links read in one pass (one scan of
/// `links` when there are more than `scan_above` URLs, else two index
/// lookups per URL), at most [`MAX_LINKS`] kept per URL, and the pages'
/// URLs and anchors are shared between the findings.
pub(crate) fn attach_links(
    conn: &Connection,
    checks: &mut [CheckReport],
    scan_above: usize,
) -> Result<(), rusqlite::Error> {
    let mut targets: Vec<i64> = checks
        .iter()
        .flat_map(|c| c.findings.iter().filter_map(|f| f.evidence_of))
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    targets.sort_unstable();
    targets.dedup();
    let mut anchors = Anchors::default();
    let mut gathered: HashMap<i64, InLinks> = if targets.len() > scan_above {
        scan_in_links(conn, &targets, &mut anchors)?
    } else {
        look_up_in_links(conn, &targets, &mut anchors)?
    };
    // How many findings cite each URL: the last takes its links, the
    // others get a copy.
    let mut citations: HashMap<i64, usize> = HashMap::with_capacity(targets.len());
    for f in checks.iter().flat_map(|c| c.findings.iter()) {
        if let Some(id) = f.evidence_of {
            *citations.entry(id).or_default() += 1;
        }
    }
    // The pages' URLs, each read once.
    let mut sources: HashMap<i64, Arc<str>> = HashMap::new();
    let mut st = conn.prepare_cached("SELECT url FROM urls WHERE id = ?1")?;
    for f in checks.iter_mut().flat_map(|c| c.findings.iter_mut()) {
        let Some(id) = f.evidence_of else { continue };
        let Some(left) = citations.get_mut(&id) else {
            continue;
        };
        *left -= 1;
        let links = if *left == 0 {
            gathered.remove(&id)
        } else {
            gathered.get(&id).map(|l| InLinks {
                count: l.count,
                kept: l.kept.clone(),
            })
        };
        let Some(links) = links else { continue };
        let mut out = Vec::with_capacity(links.kept.len());
        for k in links.kept {
            let url = match sources.get(&k.source) {
                Some(u) => Arc::clone(u),
                None => {
                    let u: String = st.query_row(params![k.source], |r| r.get(0))?;
                    let u: Arc<str> = Arc::from(u);
                    sources.insert(k.source, Arc::clone(&u));
                    u
                }
            };
            out.push(LinkSource {
                source: url,
                kind: LinkKind::ALL[usize::from(k.kind)].as_str(),
                anchor: anchors.text(k.anchor),
            });
        }
        f.links = out;
        f.link_count = links.count;
    }
    Ok(())
}

/// The in-links of `targets` (sorted), two index lookups per URL: a count,
/// and the first [`MAX_LINKS`].
fn look_up_in_links(
    conn: &Connection,
    targets: &[i64],
    anchors: &mut Anchors,
) -> Result<HashMap<i64, InLinks>, rusqlite::Error> {
    let mut count = conn.prepare_cached(&format!(
        "SELECT count(*) FROM links l WHERE l.target_id = ?1 AND {SITE_LINK}"
    ))?;
    let mut list = conn.prepare_cached(&format!(
        "SELECT source_id, kind, anchor FROM links l
         WHERE l.target_id = ?1 AND {SITE_LINK}
         ORDER BY source_id, position LIMIT {MAX_LINKS}"
    ))?;
    let mut out = HashMap::with_capacity(targets.len());
    for &t in targets {
        let n: i64 = count.query_row(params![t], |r| r.get(0))?;
        let mut links = InLinks {
            count: u64::try_from(n).unwrap_or(0),
            kept: Vec::new(),
        };
        let mut rows = list.query(params![t])?;
        while let Some(r) = rows.next()? {
            links.kept.push(Kept {
                source: r.get(0)?,
                kind: kind_index(r.get_ref(1)?.as_str()?)?,
                anchor: anchors.get(r.get_ref(2)?.as_str_or_null()?),
            });
        }
        out.insert(t, links);
    }
    Ok(out)
}

/// A link kept by the scan, with the slot of its URL: 24 bytes.
struct Entry {
    source: i64,
    position: u32,
    anchor: u32,
    slot: u32,
    kind: u8,
}

/// Where the scan is for one URL: links counted, links kept, and the
/// greatest `(source, position)` kept.
#[derive(Default, Clone, Copy)]
struct Tally {
    count: u64,
    kept: usize,
    greatest: (i64, u32),
}

/// The in-links of `targets` (sorted) in one scan of the links table, in
/// table order (no index: reading the table straight through is cheaper
/// than an index lookup per link when most URLs are wanted), into one
/// vector of 24-byte entries. A link is not kept when [`MAX_LINKS`] links
/// to its URL are, all before it: the crawler writes a page's links
/// together, mostly in the pages' order, so at most about [`MAX_LINKS`]
/// per URL are kept (every link in the worst order).
fn scan_in_links(
    conn: &Connection,
    targets: &[i64],
    anchors: &mut Anchors,
) -> Result<HashMap<i64, InLinks>, rusqlite::Error> {
    let slots: HashMap<i64, u32> = targets
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    let mut tallies = vec![Tally::default(); targets.len()];
    let mut entries: Vec<Entry> = Vec::new();
    let mut st = conn.prepare(&format!(
        "SELECT target_id, source_id, position, kind, anchor FROM links l NOT INDEXED
         WHERE l.target_id IS NOT NULL AND {SITE_LINK}"
    ))?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let target: i64 = r.get(0)?;
        let Some(&slot) = slots.get(&target) else {
            continue;
        };
        let tally = &mut tallies[slot as usize];
        tally.count += 1;
        let key: (i64, u32) = (r.get(1)?, r.get(2)?);
        if tally.kept >= MAX_LINKS && key > tally.greatest {
            continue;
        }
        tally.kept += 1;
        tally.greatest = tally.greatest.max(key);
        entries.push(Entry {
            source: key.0,
            position: key.1,
            anchor: anchors.get(r.get_ref(4)?.as_str_or_null()?),
            slot,
            kind: kind_index(r.get_ref(3)?.as_str()?)?,
        });
    }
    drop(rows);
    entries.sort_unstable_by_key(|e| (e.slot, e.source, e.position));
    let mut out: HashMap<i64, InLinks> = HashMap::with_capacity(targets.len());
    for run in entries.chunk_by(|a, b| a.slot == b.slot) {
        let slot = run[0].slot as usize;
        out.insert(
            targets[slot],
            InLinks {
                count: tallies[slot].count,
                kept: run
                    .iter()
                    .take(MAX_LINKS)
                    .map(|e| Kept {
                        source: e.source,
                        anchor: e.anchor,
                        kind: e.kind,
                    })
                    .collect(),
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_is_documented_and_listed_once() {
        let listed = include_str!("../docs/audit.md");
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

    #[test]
    fn the_site_link_kinds_in_sql_are_the_stores() {
        let quoted: Vec<String> = LinkKind::SITE
            .iter()
            .map(|k| format!("'{}'", k.as_str()))
            .collect();
        let list = format!("({})", quoted.join(", "));
        assert_eq!(LINK_KINDS, list);
        assert!(SITE_LINK.starts_with(&format!("l.kind IN {list} ")));
    }
}

#[cfg(test)]
mod evidence_tests {
    use super::*;
    use botwarden_store::{Batch, LinkRecord, NewUrl, UrlState};

    /// A store of 300 pages: page 1 links to every page; pages are written
    /// out of discovery order (the last first), each linking to page 2 and
    /// page 3 twice, page 3's second link of a kind other than `a`.
    fn store(dir: &std::path::Path) -> Store {
        let mut store = Store::create(&dir.join("crawl.db")).expect("store");
        let mut batch = Batch::default();
        for id in 1..=300u64 {
            batch.new_urls.push(NewUrl {
                id,
                url: format!("https://example.com/p{id}"),
                depth: 1,
                found_by: "link",
                state: UrlState::Fetched,
                skip: None,
            });
        }
        let link = |source, target, kind, anchor: &str, position| LinkRecord {
            source,
            target: Some(target),
            target_text: None,
            kind,
            anchor: (!anchor.is_empty()).then(|| anchor.to_owned()),
            rel: None,
            followed: true,
            position,
            same_page: false,
        };
        for id in (1..=300u64).rev() {
            if id == 1 {
                for t in 2..=300u32 {
                    batch
                        .links
                        .push(link(1, u64::from(t), LinkKind::A, "all", t));
                }
            } else {
                batch
                    .links
                    .push(link(id, 2, LinkKind::A, &format!("to two from {id}"), 0));
                batch.links.push(link(id, 3, LinkKind::A, "three", 1));
                batch.links.push(link(id, 3, LinkKind::Redirect, "", 2));
                batch.links.push(link(id, 3, LinkKind::Iframe, "", 3));
            }
        }
        store.write(&batch).expect("write");
        store.build_indexes().expect("indexes");
        store
    }

    fn findings(ids: &[i64]) -> Vec<CheckReport> {
        let findings = ids
            .iter()
            .map(|&id| {
                let mut f = Finding::new(format!("u{id}"), String::new());
                f.evidence_of = Some(id);
                f
            })
            .collect();
        vec![CheckReport::new(CHECKS[0], findings)]
    }

    #[test]
    fn one_scan_and_lookups_per_url_gather_the_same_evidence() {
        let dir = std::env::temp_dir().join(format!("botwarden-evidence-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let store = store(&dir);
        let ids = [2, 3, 150, 300, 3];
        let mut scanned = findings(&ids);
        attach_links(store.connection(), &mut scanned, 0).expect("scan");
        let mut looked_up = findings(&ids);
        attach_links(store.connection(), &mut looked_up, usize::MAX).expect("lookups");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(scanned, looked_up);
        let f = &scanned[0].findings;
        // Page 2: 300 links (page 1 and 299 others), the first 100 by
        // discovery though the last pages were written first.
        assert_eq!(f[0].link_count, 300);
        assert_eq!(f[0].links.len(), MAX_LINKS);
        assert_eq!(&*f[0].links[0].source, "https://example.com/p1");
        assert_eq!(f[0].links[0].anchor.as_deref(), Some("all"));
        assert_eq!(&*f[0].links[99].source, "https://example.com/p100");
        assert_eq!(f[0].links[99].anchor.as_deref(), Some("to two from 100"));
        // Page 3: `a` and `iframe` links count, the redirects do not; a
        // page's two links in their order.
        assert_eq!(f[1].link_count, 1 + 2 * 299);
        let kinds: Vec<&str> = f[1].links[1..5].iter().map(|l| l.kind).collect();
        assert_eq!(kinds, ["a", "iframe", "a", "iframe"]);
        assert_eq!(f[1], f[4], "a URL cited twice gets the same evidence");
        assert_eq!((f[2].link_count, f[2].links.len()), (1, 1));
        // Page sources are shared, not copied.
        assert_eq!(&*f[0].links[2].source, "https://example.com/p3");
        assert!(Arc::ptr_eq(&f[0].links[2].source, &f[1].links[3].source));
    }
}
