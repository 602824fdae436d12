//! `botwarden robots check`: diagnostics and the interpretation matrix, as
//! text, JSON or SARIF.

use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::process::ExitCode;

use annotate_snippets::{Level, Renderer, Snippet};
use anyhow::{Context, Result};
use botwarden_crawl::RobotsFetch;
use botwarden_robots::{
    AvailabilityPolicy, Diagnostic, Fixed, LINTS, Matrix, Profile, RobotsTxt, Row, Severity, Span,
    check, fix,
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
}

pub(crate) fn run(args: &CheckArgs) -> Result<ExitCode> {
    let Source {
        name,
        body,
        fetched,
    } = Source::load(&args.file, args.allow_private)?;
    let txt = RobotsTxt::parse(body);
    let diagnostics = check(&txt);
    let profiles: Vec<&'static Profile> = if args.profiles.is_empty() {
        Profile::ALL.to_vec()
    } else {
        args.profiles.clone()
    };
    let agents: Vec<&str> = args.agents.iter().map(String::as_str).collect();
    let matrix = Matrix::new(&txt, &profiles, &agents);
    let fixed = fix(&txt);
    let report = Report {
        name: &name,
        txt: &txt,
        diagnostics: &diagnostics,
        matrix: &matrix,
        fetched: fetched.as_ref(),
        fixed: &fixed,
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    match args.format {
        CheckFormat::Text => {
            if let Some(fetched) = &fetched {
                robots_fetch::text(&mut out, fetched, &AvailabilityPolicy::ALL)?;
                out.write_all(b"\n")?;
            }
            out.write_all(report.text(args.all_rows).as_bytes())?;
        }
        CheckFormat::Json => serde_json::to_writer_pretty(&mut out, &report.json())?,
        CheckFormat::Sarif => serde_json::to_writer_pretty(&mut out, &report.sarif())?,
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

/// What `check` prints, in each format.
pub(crate) struct Report<'a> {
    pub(crate) name: &'a str,
    pub(crate) txt: &'a RobotsTxt,
    pub(crate) diagnostics: &'a [Diagnostic],
    pub(crate) matrix: &'a Matrix,
    pub(crate) fetched: Option<&'a RobotsFetch>,
    pub(crate) fixed: &'a Fixed,
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

    /// rustc-style diagnostics, a summary, then the matrix.
    pub(crate) fn text(&self, all_rows: bool) -> String {
        let renderer = Renderer::plain();
        let mut out = String::new();
        for d in self.diagnostics {
            let (line_no, _) = self.txt.position(d.span.start);
            let Some(line) = self.txt.line(line_no) else {
                continue;
            };
            let source = self.txt.text(line.span);
            // Byte offsets into the shown (lossily decoded) line.
            let at = |offset: usize| {
                let offset = offset.clamp(line.span.start, line.span.end);
                String::from_utf8_lossy(&self.txt.bytes()[line.span.start..offset]).len()
            };
            let (start, end) = (at(d.span.start), at(d.span.end).max(at(d.span.start)));
            let level = match d.severity() {
                Severity::Error => Level::Error,
                Severity::Warning => Level::Warning,
                Severity::Info => Level::Info,
            };
            let origin = self.name.to_owned();
            let title = format!("{} [{}]", d.message, d.lint.name);
            let mut message = level.title(&title).id(d.code()).snippet(
                Snippet::source(&source)
                    .line_start(line_no as usize)
                    .origin(&origin)
                    .annotation(level.span(start..end)),
            );
            let help = d.help.clone().unwrap_or_default();
            if !help.is_empty() {
                message = message.footer(Level::Help.title(&help));
            }
            let _ = writeln!(out, "{}\n", renderer.render(message));
        }
        let count = |s: Severity| {
            self.diagnostics
                .iter()
                .filter(|d| d.severity() == s)
                .count()
        };
        let _ = writeln!(
            out,
            "{}: {} error(s), {} warning(s), {} note(s)\n",
            self.name,
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
        let f = self.fixed;
        if f.is_unchanged() {
            out.push_str("Fix: nothing to fix.\n\n");
        } else {
            let _ = writeln!(
                out,
                "Fix: `botwarden robots fix` would make {} change(s); {} intended and {} unintended difference(s) in robots' decisions.\n",
                f.changes.len(),
                f.equivalence.intended().count(),
                f.equivalence.unintended().count()
            );
        }
        out.push_str(&self.matrix_text(all_rows));
        out
    }

    fn matrix_text(&self, all_rows: bool) -> String {
        let m = self.matrix;
        let rows: Vec<Row<'_>> = m.rows().filter(|r| all_rows || r.disagree()).collect();
        let disagreeing = m.disagreements().count();
        let mut out = String::new();
        let names: Vec<&str> = m.profiles.iter().map(|p| p.name).collect();
        let _ = writeln!(
            out,
            "How robots read it: {} robot(s) × {} path(s) under {}; profiles disagree on {disagreeing} of {} row(s){}",
            m.agents().len(),
            m.paths().len(),
            names.join(", "),
            m.rows().len(),
            if all_rows || disagreeing == 0 {
                ""
            } else {
                " (shown; --all-rows for all)"
            }
        );
        if rows.is_empty() {
            return out;
        }
        let agent_w = rows
            .iter()
            .map(|r| r.agent.chars().count())
            .max()
            .unwrap_or(5)
            .max(5);
        let path_w = rows
            .iter()
            .map(|r| r.path.chars().count())
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
                rows.iter()
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
        for r in rows {
            let mark = if r.disagree() { '!' } else { ' ' };
            let _ = write!(out, "{mark} {:agent_w$}  {:path_w$}", r.agent, r.path);
            for (c, w) in r.cells.iter().zip(&widths) {
                let _ = write!(out, "  {:w$}", cell(c));
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        out
    }

    /// The documented JSON shape. The matrix, which can hold a hundred
    /// thousand rows, is serialized straight from the report.
    pub(crate) fn json(&self) -> CheckJson<'_> {
        let diagnostics: Vec<Value> = self
            .diagnostics
            .iter()
            .map(|d| {
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
                })
            })
            .collect();
        CheckJson {
            source: self.name,
            diagnostics,
            matrix: MatrixJson(self.matrix),
            fix: json!({
                "changes": self.fixed.changes.len(),
                "intended_differences": self.fixed.equivalence.intended().count(),
                "unintended_differences": self.fixed.equivalence.unintended().count(),
            }),
            availability: self
                .fetched
                .map(|f| robots_fetch::decisions(f, &AvailabilityPolicy::ALL)),
        }
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
        let results: Vec<Value> = self
            .diagnostics
            .iter()
            .map(|d| {
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
                "results": results,
            }],
        })
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
