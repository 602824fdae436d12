//! The crawl store: one SQLite file that holds everything a crawl learnt,
//! for the crawl to resume from and for people to query.
//!
//! The schema (version [`SCHEMA_VERSION`]) is documented in
//! `crates/store/docs/store.md`. In short:
//!
//! - `meta`: key/value facts of the crawl (seed, start, identity, state);
//! - `urls`: every URL met, once, with its id, depth, how it was found,
//!   its state (`queued`, `fetched`, `skipped`) and, when skipped, why;
//! - `pages`: what a fetch returned (status or error, timings, sizes, type,
//!   charset, content hash, title, directives, canonical, redirect target)
//!   and what the audit reads of an HTML page (SimHash of its visible
//!   text, description, `<h1>`, canonical, `<base>` and charset details);
//! - `links`: every link of every page (source, target, kind, anchor text,
//!   `rel` words, whether it was followed, position);
//! - `robots_files`: each origin's robots.txt as fetched;
//! - `robots_decisions`: URLs that robots.txt blocks under either reading,
//!   or that the relaxed (RFC 9309) and strict readings decide differently,
//!   with both deciding lines;
//! - `throttle_events`: every change of delay or parallelism;
//! - `site_verifications`: how the site's ownership was shown, for a
//!   crawl that reads its robots.txt another way (`--as`, `--profile`,
//!   `--robots-file`);
//! - `sitemap_entries`: the URLs sitemaps list, with the sitemap;
//! - `page_resources` and `resources`: the images, scripts and style
//!   sheets pages use, and what each answered (`crawl --resources`);
//! - `tls_certificates`: when each HTTPS origin's certificate expires.
//! - `renders`, `render_requests`: pages rendered in a browser
//!   (`--render`), raw and rendered, and the requests each made.
//!
//! Writes come in [`Batch`]es, each one transaction. The crawler assigns
//! URL ids itself (in discovery order), so a batch never reads back what
//! it wrote. The file is in WAL mode with `synchronous=NORMAL`: a
//! committed batch survives the process being killed (not a power cut).
//! On resume every URL still `queued` is queued again:
//! only the requests in flight when the crawl stopped are made twice.
//!
//! A store of an older schema is upgraded in place when opened
//! ([`Store::open`]), one transaction per version (`MIGRATIONS`).

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Error;
use crate::link_kind::LinkKind;
use crate::render::{RenderRecord, RenderRequestRecord};

/// The version of the schema this code writes and reads.
pub const SCHEMA_VERSION: u32 = 12;

/// Indexes a crawl builds once, when it ends, rather than row by row while
/// it writes (name, whether unique, table and columns). Rows arrive in the order of
/// their tables' keys (URLs by id, links by page and place), so the tables
/// stay cheap to write, but URLs and link targets come in any order: kept
/// up to date as they come, these two indexes touch pages all over their
/// B-trees, and every commit writes each touched page again. The crawler
/// holds every URL it knows in memory and gives each one id, so the
/// unique index on `urls (url)` checks, when it is built, what the
/// crawler has kept true all along.
pub const DEFERRED_INDEXES: &[(&str, bool, &str)] = &[
    ("urls_url", true, "urls (url)"),
    ("links_target", false, "links (target_id)"),
];

/// The store's page cache while a crawl writes: 64 MiB.
const PAGE_CACHE: &str = "PRAGMA cache_size = -65536;";

/// The steps from version 1 to [`SCHEMA_VERSION`], in order: the version
/// a step leads to, its name, its SQL. `SCHEMA` is version 2: a new store
/// runs the steps after it; an older store is brought up to date when it
/// is opened.
const MIGRATIONS: &[(u32, &str, &str)] = &[
    (
        2,
        "robots.txt sources and site verifications",
        MIGRATE_1_TO_2,
    ),
    (
        3,
        "pages: fetch details (HTTP version, Content-Length, body read, DNS and connect, download)",
        "ALTER TABLE pages ADD COLUMN http_version TEXT;
     ALTER TABLE pages ADD COLUMN content_length INTEGER;
     ALTER TABLE pages ADD COLUMN body_read INTEGER NOT NULL DEFAULT 1;
     ALTER TABLE pages ADD COLUMN dns_ms REAL;
     ALTER TABLE pages ADD COLUMN connect_ms REAL;
     ALTER TABLE pages ADD COLUMN download_ms REAL;",
    ),
    (
        4,
        "pages: what the audit reads (SimHash, description, H1, canonical and charset details); sitemap entries",
        MIGRATE_3_TO_4,
    ),
    (
        5,
        "pages: head breaks and insecure subresources; external link checks",
        MIGRATE_4_TO_5,
    ),
    (
        6,
        "links: kept in (source_id, position) order, without a row id",
        MIGRATE_5_TO_6,
    ),
    (
        7,
        "urls: the unique index on url named, so that a crawl can build it when it ends",
        MIGRATE_6_TO_7,
    ),
    (
        8,
        "links: same-page links marked; pages: a refresh's delay",
        MIGRATE_7_TO_8,
    ),
    (
        9,
        "usage preferences of pages (robots.txt and headers); pages: the Robots-Tag header",
        MIGRATE_8_TO_9,
    ),
    (
        10,
        "pages: what the page checks read (images, titles, language, ids, headings, words, JSON-LD, security headers)",
        "ALTER TABLE pages ADD COLUMN quality TEXT;",
    ),
    (
        11,
        "resources of pages and what they answered; bot walls of external checks; certificates' expiry",
        crate::resources::MIGRATE_10_TO_11,
    ),
    (
        12,
        "renders of pages in a browser (--render) and the requests they made",
        crate::render::MIGRATE_11_TO_12,
    ),
];

/// From version 8 to 9: what robots.txt and the response's headers say a
/// page may be used for, and the `Robots-Tag` header.
const MIGRATE_8_TO_9: &str = "
ALTER TABLE pages ADD COLUMN robots_tag TEXT;
CREATE TABLE usage (
    url_id       INTEGER PRIMARY KEY REFERENCES urls (id),
    robots       TEXT,
    robots_wide  TEXT,
    robots_lines TEXT,
    header       TEXT,
    header_text  TEXT
);
";

/// From version 7 to 8: the links that lead to the page they stand on
/// (`same_page`: a fragment of the page, `#top`, the page's own URL, an
/// empty `href`) are marked, so that no count of the site's links holds
/// them; the ones already stored are marked as the crawler marks them
/// now (they were stored with the page as their target, or as `''`).
/// A refresh's delay is kept (`refresh_delay`, `NULL` for pages fetched
/// before: they are read as pages, not as redirects).
const MIGRATE_7_TO_8: &str = "
ALTER TABLE links ADD COLUMN same_page INTEGER NOT NULL DEFAULT 0;
UPDATE links SET same_page = 1
    WHERE kind IN ('a', 'area', 'iframe') AND (target_id = source_id OR target = '');
ALTER TABLE pages ADD COLUMN refresh_delay INTEGER;
";

/// From version 6 to 7: `urls (url)` is unique through a named index
/// instead of the column's own constraint (an index SQLite makes for a
/// constraint cannot be dropped), so that it is one of the
/// [`DEFERRED_INDEXES`]. Every row and id is kept.
const MIGRATE_6_TO_7: &str = "
CREATE TABLE urls_v7 (
    id          INTEGER PRIMARY KEY,
    url         TEXT NOT NULL,
    depth       INTEGER NOT NULL,
    found_by    TEXT NOT NULL,
    state       TEXT NOT NULL,
    skip_reason TEXT,
    skip_detail TEXT
);
INSERT INTO urls_v7 (id, url, depth, found_by, state, skip_reason, skip_detail)
    SELECT id, url, depth, found_by, state, skip_reason, skip_detail FROM urls;
DROP TABLE urls;
ALTER TABLE urls_v7 RENAME TO urls;
CREATE UNIQUE INDEX urls_url ON urls (url);
CREATE INDEX urls_queued ON urls (id) WHERE state = 'queued';
";

/// From version 5 to 6: `links` is kept in the order of its key (the page,
/// the link's place on it) instead of beside a row id and an index on
/// `source_id`, one B-tree instead of two for each link written. Every row
/// is kept: a page whose links were written twice (two places equal) has
/// the later ones numbered after the earlier, in the order they were
/// written.
const MIGRATE_5_TO_6: &str = "
CREATE TABLE links_v6 (
    source_id INTEGER NOT NULL REFERENCES urls (id),
    target_id INTEGER REFERENCES urls (id),
    target    TEXT,
    kind      TEXT NOT NULL,
    anchor    TEXT,
    rel       TEXT,
    followed  INTEGER NOT NULL,
    position  INTEGER NOT NULL,
    PRIMARY KEY (source_id, position)
) WITHOUT ROWID;
INSERT INTO links_v6 (source_id, target_id, target, kind, anchor, rel, followed, position)
    SELECT source_id, target_id, target, kind, anchor, rel, followed,
           row_number() OVER (PARTITION BY source_id ORDER BY position, rowid) - 1
    FROM links;
DROP TABLE links;
ALTER TABLE links_v6 RENAME TO links;
";

/// From version 4 to 5: where a page's head ends early, and the
/// subresources an HTTPS page loads over plain HTTP.
const MIGRATE_4_TO_5: &str = "
ALTER TABLE pages ADD COLUMN head_break TEXT;
ALTER TABLE pages ADD COLUMN head_break_line INTEGER;
ALTER TABLE pages ADD COLUMN head_ignored TEXT;
ALTER TABLE pages ADD COLUMN head_ignored_count INTEGER;
ALTER TABLE pages ADD COLUMN mixed_active INTEGER;
ALTER TABLE pages ADD COLUMN mixed_passive INTEGER;
ALTER TABLE pages ADD COLUMN mixed_examples TEXT;
CREATE TABLE external_checks (
    url_id     INTEGER PRIMARY KEY REFERENCES urls (id),
    checked_at TEXT NOT NULL,
    method     TEXT NOT NULL,
    status     INTEGER,
    error      TEXT,
    location   TEXT,
    elapsed_ms REAL NOT NULL
);
";

/// From version 3 to 4: what the site audit's checks read.
const MIGRATE_3_TO_4: &str = "
ALTER TABLE pages ADD COLUMN simhash INTEGER;
ALTER TABLE pages ADD COLUMN description TEXT;
ALTER TABLE pages ADD COLUMN description_count INTEGER;
ALTER TABLE pages ADD COLUMN h1 TEXT;
ALTER TABLE pages ADD COLUMN h1_count INTEGER;
ALTER TABLE pages ADD COLUMN canonical_count INTEGER;
ALTER TABLE pages ADD COLUMN canonical_written TEXT;
ALTER TABLE pages ADD COLUMN canonical_header TEXT;
ALTER TABLE pages ADD COLUMN canonical_outside_head INTEGER;
ALTER TABLE pages ADD COLUMN base_href TEXT;
ALTER TABLE pages ADD COLUMN base_count INTEGER;
ALTER TABLE pages ADD COLUMN header_charset TEXT;
ALTER TABLE pages ADD COLUMN meta_charset TEXT;
ALTER TABLE pages ADD COLUMN bom TEXT;
ALTER TABLE pages ADD COLUMN robots_meta TEXT;
ALTER TABLE robots_files ADD COLUMN redirects INTEGER;
ALTER TABLE robots_files ADD COLUMN truncated INTEGER;
CREATE TABLE sitemap_entries (
    url_id  INTEGER NOT NULL REFERENCES urls (id),
    sitemap TEXT NOT NULL
);
";

const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE urls (
    id          INTEGER PRIMARY KEY,
    url         TEXT NOT NULL UNIQUE,
    depth       INTEGER NOT NULL,
    found_by    TEXT NOT NULL,
    state       TEXT NOT NULL,
    skip_reason TEXT,
    skip_detail TEXT
);
CREATE INDEX urls_queued ON urls (id) WHERE state = 'queued';
CREATE TABLE pages (
    url_id       INTEGER PRIMARY KEY REFERENCES urls (id),
    fetched_at   TEXT NOT NULL,
    status       INTEGER,
    error        TEXT,
    elapsed_ms   REAL NOT NULL,
    ttfb_ms      REAL,
    bytes        INTEGER NOT NULL,
    truncated    INTEGER NOT NULL,
    content_type TEXT,
    charset      TEXT,
    content_hash TEXT,
    title        TEXT,
    noindex      TEXT,
    nofollow     TEXT,
    canonical    TEXT,
    location     TEXT,
    refresh      TEXT,
    x_robots_tag TEXT
);
CREATE TABLE links (
    source_id INTEGER NOT NULL REFERENCES urls (id),
    target_id INTEGER REFERENCES urls (id),
    target    TEXT,
    kind      TEXT NOT NULL,
    anchor    TEXT,
    rel       TEXT,
    followed  INTEGER NOT NULL,
    position  INTEGER NOT NULL
);
CREATE INDEX links_source ON links (source_id);
CREATE TABLE robots_files (
    origin       TEXT PRIMARY KEY,
    fetched_at   TEXT NOT NULL,
    status       INTEGER,
    availability TEXT NOT NULL,
    error        TEXT,
    body         BLOB,
    source       TEXT NOT NULL DEFAULT 'site'
);
CREATE TABLE robots_decisions (
    url_id          INTEGER PRIMARY KEY REFERENCES urls (id),
    relaxed_allowed INTEGER NOT NULL,
    relaxed_line    INTEGER,
    relaxed_rule    TEXT,
    strict_allowed  INTEGER NOT NULL,
    strict_line     INTEGER,
    strict_rule     TEXT
);
CREATE TABLE throttle_events (
    id              INTEGER PRIMARY KEY,
    at              TEXT NOT NULL,
    host            TEXT NOT NULL,
    request         INTEGER NOT NULL,
    indicators      INTEGER NOT NULL,
    window          INTEGER NOT NULL,
    direction       TEXT NOT NULL,
    delay_ms_before INTEGER NOT NULL,
    delay_ms_after  INTEGER NOT NULL,
    parallel_before INTEGER NOT NULL,
    parallel_after  INTEGER NOT NULL
);
CREATE TABLE site_verifications (
    id                INTEGER PRIMARY KEY,
    origin            TEXT NOT NULL,
    method            TEXT NOT NULL,
    url               TEXT NOT NULL,
    verified_at       TEXT NOT NULL,
    token_fingerprint TEXT NOT NULL
);
";

/// From version 1 to 2: where each robots.txt came from, and the site
/// verifications.
const MIGRATE_1_TO_2: &str = "
ALTER TABLE robots_files ADD COLUMN source TEXT NOT NULL DEFAULT 'site';
CREATE TABLE site_verifications (
    id                INTEGER PRIMARY KEY,
    origin            TEXT NOT NULL,
    method            TEXT NOT NULL,
    url               TEXT NOT NULL,
    verified_at       TEXT NOT NULL,
    token_fingerprint TEXT NOT NULL
);
";

/// A URL's state in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UrlState {
    /// Waiting to be fetched (or in flight).
    Queued,
    /// Fetched: its result is in `pages`.
    Fetched,
    /// Not fetched, for the reason kept with it.
    Skipped,
}

impl UrlState {
    /// The word stored.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            UrlState::Queued => "queued",
            UrlState::Fetched => "fetched",
            UrlState::Skipped => "skipped",
        }
    }

    fn parse(s: &str) -> Option<UrlState> {
        Some(match s {
            "queued" => UrlState::Queued,
            "fetched" => UrlState::Fetched,
            "skipped" => UrlState::Skipped,
            _ => return None,
        })
    }
}

/// A URL the crawl met for the first time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUrl {
    /// Its id (assigned by the crawler, in discovery order).
    pub id: u64,
    /// The normalised URL.
    pub url: String,
    /// Links from the start URL.
    pub depth: u32,
    /// How it was found (`seed`, `link`, `redirect`, `sitemap`, …).
    pub found_by: &'static str,
    /// Its state now.
    pub state: UrlState,
    /// Why it is skipped (`robots`, `nofollow`, `scope`, …), if it is.
    pub skip: Option<Skip>,
}

/// Why a URL is not fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// The reason, one word (`robots`, `nofollow`, `scope`, `depth`,
    /// `trap`, `max-urls`, …).
    pub reason: &'static str,
    /// The details (the robots rule and line, where the nofollow was, …).
    pub detail: String,
}

/// What fetching one URL gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageRecord {
    /// The URL's id.
    pub url_id: u64,
    /// When (RFC 3339).
    pub fetched_at: String,
    /// The HTTP status, if a response came.
    pub status: Option<u16>,
    /// Why no response came (or the body could not be read).
    pub error: Option<String>,
    /// From the request to the end of the body.
    pub elapsed_ms: f64,
    /// From the request to the response's head.
    pub ttfb_ms: Option<f64>,
    /// Body bytes kept (decoded).
    pub bytes: u64,
    /// Whether the body was cut at the size limit.
    pub truncated: bool,
    /// `Content-Type`'s media type.
    pub content_type: Option<String>,
    /// The encoding the body was read in.
    pub charset: Option<String>,
    /// A hash of the body (hex), to find duplicates.
    pub content_hash: Option<String>,
    /// The title.
    pub title: Option<String>,
    /// What makes the page `noindex`, if anything (where it was read).
    pub noindex: Option<String>,
    /// What makes the page `nofollow`, if anything.
    pub nofollow: Option<String>,
    /// The canonical URL it names.
    pub canonical: Option<String>,
    /// A redirect's `Location`, resolved.
    pub location: Option<String>,
    /// A meta refresh or `Refresh` header's target.
    pub refresh: Option<String>,
    /// That refresh's delay, in whole seconds (a refresh of at most
    /// `botwarden_crawl::INSTANT_REFRESH` seconds is a redirect: its target is
    /// in `location` too).
    pub refresh_delay: Option<u32>,
    /// The `X-Robots-Tag` headers, joined by ` | `.
    pub x_robots_tag: Option<String>,
    /// The `Robots-Tag` headers (draft-illyes-repext), joined by ` | `.
    pub robots_tag: Option<String>,
    /// The HTTP version of the answer (`HTTP/1.1`, `HTTP/2`).
    pub http_version: Option<String>,
    /// The `Content-Length` header, as sent.
    pub content_length: Option<u64>,
    /// Whether the body was read: only HTML (or a body of unknown type) is;
    /// other types are known by their headers.
    pub body_read: bool,
    /// The name's lookup, when the request made a new connection to a name.
    pub dns_ms: Option<f64>,
    /// Making the connection (lookup, TCP and TLS), when the request made a
    /// new one; `None` when it reused one.
    pub connect_ms: Option<f64>,
    /// From the response's head to the end of what was read of the body.
    pub download_ms: Option<f64>,
    /// The SimHash of an HTML page's visible text (`html::simhash`).
    pub simhash: Option<u64>,
    /// The first `<meta name="description">`'s content, white space
    /// collapsed.
    pub description: Option<String>,
    /// How many `<meta name="description">` (`None`: not an HTML page read).
    pub description_count: Option<u32>,
    /// The first `<h1>`'s text.
    pub h1: Option<String>,
    /// How many `<h1>`.
    pub h1_count: Option<u32>,
    /// How many `<link rel="canonical">`.
    pub canonical_count: Option<u32>,
    /// The first `<link rel="canonical">`'s `href`, as written.
    pub canonical_written: Option<String>,
    /// The `Link` header's canonical, resolved.
    pub canonical_header: Option<String>,
    /// How many `<link rel="canonical">` come after `<head>`.
    pub canonical_outside_head: Option<u32>,
    /// The first `<base href>`, as written.
    pub base_href: Option<String>,
    /// How many `<base href>`.
    pub base_count: Option<u32>,
    /// The `Content-Type` header's `charset`.
    pub header_charset: Option<String>,
    /// The charset a `<meta>` declares.
    pub meta_charset: Option<String>,
    /// The encoding a byte-order mark names (`UTF-8`, `UTF-16LE`, `UTF-16BE`).
    pub bom: Option<String>,
    /// The robots `<meta>` tags read (`name: content`), joined by ` | `.
    pub robots_meta: Option<String>,
    /// The element (or `text`) that ends the head early, if one does.
    pub head_break: Option<String>,
    /// Its line.
    pub head_break_line: Option<u32>,
    /// The head elements after the break (`<link rel="canonical"> (line
    /// 9)`), one per line, at most `html::MAX_EXAMPLES`.
    pub head_ignored: Option<String>,
    /// How many head elements come after the break.
    pub head_ignored_count: Option<u32>,
    /// An HTTPS page's `http://` scripts, style sheets, frames, objects,
    /// embeds and form actions (`None`: not an HTTPS HTML page read).
    pub mixed_active: Option<u32>,
    /// An HTTPS page's `http://` images, audio and video.
    pub mixed_passive: Option<u32>,
    /// The first of them (`img src http://… (line 9)`), one per line.
    pub mixed_examples: Option<String>,
    /// What the page checks read of an HTML page, a JSON object
    /// (`botwarden_crawl::Quality`: images, titles, language, viewport,
    /// ids, headings, words, JSON-LD, scheme-less links, an HTTPS page's
    /// security headers).
    pub quality: Option<String>,
}

/// What an external URL answered (`crawl --check-external`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalRecord {
    /// The URL's id.
    pub url_id: i64,
    /// When (RFC 3339).
    pub checked_at: String,
    /// `HEAD`, or `GET` when the `HEAD` was refused or dropped.
    pub method: &'static str,
    /// The status of that request's answer, if one came.
    pub status: Option<u16>,
    /// Why no answer came.
    pub error: Option<String>,
    /// A redirect's `Location`, resolved (not followed).
    pub location: Option<String>,
    /// From the first request to the answer's head.
    pub elapsed_ms: f64,
    /// The bot wall the answer showed (`cf-mitigated: challenge`,
    /// `Retry-After`, a challenge page's marker): the URL could not be
    /// verified, and is not reported broken.
    pub wall: Option<String>,
}

/// Statuses and outcomes of a URL that count as broken.
impl ExternalRecord {
    /// Whether it answered `4xx`, `5xx` or nothing, and no bot wall.
    #[must_use]
    pub fn is_broken(&self) -> bool {
        self.wall.is_none() && self.status.is_none_or(|s| s >= 400)
    }
}

/// One link of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRecord {
    /// The page's URL id.
    pub source: u64,
    /// The target's URL id, when it is a crawlable URL.
    pub target: Option<u64>,
    /// The target as written, when it is not (`mailto:…`, invalid).
    pub target_text: Option<String>,
    /// `a`, `area`, `iframe`, `redirect`, `canonical`, `hreflang`,
    /// `refresh`, `sitemap`.
    pub kind: LinkKind,
    /// The anchor text.
    pub anchor: Option<String>,
    /// The `rel` words that ask not to follow (`nofollow ugc`).
    pub rel: Option<String>,
    /// Whether the crawler followed it.
    pub followed: bool,
    /// Its place among the page's links, from 0.
    pub position: u32,
    /// Whether it leads to the page it stands on (`#top`, the page's own
    /// URL, an empty `href`): not a link of the site's graph.
    pub same_page: bool,
}

/// What a page may be used for: from robots.txt (written when the URL is
/// judged, for the crawl's own robot) or from the response's
/// `Content-Usage` and `Content-Signal` headers (written when it is
/// fetched). Preferences are codes of `botwarden_robots::prefs::code`
/// (`-n-`); a column left `None` keeps what the row holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageRecord {
    /// The URL's id.
    pub url_id: u64,
    /// robots.txt under the group reading (aipref-attach).
    pub robots: Option<String>,
    /// robots.txt under crawler-commons' file-wide reading.
    pub robots_wide: Option<String>,
    /// The robots.txt lines that decided (`4,9`).
    pub robots_lines: Option<String>,
    /// The headers, combined.
    pub header: Option<String>,
    /// The headers as sent (`Content-Usage: train-ai=n | …`).
    pub header_text: Option<String>,
}

/// A URL that robots.txt blocks under one reading or that the two
/// readings decide differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsRecord {
    /// The URL's id.
    pub url_id: u64,
    /// RFC 9309's answer.
    pub relaxed_allowed: bool,
    /// The line of the rule that decided, if one did.
    pub relaxed_line: Option<u32>,
    /// That rule as written.
    pub relaxed_rule: Option<String>,
    /// The strict (1994/1997, first match) answer.
    pub strict_allowed: bool,
    /// Its deciding line.
    pub strict_line: Option<u32>,
    /// Its rule as written.
    pub strict_rule: Option<String>,
}

/// An origin's robots.txt as fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsFileRecord {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// When (RFC 3339).
    pub fetched_at: String,
    /// The final status, if a response came.
    pub status: Option<u16>,
    /// What the availability policy made of it (`parsed`, `full-allow`,
    /// `full-disallow`, …).
    pub availability: String,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
    /// The body, when one was read.
    pub body: Option<Vec<u8>>,
    /// `site` (fetched from the origin) or `file` (the operator's file,
    /// `--robots-file`, for a verified site).
    pub source: &'static str,
    /// Redirects followed to reach it.
    pub redirects: u32,
    /// Whether the body was longer than the fetcher reads.
    pub truncated: bool,
}

/// How a site's ownership was shown (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerificationRecord {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// `file` or `meta`.
    pub method: &'static str,
    /// Where the token was found.
    pub url: String,
    /// When (RFC 3339).
    pub verified_at: String,
    /// `sha256:` and the first 16 hex digits of the token's SHA-256.
    pub token_fingerprint: String,
}

/// A change of delay or parallelism.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrottleRecord {
    /// When (RFC 3339).
    pub at: String,
    /// The host.
    pub host: String,
    /// Requests to the host so far.
    pub request: u64,
    /// Indicators in the window.
    pub indicators: u32,
    /// Requests in the window.
    pub window: u32,
    /// `slower` or `faster`.
    pub direction: &'static str,
    /// Delay before and after, in milliseconds.
    pub delay_ms: (u64, u64),
    /// Parallelism before and after.
    pub parallel: (u32, u32),
}

/// Writes that go together, in one transaction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// URLs met for the first time.
    pub new_urls: Vec<NewUrl>,
    /// URLs whose state changed (fetched, or skipped after queueing).
    pub states: Vec<(u64, UrlState, Option<Skip>)>,
    /// Fetch results.
    pub pages: Vec<PageRecord>,
    /// Links.
    pub links: Vec<LinkRecord>,
    /// Robots decisions.
    pub robots: Vec<RobotsRecord>,
    /// Robots files.
    pub robots_files: Vec<RobotsFileRecord>,
    /// Throttle changes.
    pub throttle: Vec<ThrottleRecord>,
    /// Site verifications.
    pub verifications: Vec<VerificationRecord>,
    /// Facts of the crawl to set.
    pub meta: Vec<(String, String)>,
    /// URLs listed by sitemaps: the URL's id and the sitemap's URL.
    pub sitemap_entries: Vec<(u64, String)>,
    /// Usage preferences of URLs.
    pub usage: Vec<UsageRecord>,
    /// The images, scripts and style sheets pages use (`crawl --resources`).
    pub page_resources: Vec<crate::resources::PageResourceRecord>,
    /// Pages rendered in a browser.
    pub renders: Vec<RenderRecord>,
    /// The requests the browser made for them.
    pub render_requests: Vec<RenderRequestRecord>,
}

impl Batch {
    /// Whether there is nothing to write.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.new_urls.is_empty()
            && self.states.is_empty()
            && self.pages.is_empty()
            && self.links.is_empty()
            && self.robots.is_empty()
            && self.robots_files.is_empty()
            && self.throttle.is_empty()
            && self.verifications.is_empty()
            && self.meta.is_empty()
            && self.sitemap_entries.is_empty()
            && self.usage.is_empty()
            && self.page_resources.is_empty()
            && self.renders.is_empty()
            && self.render_requests.is_empty()
    }
}

/// A URL as read back on resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredUrl {
    /// Its id.
    pub id: u64,
    /// The URL.
    pub url: String,
    /// Its depth.
    pub depth: u32,
    /// Its state.
    pub state: UrlState,
    /// Why it was skipped, if it was (`nofollow`, `robots`, …).
    pub skip_reason: Option<String>,
}

/// An origin's robots.txt as recorded, read back on resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRobots {
    /// The origin.
    pub origin: String,
    /// When it was fetched (RFC 3339).
    pub fetched_at: String,
    /// What the availability machine decided (`parse`, `full-allow`, …;
    /// `failed` when nothing could be asked).
    pub availability: String,
    /// The body (empty when none).
    pub body: Vec<u8>,
    /// `site`, or `file` for the operator's file.
    pub source: String,
}

/// The crawl store.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// Links inserted by one statement.
const LINK_ROWS: usize = 32;

/// `INSERT INTO links … VALUES (…), …` for `rows` rows.
fn links_insert(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT OR REPLACE INTO links (source_id, target_id, target, kind, anchor, rel, followed, \
         position, same_page) \
         VALUES ",
    );
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str("(?,?,?,?,?,?,?,?,?)");
    }
    sql
}

/// A link's values in the order of [`links_insert`].
fn link_values(l: &LinkRecord) -> [rusqlite::types::ToSqlOutput<'_>; 9] {
    use rusqlite::types::{ToSqlOutput, Value, ValueRef};
    fn text(t: Option<&str>) -> ToSqlOutput<'_> {
        match t {
            Some(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            None => ToSqlOutput::Owned(Value::Null),
        }
    }
    [
        ToSqlOutput::Owned(Value::Integer(to_i64(l.source))),
        ToSqlOutput::Owned(l.target.map_or(Value::Null, |t| Value::Integer(to_i64(t)))),
        text(l.target_text.as_deref()),
        ToSqlOutput::Borrowed(ValueRef::Text(l.kind.as_str().as_bytes())),
        text(l.anchor.as_deref()),
        text(l.rel.as_deref()),
        ToSqlOutput::Owned(Value::Integer(i64::from(l.followed))),
        ToSqlOutput::Owned(Value::Integer(i64::from(l.position))),
        ToSqlOutput::Owned(Value::Integer(i64::from(l.same_page))),
    ]
}

impl Store {
    /// Creates a new store at `path`; refuses a file that already exists
    /// (a crawl is resumed by opening its file with [`Store::open`], or the file removed).
    ///
    /// # Errors
    /// [`Error`] when the file exists or cannot be created.
    pub fn create(path: &Path) -> Result<Store, Error> {
        if path.exists() {
            return Err(Error {
                path: path.to_owned(),
                message: "already exists: resume the crawl, or choose another file".into(),
            });
        }
        let conn = Connection::open(path).map_err(|e| sqlite(path, "cannot create", &e))?;
        let store = Store {
            conn,
            path: path.to_owned(),
        };
        store.pragmas()?;
        store
            .conn
            .execute_batch(SCHEMA)
            .map_err(|e| sqlite(path, "cannot create the tables", &e))?;
        store
            .conn
            .execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', '2')",
                [],
            )
            .map_err(|e| sqlite(path, "cannot write the schema version", &e))?;
        let mut store = store;
        store.migrate(2)?;
        Ok(store)
    }

    /// Opens an existing store (to resume a crawl, or to read it).
    ///
    /// # Errors
    /// [`Error`] when the file is missing, not SQLite, or not a crawl
    /// store of this version.
    pub fn open(path: &Path) -> Result<Store, Error> {
        if !path.is_file() {
            return Err(Error {
                path: path.to_owned(),
                message: "no such file".into(),
            });
        }
        let conn = Connection::open(path).map_err(|e| sqlite(path, "cannot open", &e))?;
        let store = Store {
            conn,
            path: path.to_owned(),
        };
        store.pragmas()?;
        let version: Option<String> = store
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| Error {
                path: path.to_owned(),
                message: format!("not a botwarden crawl store ({e})"),
            })?;
        let mut store = store;
        match version.as_deref().map(|v| (v, v.parse::<u32>())) {
            Some((_, Ok(v))) if (1..=SCHEMA_VERSION).contains(&v) => {
                store.migrate(v)?;
                store.build_indexes()?;
                Ok(store)
            }
            Some((v, _)) => Err(Error {
                path: path.to_owned(),
                message: format!(
                    "a crawl store of schema version {v}; this botwarden reads version {SCHEMA_VERSION}"
                ),
            }),
            None => Err(Error {
                path: path.to_owned(),
                message: "not a botwarden crawl store (no schema version)".into(),
            }),
        }
    }

    /// Brings a store of version `from` up to [`SCHEMA_VERSION`], each step
    /// in its own transaction with the version it leads to.
    fn migrate(&mut self, from: u32) -> Result<(), Error> {
        for (to, name, sql) in MIGRATIONS.iter().filter(|(to, _, _)| *to > from) {
            let what = format!("cannot update the schema to version {to} ({name})");
            let tx = self
                .conn
                .transaction()
                .map_err(|e| sqlite(&self.path, &what, &e))?;
            tx.execute_batch(sql)
                .and_then(|()| {
                    tx.execute(
                        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                        params![to.to_string()],
                    )
                })
                .and_then(|_| tx.commit())
                .map_err(|e| sqlite(&self.path, &what, &e))?;
        }
        Ok(())
    }

    /// Pages of 16 KiB for a new store (ignored for one that exists), WAL,
    /// `synchronous = NORMAL`, and a page cache of 64 MiB (SQLite's
    /// default 2 MiB makes every insert into the URL and link indexes
    /// read pages back from the file). Foreign keys are declared, not
    /// enforced: the writer stores a URL before any link to it, in the
    /// same transaction, and the tests run `PRAGMA foreign_key_check`.
    /// The bundled SQLite enforces them unless told not to, and enforcing
    /// them costs two lookups in `urls` per link: about 40 % of the
    /// time a crawl's writes take.
    fn pragmas(&self) -> Result<(), Error> {
        self.conn
            .execute_batch(
                "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                 PRAGMA foreign_keys = OFF;",
            )
            .and_then(|()| self.conn.execute_batch(PAGE_CACHE))
            .map_err(|e| sqlite(&self.path, "cannot set up", &e))
    }

    /// Drops the indexes that a crawl builds once at its end instead of
    /// keeping them up to date link by link ([`DEFERRED_INDEXES`]).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn defer_indexes(&self) -> Result<(), Error> {
        for (name, _, _) in DEFERRED_INDEXES {
            self.conn
                .execute_batch(&format!("DROP INDEX IF EXISTS {name};"))
                .map_err(|e| sqlite(&self.path, "cannot drop an index", &e))?;
        }
        Ok(())
    }

    /// Builds the deferred indexes that are missing ([`DEFERRED_INDEXES`]):
    /// at the end of a crawl, and when a store is opened after a crawl that
    /// was killed.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn build_indexes(&self) -> Result<(), Error> {
        // SQLite sorts an index's entries in runs of its page cache's size,
        // by up to `threads` helper threads, then merges the runs: runs of
        // 2 MiB sorted two at a time build the in-link index of 3,000,000
        // links in about half the time one 64 MiB run takes.
        let set = |sql: &str| {
            self.conn
                .execute_batch(sql)
                .map_err(|e| sqlite(&self.path, "cannot set up", &e))
        };
        set("PRAGMA threads = 2; PRAGMA cache_size = -2048;")?;
        let built = DEFERRED_INDEXES.iter().try_for_each(|(name, unique, on)| {
            let kind = if *unique { "UNIQUE INDEX" } else { "INDEX" };
            self.conn
                .execute_batch(&format!("CREATE {kind} IF NOT EXISTS {name} ON {on};"))
                .map_err(|e| {
                    let mut what = format!("cannot build the index {name}");
                    if *unique {
                        // Name the first row the crawl stored twice.
                        let twice: Option<String> = self
                            .conn
                            .query_row(
                                "SELECT url FROM urls GROUP BY url HAVING count(*) > 1 LIMIT 1",
                                [],
                                |r| r.get(0),
                            )
                            .optional()
                            .ok()
                            .flatten();
                        if let Some(url) = twice {
                            what = format!("{what} (the URL {url} is stored twice)");
                        }
                    }
                    sqlite(&self.path, &what, &e)
                })
        });
        set("PRAGMA threads = 0;")?;
        set(PAGE_CACHE)?;
        built
    }

    /// The store's file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The SQLite connection, to write in a transaction of the caller's.
    pub(crate) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// The SQLite connection, for queries the store has no method for.
    #[must_use]
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Writes a batch in one transaction.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails; nothing of the batch is written then.
    pub fn write(&mut self, batch: &Batch) -> Result<(), Error> {
        if batch.is_empty() {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sqlite(&self.path, "cannot begin a transaction", &e))?;
        let writer = BatchWriter {
            tx: &tx,
            path: &self.path,
        };
        writer.urls(batch)?;
        writer.pages(&batch.pages)?;
        writer.links(&batch.links)?;
        writer.robots(batch)?;
        writer.usage(&batch.usage)?;
        crate::resources::write_page_resources(&tx, &batch.page_resources)
            .map_err(|e| sqlite(&self.path, "cannot store a page's resources", &e))?;
        crate::render::write(&tx, &batch.renders, &batch.render_requests)
            .map_err(|e| sqlite(&self.path, "cannot store a render", &e))?;
        writer.crawl_facts(batch)?;
        tx.commit()
            .map_err(|e| sqlite(&self.path, "cannot commit", &e))
    }

    /// Stores what external URLs answered, in one transaction (a URL
    /// checked again replaces its row).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails; nothing is written then.
    pub fn write_external(&mut self, records: &[ExternalRecord]) -> Result<(), Error> {
        let path = self.path.clone();
        let fail = |e: rusqlite::Error| sqlite(&path, "cannot store an external link check", &e);
        let tx = self.conn.transaction().map_err(fail)?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO external_checks (url_id, checked_at, method, status,
                     error, location, elapsed_ms, wall) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(fail)?;
            for r in records {
                st.execute(params![
                    r.url_id,
                    r.checked_at,
                    r.method,
                    r.status,
                    r.error,
                    r.location,
                    r.elapsed_ms,
                    r.wall,
                ])
                .map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)
    }

    /// A fact of the crawl (`seed`, `started_at`, …).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn meta(&self, key: &str) -> Result<Option<String>, Error> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| sqlite(&self.path, "cannot read the crawl's facts", &e))
    }

    /// Sets a fact of the crawl (replacing it).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), Error> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| sqlite(&self.path, "cannot write the crawl's facts", &e))
    }

    /// Appends `text` to a fact of the crawl (creating it).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn append_meta(&self, key: &str, text: &str) -> Result<(), Error> {
        let mut value = self.meta(key)?.unwrap_or_default();
        value.push_str(text);
        self.set_meta(key, &value)
    }

    /// Each origin's robots.txt as last recorded: what a resumed crawl
    /// reads again instead of asking the site.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn robots_files(&self) -> Result<Vec<StoredRobots>, Error> {
        let path = &self.path;
        let mut st = self
            .conn
            .prepare("SELECT origin, fetched_at, availability, body, source FROM robots_files")
            .map_err(|e| sqlite(path, "cannot read the robots.txt files", &e))?;
        let rows = st
            .query_map([], |r| {
                Ok(StoredRobots {
                    origin: r.get(0)?,
                    fetched_at: r.get(1)?,
                    availability: r.get(2)?,
                    body: r.get::<_, Option<Vec<u8>>>(3)?.unwrap_or_default(),
                    source: r.get(4)?,
                })
            })
            .map_err(|e| sqlite(path, "cannot read the robots.txt files", &e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| sqlite(path, "cannot read a robots.txt file", &e))
    }

    /// Queues again the URLs skipped for `reason` (at most `limit`, first
    /// met first), and returns how many were.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn requeue_skipped(&mut self, reason: &str, limit: Option<u64>) -> Result<u64, Error> {
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        self.conn
            .execute(
                "UPDATE urls SET state = 'queued', skip_reason = NULL, skip_detail = NULL
                 WHERE id IN (SELECT id FROM urls WHERE state = 'skipped' AND skip_reason = ?1
                              ORDER BY id LIMIT ?2)",
                params![reason, limit],
            )
            .map(|n| n as u64)
            .map_err(|e| sqlite(&self.path, "cannot queue URLs again", &e))
    }

    /// Every URL, in id order: what a resumed crawl starts from.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails or a row holds an unknown state.
    pub fn urls(&self) -> Result<Vec<StoredUrl>, Error> {
        let path = &self.path;
        let mut st = self
            .conn
            .prepare("SELECT id, url, depth, state, skip_reason FROM urls ORDER BY id")
            .map_err(|e| sqlite(path, "cannot read the URLs", &e))?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ))
            })
            .map_err(|e| sqlite(path, "cannot read the URLs", &e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, url, depth, state, skip_reason) =
                row.map_err(|e| sqlite(path, "cannot read a URL", &e))?;
            let state = UrlState::parse(&state).ok_or_else(|| Error {
                path: path.clone(),
                message: format!("URL {id} has the unknown state '{state}'"),
            })?;
            out.push(StoredUrl {
                id: u64::try_from(id).unwrap_or(0),
                url,
                depth,
                state,
                skip_reason,
            });
        }
        Ok(out)
    }

    /// How many URLs are in each state: (queued, fetched, skipped).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn counts(&self) -> Result<(u64, u64, u64), Error> {
        let mut st = self
            .conn
            .prepare("SELECT state, count(*) FROM urls GROUP BY state")
            .map_err(|e| sqlite(&self.path, "cannot count the URLs", &e))?;
        let mut counts = (0, 0, 0);
        let rows = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| sqlite(&self.path, "cannot count the URLs", &e))?;
        for row in rows {
            let (state, n) = row.map_err(|e| sqlite(&self.path, "cannot count the URLs", &e))?;
            let n = u64::try_from(n).unwrap_or(0);
            match UrlState::parse(&state) {
                Some(UrlState::Queued) => counts.0 += n,
                Some(UrlState::Fetched) => counts.1 += n,
                Some(UrlState::Skipped) => counts.2 += n,
                None => {}
            }
        }
        Ok(counts)
    }
}

/// [`Store::write`]'s steps: a batch's rows, table by table, in its
/// transaction.
struct BatchWriter<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    path: &'a Path,
}

impl BatchWriter<'_> {
    /// The error of a failed step, naming the store's file.
    fn err<'b>(&'b self, what: &'b str) -> impl Fn(rusqlite::Error) -> Error + 'b {
        move |e| sqlite(self.path, what, &e)
    }

    /// A cached statement of the transaction.
    fn prepare(&self, sql: &str) -> Result<rusqlite::CachedStatement<'_>, Error> {
        self.tx
            .prepare_cached(sql)
            .map_err(|e| sqlite(self.path, "cannot prepare", &e))
    }

    /// The new URLs, then the changed states of known ones.
    fn urls(&self, batch: &Batch) -> Result<(), Error> {
        let mut st = self.prepare(
            "INSERT INTO urls (id, url, depth, found_by, state, skip_reason, skip_detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for u in &batch.new_urls {
            st.execute(params![
                to_i64(u.id),
                u.url,
                u.depth,
                u.found_by,
                u.state.as_str(),
                u.skip.as_ref().map(|s| s.reason),
                u.skip.as_ref().map(|s| s.detail.as_str()),
            ])
            .map_err(self.err(&format!("cannot store the URL {}", u.url)))?;
        }
        let mut st = self.prepare(
            "UPDATE urls SET state = ?2, skip_reason = ?3, skip_detail = ?4 WHERE id = ?1",
        )?;
        for (id, state, skip) in &batch.states {
            st.execute(params![
                to_i64(*id),
                state.as_str(),
                skip.as_ref().map(|s| s.reason),
                skip.as_ref().map(|s| s.detail.as_str()),
            ])
            .map_err(self.err("cannot update a URL's state"))?;
        }
        Ok(())
    }

    /// The pages fetched.
    fn pages(&self, pages: &[PageRecord]) -> Result<(), Error> {
        let mut st = self.prepare(
            "INSERT OR REPLACE INTO pages (url_id, fetched_at, status, error, elapsed_ms,
                 ttfb_ms, bytes, truncated, content_type, charset, content_hash, title,
                 noindex, nofollow, canonical, location, refresh, x_robots_tag,
                 http_version, content_length, body_read, dns_ms, connect_ms, download_ms,
                 simhash, description, description_count, h1, h1_count, canonical_count,
                 canonical_written, canonical_header, canonical_outside_head, base_href,
                 base_count, header_charset, meta_charset, bom, robots_meta, head_break,
                 head_break_line, head_ignored, head_ignored_count, mixed_active,
                 mixed_passive, mixed_examples, refresh_delay, robots_tag, quality)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                 ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30,
                 ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43, ?44, ?45,
                 ?46, ?47, ?48, ?49)",
        )?;
        for p in pages {
            st.execute(params![
                to_i64(p.url_id),
                p.fetched_at,
                p.status,
                p.error,
                p.elapsed_ms,
                p.ttfb_ms,
                to_i64(p.bytes),
                p.truncated,
                p.content_type,
                p.charset,
                p.content_hash,
                p.title,
                p.noindex,
                p.nofollow,
                p.canonical,
                p.location,
                p.refresh,
                p.x_robots_tag,
                p.http_version,
                p.content_length.map(to_i64),
                p.body_read,
                p.dns_ms,
                p.connect_ms,
                p.download_ms,
                // SQLite integers are signed: the 64 bits as they are.
                p.simhash.map(|h| h.cast_signed()),
                p.description,
                p.description_count,
                p.h1,
                p.h1_count,
                p.canonical_count,
                p.canonical_written,
                p.canonical_header,
                p.canonical_outside_head,
                p.base_href,
                p.base_count,
                p.header_charset,
                p.meta_charset,
                p.bom,
                p.robots_meta,
                p.head_break,
                p.head_break_line,
                p.head_ignored,
                p.head_ignored_count,
                p.mixed_active,
                p.mixed_passive,
                p.mixed_examples,
                p.refresh_delay,
                p.robots_tag,
                p.quality,
            ])
            .map_err(self.err("cannot store a page"))?;
        }
        Ok(())
    }

    /// The links found.
    fn links(&self, links: &[LinkRecord]) -> Result<(), Error> {
        // Links go in LINK_ROWS rows per statement: a page's links
        // come together, and one statement per row costs more than the
        // rows themselves.
        let mut chunks = links.chunks_exact(LINK_ROWS);
        let mut st = self.prepare(&links_insert(LINK_ROWS))?;
        for chunk in &mut chunks {
            st.execute(rusqlite::params_from_iter(
                chunk.iter().flat_map(link_values),
            ))
            .map_err(self.err("cannot store a link"))?;
        }
        let mut st = self.prepare(&links_insert(1))?;
        for l in chunks.remainder() {
            st.execute(rusqlite::params_from_iter(link_values(l)))
                .map_err(self.err("cannot store a link"))?;
        }
        Ok(())
    }

    /// Usage preferences: a column a record leaves `None` keeps its value.
    fn usage(&self, records: &[UsageRecord]) -> Result<(), Error> {
        if records.is_empty() {
            return Ok(());
        }
        let mut st = self.prepare(
            "INSERT INTO usage (url_id, robots, robots_wide, robots_lines, header, header_text)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (url_id) DO UPDATE SET
                 robots = coalesce(excluded.robots, robots),
                 robots_wide = coalesce(excluded.robots_wide, robots_wide),
                 robots_lines = coalesce(excluded.robots_lines, robots_lines),
                 header = coalesce(excluded.header, header),
                 header_text = coalesce(excluded.header_text, header_text)",
        )?;
        for u in records {
            st.execute(params![
                to_i64(u.url_id),
                u.robots,
                u.robots_wide,
                u.robots_lines,
                u.header,
                u.header_text,
            ])
            .map_err(self.err("cannot store a page's usage preferences"))?;
        }
        Ok(())
    }

    /// The robots.txt decisions on URLs, then the robots.txt files read.
    fn robots(&self, batch: &Batch) -> Result<(), Error> {
        let mut st = self.prepare(
            "INSERT OR REPLACE INTO robots_decisions (url_id, relaxed_allowed,
                 relaxed_line, relaxed_rule, strict_allowed, strict_line, strict_rule)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for r in &batch.robots {
            st.execute(params![
                to_i64(r.url_id),
                r.relaxed_allowed,
                r.relaxed_line,
                r.relaxed_rule,
                r.strict_allowed,
                r.strict_line,
                r.strict_rule,
            ])
            .map_err(self.err("cannot store a robots decision"))?;
        }
        let mut st = self.prepare(
            "INSERT OR REPLACE INTO robots_files (origin, fetched_at, status,
                 availability, error, body, source, redirects, truncated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for f in &batch.robots_files {
            st.execute(params![
                f.origin,
                f.fetched_at,
                f.status,
                f.availability,
                f.error,
                f.body,
                f.source,
                f.redirects,
                f.truncated,
            ])
            .map_err(self.err("cannot store a robots.txt"))?;
        }
        Ok(())
    }

    /// Throttle events, site verifications, sitemap entries and the crawl's facts (`meta`).
    fn crawl_facts(&self, batch: &Batch) -> Result<(), Error> {
        let mut st = self.prepare(
            "INSERT INTO throttle_events (at, host, request, indicators, window,
                 direction, delay_ms_before, delay_ms_after, parallel_before,
                 parallel_after) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?;
        for t in &batch.throttle {
            st.execute(params![
                t.at,
                t.host,
                to_i64(t.request),
                t.indicators,
                t.window,
                t.direction,
                to_i64(t.delay_ms.0),
                to_i64(t.delay_ms.1),
                t.parallel.0,
                t.parallel.1,
            ])
            .map_err(self.err("cannot store a throttle event"))?;
        }
        let mut st = self.prepare(
            "INSERT INTO site_verifications (origin, method, url, verified_at,
                 token_fingerprint) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for v in &batch.verifications {
            st.execute(params![
                v.origin,
                v.method,
                v.url,
                v.verified_at,
                v.token_fingerprint,
            ])
            .map_err(self.err("cannot store a site verification"))?;
        }
        let mut st =
            self.prepare("INSERT INTO sitemap_entries (url_id, sitemap) VALUES (?1, ?2)")?;
        for (id, sitemap) in &batch.sitemap_entries {
            st.execute(params![to_i64(*id), sitemap])
                .map_err(self.err("cannot store a sitemap entry"))?;
        }
        let mut st = self.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?;
        for (k, v) in &batch.meta {
            st.execute(params![k, v])
                .map_err(self.err("cannot store a fact of the crawl"))?;
        }
        Ok(())
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn sqlite(path: &Path, what: &str, e: &rusqlite::Error) -> Error {
    Error {
        path: path.to_owned(),
        message: format!("{what}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of a table's indexes, in order.
    fn index_names(conn: &Connection, table: &str) -> Vec<String> {
        conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 ORDER BY name",
        )
        .and_then(|mut st| st.query_map([table], |r| r.get(0))?.collect())
        .expect("indexes")
    }

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir =
                std::env::temp_dir().join(format!("botwarden-store-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn url(id: u64, url: &str, state: UrlState) -> NewUrl {
        NewUrl {
            id,
            url: url.into(),
            depth: u32::try_from(id).unwrap_or(0),
            found_by: if id == 1 { "seed" } else { "link" },
            state,
            skip: (state == UrlState::Skipped).then(|| Skip {
                reason: "robots",
                detail: "Disallow: /private (line 2)".into(),
            }),
        }
    }

    #[test]
    fn a_batch_is_written_and_read_back_after_reopening() {
        let dir = TempDir::new("roundtrip");
        let path = dir.0.join("crawl.db");
        let mut store = Store::create(&path).expect("create");
        let batch = Batch {
            new_urls: vec![
                url(1, "https://example.com/", UrlState::Fetched),
                url(2, "https://example.com/a", UrlState::Queued),
                url(3, "https://example.com/private", UrlState::Skipped),
            ],
            pages: vec![PageRecord {
                url_id: 1,
                fetched_at: "2026-11-23T19:00:00Z".into(),
                status: Some(200),
                elapsed_ms: 12.5,
                bytes: 1234,
                title: Some("Home".into()),
                ..PageRecord::default()
            }],
            links: vec![
                LinkRecord {
                    source: 1,
                    target: Some(2),
                    target_text: None,
                    kind: LinkKind::A,
                    anchor: Some("A".into()),
                    rel: None,
                    followed: true,
                    position: 0,
                    same_page: false,
                },
                LinkRecord {
                    source: 1,
                    target: None,
                    target_text: Some("mailto:x@example.com".into()),
                    kind: LinkKind::A,
                    anchor: None,
                    rel: Some("nofollow".into()),
                    followed: false,
                    position: 1,
                    same_page: false,
                },
            ],
            robots: vec![RobotsRecord {
                url_id: 3,
                relaxed_allowed: false,
                relaxed_line: Some(2),
                relaxed_rule: Some("Disallow: /private".into()),
                strict_allowed: false,
                strict_line: Some(2),
                strict_rule: Some("Disallow: /private".into()),
            }],
            meta: vec![("seed".into(), "https://example.com/".into())],
            ..Batch::default()
        };
        store.write(&batch).expect("write");
        drop(store);

        let mut store = Store::open(&path).expect("open");
        assert_eq!(store.counts().expect("counts"), (1, 1, 1));
        assert_eq!(
            store.meta("seed").expect("meta").as_deref(),
            Some("https://example.com/")
        );
        let urls = store.urls().expect("urls");
        assert_eq!(urls.len(), 3);
        assert_eq!(urls[1].state, UrlState::Queued);
        // The queued URL is fetched later.
        store
            .write(&Batch {
                states: vec![(2, UrlState::Fetched, None)],
                pages: vec![PageRecord {
                    url_id: 2,
                    fetched_at: "2026-11-23T19:00:01Z".into(),
                    error: Some("connection reset".into()),
                    ..PageRecord::default()
                }],
                ..Batch::default()
            })
            .expect("write");
        assert_eq!(store.counts().expect("counts"), (0, 2, 1));
        let links: i64 = store
            .connection()
            .query_row("SELECT count(*) FROM links WHERE target_id = 2", [], |r| {
                r.get(0)
            })
            .expect("query");
        assert_eq!(links, 1);
    }

    #[test]
    fn a_failed_batch_writes_nothing() {
        let dir = TempDir::new("atomic");
        let path = dir.0.join("crawl.db");
        let mut store = Store::create(&path).expect("create");
        store
            .write(&Batch {
                new_urls: vec![url(1, "https://example.com/", UrlState::Queued)],
                ..Batch::default()
            })
            .expect("write");
        // The second URL reuses an id: the whole batch is refused.
        let err = store
            .write(&Batch {
                new_urls: vec![
                    url(2, "https://example.com/b", UrlState::Queued),
                    url(1, "https://example.com/c", UrlState::Queued),
                ],
                ..Batch::default()
            })
            .expect_err("duplicate id");
        assert!(err.to_string().contains("crawl.db"), "{err}");
        assert!(err.to_string().contains("https://example.com/c"), "{err}");
        assert_eq!(store.urls().expect("urls").len(), 1);
    }

    /// The schema of version 1, as it was written.
    const SCHEMA_V1: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE urls (
    id          INTEGER PRIMARY KEY,
    url         TEXT NOT NULL UNIQUE,
    depth       INTEGER NOT NULL,
    found_by    TEXT NOT NULL,
    state       TEXT NOT NULL,
    skip_reason TEXT,
    skip_detail TEXT
);
CREATE INDEX urls_queued ON urls (id) WHERE state = 'queued';
CREATE TABLE pages (
    url_id       INTEGER PRIMARY KEY REFERENCES urls (id),
    fetched_at   TEXT NOT NULL,
    status       INTEGER,
    error        TEXT,
    elapsed_ms   REAL NOT NULL,
    ttfb_ms      REAL,
    bytes        INTEGER NOT NULL,
    truncated    INTEGER NOT NULL,
    content_type TEXT,
    charset      TEXT,
    content_hash TEXT,
    title        TEXT,
    noindex      TEXT,
    nofollow     TEXT,
    canonical    TEXT,
    location     TEXT,
    refresh      TEXT,
    x_robots_tag TEXT
);
CREATE TABLE links (
    source_id INTEGER NOT NULL REFERENCES urls (id),
    target_id INTEGER REFERENCES urls (id),
    target    TEXT,
    kind      TEXT NOT NULL,
    anchor    TEXT,
    rel       TEXT,
    followed  INTEGER NOT NULL,
    position  INTEGER NOT NULL
);
CREATE INDEX links_source ON links (source_id);
CREATE INDEX links_target ON links (target_id);
CREATE TABLE robots_files (
    origin       TEXT PRIMARY KEY,
    fetched_at   TEXT NOT NULL,
    status       INTEGER,
    availability TEXT NOT NULL,
    error        TEXT,
    body         BLOB
);
CREATE TABLE robots_decisions (
    url_id          INTEGER PRIMARY KEY REFERENCES urls (id),
    relaxed_allowed INTEGER NOT NULL,
    relaxed_line    INTEGER,
    relaxed_rule    TEXT,
    strict_allowed  INTEGER NOT NULL,
    strict_line     INTEGER,
    strict_rule     TEXT
);
CREATE TABLE throttle_events (
    id              INTEGER PRIMARY KEY,
    at              TEXT NOT NULL,
    host            TEXT NOT NULL,
    request         INTEGER NOT NULL,
    indicators      INTEGER NOT NULL,
    window          INTEGER NOT NULL,
    direction       TEXT NOT NULL,
    delay_ms_before INTEGER NOT NULL,
    delay_ms_after  INTEGER NOT NULL,
    parallel_before INTEGER NOT NULL,
    parallel_after  INTEGER NOT NULL
);
";

    #[test]
    fn a_version_1_store_is_upgraded_when_opened() {
        let dir = TempDir::new("migrate");
        let path = dir.0.join("v1.db");
        let conn = Connection::open(&path).expect("create");
        conn.execute_batch(SCHEMA_V1).expect("v1 schema");
        conn.execute_batch(
            "INSERT INTO meta VALUES ('schema_version', '1'), ('seed', 'https://example.com/');
             INSERT INTO robots_files (origin, fetched_at, status, availability)
             VALUES ('https://example.com', '2026-11-23T19:00:00Z', 200, 'parse');",
        )
        .expect("v1 rows");
        drop(conn);
        let mut store = Store::open(&path).expect("upgraded");
        assert_eq!(
            store.meta("schema_version").expect("meta").as_deref(),
            Some(SCHEMA_VERSION.to_string().as_str())
        );
        let source: String = store
            .connection()
            .query_row("SELECT source FROM robots_files", [], |r| r.get(0))
            .expect("source");
        assert_eq!(source, "site");
        store
            .write(&Batch {
                verifications: vec![VerificationRecord {
                    origin: "https://example.com".into(),
                    method: "file",
                    url: "https://example.com/botwarden-x.txt".into(),
                    verified_at: "2026-11-23T19:00:01Z".into(),
                    token_fingerprint: "sha256:0011223344556677".into(),
                }],
                ..Batch::default()
            })
            .expect("write a verification");
        drop(store);
        // Opened again, it is a store of this version with its row.
        let store = Store::open(&path).expect("reopened");
        let n: i64 = store
            .connection()
            .query_row("SELECT count(*) FROM site_verifications", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 1);
    }

    #[test]
    fn files_that_are_not_stores_are_named_and_refused() {
        let dir = TempDir::new("refuse");
        let path = dir.0.join("crawl.db");
        Store::create(&path).expect("create");
        let again = Store::create(&path).expect_err("exists");
        assert!(again.to_string().contains("already exists"), "{again}");
        let missing = Store::open(&dir.0.join("none.db")).expect_err("missing");
        assert!(missing.to_string().contains("no such file"), "{missing}");
        let text = dir.0.join("text.db");
        std::fs::write(&text, "not sqlite at all, just some text\n".repeat(200)).expect("write");
        let err = Store::open(&text).expect_err("not sqlite");
        assert!(err.to_string().contains("text.db"), "{err}");
        let other = dir.0.join("other.db");
        Connection::open(&other)
            .and_then(|c| c.execute_batch("CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('schema_version', '99');"))
            .expect("other store");
        let err = Store::open(&other).expect_err("newer version");
        assert!(err.to_string().contains("version 99"), "{err}");
    }

    #[test]
    fn a_version_1_store_gains_the_fetch_details_when_opened() {
        let dir = TempDir::new("migrate-fetch");
        let path = dir.0.join("crawl.db");
        Connection::open(&path)
            .and_then(|c| {
                c.execute_batch(SCHEMA_V1)?;
                c.execute_batch(
                    "INSERT INTO meta VALUES ('schema_version', '1');
                     INSERT INTO urls VALUES (1, 'https://example.com/', 0, 'seed', 'fetched', NULL, NULL);
                     INSERT INTO pages (url_id, fetched_at, status, elapsed_ms, bytes, truncated)
                     VALUES (1, '2026-11-23T19:00:00Z', 200, 5.0, 10, 0);",
                )
            })
            .expect("a version 1 store");
        let mut store = Store::open(&path).expect("open");
        assert_eq!(
            store.meta("schema_version").expect("meta").as_deref(),
            Some(SCHEMA_VERSION.to_string().as_str())
        );
        // The page fetched before keeps its facts; its body was read.
        let (read, version): (bool, Option<String>) = store
            .connection()
            .query_row("SELECT body_read, http_version FROM pages", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("page");
        assert_eq!((read, version), (true, None));
        store
            .write(&Batch {
                new_urls: vec![url(2, "https://example.com/a.pdf", UrlState::Fetched)],
                pages: vec![PageRecord {
                    url_id: 2,
                    fetched_at: "2026-11-23T19:00:01Z".into(),
                    status: Some(200),
                    http_version: Some("HTTP/2".into()),
                    content_length: Some(1 << 30),
                    body_read: false,
                    connect_ms: Some(1.5),
                    ..PageRecord::default()
                }],
                ..Batch::default()
            })
            .expect("write");
        drop(store);
        // Opening again changes nothing.
        let store = Store::open(&path).expect("reopen");
        let row: (String, i64, bool, Option<f64>) = store
            .connection()
            .query_row(
                "SELECT http_version, content_length, body_read, connect_ms FROM pages
                 WHERE url_id = 2",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .expect("page");
        assert_eq!(row, ("HTTP/2".to_owned(), 1 << 30, false, Some(1.5)));
    }

    #[test]
    fn a_version_1_store_gains_the_audit_details_when_opened() {
        let dir = TempDir::new("migrate4");
        let path = dir.0.join("crawl.db");
        Connection::open(&path)
            .and_then(|c| {
                c.execute_batch(SCHEMA_V1)?;
                c.execute_batch(
                    "INSERT INTO meta VALUES ('schema_version', '1');
                     INSERT INTO urls VALUES (1, 'https://example.com/', 0, 'seed', 'fetched', NULL, NULL);
                     INSERT INTO pages (url_id, fetched_at, status, elapsed_ms, bytes, truncated)
                     VALUES (1, '2026-11-23T19:00:00Z', 200, 5.0, 10, 0);",
                )
            })
            .expect("a version 1 store");
        let mut store = Store::open(&path).expect("open");
        // The page fetched before has none of the new facts.
        let (simhash, h1_count): (Option<i64>, Option<u32>) = store
            .connection()
            .query_row("SELECT simhash, h1_count FROM pages", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("page");
        assert_eq!((simhash, h1_count), (None, None));
        let high = 0xfedc_ba98_7654_3210_u64;
        store
            .write(&Batch {
                pages: vec![PageRecord {
                    url_id: 1,
                    fetched_at: "2026-11-23T19:00:01Z".into(),
                    status: Some(200),
                    simhash: Some(high),
                    h1: Some("Home".into()),
                    h1_count: Some(1),
                    bom: Some("UTF-8".into()),
                    ..PageRecord::default()
                }],
                sitemap_entries: vec![(1, "https://example.com/sitemap.xml".into())],
                robots_files: vec![RobotsFileRecord {
                    origin: "https://example.com".into(),
                    fetched_at: "2026-11-23T19:00:01Z".into(),
                    status: Some(200),
                    availability: "parse".into(),
                    error: None,
                    body: None,
                    source: "site",
                    redirects: 2,
                    truncated: true,
                }],
                ..Batch::default()
            })
            .expect("write");
        drop(store);
        let store = Store::open(&path).expect("reopen");
        let conn = store.connection();
        // The 64 bits come back as they went in.
        let stored: i64 = conn
            .query_row("SELECT simhash FROM pages", [], |r| r.get(0))
            .expect("simhash");
        assert_eq!(stored.cast_unsigned(), high);
        let n: i64 = conn
            .query_row("SELECT count(*) FROM sitemap_entries", [], |r| r.get(0))
            .expect("entries");
        assert_eq!(n, 1);
        let robots: (u32, bool) = conn
            .query_row("SELECT redirects, truncated FROM robots_files", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("robots");
        assert_eq!(robots, (2, true));
    }

    /// A store as `version` (2 or later) wrote it, with two fetched URLs
    /// (1: the seed, 2: `/b`) and then `sql`.
    fn store_at_version(path: &Path, version: u32, sql: &str) {
        Connection::open(path)
            .and_then(|c| {
                // `SCHEMA` is version 2.
                c.execute_batch(SCHEMA)?;
                for (_, _, step) in MIGRATIONS.iter().filter(|(to, _, _)| (3..=version).contains(to)) {
                    c.execute_batch(step)?;
                }
                c.execute(
                    "INSERT INTO meta VALUES ('schema_version', ?1)",
                    [version.to_string()],
                )?;
                c.execute_batch(
                    "INSERT INTO urls VALUES (1, 'https://example.com/', 0, 'seed', 'fetched', NULL, NULL);
                     INSERT INTO urls VALUES (2, 'https://example.com/b', 1, 'link', 'fetched', NULL, NULL);",
                )?;
                c.execute_batch(sql)
            })
            .unwrap_or_else(|e| panic!("a version {version} store: {e}"));
    }

    #[test]
    fn foreign_keys_are_declared_but_not_enforced_while_writing() {
        let dir = TempDir::new("fk");
        let path = dir.0.join("crawl.db");
        let enforced = |store: &Store| -> i64 {
            store
                .connection()
                .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
                .expect("pragma")
        };
        let store = Store::create(&path).expect("create");
        assert_eq!(enforced(&store), 0, "a new store");
        // A link to a URL the store does not hold is written, and
        // `foreign_key_check` (what the tests run after a crawl) finds it.
        let mut store = store;
        let batch = Batch {
            links: vec![LinkRecord {
                source: 7,
                target: Some(8),
                target_text: None,
                kind: LinkKind::A,
                anchor: None,
                rel: None,
                followed: true,
                position: 0,
                same_page: false,
            }],
            ..Batch::default()
        };
        store.write(&batch).expect("written without a lookup");
        let dangling: i64 = store
            .connection()
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .expect("check");
        assert_eq!(dangling, 2, "source and target");
        drop(store);
        assert_eq!(enforced(&Store::open(&path).expect("open")), 0, "reopened");
    }

    #[test]
    fn a_version_6_store_keeps_every_url_when_its_unique_index_gains_a_name() {
        let dir = TempDir::new("migrate7");
        let path = dir.0.join("crawl.db");
        store_at_version(
            &path,
            6,
            "INSERT INTO urls VALUES (7, 'https://example.com/q', 2, 'sitemap', 'queued', NULL, NULL);",
        );
        let store = Store::open(&path).expect("open");
        let conn = store.connection();
        let rows: Vec<(u64, String, String)> = conn
            .prepare("SELECT id, url, state FROM urls ORDER BY id")
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .expect("urls");
        assert_eq!(
            rows,
            [
                (1, "https://example.com/".to_owned(), "fetched".to_owned()),
                (2, "https://example.com/b".to_owned(), "fetched".to_owned()),
                (7, "https://example.com/q".to_owned(), "queued".to_owned()),
            ]
        );
        assert_eq!(index_names(conn, "urls"), ["urls_queued", "urls_url"]);
        let twice = conn.execute(
            "INSERT INTO urls VALUES (8, 'https://example.com/b', 1, 'link', 'queued', NULL, NULL)",
            [],
        );
        assert!(twice.is_err(), "a URL is stored once");
    }

    #[test]
    fn a_url_stored_twice_while_the_index_was_deferred_is_named_when_it_is_built() {
        let dir = TempDir::new("twice");
        let path = dir.0.join("crawl.db");
        let mut store = Store::create(&path).expect("create");
        store.defer_indexes().expect("defer");
        let url = |id, url: &str| NewUrl {
            id,
            url: url.to_owned(),
            depth: 0,
            found_by: "link",
            state: UrlState::Queued,
            skip: None,
        };
        let batch = Batch {
            new_urls: vec![
                url(1, "https://example.com/"),
                url(2, "https://example.com/a"),
                url(3, "https://example.com/a"),
            ],
            ..Batch::default()
        };
        store.write(&batch).expect("written: the index is deferred");
        let err = store.build_indexes().expect_err("not unique").to_string();
        assert!(err.contains("urls_url"), "{err}");
        assert!(
            err.contains("the URL https://example.com/a is stored twice"),
            "{err}"
        );
    }

    #[test]
    fn a_version_5_store_keeps_every_link_in_order_when_links_gain_their_key() {
        let dir = TempDir::new("migrate6");
        let path = dir.0.join("crawl.db");
        // A store as version 5 wrote it: page 1's links, two of them at the
        // same place (written twice), and one of page 2.
        store_at_version(
            &path,
            5,
            "INSERT INTO links VALUES (1, 2, NULL, 'a', 'first', NULL, 1, 0);
             INSERT INTO links VALUES (1, 1, NULL, 'a', 'second', NULL, 1, 1);
             INSERT INTO links VALUES (1, 2, NULL, 'a', 'again', NULL, 1, 0);
             INSERT INTO links VALUES (2, 1, NULL, 'a', 'home', NULL, 1, 0);",
        );
        let store = Store::open(&path).expect("open");
        assert_eq!(
            store.meta("schema_version").expect("meta"),
            Some(SCHEMA_VERSION.to_string())
        );
        let conn = store.connection();
        let mut st = conn
            .prepare("SELECT source_id, position, anchor FROM links ORDER BY source_id, position")
            .expect("links");
        let rows: Vec<(u64, u32, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(
            rows,
            [
                (1, 0, "first".to_owned()),
                (1, 1, "again".to_owned()),
                (1, 2, "second".to_owned()),
                (2, 0, "home".to_owned()),
            ]
        );
        // In-links are indexed again, and the table has its key.
        let indexes = index_names(conn, "links");
        assert!(indexes.contains(&"links_target".to_owned()), "{indexes:?}");
        assert!(!indexes.contains(&"links_source".to_owned()), "{indexes:?}");
        let duplicate = conn.execute(
            "INSERT OR ABORT INTO links VALUES (2, 2, NULL, 'a', 'x', NULL, 1, 0, 0)",
            [],
        );
        assert!(duplicate.is_err(), "(source_id, position) is the key");
    }

    #[test]
    fn a_version_7_store_marks_its_same_page_links_and_gains_refresh_delays() {
        let dir = TempDir::new("migrate8");
        let path = dir.0.join("crawl.db");
        // Links as version 7 wrote them: `#top` on page 1 (the page
        // itself), an empty `href`, a link to page 2, a canonical to
        // itself; page 2's link to page 1.
        store_at_version(
            &path,
            7,
            "INSERT INTO links VALUES (1, 1, NULL, 'a', 'top', NULL, 1, 0);
             INSERT INTO links VALUES (1, NULL, '', 'a', 'empty', NULL, 0, 1);
             INSERT INTO links VALUES (1, 2, NULL, 'a', 'b', NULL, 1, 2);
             INSERT INTO links VALUES (1, 1, NULL, 'canonical', NULL, NULL, 1, 3);
             INSERT INTO links VALUES (1, NULL, 'mailto:x@example.com', 'a', 'mail', NULL, 0, 4);
             INSERT INTO links VALUES (2, 1, NULL, 'a', 'home', NULL, 1, 0);
             INSERT INTO pages (url_id, fetched_at, status, elapsed_ms, bytes, truncated, refresh)
             VALUES (2, '2026-11-23T19:00:00Z', 200, 5.0, 10, 0, '/');",
        );
        let store = Store::open(&path).expect("open");
        assert_eq!(
            store.meta("schema_version").expect("meta"),
            Some(SCHEMA_VERSION.to_string())
        );
        let conn = store.connection();
        let mut st = conn
            .prepare("SELECT anchor FROM links WHERE same_page = 1 ORDER BY source_id, position")
            .expect("links");
        let same: Vec<Option<String>> = st
            .query_map([], |r| r.get(0))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(same, [Some("top".to_owned()), Some("empty".to_owned())]);
        // A page fetched before has no delay: it is read as a page.
        let delay: Option<u32> = conn
            .query_row("SELECT refresh_delay FROM pages", [], |r| r.get(0))
            .expect("page");
        assert_eq!(delay, None);
    }

    #[test]
    fn a_version_4_store_gains_head_breaks_and_mixed_content_and_exports_every_column() {
        let dir = TempDir::new("migrate5");
        let path = dir.0.join("crawl.db");
        // A store as version 4 wrote it, with a page read then.
        store_at_version(
            &path,
            4,
            "INSERT INTO pages (url_id, fetched_at, status, elapsed_ms, bytes, truncated,
                                simhash, description_count, h1, h1_count)
             VALUES (1, '2026-11-23T19:00:00Z', 200, 5.0, 10, 0, -2, 1, 'Home', 1);",
        );
        let mut store = Store::open(&path).expect("open");
        assert_eq!(
            store.meta("schema_version").expect("meta"),
            Some(SCHEMA_VERSION.to_string())
        );
        let old: (Option<String>, Option<u32>, Option<u32>) = store
            .connection()
            .query_row(
                "SELECT head_break, head_ignored_count, mixed_active FROM pages",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .expect("page");
        assert_eq!(old, (None, None, None), "the old page read none of it");
        store
            .write(&Batch {
                pages: vec![PageRecord {
                    url_id: 2,
                    fetched_at: "2026-11-23T19:00:01Z".into(),
                    status: Some(200),
                    description: Some("Fish & chips".into()),
                    description_count: Some(1),
                    head_break: Some("img".into()),
                    head_break_line: Some(6),
                    head_ignored: Some("<link rel=\"canonical\"> (line 7)".into()),
                    head_ignored_count: Some(1),
                    mixed_active: Some(2),
                    mixed_passive: Some(0),
                    mixed_examples: Some("script src http://x/a.js (line 3)".into()),
                    ..PageRecord::default()
                }],
                ..Batch::default()
            })
            .expect("write");
        let mut out = Vec::new();
        let rows = store
            .export(ExportTable::Pages, ExportFormat::Jsonl, &mut out)
            .expect("export");
        assert_eq!(rows, 2);
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        // The 64 bits of the SimHash as hex; the details of versions 4 and 5.
        assert_eq!(lines[0]["simhash"], "fffffffffffffffe");
        assert_eq!(lines[0]["h1"], "Home");
        assert_eq!(lines[0]["head_break"], serde_json::Value::Null);
        assert_eq!(lines[1]["simhash"], serde_json::Value::Null);
        assert_eq!(lines[1]["description"], "Fish & chips");
        assert_eq!(lines[1]["head_break"], "img");
        assert_eq!(lines[1]["head_break_line"], 6);
        assert_eq!(lines[1]["head_ignored_count"], 1);
        assert_eq!(lines[1]["mixed_active"], 2);
        for column in [
            "description_count",
            "h1_count",
            "canonical_count",
            "canonical_written",
            "canonical_header",
            "canonical_outside_head",
            "base_href",
            "base_count",
            "header_charset",
            "meta_charset",
            "bom",
            "robots_meta",
            "head_ignored",
            "mixed_passive",
            "mixed_examples",
        ] {
            assert!(lines[1].get(column).is_some(), "no {column}");
        }
    }
}

/// What `botwarden crawl export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportTable {
    /// Every fetched page with its URL and depth.
    Pages,
    /// Every link, with its source's and target's URLs.
    Links,
    /// Every redirect: URL, status, target (a page that refreshes at once
    /// too, with its `200`).
    Redirects,
}

/// In which form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// RFC 4180 CSV with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

impl ExportTable {
    fn sql(self) -> &'static str {
        match self {
            ExportTable::Pages => {
                "SELECT u.url, u.depth, u.found_by, p.fetched_at, p.status, p.error,
                        p.elapsed_ms, p.ttfb_ms, p.bytes, p.truncated, p.content_type, p.charset,
                        p.content_hash, p.title, p.noindex, p.nofollow, p.canonical, p.location,
                        p.refresh, p.x_robots_tag, p.http_version, p.content_length,
                        p.body_read, p.dns_ms, p.connect_ms, p.download_ms,
                        CASE WHEN p.simhash IS NULL THEN NULL
                             ELSE printf('%016x', p.simhash) END AS simhash,
                        p.description, p.description_count, p.h1, p.h1_count,
                        p.canonical_count, p.canonical_written, p.canonical_header,
                        p.canonical_outside_head, p.base_href, p.base_count, p.header_charset,
                        p.meta_charset, p.bom, p.robots_meta, p.head_break, p.head_break_line,
                        p.head_ignored, p.head_ignored_count, p.mixed_active, p.mixed_passive,
                        p.mixed_examples, p.refresh_delay, p.robots_tag, p.quality
                 FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY u.id"
            }
            ExportTable::Links => {
                "SELECT s.url AS source, coalesce(t.url, l.target) AS target, l.kind, l.anchor,
                        l.rel, l.followed, l.position, l.same_page
                 FROM links l JOIN urls s ON s.id = l.source_id
                 LEFT JOIN urls t ON t.id = l.target_id ORDER BY l.source_id, l.position"
            }
            ExportTable::Redirects => {
                "SELECT u.url, p.status, p.location
                 FROM pages p JOIN urls u ON u.id = p.url_id
                 WHERE p.status BETWEEN 300 AND 399 OR (p.status = 200 AND p.refresh_delay <= 1)
                 ORDER BY u.id"
            }
        }
    }
}

impl Store {
    /// Writes a table of the crawl to `out`; returns the rows written.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails or `out` cannot be written.
    pub fn export(
        &self,
        table: ExportTable,
        format: ExportFormat,
        out: &mut dyn std::io::Write,
    ) -> Result<u64, Error> {
        use rusqlite::types::ValueRef;
        let fail = |e: &dyn std::fmt::Display| Error {
            path: self.path.clone(),
            message: format!("cannot export: {e}"),
        };
        let mut st = self.conn.prepare(table.sql()).map_err(|e| fail(&e))?;
        let names: Vec<String> = st.column_names().iter().map(|n| (*n).to_owned()).collect();
        if format == ExportFormat::Csv {
            let header: Vec<String> = names.iter().map(|n| csv_field(n)).collect();
            writeln!(out, "{}", header.join(",")).map_err(|e| fail(&e))?;
        }
        let mut rows = st.query([]).map_err(|e| fail(&e))?;
        let mut n = 0u64;
        while let Some(row) = rows.next().map_err(|e| fail(&e))? {
            let mut object = serde_json::Map::new();
            let mut fields = Vec::with_capacity(names.len());
            for (i, name) in names.iter().enumerate() {
                let value = row.get_ref(i).map_err(|e| fail(&e))?;
                let json = match value {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(v) => v.into(),
                    ValueRef::Real(v) => v.into(),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        String::from_utf8_lossy(t).into_owned().into()
                    }
                };
                match format {
                    ExportFormat::Csv => fields.push(match &json {
                        serde_json::Value::Null => String::new(),
                        serde_json::Value::String(s) => csv_field(s),
                        other => other.to_string(),
                    }),
                    ExportFormat::Jsonl => {
                        object.insert(name.clone(), json);
                    }
                }
            }
            match format {
                ExportFormat::Csv => writeln!(out, "{}", fields.join(",")),
                ExportFormat::Jsonl => writeln!(out, "{}", serde_json::Value::Object(object)),
            }
            .map_err(|e| fail(&e))?;
            n += 1;
        }
        out.flush().map_err(|e| fail(&e))?;
        Ok(n)
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod export_tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_when_they_must_be() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }
}
