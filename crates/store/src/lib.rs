//! The crawl store of botwarden: one SQLite file that holds everything a
//! crawl learnt, for the crawl to resume from, for the audit to read and
//! for people to query.
//!
//! A [`Store`] (schema in `docs/store.md`, version [`SCHEMA_VERSION`])
//! takes a crawl's writes in [`Batch`]es and upgrades a store of an older
//! schema in place when opened; [`merge_stores`] makes one store of the
//! stores of a shared crawl's workers; the [`Summary`] reads a store back,
//! as text or JSON.
//!
//! The URLs a store holds are in one spelling per resource
//! ([`normalize_url`]): the crawler writes them so, and the audit judges a
//! page's links by the same rules.

mod error;
mod link_kind;
mod merge;
mod normalize;
mod readings;
mod render;
mod resources;
mod store;
mod summary;

pub use error::Error;
pub use link_kind::LinkKind;
pub use merge::{MergeReport, merge_stores};
pub use normalize::{MAX_URL_LEN, UrlProblem, normalize, normalize_text, normalize_url};
pub use readings::{BodyHash, TextReading};
pub use render::{RenderOutcome, RenderRecord, RenderRequestRecord};
pub use resources::{CertificateRecord, PageResourceRecord, ResourceKind, ResourceRecord};
pub use store::{
    Batch, DEFERRED_INDEXES, ExportFormat, ExportTable, ExternalRecord, LinkRecord, NewUrl,
    PageRecord, RobotsFileRecord, RobotsRecord, SCHEMA_VERSION, Skip, Store, StoredRobots,
    StoredUrl, ThrottleRecord, UrlState, UsageRecord, VerificationRecord,
};
pub use summary::{
    BlockingRule, Difference, Differences, Reading, RobotsFile, SHOWN, SiteVerification, Summary,
    ThrottleChange, UrlCounts,
};
