//! The JSON renderings: the models serialized.

use std::fmt::Write as _;

use serde::Serialize;
use serde::ser::{SerializeMap as _, SerializeSeq as _, SerializeStruct as _, Serializer};

use super::model::{CheckReport, FetchSummary, LISTED_EDITS, ShownCause};
use crate::{Diagnostic, Matrix, Row};

/// The JSON of `robots check`: the report, pretty-printed, with the
/// characters [`escape`](super::escape) escapes written as `\u` escapes.
///
/// # Errors
///
/// When serde_json fails, which it does not for this model.
pub fn check_json(report: &CheckReport<'_>) -> serde_json::Result<String> {
    json_text(report)
}

/// The JSON of `robots fetch`: the summary on one line.
///
/// # Errors
///
/// When serde_json fails, which it does not for this model.
pub fn fetch_json(summary: &FetchSummary) -> serde_json::Result<String> {
    serde_json::to_string(summary)
}

/// Pretty JSON with the characters [`escape`](super::escape) escapes
/// written as `\u` escapes: serde escapes ASCII control characters but
/// writes DEL, C1 controls and bidirectional overrides as they are. Outside
/// strings JSON has none of them, so replacing them everywhere keeps the
/// document.
///
/// # Errors
///
/// When `value` fails to serialize.
pub fn json_text(value: &impl Serialize) -> serde_json::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    let risky = |c: char| {
        c == '\u{7f}'
            || ('\u{80}'..='\u{9f}').contains(&c)
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
    };
    if !text.chars().any(risky) {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if risky(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

impl Serialize for CheckReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("CheckReport", 6)?;
        out.serialize_field("source", &self.name)?;
        let causes = self.causes();
        let (listed, omitted) = self.listed();
        let diagnostics: Vec<DiagnosticJson<'_>> = listed
            .iter()
            .zip(causes)
            .map(|(d, cause)| self.diagnostic_json(d, cause))
            .collect();
        out.serialize_field("diagnostics", &diagnostics)?;
        if !omitted.is_empty() {
            out.serialize_field(
                "diagnostics_omitted",
                &OmittedJson {
                    count: omitted.iter().map(|(_, n)| n).sum(),
                    by_code: omitted.iter().copied().collect(),
                },
            )?;
        } else {
            out.skip_field("diagnostics_omitted")?;
        }
        out.serialize_field("matrix", &MatrixJson(&self.matrix))?;
        if self.usage.is_empty() {
            out.skip_field("usage")?;
        } else {
            out.serialize_field("usage", &UsageJson(&self.usage))?;
        }
        out.serialize_field("fix", &self.fix_summary_json())?;
        out.serialize_field(
            "availability",
            &self.fetched.as_ref().map(|f| &f.availability),
        )?;
        out.serialize_field("bounds", &self.bounds_json())?;
        out.end()
    }
}

impl CheckReport<'_> {
    /// One finding of the report as JSON, with the finding it is shown
    /// with (`cause`).
    fn diagnostic_json<'a>(
        &self,
        d: &'a Diagnostic,
        cause: Option<ShownCause>,
    ) -> DiagnosticJson<'a> {
        let r = self.region(d.span);
        DiagnosticJson {
            cause,
            code: d.code(),
            column: r.column,
            end_column: r.end_column,
            end_line: r.end_line,
            fix: d.fix.as_ref().map(|f| FixJson {
                description: &f.description,
                edits_omitted: f.edits.len().saturating_sub(LISTED_EDITS),
                edits: f
                    .edits
                    .iter()
                    .take(LISTED_EDITS)
                    .map(|e| {
                        let r = self.region(e.span);
                        EditJson {
                            column: r.column,
                            end_column: r.end_column,
                            end_line: r.end_line,
                            line: r.line,
                            replacement: &e.replacement,
                        }
                    })
                    .collect(),
            }),
            help: d.help.as_deref(),
            line: r.line,
            message: &d.message,
            name: d.lint.name,
            severity: d.severity().as_str(),
        }
    }

    /// What the fixer would do, and what the differential check found.
    fn fix_summary_json(&self) -> FixSummaryJson<'_> {
        let eq = &self.equivalence;
        FixSummaryJson {
            changes: self.fixed.changes.len(),
            complete: eq.is_complete(),
            intended_differences: eq.intended_found,
            unasked: eq
                .unasked
                .iter()
                .map(|u| UnaskedJson {
                    lines: &u.lines,
                    paths: u.paths,
                    profile: u.profile.name,
                    robot_examples: &u.robot_examples,
                    robots: u.robots,
                })
                .collect(),
            unintended_differences: eq.unintended_found,
        }
    }

    /// What the lints and the matrix asked of all they could have asked.
    fn bounds_json(&self) -> BoundsJson<'_> {
        let m = &self.matrix;
        BoundsJson {
            lints: self
                .sampled
                .iter()
                .map(|s| LintBoundJson {
                    asked: s.asked,
                    code: s.lint.code,
                    name: s.lint.name,
                    total: s.total,
                })
                .collect(),
            matrix: MatrixBoundJson {
                agents: m.agents().len(),
                paths: m.paths().len(),
                sampled: m.is_sampled(),
                total_agents: m.total_agents(),
                total_paths: m.total_paths(),
            },
        }
    }
}

// The parts below keep their fields in alphabetical order: the documented
// shape lists them so.

#[derive(Serialize)]
struct DiagnosticJson<'a> {
    cause: Option<ShownCause>,
    code: &'a str,
    column: u32,
    end_column: u32,
    end_line: u32,
    fix: Option<FixJson<'a>>,
    help: Option<&'a str>,
    line: u32,
    message: &'a str,
    name: &'a str,
    severity: &'a str,
}

#[derive(Serialize)]
struct FixJson<'a> {
    description: &'a str,
    edits: Vec<EditJson<'a>>,
    /// Edits past [`LISTED_EDITS`], not listed.
    #[serde(skip_serializing_if = "is_zero")]
    edits_omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The findings past [`LISTED_FINDINGS`](super::LISTED_FINDINGS): how
/// many, and how many of each code.
#[derive(Serialize)]
struct OmittedJson {
    count: usize,
    by_code: std::collections::BTreeMap<&'static str, usize>,
}

#[derive(Serialize)]
struct EditJson<'a> {
    column: u32,
    end_column: u32,
    end_line: u32,
    line: u32,
    replacement: &'a str,
}

#[derive(Serialize)]
struct FixSummaryJson<'a> {
    changes: usize,
    complete: bool,
    intended_differences: usize,
    unasked: Vec<UnaskedJson<'a>>,
    unintended_differences: usize,
}

#[derive(Serialize)]
struct UnaskedJson<'a> {
    lines: &'a [u32],
    paths: usize,
    profile: &'a str,
    robot_examples: &'a [String],
    robots: usize,
}

#[derive(Serialize)]
struct BoundsJson<'a> {
    lints: Vec<LintBoundJson<'a>>,
    matrix: MatrixBoundJson,
}

#[derive(Serialize)]
struct LintBoundJson<'a> {
    asked: usize,
    code: &'a str,
    name: &'a str,
    total: usize,
}

#[derive(Serialize)]
struct MatrixBoundJson {
    agents: usize,
    paths: usize,
    sampled: bool,
    total_agents: usize,
    total_paths: usize,
}

/// The matrix as `[{"agent", "path", "decisions": {"<profile>":
/// "allowed|disallowed"}, "disagree"}]`, serialized row by row: it can hold
/// a hundred thousand rows.
struct MatrixJson<'a>(&'a Matrix);

impl Serialize for MatrixJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut seq = serializer.serialize_seq(Some(m.rows().len()))?;
        for row in m.rows() {
            seq.serialize_element(&RowJson { matrix: m, row })?;
        }
        seq.end()
    }
}

struct RowJson<'a> {
    matrix: &'a Matrix,
    row: Row<'a>,
}

impl Serialize for RowJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("agent", &self.row.agent)?;
        map.serialize_entry("path", &self.row.path)?;
        map.serialize_entry("decisions", &DecisionsJson(self.matrix, self.row))?;
        map.serialize_entry("disagree", &self.row.disagree())?;
        map.end()
    }
}

/// The usage preferences as `[{"agent", "path", "fetch", "group":
/// {"search": {"preference": "y|n|-", "lines": [..]}, ..}, "file_wide":
/// {..}, "disagree"}]`.
struct UsageJson<'a>(&'a crate::UsageTable);

impl Serialize for UsageJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.rows.len()))?;
        for row in &self.0.rows {
            seq.serialize_element(&UsageRowJson(row))?;
        }
        seq.end()
    }
}

struct UsageRowJson<'a>(&'a crate::UsageRow);

impl Serialize for UsageRowJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use crate::prefs::Reading;
        let r = self.0;
        let mut map = serializer.serialize_map(Some(6))?;
        map.serialize_entry("agent", &r.agent)?;
        map.serialize_entry("path", &r.path)?;
        map.serialize_entry("fetch", &r.answer.fetch)?;
        map.serialize_entry("group", &AnswersJson(r.answer.reading(Reading::Group)))?;
        map.serialize_entry(
            "file_wide",
            &AnswersJson(r.answer.reading(Reading::FileWide)),
        )?;
        map.serialize_entry("disagree", &r.answer.disagree())?;
        map.end()
    }
}

/// One reading's answers: `{"search": {"preference", "lines"}, ..}`.
pub(crate) struct AnswersJson<'a>(pub(crate) &'a [crate::prefs::Answer; 3]);

impl Serialize for AnswersJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct One<'a> {
            preference: &'static str,
            lines: &'a [u32],
        }
        let mut map = serializer.serialize_map(Some(3))?;
        for a in self.0 {
            map.serialize_entry(
                a.purpose.as_str(),
                &One {
                    preference: a.preference.as_str(),
                    lines: &a.lines,
                },
            )?;
        }
        map.end()
    }
}

struct DecisionsJson<'a>(&'a Matrix, Row<'a>);

impl Serialize for DecisionsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.1.cells.len()))?;
        for (p, c) in self.0.profiles.iter().zip(self.1.cells) {
            map.serialize_entry(p.name, if c.allowed { "allowed" } else { "disallowed" })?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LISTED_FINDINGS, TextView, check_sarif, check_text};
    use super::*;
    use crate::RobotsTxt;

    /// `lines` lines that each hold a NUL byte: a finding each.
    fn nul_lines(lines: usize) -> RobotsTxt {
        let mut body = b"User-agent: *\n".to_vec();
        for i in 0..lines {
            body.extend_from_slice(format!("Disallow: /{i}\0x\n").as_bytes());
        }
        RobotsTxt::parse(body)
    }

    #[test]
    fn findings_past_the_cap_are_counted_not_listed() {
        let txt = nul_lines(LISTED_FINDINGS + 500);
        let report = CheckReport::new("f", &txt, &[], &[], None);
        let nuls = report
            .diagnostics
            .iter()
            .filter(|d| d.code() == "R036")
            .count();
        assert_eq!(nuls, LISTED_FINDINGS + 500);
        let json: serde_json::Value =
            serde_json::from_str(&check_json(&report).expect("json")).expect("parses");
        let listed = json["diagnostics"].as_array().expect("list").len();
        assert_eq!(listed, LISTED_FINDINGS);
        let omitted = &json["diagnostics_omitted"];
        assert_eq!(
            omitted["count"].as_u64(),
            Some((report.diagnostics.len() - LISTED_FINDINGS) as u64),
            "{omitted}"
        );
        assert!(omitted["by_code"]["R036"].as_u64().is_some(), "{omitted}");

        let sarif: serde_json::Value =
            serde_json::from_str(&check_sarif(&report).expect("sarif")).expect("parses");
        let run = &sarif["runs"][0];
        assert_eq!(
            run["results"].as_array().expect("results").len(),
            LISTED_FINDINGS
        );
        let notes = run["invocations"][0]["toolExecutionNotifications"].to_string();
        assert!(notes.contains("more finding(s) not listed"), "{notes}");

        let text = check_text(
            &report,
            TextView {
                verbose: true,
                ..TextView::default()
            },
        );
        assert!(text.contains("more finding(s) not listed"), "{text}");
        assert!(text.matches("[nul-byte]").count() <= LISTED_FINDINGS);
    }

    #[test]
    fn a_report_under_the_cap_lists_everything_and_says_nothing_more() {
        let txt = nul_lines(3);
        let report = CheckReport::new("f", &txt, &[], &[], None);
        let json: serde_json::Value =
            serde_json::from_str(&check_json(&report).expect("json")).expect("parses");
        assert_eq!(
            json["diagnostics"].as_array().expect("list").len(),
            report.diagnostics.len()
        );
        assert!(json.get("diagnostics_omitted").is_none(), "{json}");
    }

    #[test]
    fn a_cancelled_check_gives_no_report_and_one_not_cancelled_the_same() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let txt = nul_lines(20);
        let raised = Arc::new(AtomicBool::new(true));
        assert!(CheckReport::new_cancellable("f", &txt, &[], &[], None, raised).is_none());
        let lowered = Arc::new(AtomicBool::new(false));
        let report = CheckReport::new_cancellable("f", &txt, &[], &[], None, lowered)
            .expect("not cancelled");
        let plain = CheckReport::new("f", &txt, &[], &[], None);
        assert_eq!(
            check_json(&report).expect("json"),
            check_json(&plain).expect("json")
        );
    }

    #[test]
    fn a_run_of_nul_bytes_is_one_edit() {
        let mut body = b"User-agent: *\nDisallow: /a".to_vec();
        body.extend(std::iter::repeat_n(0u8, 100_000));
        body.extend_from_slice(b"\0b\0\n");
        let txt = RobotsTxt::parse(body);
        let report = CheckReport::new("f", &txt, &[], &[], None);
        let json: serde_json::Value =
            serde_json::from_str(&check_json(&report).expect("json")).expect("parses");
        let nul = json["diagnostics"]
            .as_array()
            .expect("list")
            .iter()
            .find(|d| d["code"] == "R036")
            .expect("a NUL finding");
        assert_eq!(
            nul["fix"]["edits"].as_array().expect("edits").len(),
            2,
            "{nul}"
        );
    }
}
