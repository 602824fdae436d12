//! HTTP fetching for botwarden, with robots.txt semantics, and the polite
//! crawler.
//!
//! The robots.txt fetcher: [`Fetcher`] makes one GET and follows
//! redirects itself, recording every hop (URL, status, time, `Location`),
//! detecting loops and counting them against a limit; it keeps at most
//! `max_bytes` of body, decoding `gzip`, `br` and `deflate` and counting the
//! decoded bytes; it stops after a time limit for the whole fetch; it reports
//! status, content type, charset, byte-order mark, `Content-Encoding`,
//! `Retry-After`, sizes and timings ([`FetchReport`]); and it maps the result
//! to the [`FetchOutcome`](botwarden_robots::FetchOutcome) of
//! `botwarden-robots`, so that each robot's
//! [`AvailabilityPolicy`](botwarden_robots::AvailabilityPolicy) can decide.
//!
//! Fetching a URL on a user's behalf refuses loopback, private and other
//! restricted addresses ([`restricted_kind`]) for the first URL and every
//! redirect, after resolving the name; the addresses checked are the ones
//! connected to. [`FetcherBuilder::allow_private`] lifts that (tests do).
//!
//! ```no_run
//! use botwarden_crawl::Fetcher;
//! use botwarden_robots::AvailabilityPolicy;
//!
//! # async fn example() -> Result<(), botwarden_crawl::Error> {
//! let fetcher = Fetcher::builder().build()?;
//! let robots = fetcher.fetch_robots("https://example.com/some/page").await?;
//! for hop in &robots.report.hops {
//!     println!("{:?} {} ({} ms)", hop.status, hop.url, hop.elapsed.as_millis());
//! }
//! for policy in AvailabilityPolicy::ALL {
//!     println!("{policy}: {}", robots.decide(policy).availability);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! The polite crawler: [`crawl`] fetches every accessible URL of a site
//! into a [`Store`] (schema in `docs/store.md`), obeying robots.txt through
//! an [`Identity`]'s token chain, nofollow and the [`Throttle`]; the
//! [`Summary`] reads the store back.
//!
//! The site audit: [`Audit::run`] finds the problems of a crawled site
//! by SQL over its store, one [`AuditCheck`] per kind ([`CHECKS`], codes
//! such as `links/broken-internal`; `docs/audit.md`), into an
//! [`AuditReport`] rendered as text or JSON.
//!
//! Web Bot Auth: [`KeyDirectories`] fetches and caches the key
//! directories signed requests name, for `botwarden-verify` to check them
//! with; [`FetcherBuilder::signer`] signs every request of a fetcher (and
//! so of a crawl) with a `botwarden_verify::Signer`.
//!
//! Site ownership ([`verify_site`]): a per-site token derived from the
//! operator's secret ([`SiteKey`]), placed by the site's owner in a file
//! or a meta tag, lets a crawl read that site's robots.txt as another
//! robot would ([`Simulation`]).

mod address;
mod audit;
mod body;
mod coordinator;
mod crawler;
mod directives;
mod error;
mod external;
mod fetch;
mod frontier;
mod html;
mod identity;
mod keydir;
mod merge;
mod normalize;
mod ownership;
mod page;
mod robots_fetch;
mod settings;
mod sitemap;
mod store;
mod summary;
mod throttle;
mod timing;

pub use address::{AddressKind, restricted_kind};
pub use audit::{
    AUDIT_SCHEMA, Audit, AuditReport, AuditSettings, CHECKS, CONFIG_FILE as AUDIT_CONFIG_FILE,
    Check as AuditCheck, CheckReport, DEFAULT_MAX_DEPTH, DEFAULT_MAX_EVIDENCE, Finding, LinkSource,
    MAX_LINKS, RobotsEvidence, RobotsReading, SHOWN_FINDINGS, Selection as AuditSelection,
    Severity as AuditSeverity, check as audit_check,
};
pub use audit::{
    AuditDocument, CSV_COMPARE, CSV_INDEX, CheckChange, Comparison, Count as AuditCount, DAMPING,
    DepthCount, EdgeError, GraphNode, HTML_FINDINGS, LinkGraph, MAX_ITERATIONS, PageRank, ScoreRun,
    Scores, SiteOverview, TOLERANCE, TOP_PAGES, check_csv, compare_csv, csv_file_name, index_csv,
    link_scores, render_audit_html, write_check_csv, write_csv,
};
pub use body::{Bom, Encoding, utf8_body};
pub use coordinator::{
    Claim, Coordinator, CoordinatorConfig, CoordinatorFuture, Finish, FrontierUrl, Lease,
    LocalCoordinator, Offer, Offered, RobotsLookup, StoredFrontier, WorkerConfig, WorkerEnd,
    WorkerStats, crawl_worker, stored_frontier,
};
pub use crawler::{COMMIT_WINDOW, CrawlConfig, CrawlEnd, Progress, RobotsRead, StopSignal, crawl};
pub use directives::{
    Directive, Kind as DirectiveKind, Origin as DirectiveOrigin, PageDirectives, parse_date,
};
pub use error::Error;
pub use external::{ExternalConfig, ExternalSummary, check_external};
pub use fetch::{
    CacheHeaders, FetchReport, Fetcher, FetcherBuilder, Hop, RetryAfter, USER_AGENT, Warning,
};
pub use frontier::{Admitted, Frontier, FrontierConfig, MAX_REPEATS, MAX_SEGMENTS, Queued, Scope};
pub use html::{
    Alternate, HeadBreak, HtmlFacts, HtmlLink, INSTANT_REFRESH, Insecure, LinkElement, MAX_ANCHOR,
    MAX_EXAMPLES, Meta, Placed, Rel, extract as extract_html, html_encoding, refresh_delay,
    refresh_target,
};
pub use identity::{
    CrawlerKind, DEFAULT_INFO_URL, Identity, Network, Operator, Platform, ranges_json,
    registry_entry, robots_lines,
};
pub use keydir::{
    AllowedAgents, DirectoryFetch, KeyDirConfig, KeyDirStats, KeyDirectories, freshness,
};
pub use merge::{MergeReport, merge_stores};
pub use normalize::{MAX_URL_LEN, UrlProblem, normalize, normalize_text, normalize_url};
pub use ownership::{
    Check as OwnershipCheck, META_NAME, Method as OwnershipMethod, SECRET_MIN, Simulation, SiteKey,
    SiteToken, Verification, Verified, verify_site,
};
pub use page::{PageResponse, link_header_canonicals};
pub use robots_fetch::{MissingProbe, RobotsFetch, fetch_robots_txt, robots_url};
pub use settings::{
    CHANGES_META, ChangeRule, CrawlSettings, READING_RULES, SETTINGS_META, SettingChange,
    SettingsRefusal,
};
pub use sitemap::{MAX_BYTES as SITEMAP_MAX_BYTES, MAX_LOCS, Sitemap, SitemapKind, parse_sitemap};
pub use store::{
    Batch, DEFERRED_INDEXES, ExportFormat, ExportTable, ExternalRecord, LinkRecord, NewUrl,
    PageRecord, RobotsFileRecord, RobotsRecord, SCHEMA_VERSION, Skip, Store, StoredRobots,
    StoredUrl, ThrottleRecord, UrlState, VerificationRecord,
};
pub use summary::{
    BlockingRule, Difference, Differences, Reading, RobotsFile, SHOWN, SiteVerification, Summary,
    ThrottleChange, UrlCounts,
};
pub use throttle::{Adjustment, Direction, Outcome, Throttle, ThrottleConfig};
