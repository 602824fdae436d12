//! The SARIF 2.1.0 rendering of `robots check`, for CI systems that
//! annotate files.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::json::json_text;
use super::model::{CheckReport, LISTED_EDITS};
use super::text::{partial, unlisted};
use crate::{LINTS, Severity, Span};

/// SARIF 2.1.0, pretty-printed: one run, every lint as a rule, one result
/// per finding (with the line it follows from as a related location, and
/// its fix), and what was sampled to stay within the work bounds as
/// notifications.
///
/// # Errors
///
/// When serde_json fails, which it does not for this document.
pub fn check_sarif(report: &CheckReport<'_>) -> serde_json::Result<String> {
    json_text(&report.sarif())
}

impl CheckReport<'_> {
    /// SARIF 2.1.0 as a JSON value.
    fn sarif(&self) -> Value {
        let level = |s: Severity| match s {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        };
        let rules: Vec<Value> = LINTS
            .iter()
            .map(|l| {
                json!({
                    "id": l.code,
                    "name": l.name,
                    "shortDescription": {"text": l.summary},
                    "help": {"text": l.docs, "markdown": l.docs},
                    "defaultConfiguration": {"level": level(l.severity)},
                })
            })
            .collect();
        let uri = self.name.as_str();
        let region = |span: Span| {
            let r = self.region(span);
            json!({"startLine": r.line, "startColumn": r.column, "endLine": r.end_line, "endColumn": r.end_column})
        };
        let causes = self.causes();
        let (listed, omitted) = self.listed();
        let results: Vec<Value> = listed
            .iter()
            .zip(causes)
            .map(|(d, cause)| {
                let index = LINTS.iter().position(|l| l.code == d.code()).unwrap_or(0);
                let mut text = d.message.clone();
                if let Some(h) = &d.help {
                    let _ = write!(text, " Help: {h}.");
                }
                let mut result = json!({
                    "ruleId": d.code(),
                    "ruleIndex": index,
                    "level": level(d.severity()),
                    "message": {"text": text},
                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region(d.span)}}],
                });
                if let Some(line) = d.cause.and_then(|l| self.txt.line(l)) {
                    result["relatedLocations"] = json!([{
                        "id": 0,
                        "physicalLocation": {"artifactLocation": {"uri": uri}, "region": region(line.span)},
                        "message": {"text": "the line this finding follows from"},
                    }]);
                }
                if let Some(cause) = cause {
                    result["properties"] = json!({"cause": cause});
                }
                if let Some(f) = &d.fix {
                    result["fixes"] = json!([{
                        "description": {"text": f.description},
                        "artifactChanges": [{
                            "artifactLocation": {"uri": uri},
                            "replacements": f.edits.iter().take(LISTED_EDITS).map(|e| json!({
                                "deletedRegion": region(e.span),
                                "insertedContent": {"text": e.replacement},
                            })).collect::<Vec<_>>(),
                        }],
                    }]);
                }
                result
            })
            .collect();
        json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "botwarden",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }},
                "artifacts": [{"location": {"uri": uri}}],
                "invocations": [{
                    "executionSuccessful": true,
                    "toolExecutionNotifications": self.bound_notes().iter().chain(unlisted(&omitted).iter()).map(|text| json!({
                        "level": "note",
                        "message": {"text": text},
                    })).collect::<Vec<_>>(),
                }],
                "results": results,
            }],
        })
    }

    /// What was sampled or left unasked, as sentences.
    fn bound_notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self
            .sampled
            .iter()
            .map(|s| {
                format!(
                    "{} ({}) asked robots about {} of {} rules, evenly spread, to stay within its work bound",
                    s.lint.name, s.lint.code, s.asked, s.total
                )
            })
            .collect();
        let eq = &self.equivalence;
        if !eq.is_complete() {
            notes.push(format!(
                "the fixer's proof is partial, to stay within its work bound: {}",
                partial(&eq.unasked)
            ));
        }
        notes
    }
}
