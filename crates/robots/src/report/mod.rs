//! What `robots check`, `robots fix` and `robots fetch` report, as data
//! (the models) and as text, JSON and SARIF (the renderers), so that every
//! front end — the command line, a web service — says the same.
//!
//! The models hold the analysis results and no formatting:
//!
//! - [`CheckReport`]: a file's findings (in file order and folded by root
//!   cause), the interpretation matrix, what the fixer would do and the
//!   proof of it, what was sampled to stay within the work bounds, and the
//!   fetch when the file came from a site. [`CheckReport::new`] runs the
//!   whole check over one [`Analysis`](crate::Analysis).
//! - [`FixReport`]: the fixer's output and the differential check of it.
//! - [`FetchSummary`]: what a fetch of robots.txt brought (redirects,
//!   status, type, encoding, size, cut, warnings) and what each
//!   availability policy decides from it, as plain data: the fetcher that
//!   fills it lives outside this crate.
//!
//! The renderers take a model and return a `String`; they never print.
//!
//! ```
//! use botwarden_robots::RobotsTxt;
//! use botwarden_robots::report::{CheckReport, FixReport, TextView, check_text, fix_text};
//!
//! let txt = RobotsTxt::parse("Disallow: /a\nUser-agent: *\nDisallow: /b\n");
//! let report = CheckReport::new("robots.txt", &txt, &[], &[], None);
//! assert_eq!(report.diagnostics[0].code(), "R001");
//! let text = check_text(&report, TextView::default());
//! assert!(text.contains("robots.txt: 0 error(s), 1 warning(s)"));
//!
//! let fixed = FixReport::new("robots.txt", &txt);
//! assert!(fixed.equivalence.holds());
//! assert!(fix_text(&fixed, false).starts_with("robots.txt: "));
//! ```
//!
//! | renderer | check | fix | fetch |
//! |---|---|---|---|
//! | text ([`check_text`], [`fix_text`], [`fetch_text`]) | rustc-style diagnostics, summary, matrix | the changes and the proof | one line per field, a decision per policy |
//! | JSON ([`check_json`], [`fetch_json`]) | one pretty object | — | one compact line |
//! | SARIF 2.1.0 ([`check_sarif`]) | one run, every lint as a rule | — | — |
//!
//! The models and the text renderers need the `report` feature; with the
//! `serde` feature the models implement `serde::Serialize` (their JSON
//! shape, documented on each) and the JSON and SARIF renderers exist.
//! Without either feature the crate depends on nothing but `memchr`.
//!
//! Text from the file or the network (names, paths, messages) has the
//! characters that would act on a terminal escaped ([`escape`]), in every
//! rendering.

mod model;
mod text;

#[cfg(feature = "serde")]
mod json;
#[cfg(feature = "serde")]
mod sarif;

#[cfg(feature = "serde")]
pub use json::{check_json, fetch_json, json_text};
pub use model::{
    CheckReport, Decisions, EncodingFrom, FetchDecision, FetchSummary, FixReport, HopSummary,
    LISTED_EDITS, LISTED_FINDINGS, ProbeSummary,
};
#[cfg(feature = "serde")]
pub use sarif::check_sarif;
pub use text::{TextView, check_text, escape, fetch_text, fix_text};
