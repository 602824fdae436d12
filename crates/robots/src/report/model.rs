//! The report models: what `check`, `fix` and `fetch` found, as data.

#[cfg(feature = "serde")]
use crate::Span;
use crate::UsageTable;
use crate::{
    Analysis, AvailabilityPolicy, Diagnostic, Equivalence, FetchOutcome, Fixed, Folded, Matrix,
    Profile, RobotsTxt, Sampled, Severity, compare_fixed, fix, fold,
};

/// Findings a report lists one by one at most (JSON, SARIF, the text's
/// `--verbose`), in file order; the rest are counted by code. A file of
/// 8 MiB can hold hundreds of thousands of findings: listed whole, their
/// JSON ran to a thousand times the file.
pub const LISTED_FINDINGS: usize = 1_000;

/// Edits of one fix a report lists at most; the rest are counted.
pub const LISTED_EDITS: usize = 1_000;

/// What `robots check` reports about one file: every finding, the
/// findings folded by root cause, the interpretation matrix, what the fixer
/// would do and the proof of it, and what was sampled to stay within the
/// work bounds.
///
/// Its JSON shape (with the `serde` feature; the one `botwarden robots
/// check --format json` prints, documented in the README): `{"source", "diagnostics": [{"cause", "code",
/// "column", "end_column", "end_line", "fix", "help", "line", "message",
/// "name", "severity"}], "diagnostics_omitted" (only when over [`LISTED_FINDINGS`]: `{"count", "by_code"}`), "matrix": [{"agent", "path", "decisions":
/// {"<profile>": "allowed|disallowed"}, "disagree"}], "fix": {"changes",
/// "complete", "intended_differences", "unasked", "unintended_differences"},
/// "availability", "bounds": {"lints", "matrix"}}`.
#[derive(Debug)]
pub struct CheckReport<'t> {
    /// The name shown for the file: a path, `<stdin>`, or the URL fetched.
    pub name: String,
    /// The file.
    pub txt: &'t RobotsTxt,
    /// The findings, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// The findings by root cause, errors first (indices into
    /// `diagnostics`).
    pub folded: Vec<Folded>,
    /// Lints that asked about some rules only.
    pub sampled: Vec<Sampled>,
    /// How each robot reads the file under each profile.
    pub matrix: Matrix,
    /// The usage preferences of the matrix's robots, under RFC 9309's
    /// grouping and both readings (empty when the file states none).
    pub usage: UsageTable,
    /// The fetch, when the file came from a site (its decisions under every
    /// availability policy).
    pub fetched: Option<FetchSummary>,
    /// What `robots fix` would write.
    pub fixed: Fixed,
    /// The differential check of the fixed file against the original.
    pub equivalence: Equivalence,
}

impl<'t> CheckReport<'t> {
    /// Checks `txt`: compiles it once per profile (one [`Analysis`] shared
    /// by the lints, the matrix and the proof of the fixer's output), runs
    /// the lints within their bound, folds the findings, builds the matrix
    /// for `profiles` (all when empty) and the robots the file names plus
    /// `agents`, and fixes the file and proves the fix.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        txt: &'t RobotsTxt,
        profiles: &[&'static Profile],
        agents: &[&str],
        fetched: Option<FetchSummary>,
    ) -> CheckReport<'t> {
        let analysis = Analysis::new(txt);
        let report = CheckReport::with_analysis(name, &analysis, profiles, agents, fetched);
        report.unwrap_or_else(|| unreachable!("an analysis no one can cancel"))
    }

    /// [`CheckReport::new`], given up once `cancel` is raised (a request
    /// timed out, its client gone): the work stops within one of its
    /// passes, each linear in the file, and the report is `None`.
    #[must_use]
    pub fn new_cancellable(
        name: impl Into<String>,
        txt: &'t RobotsTxt,
        profiles: &[&'static Profile],
        agents: &[&str],
        fetched: Option<FetchSummary>,
        cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Option<CheckReport<'t>> {
        let analysis = Analysis::new(txt).cancelled_by(cancel);
        CheckReport::with_analysis(name, &analysis, profiles, agents, fetched)
    }

    fn with_analysis(
        name: impl Into<String>,
        analysis: &Analysis<'t>,
        profiles: &[&'static Profile],
        agents: &[&str],
        fetched: Option<FetchSummary>,
    ) -> Option<CheckReport<'t>> {
        let txt = analysis.txt();
        let live = || (!analysis.is_cancelled()).then_some(());
        let checked = analysis.check_bounded();
        live()?;
        let folded = fold(txt, &checked.diagnostics);
        let all = Profile::ALL;
        let profiles = if profiles.is_empty() {
            &all[..]
        } else {
            profiles
        };
        live()?;
        let matrix = analysis.matrix(profiles, agents);
        live()?;
        let usage = match analysis.robots(&Profile::RFC9309) {
            Some(robots) => UsageTable::new(robots, matrix.agents()),
            None => UsageTable::default(),
        };
        live()?;
        let fixed = fix(txt);
        live()?;
        let equivalence = analysis.compare_fixed(&fixed);
        live()?;
        Some(CheckReport {
            name: name.into(),
            txt,
            diagnostics: checked.diagnostics,
            folded,
            sampled: checked.sampled,
            matrix,
            usage,
            fetched,
            fixed,
            equivalence,
        })
    }

    /// The findings a report lists (the first [`LISTED_FINDINGS`] in file
    /// order), and how many of each code are not listed.
    #[must_use]
    pub fn listed(&self) -> (&[Diagnostic], Vec<(&'static str, usize)>) {
        let cut = self.diagnostics.len().min(LISTED_FINDINGS);
        let mut omitted: Vec<(&'static str, usize)> = Vec::new();
        for d in &self.diagnostics[cut..] {
            match omitted.iter_mut().find(|(code, _)| *code == d.code()) {
                Some((_, n)) => *n += 1,
                None => omitted.push((d.code(), 1)),
            }
        }
        omitted.sort_unstable();
        (&self.diagnostics[..cut], omitted)
    }

    /// Findings of a severity.
    #[must_use]
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity() == severity)
            .count()
    }
}

// What the JSON and SARIF renderings share.
#[cfg(feature = "serde")]
impl CheckReport<'_> {
    /// 1-based line and column of the start and end of a span.
    pub(crate) fn region(&self, span: Span) -> Region {
        let (line, column) = self.txt.position(span.start);
        let (end_line, end_column) = self.txt.position(span.end);
        Region {
            line,
            column,
            end_line,
            end_column,
        }
    }

    /// Per diagnostic, its cause: the line it follows from, and the
    /// diagnostic the text shows it with; `None` when neither.
    pub(crate) fn causes(&self) -> Vec<Option<ShownCause>> {
        let mut shown_with: Vec<Option<usize>> = vec![None; self.diagnostics.len()];
        for entry in &self.folded {
            for i in entry.members().filter(|&i| i != entry.head) {
                shown_with[i] = Some(entry.head);
            }
        }
        self.diagnostics
            .iter()
            .zip(shown_with)
            .map(|(d, index)| match (d.cause, index) {
                (None, None) => None,
                (line, index) => Some(ShownCause { index, line }),
            })
            .collect()
    }
}

/// 1-based line and column of the start and end of a span.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Region {
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) end_line: u32,
    pub(crate) end_column: u32,
}

/// A diagnostic's `cause`: the line it follows from, and the index of the
/// diagnostic the text shows it with.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub(crate) struct ShownCause {
    pub(crate) index: Option<usize>,
    pub(crate) line: Option<u32>,
}

/// What `robots fix` reports: the fixed file, its changes, and the
/// differential check that proves it means what the original meant.
#[derive(Debug)]
pub struct FixReport {
    /// The name shown for the file.
    pub name: String,
    /// The fixed file and its changes.
    pub fixed: Fixed,
    /// The differential check of the fixed file against the original.
    pub equivalence: Equivalence,
}

impl FixReport {
    /// Fixes `txt` and checks the result against it ([`compare_fixed`]).
    #[must_use]
    pub fn new(name: impl Into<String>, txt: &RobotsTxt) -> FixReport {
        let fixed = fix(txt);
        let equivalence = compare_fixed(txt, &fixed);
        FixReport {
            name: name.into(),
            fixed,
            equivalence,
        }
    }
}

/// What a fetch of robots.txt brought, and what each availability policy
/// decides from it: plain data, filled by the fetcher's caller.
///
/// Its JSON shape (with the `serde` feature) is its fields in order, times
/// in milliseconds; `encoding_from` is not part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FetchSummary {
    /// The site asked about, as given.
    pub url: String,
    /// Its `/robots.txt`.
    pub robots_url: String,
    /// Every request, redirects included, in order.
    pub hops: Vec<HopSummary>,
    /// The final status; `None` when nothing answered.
    pub status: Option<u16>,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// The `charset` of `Content-Type`.
    pub charset: Option<String>,
    /// The effective encoding's label: the byte-order mark's, else the
    /// charset's, else UTF-8.
    pub encoding: String,
    /// Where `encoding` comes from.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub encoding_from: EncodingFrom,
    /// The encoding the byte-order mark names, if there is one.
    pub bom: Option<&'static str>,
    /// `Content-Encoding`.
    pub content_encoding: Option<String>,
    /// Bytes of body kept, decoded.
    pub bytes: usize,
    /// Bytes received.
    pub wire_bytes: u64,
    /// The full length, when the body was cut and it is known.
    pub full_bytes: Option<u64>,
    /// Whether the body was cut at the size limit.
    pub truncated: bool,
    /// `Retry-After`, as sent.
    pub retry_after: Option<String>,
    /// Time of the whole fetch.
    pub elapsed_ms: u128,
    /// Warnings, as sentences.
    pub warnings: Vec<String>,
    /// The error that ended the fetch, as a sentence.
    pub error: Option<String>,
    /// The request for a missing path after a 5xx.
    pub missing_probe: Option<ProbeSummary>,
    /// What each policy decides, in the order asked.
    pub availability: Decisions,
}

/// Where a fetched body's encoding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingFrom {
    /// A byte-order mark.
    ByteOrderMark,
    /// The `charset` of `Content-Type`.
    ContentType,
    /// Nothing: UTF-8 is assumed.
    Assumed,
}

/// One request of a fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HopSummary {
    /// The URL asked.
    pub url: String,
    /// Its status; `None` when nothing answered.
    pub status: Option<u16>,
    /// Time since the fetch began, when the answer came.
    pub elapsed_ms: u128,
    /// `Location`, for a redirect.
    pub location: Option<String>,
}

/// The request for a path that does not exist, sent after a 5xx.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ProbeSummary {
    /// The URL asked.
    pub url: String,
    /// Its status; `None` when not sent or not answered.
    pub status: Option<u16>,
    /// Time that was left for it.
    pub time_left_ms: u128,
    /// Whether it was sent: not when no time was left.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub sent: bool,
}

/// What one availability policy decides from a fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FetchDecision {
    /// `full-allow`, `full-disallow`, `parse`, `retry-later`, ...
    pub decision: &'static str,
    /// Why, as a sentence.
    pub reason: String,
    /// Set for `retry-later`.
    pub retry_after_secs: Option<u64>,
    /// When the robot fetches robots.txt again.
    pub refetch_after_secs: u64,
}

/// Decisions keyed by policy name, in the order asked; a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Decisions(pub Vec<(&'static str, FetchDecision)>);

impl Decisions {
    /// What each of `policies` decides from `outcome`.
    #[must_use]
    pub fn new(outcome: &FetchOutcome, policies: &[&AvailabilityPolicy]) -> Decisions {
        Decisions(
            policies
                .iter()
                .map(|policy| {
                    let d = policy.decide(outcome);
                    let retry_after_secs = match d.availability {
                        crate::Availability::RetryLater(after) => Some(after.as_secs()),
                        _ => None,
                    };
                    let decision = FetchDecision {
                        decision: d.availability.name(),
                        reason: d.reason.to_string(),
                        retry_after_secs,
                        refetch_after_secs: d.refetch_after.as_secs(),
                    };
                    (policy.name, decision)
                })
                .collect(),
        )
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Decisions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}
