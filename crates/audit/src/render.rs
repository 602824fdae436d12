//! The audit's text rendering: most severe first, a count per check and
//! a few examples each.

use std::fmt::{self, Write as _};

use super::{AuditReport, CheckReport, Finding};

/// Findings shown per check in the text.
pub const SHOWN_FINDINGS: usize = 5;

/// What each robot sees of the rendered pages: the differences counted,
/// then one line per robot whose rendering a source states.
fn write_render_view(out: &mut String, view: &crate::RenderView) {
    let _ = writeln!(
        out,
        "rendered: {} page(s), {} failed or timed out; {} read differently raw and rendered",
        view.rendered, view.failed, view.differ
    );
    for r in &view.robots {
        let _ = writeln!(
            out,
            "  {:<20} sees {}",
            r.name,
            view.what_it_sees(r.renders)
        );
    }
    if view.unknown > 0 {
        let _ = writeln!(
            out,
            "  {} other robot(s) of the registry: no source says whether they render",
            view.unknown
        );
    }
}

/// Links, and other URLs, shown per finding in the text.
const SHOWN_PER_FINDING: usize = 3;

impl fmt::Display for AuditReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let u = &self.urls;
        let with: Vec<&CheckReport> = self.checks.iter().filter(|c| c.count > 0).collect();
        let _ = writeln!(
            out,
            "audit of {} ({}): {} URL(s) met, {} fetched, {} not fetched, {} still queued",
            self.seed, self.state, u.known, u.fetched, u.skipped, u.queued
        );
        if self.state.is_empty() {
            let _ = writeln!(out, "  no crawl is recorded in this store");
        } else if self.state != "finished" {
            let _ = writeln!(
                out,
                "  the crawl did not finish: the audit covers what it fetched"
            );
        }
        for note in &self.notes {
            let _ = writeln!(out, "  note: {note}");
        }
        if let Some(view) = &self.render {
            write_render_view(&mut out, view);
        }
        let _ = writeln!(
            out,
            "{} finding(s) from {} of {} checks",
            self.total(),
            with.len(),
            self.checks.len()
        );
        for c in &with {
            out.push('\n');
            let _ = writeln!(
                out,
                "{:<7}  {}  {}: {}",
                c.severity.as_str(),
                c.code,
                c.count,
                c.summary
            );
            for finding in c.findings.iter().take(SHOWN_FINDINGS) {
                write_finding(&mut out, finding);
            }
            if c.findings.len() > SHOWN_FINDINGS {
                let _ = writeln!(
                    out,
                    "  … and {} more (--format json lists them all)",
                    c.findings.len() - SHOWN_FINDINGS
                );
            }
        }
        let clean: Vec<&str> = self
            .checks
            .iter()
            .filter(|c| c.count == 0)
            .map(|c| c.code)
            .collect();
        if !clean.is_empty() {
            let _ = writeln!(out, "\nno findings: {}", clean.join(", "));
        }
        f.write_str(&out)
    }
}

fn write_finding(out: &mut String, finding: &Finding) {
    let _ = writeln!(out, "  {}: {}", finding.url, finding.message);
    // The URLs the message does not already name.
    let related: Vec<&str> = finding
        .related
        .iter()
        .map(String::as_str)
        .filter(|r| !finding.message.contains(r))
        .collect();
    if !related.is_empty() {
        let shown = &related[..related.len().min(SHOWN_PER_FINDING)];
        let more = related.len() - shown.len();
        let _ = write!(out, "    involves {}", shown.join(", "));
        if more > 0 {
            let _ = write!(out, " and {more} more");
        }
        out.push('\n');
    }
    for link in finding.links.iter().take(SHOWN_PER_FINDING) {
        let _ = write!(out, "    linked from {}", link.source);
        match &link.anchor {
            Some(a) => {
                let _ = write!(out, " (\"{a}\")");
            }
            None if link.kind != "a" => {
                let _ = write!(out, " ({})", link.kind);
            }
            None => {}
        }
        out.push('\n');
    }
    let more = finding
        .link_count
        .saturating_sub(SHOWN_PER_FINDING.min(finding.links.len()) as u64);
    if more > 0 {
        let _ = writeln!(out, "    and {more} more link(s)");
    }
}
