//! What changed between two audits of a site: per check, the findings
//! fixed, new and still there, keyed by check code and URL.

use std::collections::HashSet;
use std::fmt::{self, Write as _};

use serde::Serialize;

use super::{AuditReport, SHOWN_FINDINGS, Severity};
use botwarden_store::UrlCounts;

/// The comparison of an audit with an earlier one (`--compare`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The earlier crawl's start URL.
    pub seed: String,
    /// Its state.
    pub state: String,
    /// Its URLs by state.
    pub urls: UrlCounts,
    /// Findings of the earlier crawl that are gone now.
    pub fixed: u64,
    /// Findings now that the earlier crawl did not have.
    pub new: u64,
    /// Findings of both.
    pub still: u64,
    /// Every check, in the order of the report.
    pub checks: Vec<CheckChange>,
}

/// One check's changes: the findings' URLs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckChange {
    /// The check's code.
    pub code: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// In the earlier crawl, not now (in the earlier crawl's order).
    pub fixed: Vec<String>,
    /// Now, not in the earlier crawl (in the report's order).
    pub new: Vec<String>,
    /// In both (in the report's order).
    pub still: Vec<String>,
}

impl Comparison {
    /// Compares `now` with `before`, an audit of an earlier crawl. A
    /// finding is the same in both when its check's code and its URL are.
    #[must_use]
    pub fn new(now: &AuditReport, before: &AuditReport) -> Comparison {
        let mut checks = Vec::new();
        for c in &now.checks {
            let earlier: Vec<&str> = before
                .check(c.code)
                .map(|b| b.findings.iter().map(|f| f.url.as_str()).collect())
                .unwrap_or_default();
            let current: Vec<&str> = c.findings.iter().map(|f| f.url.as_str()).collect();
            let was: HashSet<&str> = earlier.iter().copied().collect();
            let is: HashSet<&str> = current.iter().copied().collect();
            let mut seen = HashSet::new();
            let mut change = CheckChange {
                code: c.code,
                severity: c.severity,
                fixed: Vec::new(),
                new: Vec::new(),
                still: Vec::new(),
            };
            for url in &current {
                if !seen.insert(*url) {
                    continue;
                }
                if was.contains(url) {
                    change.still.push((*url).to_owned());
                } else {
                    change.new.push((*url).to_owned());
                }
            }
            let mut seen = HashSet::new();
            for url in earlier {
                if seen.insert(url) && !is.contains(url) {
                    change.fixed.push(url.to_owned());
                }
            }
            checks.push(change);
        }
        let sum = |f: fn(&CheckChange) -> usize| checks.iter().map(f).sum::<usize>() as u64;
        Comparison {
            seed: before.seed.clone(),
            state: before.state.clone(),
            urls: before.urls,
            fixed: sum(|c| c.fixed.len()),
            new: sum(|c| c.new.len()),
            still: sum(|c| c.still.len()),
            checks,
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "compared with the earlier crawl of {} ({}, {} URL(s) met): {} fixed, {} new, {} still there",
            self.seed, self.state, self.urls.known, self.fixed, self.new, self.still
        );
        for c in &self.checks {
            if c.fixed.is_empty() && c.new.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "{:<7}  {}  {} fixed, {} new, {} still there",
                c.severity.as_str(),
                c.code,
                c.fixed.len(),
                c.new.len(),
                c.still.len()
            );
            for (what, urls) in [("fixed", &c.fixed), ("new", &c.new)] {
                for url in urls.iter().take(SHOWN_FINDINGS) {
                    let _ = writeln!(out, "  {what:<5}  {url}");
                }
                if urls.len() > SHOWN_FINDINGS {
                    let _ = writeln!(
                        out,
                        "  … and {} more {what} (--format json lists them all)",
                        urls.len() - SHOWN_FINDINGS
                    );
                }
            }
        }
        f.write_str(&out)
    }
}
