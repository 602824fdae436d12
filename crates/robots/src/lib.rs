//! The robots.txt engine of botwarden: a lossless parser, profiles that read
//! a file the way each kind of robot does, product-token chains, and a
//! compiled matcher whose every answer can explain itself.
//!
//! This crate does no I/O and prints nothing. With the `report` feature,
//! the `report` module holds what `robots check`, `robots fix` and `robots fetch`
//! report, as models and as text; with `serde`, as JSON and SARIF too.
//!
//! ```
//! use botwarden_robots::{Profile, Reason, Robots, RobotsTxt, TokenChain};
//!
//! let txt = RobotsTxt::parse("User-agent: botwarden\nDisallow: /search\n\nUser-agent: *\nDisallow: /\n");
//! let chain = TokenChain::parse("botwarden-phone,botwarden");
//! for profile in Profile::ALL {
//!     let robots = Robots::new(&txt, profile);
//!     let decision = robots.check(&chain, "https://example.com/search?q=1");
//!     assert!(!decision.allowed);
//!     assert!(matches!(decision.reason, Reason::Rule { line: 2, .. }));
//! }
//! ```
//!
#![doc = include_str!("../docs/profiles.md")]

mod analysis;
mod availability;
mod change;
mod compile;
mod directive;
mod equivalence;
mod fix;
mod lint;
mod managed;
mod matrix;
mod parse;
mod path;
mod path_index;
pub mod prefs;
mod profile;
#[cfg(feature = "report")]
pub mod report;
mod robots;
mod ruleset;
mod swar;
mod token;
mod usage_table;
mod values;

pub use analysis::Analysis;
pub use availability::{
    Availability, AvailabilityDecision, AvailabilityPolicy, AvailabilityReason, Cause, FetchLimits,
    FetchOutcome, FetchResult, OutageAction, OutageStep, Reading, SuccessStatus, Treatment,
    status_reason,
};
pub use change::{Change, ChangeKind, Fixed};
pub use directive::{DirectiveName, KNOWN_UNUSED, Spelling, classify_key};
pub use equivalence::{
    DIFFERENCES_KEPT, Difference, EQUIVALENCE_WORK, Equivalence, Explanation, PREFERENCE_WORK,
    PROBE_ROBOTS, PreferenceChange, Unasked, compare, compare_fixed,
};
pub use fix::fix;
pub use lint::{
    Checked, Diagnostic, Edit, Fix, Folded, LIKE_FROM, LINT_WORK, LINTS, Lint, Sampled, Severity,
    apply_fixes, check, check_bounded, example_path, fold, lint,
};
pub use managed::ManagedBlock;
pub use matrix::{Cell, DEFAULT_AGENTS, MATRIX_ROWS, MATRIX_WORK, Matrix, Row};
pub use parse::{ByteIssue, Directive, Line, LineEnding, LineKind, RobotsTxt, Separator, Span};
pub use path::{normalize_path, normalize_pattern, path_of};
pub use profile::{
    AgentMatch, Beyond, Fallback, Grouping, PathForm, Profile, RuleChoice, SizeLimit, Usage,
};
pub use robots::{
    Agent, Applies, Cut, Decision, Explained, Group, Located, Matcher, Reason, RobotMatcher,
    Robots, RuleInfo,
};
pub use ruleset::wildcard_walk;
pub use token::{AgentName, TokenChain, is_product_token};
pub use usage_table::{USAGE_ROWS, UsageRow, UsageTable, usage_cell};
pub use values::{CleanParam, RequestRate, TimeOfDay, VisitTime, parse_crawl_delay};

/// The property-test settings of this crate's unit tests: enough cases to
/// explore their small alphabets, and no files written beside the sources.
#[cfg(test)]
fn unit_proptest_config() -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: 3_000,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}
