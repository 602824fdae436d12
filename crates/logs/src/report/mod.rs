//! The analysis report: its data model and its text, JSON and HTML renderings.
//!
//! The JSON rendering is the model serialized with `serde_json`; see
//! `docs/report.md` for its documented shape.

mod crawl;
mod csv;
mod html;
mod model;
mod text;

pub use crawl::{
    CrawlJoin, CrawlPage, DelayKept, JoinAccounting, JoinBot, JoinCategory, JoinDirectory, JoinUrl,
    NeverCrawled, Orphan, Orphans, RobotsCopy, ScaleRow, StatusChange, UrlBotRow, UrlChange, Waste,
    WastedUrl,
};
pub use csv::write_join_csv;
pub use html::render_html;
pub use model::{
    BadLine, BotRow, InputSummary, LineCounts, NamedClient, NewerFeed, PathCount, Period,
    REPORT_SCHEMA, Report, RobotsFetches, Series, SignedLines, SpoofedIp, StatusClasses, Timeline,
    Totals, UnknownCrawler, UsageCounts, VerdictCount, VerificationStats,
};
pub use text::{TextOptions, render_text};
