//! `botwarden robots check`: diagnostics and the interpretation matrix, as
//! text, JSON or SARIF.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::process::ExitCode;

use annotate_snippets::{Level, Renderer, Snippet};
use anyhow::{Context, Result};
use botwarden_crawl::RobotsFetch;
use botwarden_robots::{
    Analysis, AvailabilityPolicy, Diagnostic, Equivalence, Fixed, Folded, LINTS, Matrix, Profile,
    RobotsTxt, Row, Sampled, Severity, Span, Unasked, fix, fold,
};
use clap::{Args, ValueEnum};
use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::robots_fetch::{self, Decisions};
use super::source::{Source, parse_profile};

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// rustc-style diagnostics, then the matrix.
    Text,
    /// One JSON object.
    Json,
    /// SARIF 2.1.0, for CI systems that annotate files.
    Sarif,
}

/// What turns a finding into a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Deny {
    /// Exit 1 on warnings as well as errors.
    Warnings,
}

/// Arguments of `botwarden robots check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The robots.txt file, `-` for standard input, or a site URL whose
    /// `/robots.txt` is fetched.
    file: String,
    /// Fetch from loopback and private addresses too.
    #[arg(long)]
    allow_private: bool,
    /// Profiles shown in the matrix (default: all).
    #[arg(long = "profile", short = 'p', value_parser = parse_profile)]
    profiles: Vec<&'static Profile>,
    /// More robots for the matrix, besides those the file names, `*`,
    /// Googlebot, Bingbot and Yandex.
    #[arg(long = "agent", short = 'a', value_name = "TOKEN")]
    agents: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    format: CheckFormat,
    /// Exit 1 on warnings too.
    #[arg(long, value_enum)]
    deny: Option<Deny>,
    /// Show every row of the matrix, not only those where robots disagree.
    #[arg(long)]
    all_rows: bool,
    /// List every finding on its own, and every row where robots disagree,
    /// instead of one finding per root cause and at most 40 rows.
    #[arg(long, short = 'v')]
    verbose: bool,
}

pub(crate) fn run(args: &CheckArgs) -> Result<ExitCode> {
    let Source {
        name,
        body,
        fetched,
    } = Source::load(&args.file, args.allow_private)?;
    let txt = RobotsTxt::parse(body);
    // One compile per profile, shared by the lints, the matrix and the
    // proof of the fixer's output.
    let analysis = Analysis::new(&txt);
    let checked = analysis.check_bounded();
    let diagnostics = checked.diagnostics;
    let folded = fold(&txt, &diagnostics);
    let profiles: Vec<&'static Profile> = if args.profiles.is_empty() {
        Profile::ALL.to_vec()
    } else {
        args.profiles.clone()
    };
    let agents: Vec<&str> = args.agents.iter().map(String::as_str).collect();
    let matrix = analysis.matrix(&profiles, &agents);
    let fixed = fix(&txt);
    let equivalence = analysis.compare_fixed(&fixed);
    let report = Report {
        name: &name,
        txt: &txt,
        diagnostics: &diagnostics,
        folded: &folded,
        sampled: &checked.sampled,
        matrix: &matrix,
        fetched: fetched.as_ref(),
        fixed: &fixed,
        equivalence: &equivalence,
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    match args.format {
        CheckFormat::Text => {
            if let Some(fetched) = &fetched {
                robots_fetch::text(&mut out, fetched, &AvailabilityPolicy::ALL)?;
                out.write_all(b"\n")?;
            }
            let view = View {
                verbose: args.verbose,
                all_rows: args.all_rows,
            };
            out.write_all(report.text(view).as_bytes())?;
        }
        CheckFormat::Json => out.write_all(json_text(&report.json())?.as_bytes())?,
        CheckFormat::Sarif => out.write_all(json_text(&report.sarif())?.as_bytes())?,
    }
    if args.format != CheckFormat::Text {
        out.write_all(b"\n")?;
    }
    out.flush().context("cannot write to standard output")?;
    let failing = |d: &&Diagnostic| match d.severity() {
        Severity::Error => true,
        Severity::Warning => args.deny == Some(Deny::Warnings),
        Severity::Info => false,
    };
    Ok(if diagnostics.iter().any(|d| failing(&d)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What the text shows.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct View {
    /// Every finding on its own, every row where robots disagree.
    pub(crate) verbose: bool,
    /// Every row of the matrix.
    pub(crate) all_rows: bool,
}

/// Rows where robots disagree that the text shows without `--verbose`.
const ROWS_SHOWN: usize = 40;
/// Lines a note of a folded finding names.
const LINES_NAMED: usize = 5;

/// What `check` prints, in each format.
pub(crate) struct Report<'a> {
    pub(crate) name: &'a str,
    pub(crate) txt: &'a RobotsTxt,
    /// In file order.
    pub(crate) diagnostics: &'a [Diagnostic],
    /// The diagnostics by root cause, errors first.
    pub(crate) folded: &'a [Folded],
    /// Lints that asked about some rules only.
    pub(crate) sampled: &'a [Sampled],
    pub(crate) matrix: &'a Matrix,
    pub(crate) fetched: Option<&'a RobotsFetch>,
    pub(crate) fixed: &'a Fixed,
    /// The differential check of the fixed file against the original.
    pub(crate) equivalence: &'a Equivalence,
}

/// 1-based line and column of the start and end of a span.
struct Region {
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
}

impl Report<'_> {
    fn region(&self, span: Span) -> Region {
        let (line, column) = self.txt.position(span.start);
        let (end_line, end_column) = self.txt.position(span.end);
        Region {
            line,
            column,
            end_line,
            end_column,
        }
    }

    /// The line a diagnostic starts on.
    fn line_of(&self, d: &Diagnostic) -> u32 {
        self.txt.position(d.span.start).0
    }

    /// One diagnostic, rustc-style, with `notes` before its help.
    fn render(&self, out: &mut String, d: &Diagnostic, notes: &[String]) {
        let (line_no, _) = self.txt.position(d.span.start);
        let Some(line) = self.txt.line(line_no) else {
            return;
        };
        // The line as shown: decoded lossily, control characters escaped;
        // offsets of the span into it.
        let shown = |end: usize| {
            let end = end.clamp(line.span.start, line.span.end);
            escape(&String::from_utf8_lossy(
                &self.txt.bytes()[line.span.start..end],
            ))
            .into_owned()
        };
        let source = shown(line.span.end);
        let (start, end) = (shown(d.span.start).len(), shown(d.span.end).len());
        let (source, start, end) = window(&source, start, end.max(start));
        let level = match d.severity() {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Info => Level::Info,
        };
        let origin = escape(self.name).into_owned();
        let title = format!("{} [{}]", shorten(&escape(&d.message)), d.lint.name);
        let mut message = level.title(&title).id(d.code()).snippet(
            Snippet::source(&source)
                .line_start(line_no as usize)
                .origin(&origin)
                .annotation(level.span(start..end)),
        );
        for note in notes {
            message = message.footer(Level::Note.title(note));
        }
        let help = d.help.as_deref().map(escape).unwrap_or_default();
        if !help.is_empty() {
            message = message.footer(Level::Help.title(&help));
        }
        let _ = writeln!(out, "{}\n", Renderer::plain().render(message));
    }

    /// `3, 4, 5, 6, 7 and 120 more`.
    fn lines(&self, findings: &[usize]) -> String {
        let mut lines: Vec<u32> = findings
            .iter()
            .map(|&i| self.line_of(&self.diagnostics[i]))
            .collect();
        lines.dedup();
        name_lines(&lines)
    }

    /// The notes of a folded entry: the line its findings follow from, or
    /// the findings like its head and those that follow from it.
    fn notes(&self, entry: &Folded) -> Vec<String> {
        // `R035 rule-shadowed on line(s) 3, 4 and 5; R010 ...`.
        let kinds = |found: &[usize]| {
            let mut by_lint: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
            for &i in found {
                let d = &self.diagnostics[i];
                by_lint.entry((d.code(), d.lint.name)).or_default().push(i);
            }
            by_lint
                .iter()
                .map(|((code, name), found)| {
                    format!("{code} {name} on line(s) {}", self.lines(found))
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut notes = Vec::new();
        if let Some(line) = entry.cause {
            let text = self
                .txt
                .line(line)
                .map(|l| format!(" (`{}`)", escape(self.txt.text(l.span).trim())))
                .unwrap_or_default();
            let all: Vec<usize> = entry.members().collect();
            notes.push(format!(
                "this and {} more finding(s) follow from line {line}{text}: {}",
                entry.folded(),
                kinds(&all)
            ));
            return notes;
        }
        if !entry.like.is_empty() {
            notes.push(format!(
                "{} more like it, on line(s) {}",
                entry.like.len(),
                self.lines(&entry.like)
            ));
        }
        if !entry.follow.is_empty() {
            let mut causes: Vec<u32> = entry
                .follow
                .iter()
                .filter_map(|&i| self.diagnostics[i].cause)
                .collect();
            causes.sort_unstable();
            causes.dedup();
            let from = match causes.as_slice() {
                [one] => format!("line {one}"),
                _ => format!("lines {}", name_lines(&causes)),
            };
            notes.push(format!(
                "{} finding(s) follow from {from}: {}",
                entry.follow.len(),
                kinds(&entry.follow)
            ));
        }
        notes
    }

    /// rustc-style diagnostics — one per root cause, or every one with
    /// `verbose` — errors first; a summary; what the fixer would do; what
    /// was sampled; then the matrix.
    pub(crate) fn text(&self, view: View) -> String {
        let mut out = String::new();
        if view.verbose {
            let mut order: Vec<usize> = (0..self.diagnostics.len()).collect();
            order.sort_by_key(|&i| self.diagnostics[i].severity());
            for i in order {
                self.render(&mut out, &self.diagnostics[i], &[]);
            }
        } else {
            for entry in self.folded {
                self.render(&mut out, &self.diagnostics[entry.head], &self.notes(entry));
            }
        }
        let count = |s: Severity| {
            self.diagnostics
                .iter()
                .filter(|d| d.severity() == s)
                .count()
        };
        let folded = if view.verbose || self.folded.len() == self.diagnostics.len() {
            String::new()
        } else {
            format!(
                ", shown as {} finding(s) by root cause (--verbose lists each)",
                self.folded.len()
            )
        };
        let _ = writeln!(
            out,
            "{}: {} error(s), {} warning(s), {} note(s){folded}\n",
            escape(self.name),
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
        let f = self.fixed;
        if f.is_unchanged() {
            out.push_str("Fix: nothing to fix.\n");
        } else {
            let _ = writeln!(
                out,
                "Fix: `botwarden robots fix` would make {} change(s); {} intended and {} unintended difference(s) in robots' decisions.",
                f.changes.len(),
                self.equivalence.intended_found,
                self.equivalence.unintended_found
            );
        }
        if !self.equivalence.is_complete() {
            let _ = writeln!(
                out,
                "  the proof is partial, to stay within its work bound: {}",
                partial(&self.equivalence.unasked)
            );
        }
        out.push('\n');
        for s in self.sampled {
            let _ = writeln!(
                out,
                "Bound: {} ({}) asked robots about {} of {} rules, evenly spread, to stay within its work bound.\n",
                s.lint.name, s.lint.code, s.asked, s.total
            );
        }
        out.push_str(&self.matrix_text(view));
        out
    }

    fn matrix_text(&self, view: View) -> String {
        let m = self.matrix;
        let candidates: Vec<Row<'_>> = m.rows().filter(|r| view.all_rows || r.disagree()).collect();
        let disagreeing = m.disagreements().count();
        let shown = if view.all_rows || view.verbose {
            candidates.clone()
        } else {
            pick_rows(&candidates, ROWS_SHOWN)
        };
        let mut out = String::new();
        let names: Vec<&str> = m.profiles.iter().map(|p| p.name).collect();
        let _ = writeln!(
            out,
            "How robots read it: {} robot(s) × {} path(s) under {}; profiles disagree on {disagreeing} of {} row(s){}",
            m.agents().len(),
            m.paths().len(),
            names.join(", "),
            m.rows().len(),
            if view.all_rows || disagreeing == 0 {
                ""
            } else {
                " (shown; --all-rows for all)"
            }
        );
        if m.is_sampled() {
            let _ = writeln!(
                out,
                "  an even sample, to stay within the matrix's bound: {} of {} robot(s), {} of {} path(s)",
                m.agents().len(),
                m.total_agents(),
                m.paths().len(),
                m.total_paths()
            );
        }
        if shown.is_empty() {
            return out;
        }
        // Long robots and paths are cut: the matrix is for reading.
        let agent = |r: &Row<'_>| fit(&escape(r.agent), CELL_SHOWN);
        let path = |r: &Row<'_>| fit(&escape(r.path), CELL_SHOWN);
        let agent_w = shown
            .iter()
            .map(|r| agent(r).chars().count())
            .max()
            .unwrap_or(5)
            .max(5);
        let path_w = shown
            .iter()
            .map(|r| path(r).chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 60);
        let cell = |c: &botwarden_robots::Cell| {
            let verdict = if c.allowed { "allow" } else { "deny" };
            match c.line {
                Some(l) => format!("{verdict}:{l}"),
                None => verdict.to_owned(),
            }
        };
        let widths: Vec<usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                shown
                    .iter()
                    .map(|r| cell(&r.cells[i]).len())
                    .max()
                    .unwrap_or(0)
                    .max(n.len())
            })
            .collect();
        let _ = write!(out, "  {:agent_w$}  {:path_w$}", "agent", "path");
        for (n, w) in names.iter().zip(&widths) {
            let _ = write!(out, "  {n:w$}");
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        for r in &shown {
            let mark = if r.disagree() { '!' } else { ' ' };
            let _ = write!(out, "{mark} {:agent_w$}  {:path_w$}", agent(r), path(r));
            for (c, w) in r.cells.iter().zip(&widths) {
                let _ = write!(out, "  {:w$}", cell(c));
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        let rest = candidates.len() - shown.len();
        if rest > 0 {
            // The rows left out, by which profiles allow.
            let mut kinds: BTreeMap<Vec<bool>, usize> = BTreeMap::new();
            let shown_set: std::collections::HashSet<(&str, &str)> =
                shown.iter().map(|r| (r.agent, r.path)).collect();
            for r in &candidates {
                if !shown_set.contains(&(r.agent, r.path)) {
                    *kinds
                        .entry(r.cells.iter().map(|c| c.allowed).collect())
                        .or_default() += 1;
                }
            }
            let mut kinds: Vec<(Vec<bool>, usize)> = kinds.into_iter().collect();
            kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut parts: Vec<String> = kinds
                .iter()
                .take(3)
                .map(|(allowed, n)| format!("{n} {}", who_allows(&names, allowed)))
                .collect();
            let others: usize = kinds.iter().skip(3).map(|k| k.1).sum();
            if others > 0 {
                parts.push(format!("{others} other"));
            }
            let _ = writeln!(
                out,
                "  … and {rest} more row(s) where profiles disagree: {} (--verbose lists them)",
                parts.join(", ")
            );
        }
        out
    }

    /// The documented JSON shape. The matrix, which can hold a hundred
    /// thousand rows, is serialized straight from the report.
    pub(crate) fn json(&self) -> CheckJson<'_> {
        let causes = self.causes();
        let diagnostics: Vec<Value> = self
            .diagnostics
            .iter()
            .zip(&causes)
            .map(|(d, cause)| {
                let r = self.region(d.span);
                json!({
                    "code": d.code(),
                    "name": d.lint.name,
                    "severity": d.severity().as_str(),
                    "line": r.line,
                    "column": r.column,
                    "end_line": r.end_line,
                    "end_column": r.end_column,
                    "message": d.message,
                    "help": d.help,
                    "fix": d.fix.as_ref().map(|f| json!({
                        "description": f.description,
                        "edits": f.edits.iter().map(|e| {
                            let r = self.region(e.span);
                            json!({
                                "line": r.line, "column": r.column,
                                "end_line": r.end_line, "end_column": r.end_column,
                                "replacement": e.replacement,
                            })
                        }).collect::<Vec<_>>(),
                    })),
                    "cause": cause,
                })
            })
            .collect();
        let eq = self.equivalence;
        let m = self.matrix;
        CheckJson {
            source: self.name,
            diagnostics,
            matrix: MatrixJson(m),
            fix: json!({
                "changes": self.fixed.changes.len(),
                "intended_differences": eq.intended_found,
                "unintended_differences": eq.unintended_found,
                "complete": eq.is_complete(),
                "unasked": eq.unasked.iter().map(|u| json!({
                    "profile": u.profile.name,
                    "robots": u.robots,
                    "robot_examples": u.robot_examples,
                    "paths": u.paths,
                    "lines": u.lines,
                })).collect::<Vec<_>>(),
            }),
            bounds: json!({
                "matrix": {
                    "sampled": m.is_sampled(),
                    "agents": m.agents().len(),
                    "total_agents": m.total_agents(),
                    "paths": m.paths().len(),
                    "total_paths": m.total_paths(),
                },
                "lints": self.sampled.iter().map(|s| json!({
                    "code": s.lint.code,
                    "name": s.lint.name,
                    "asked": s.asked,
                    "total": s.total,
                })).collect::<Vec<_>>(),
            }),
            availability: self
                .fetched
                .map(|f| robots_fetch::decisions(f, &AvailabilityPolicy::ALL)),
        }
    }

    /// Per diagnostic, its `cause` object: the line it follows from, and
    /// the diagnostic the text shows it with; `null` when neither.
    fn causes(&self) -> Vec<Value> {
        let mut shown_with: Vec<Option<usize>> = vec![None; self.diagnostics.len()];
        for entry in self.folded {
            for i in entry.members().filter(|&i| i != entry.head) {
                shown_with[i] = Some(entry.head);
            }
        }
        self.diagnostics
            .iter()
            .zip(shown_with)
            .map(|(d, with)| match (d.cause, with) {
                (None, None) => Value::Null,
                (line, index) => json!({"line": line, "index": index}),
            })
            .collect()
    }

    /// SARIF 2.1.0: one run, every lint as a rule, one result per finding.
    pub(crate) fn sarif(&self) -> Value {
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
        let uri = self.name;
        let region = |span: Span| {
            let r = self.region(span);
            json!({"startLine": r.line, "startColumn": r.column, "endLine": r.end_line, "endColumn": r.end_column})
        };
        let causes = self.causes();
        let results: Vec<Value> = self
            .diagnostics
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
                if !cause.is_null() {
                    result["properties"] = json!({"cause": cause});
                }
                if let Some(f) = &d.fix {
                    result["fixes"] = json!([{
                        "description": {"text": f.description},
                        "artifactChanges": [{
                            "artifactLocation": {"uri": uri},
                            "replacements": f.edits.iter().map(|e| json!({
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
                    "toolExecutionNotifications": self.bound_notes().iter().map(|text| json!({
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
        let eq = self.equivalence;
        if !eq.is_complete() {
            notes.push(format!(
                "the fixer's proof is partial, to stay within its work bound: {}",
                partial(&eq.unasked)
            ));
        }
        notes
    }
}

/// The JSON report of `check`.
#[derive(Serialize)]
pub(crate) struct CheckJson<'a> {
    source: &'a str,
    diagnostics: Vec<Value>,
    matrix: MatrixJson<'a>,
    /// What `fix` would do: `{"changes", "intended_differences",
    /// "unintended_differences"}`.
    fix: Value,
    /// The availability decisions when the file was fetched; `null` for a
    /// file.
    availability: Option<Decisions>,
    /// What was sampled to stay within the work bounds: `{"matrix":
    /// {"sampled", "agents", "total_agents", "paths", "total_paths"},
    /// "lints": [{"code", "name", "asked", "total"}]}`.
    bounds: Value,
}

/// The matrix as `[{"agent", "path", "decisions": {"<profile>":
/// "allowed|disallowed"}, "disagree"}]`.
pub(crate) struct MatrixJson<'a>(&'a Matrix);

impl Serialize for MatrixJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
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
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("agent", &self.row.agent)?;
        map.serialize_entry("path", &self.row.path)?;
        map.serialize_entry("decisions", &DecisionsJson(self.matrix, self.row))?;
        map.serialize_entry("disagree", &self.row.disagree())?;
        map.end()
    }
}

struct DecisionsJson<'a>(&'a Matrix, Row<'a>);

impl Serialize for DecisionsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.1.cells.len()))?;
        for (p, c) in self.0.profiles.iter().zip(self.1.cells) {
            map.serialize_entry(p.name, if c.allowed { "allowed" } else { "disallowed" })?;
        }
        map.end()
    }
}

/// `s` with the characters that would act on a terminal instead of showing
/// escaped: control characters (a tab excepted), bidirectional overrides
/// and isolates, line and paragraph separators. `\x1b` for ASCII,
/// `\u{202e}` beyond.
pub(crate) fn escape(s: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
    };
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if c.is_ascii() {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

/// Pretty JSON with the characters [`escape`] escapes written as `\u`
/// escapes: serde escapes ASCII control characters but writes DEL, C1
/// controls and bidirectional overrides as they are. Outside strings JSON
/// has none of them, so replacing them everywhere keeps the document.
pub(crate) fn json_text(value: &impl Serialize) -> Result<String> {
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

/// Characters of a source line shown around a finding, at most.
const LINE_SHOWN: usize = 160;
/// Characters of a message shown, at most: a value quoted from a long line
/// is cut.
const MESSAGE_SHOWN: usize = 400;

/// The part of a long line around the span `start..end` (byte offsets),
/// marked `…` where it is cut, and the span's offsets in it.
fn window(source: &str, start: usize, end: usize) -> (String, usize, usize) {
    if source.chars().count() <= LINE_SHOWN {
        return (source.to_owned(), start, end);
    }
    let before = source[..start].chars().count();
    let from_char = before.saturating_sub(LINE_SHOWN / 4);
    let offset = |chars: usize| {
        source
            .char_indices()
            .nth(chars)
            .map_or(source.len(), |(at, _)| at)
    };
    let (from, to) = (offset(from_char), offset(from_char + LINE_SHOWN));
    let mut shown = String::with_capacity(to - from + 6);
    if from > 0 {
        shown.push('…');
    }
    let lead = shown.len();
    shown.push_str(&source[from..to]);
    if to < source.len() {
        shown.push('…');
    }
    let at = |offset: usize| lead + offset.clamp(from, to) - from;
    (shown, at(start), at(end))
}

/// Characters of a robot or a path shown in the matrix, at most.
const CELL_SHOWN: usize = 60;

/// `s` cut to [`MESSAGE_SHOWN`] characters, ending in `…` when cut.
fn shorten(s: &str) -> String {
    fit(s, MESSAGE_SHOWN)
}

/// `s` cut to `most` characters, ending in `…` when cut.
fn fit(s: &str, most: usize) -> String {
    match s.char_indices().nth(most) {
        None => s.to_owned(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// `3, 4, 5, 6, 7 and 120 more`.
fn name_lines(lines: &[u32]) -> String {
    let named: Vec<String> = lines.iter().take(LINES_NAMED).map(u32::to_string).collect();
    match lines.len().saturating_sub(LINES_NAMED) {
        0 => match named.as_slice() {
            [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => named.join(", "),
        },
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// Up to `most` of `rows`, in their order: first one of each way the
/// profiles split, then one of each robot and way, then the others robot
/// by robot in turn.
fn pick_rows<'m>(rows: &[Row<'m>], most: usize) -> Vec<Row<'m>> {
    if rows.len() <= most {
        return rows.to_vec();
    }
    let split = |r: &Row<'_>| -> Vec<bool> { r.cells.iter().map(|c| c.allowed).collect() };
    let mut picked = vec![false; rows.len()];
    let mut count = 0;
    let mut take = |i: usize, picked: &mut Vec<bool>| {
        if count < most && !picked[i] {
            picked[i] = true;
            count += 1;
        }
    };
    let mut seen_split = std::collections::HashSet::new();
    let mut seen_robot = std::collections::HashSet::new();
    for (i, r) in rows.iter().enumerate() {
        if seen_split.insert(split(r)) {
            take(i, &mut picked);
        }
    }
    for (i, r) in rows.iter().enumerate() {
        if seen_robot.insert((r.agent, split(r))) {
            take(i, &mut picked);
        }
    }
    // Robot by robot in turn: rows come robot by robot.
    let mut by_robot: Vec<Vec<usize>> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        match by_robot.last_mut() {
            Some(list) if rows[list[0]].agent == r.agent => list.push(i),
            _ => by_robot.push(vec![i]),
        }
    }
    let longest = by_robot.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..longest {
        for list in &by_robot {
            if let Some(&i) = list.get(round) {
                take(i, &mut picked);
            }
        }
    }
    rows.iter()
        .zip(picked)
        .filter_map(|(r, p)| p.then_some(*r))
        .collect()
}

/// `allowed only by strict`, `disallowed only by google`, or `allowed by
/// rfc9309 and google` for one way profiles split.
fn who_allows(names: &[&str], allowed: &[bool]) -> String {
    let pick = |want: bool| -> Vec<&str> {
        names
            .iter()
            .zip(allowed)
            .filter(|&(_, &a)| a == want)
            .map(|(n, _)| *n)
            .collect()
    };
    let (yes, no) = (pick(true), pick(false));
    if yes.len() <= no.len() {
        format!("allowed only by {}", yes.join(", "))
    } else {
        format!("disallowed only by {}", no.join(", "))
    }
}

/// Where a partial proof left robots and paths unasked.
pub(crate) fn partial(unasked: &[Unasked]) -> String {
    unasked
        .iter()
        .map(|u| {
            let mut parts = Vec::new();
            if u.robots > 0 {
                let names: Vec<String> = u
                    .robot_examples
                    .iter()
                    .map(|r| escape(r).into_owned())
                    .collect();
                parts.push(format!(
                    "{} robot(s) not compared ({}{})",
                    u.robots,
                    names.join(", "),
                    if u.robots > names.len() { ", …" } else { "" }
                ));
            }
            if u.paths > 0 {
                let from = if u.lines.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (from the rules on line(s) {}{})",
                        u.lines
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                        if u.paths > u.lines.len() { ", …" } else { "" }
                    )
                };
                parts.push(format!("{} path(s) not asked{from}", u.paths));
            }
            format!("{}: {}", u.profile.name, parts.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
