//! The polite crawler of botwarden.
//!
//! [`crawl`] fetches every accessible URL of a site (through a
//! `botwarden_fetch::Fetcher`) into a `botwarden_store::Store` (schema in
//! `botwarden-store`'s `docs/store.md`), obeying robots.txt through an
//! [`Identity`]'s token chain, nofollow and the [`Throttle`]; the store's
//! `Summary` reads it back, and `botwarden-audit` finds the site's
//! problems in it. A crawl shared by several workers ([`crawl_worker`])
//! agrees on its frontier through a [`Coordinator`] (`docs/shared.md`);
//! [`crawl_workers`] runs several in one process and merges their stores.
//!
//! What the crawler reads of a page: its HTML ([`extract_html`]), its
//! directives ([`PageDirectives`]), its sitemaps ([`parse_sitemap`]); and
//! of the links leaving the site, whether they answer
//! ([`check_external`]); of the images, scripts and style sheets pages
//! use, whether they answer, their type and size ([`check_resources`]);
//! of its HTTPS origins, when their certificates expire
//! ([`check_certificates`]).
//!
//! Site ownership ([`verify_site`]): a per-site token derived from the
//! operator's secret ([`SiteKey`]), placed by the site's owner in a file
//! or a meta tag, lets a crawl read that site's robots.txt as another
//! robot would ([`Simulation`]; `docs/ownership.md`).

mod certificates;
mod coordinator;
mod crawler;
mod directives;
mod error;
mod external;
mod frontier;
mod html;
mod identity;
mod ownership;
mod pipeline;
mod quality;
mod render;
mod resources;
mod settings;
mod sitemap;
mod structured;
mod throttle;
mod workers;

pub use certificates::{CertificateSummary, check_certificates};
pub use coordinator::{
    Claim, Coordinator, CoordinatorConfig, CoordinatorFuture, Finish, FrontierUrl, Lease,
    LocalCoordinator, Offer, Offered, RobotsLookup, StoredFrontier, WorkerConfig, WorkerEnd,
    WorkerStats, crawl_worker, stored_frontier,
};
pub use crawler::{COMMIT_WINDOW, CrawlConfig, CrawlEnd, Progress, StopSignal, crawl};
pub use directives::{
    Directive, Kind as DirectiveKind, Origin as DirectiveOrigin, PageDirectives, parse_date,
};
pub use error::Error;
pub use external::{ExternalConfig, ExternalSummary, check_external};
pub use frontier::{Admitted, Frontier, FrontierConfig, MAX_REPEATS, MAX_SEGMENTS, Queued, Scope};
pub use html::{
    Alternate, HeadBreak, HtmlFacts, HtmlLink, INSTANT_REFRESH, Insecure, LinkElement, MAX_ANCHOR,
    MAX_EXAMPLES, Meta, Placed, Rel, extract as extract_html, html_encoding, refresh_delay,
    refresh_target,
};
pub use identity::{
    CrawlerKind, DEFAULT_INFO_URL, Identity, Network, Operator, Platform, Publication,
    default_ranges_url, ranges_json, ranges_link, registry_entry, robots_lines,
};
pub use ownership::{
    Check as OwnershipCheck, META_NAME, Method as OwnershipMethod, SECRET_MIN, Simulation, SiteKey,
    SiteReport, SiteToken, Verification, Verified, verify_site,
};
pub use pipeline::RobotsRead;
pub use quality::{
    FragmentLink, LONG_ALT, MAX_CONTEXTS, MAX_FRAGMENT_LINKS, MAX_FRAGMENT_TARGETS, Quality,
    element_fragment, fragment_hash, fragment_link, is_relative, percent_decoded,
};
pub use render::{
    BrowserRequest, PageView, RenderFacts, RenderFuture, RenderJob, RenderSetup, RenderedPage,
    Renderer, RequestOutcome, ResourceAnswer, ResourceGate,
};
pub use resources::{ResourceConfig, ResourceSummary, UsedResource, check_resources};
pub use settings::{
    CHANGES_META, ChangeRule, CrawlSettings, READING_RULES, SETTINGS_META, SettingChange,
    SettingsRefusal,
};
pub use sitemap::{MAX_BYTES as SITEMAP_MAX_BYTES, MAX_LOCS, Sitemap, SitemapKind, parse_sitemap};
pub use throttle::{Adjustment, Direction, Outcome, Throttle, ThrottleConfig};
pub use workers::{Workers, WorkersEnd, crawl_workers, worker_store};

pub use botwarden_store::{
    MAX_URL_LEN, RenderOutcome, UrlProblem, normalize, normalize_text, normalize_url,
};
