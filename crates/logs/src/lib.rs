//! Access-log analysis for botwarden.
//!
//! The pipeline ([`Analyzer`]) reads Apache, nginx, JSON-lines and W3C
//! access logs ([`Input`], [`expand_inputs`], [`LogFormat`]), accounts for
//! every line, classifies each request's User-Agent and verifies the
//! crawlers' addresses through `botwarden-verify`, and produces a
//! [`Report`] and the lists that web servers read at request time.
//!
//! Log formats: a [`LogFormat`] is compiled once from a spec
//! ([`LogFormat::from_spec`]: a preset, an Apache `LogFormat` or nginx
//! `log_format` string, a JSON or W3C spec) and then parses lines into
//! [`Record`]s that borrow from the line, without allocating.
//! `crates/logs/docs/formats.md` lists the presets, what every directive
//! and variable maps to, and the reasons ([`Reason`]) a line is skipped or
//! fails.
//!
//! ```
//! use botwarden_logs::{Error, LogFormat};
//!
//! let format = LogFormat::from_spec("combined").unwrap();
//! let line = r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET /robots.txt HTTP/1.1" 200 2326 "-" "ExampleBot/1.0""#;
//! let record = format.parse(line).unwrap();
//! assert_eq!(record.path, Some("/robots.txt"));
//! assert_eq!(record.time.unwrap().unix, 971_211_336);
//! // A blank line is no request, by design: skipped, not failed.
//! match format.parse("") {
//!     Err(Error::Parse { reason, column }) => assert!(reason.skipped() && column == 1),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! The report ([`Report`], schema in `crates/logs/docs/report.md`) renders
//! as text ([`render_text`]), JSON (the model serialized with `serde_json`)
//! and HTML ([`render_html`]).
//!
//! The exports turn the analysis's list of [`Listed`] addresses into files
//! a running web server consults on every request
//! (`crates/logs/docs/exports.md`):
//!
//! - the ACAP file tree ([`write_acap_tree`]): one empty file per address,
//!   tested with `RewriteCond DIR/all-ok-bots/%{REMOTE_ADDR} -f`;
//! - text maps ([`apache_rewrite_map`], [`nginx_geo`], [`haproxy_map`]),
//!   a plain address list ([`plain_list`]) and a JSON list ([`json_list`]),
//!   each written with [`write_atomic`] ([`Targets`] writes every one a
//!   run asks for);
//! - configuration snippets that use them ([`snippet`]).
//!
//! Every file is replaced atomically, so a server never reads half a list.
//!
//! Every public type is exported at the crate root; the modules are
//! private. The crate has one error type, [`Error`]: its message names the
//! input argument, the format spec, the line's column, the export's path or
//! the snippet option; when the system gave a cause, that cause is the
//! error's [`source`](std::error::Error::source) rather than part of the
//! message. An analysis itself does not fail: every line and input it
//! could not read is counted and named in the [`Report`].

mod analyze;
mod error;
mod export;
mod format;
mod input;
mod record;
mod report;

pub use analyze::{
    Analysis, AnalyzeOptions, Analyzer, CrawlSite, DELAY_TIMES, FormatChoice, JOIN_URLS,
    PENDING_HITS, PENDING_PATHS, Pair, PairVerifier, Progress, REMOTE_IN_FLIGHT, Run, UsagePolicy,
    VERIFY_IN_FLIGHT, VerdictFuture, purpose_of, standing, trusted_proxy_warnings,
};
pub use error::Error;
pub use export::{
    ACAP_MARKER, AcapDirs, AcapOptions, AcapSummary, ApacheLookup, BasicAuth, ListFilter, Listed,
    RESERVED_NAMES, Resolved, Server, SnippetContext, SnippetOptions, SnippetPart, Standing,
    Targets, apache_rewrite_map, bot_slug, haproxy_map, json_list, map_value, nginx_geo,
    plain_list, remote_addr_text, resolve_listed, snippet, snippet_parts, write_acap_dirs,
    write_acap_tree, write_acap_tree_with, write_atomic,
};
pub use format::{LogFormat, Reason, client_address};
pub use input::{Input, Line, LineReader, MAX_LINE, expand_inputs, sniff_gzip};
pub use record::{Client, Record, SignatureFields, Timestamp};
pub use report::{
    BadLine, BotRow, CrawlJoin, CrawlPage, DelayKept, InputSummary, JoinAccounting, JoinBot,
    JoinCategory, JoinDirectory, JoinUrl, LineCounts, NamedClient, NeverCrawled, NewerFeed, Orphan,
    Orphans, PathCount, Period, REPORT_SCHEMA, Report, RobotsCopy, RobotsFetches, ScaleRow, Series,
    SignedLines, SpoofedIp, StatusChange, StatusClasses, TextOptions, Timeline, Totals,
    UnknownCrawler, UrlBotRow, UrlChange, UsageCounts, VerdictCount, VerificationStats, Waste,
    WastedUrl, render_html, render_text, write_join_csv,
};
