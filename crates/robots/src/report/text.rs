//! The text renderings: what a terminal shows.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use annotate_snippets::{Level, Renderer, Snippet};

use super::model::{CheckReport, EncodingFrom, FetchSummary, FixReport};
use crate::{Diagnostic, Difference, Explanation, Folded, Row, Severity, Unasked};

/// What the text of `check` shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextView {
    /// Every finding on its own, every row where robots disagree.
    pub verbose: bool,
    /// Every row of the matrix.
    pub all_rows: bool,
}

/// Rows where robots disagree that the text shows without `verbose`.
const ROWS_SHOWN: usize = 40;
/// Lines a note of a folded finding names.
const LINES_NAMED: usize = 5;

/// The text of `robots check`: the fetch when the file came from a site;
/// rustc-style diagnostics — one per root cause, or every one with
/// `verbose` — errors first; a summary; what the fixer would do; what was
/// sampled; then the matrix.
#[must_use]
pub fn check_text(report: &CheckReport<'_>, view: TextView) -> String {
    let mut out = String::new();
    if let Some(fetched) = &report.fetched {
        out.push_str(&fetch_text(fetched));
        out.push('\n');
    }
    out.push_str(&report.text(view));
    out
}

impl CheckReport<'_> {
    /// The line a diagnostic starts on.
    fn line_of(&self, d: &Diagnostic) -> u32 {
        self.txt.line_of(d.span.start)
    }

    /// One diagnostic, rustc-style, with `notes` before its help.
    fn render(&self, out: &mut String, d: &Diagnostic, notes: &[String]) {
        let line_no = self.txt.line_of(d.span.start);
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
        let origin = escape(&self.name).into_owned();
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
    fn text(&self, view: TextView) -> String {
        let mut out = String::new();
        if view.verbose {
            let (listed, omitted) = self.listed();
            let mut order: Vec<usize> = (0..listed.len()).collect();
            order.sort_by_key(|&i| listed[i].severity());
            for i in order {
                self.render(&mut out, &listed[i], &[]);
            }
            if let Some(line) = unlisted(&omitted) {
                let _ = writeln!(out, "{line}\n");
            }
        } else {
            for entry in &self.folded {
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
            escape(&self.name),
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
        let f = &self.fixed;
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
        for s in &self.sampled {
            let _ = writeln!(
                out,
                "Bound: {} ({}) asked robots about {} of {} rules, evenly spread, to stay within its work bound.\n",
                s.lint.name, s.lint.code, s.asked, s.total
            );
        }
        out.push_str(&self.matrix_text(view));
        out.push_str(&usage_text(&self.usage, view));
        out
    }

    fn matrix_text(&self, view: TextView) -> String {
        let m = &self.matrix;
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
        matrix_table(&mut out, &names, &shown);
        let rest = candidates.len() - shown.len();
        if rest > 0 {
            rows_left_out(&mut out, &names, &candidates, &shown);
        }
        out
    }
}

/// The usage preferences: the rows that state something or where the
/// readings disagree (every row with `--all-rows`), at most
/// [`ROWS_SHOWN`] without `--verbose`.
fn usage_text(table: &crate::UsageTable, view: TextView) -> String {
    use crate::prefs::Reading;
    use crate::usage_cell as cell;
    let mut out = String::new();
    if table.is_empty() {
        return out;
    }
    let candidates: Vec<_> = table
        .rows
        .iter()
        .filter(|r| view.all_rows || r.is_telling())
        .collect();
    let disagreeing = table.rows.iter().filter(|r| r.answer.disagree()).count();
    let _ = writeln!(
        out,
        "\nUsage preferences (RFC 9309 groups; a cell is the group reading, then `|` crawler-commons' file-wide reading where it differs; `n/a` where the robot may not fetch): readings disagree on {disagreeing} of {} row(s){}",
        table.rows.len() + table.omitted,
        if table.omitted > 0 {
            format!(" ({} not asked)", table.omitted)
        } else {
            String::new()
        }
    );
    let shown = if view.verbose || view.all_rows {
        &candidates[..]
    } else {
        &candidates[..candidates.len().min(ROWS_SHOWN)]
    };
    let mut grid: Vec<Vec<String>> = vec![
        ["", "agent", "path", "search", "train-ai", "ai-input"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for row in shown {
        let a = &row.answer;
        let mut line = vec![
            if a.disagree() { "!" } else { "" }.to_owned(),
            escape(&fit(&row.agent, CELL_SHOWN)).into_owned(),
            escape(&fit(&row.path, CELL_SHOWN)).into_owned(),
        ];
        for (g, f) in a
            .reading(Reading::Group)
            .iter()
            .zip(a.reading(Reading::FileWide))
        {
            let group = cell(a, g.preference, &g.lines);
            line.push(if g.preference == f.preference {
                group
            } else {
                format!("{group}|{}", cell(a, f.preference, &f.lines))
            });
        }
        grid.push(line);
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|c| grid.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for row in &grid {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    if candidates.len() > shown.len() {
        let _ = writeln!(
            out,
            "  … {} more row(s) (--verbose lists each)",
            candidates.len() - shown.len()
        );
    }
    out
}

/// One cell of the matrix's table: `allow` or `deny`, with the deciding
/// line.
fn cell_text(c: &crate::Cell) -> String {
    let verdict = if c.allowed { "allow" } else { "deny" };
    match c.line {
        Some(l) => format!("{verdict}:{l}"),
        None => verdict.to_owned(),
    }
}

/// Writes the `shown` rows of the matrix as a table with a column per
/// profile of `names`.
fn matrix_table(out: &mut String, names: &[&str], shown: &[Row<'_>]) {
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
    let widths: Vec<usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            shown
                .iter()
                .map(|r| cell_text(&r.cells[i]).len())
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
    for r in shown {
        let mark = if r.disagree() { '!' } else { ' ' };
        let _ = write!(out, "{mark} {:agent_w$}  {:path_w$}", agent(r), path(r));
        for (c, w) in r.cells.iter().zip(&widths) {
            let _ = write!(out, "  {:w$}", cell_text(c));
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
}

/// Writes how many of the `candidates` rows were not `shown`, by which
/// profiles allow.
fn rows_left_out(out: &mut String, names: &[&str], candidates: &[Row<'_>], shown: &[Row<'_>]) {
    let rest = candidates.len() - shown.len();
    // The rows left out, by which profiles allow.
    let mut kinds: BTreeMap<Vec<bool>, usize> = BTreeMap::new();
    let shown_set: std::collections::HashSet<(&str, &str)> =
        shown.iter().map(|r| (r.agent, r.path)).collect();
    for r in candidates {
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
        .map(|(allowed, n)| format!("{n} {}", who_allows(names, allowed)))
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

/// `s` with the characters that would act on a terminal instead of showing
/// escaped: control characters (a tab excepted), bidirectional overrides
/// and isolates, line and paragraph separators. `\x1b` for ASCII,
/// `\u{202e}` beyond.
#[must_use]
pub fn escape(s: &str) -> Cow<'_, str> {
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

/// Changes of one kind listed before the rest are counted, without
/// `--verbose`.
const CHANGES_LISTED: usize = 5;

/// The text of `robots fix` (its summary, on standard error): the
/// changes, then the differential check. Text from the file has its control characters
/// escaped.
#[must_use]
pub fn fix_text(report: &FixReport, verbose: bool) -> String {
    let (fixed, e) = (&report.fixed, &report.equivalence);
    let mut out = String::new();
    let name = escape(&report.name);
    if fixed.is_unchanged() {
        let _ = writeln!(out, "{name}: nothing to fix");
    } else {
        let _ = writeln!(out, "{name}: {} change(s)", fixed.changes.len());
        let mut of_kind: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &fixed.changes {
            *of_kind.entry(c.kind.name()).or_default() += 1;
        }
        let mut listed: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &fixed.changes {
            let n = listed.entry(c.kind.name()).or_default();
            *n += 1;
            if verbose || *n <= CHANGES_LISTED {
                let _ = writeln!(
                    out,
                    "  line {}: [{}] {}",
                    c.line,
                    c.kind.name(),
                    escape(&c.description)
                );
            }
        }
        for (kind, n) in of_kind {
            if !verbose && n > CHANGES_LISTED {
                let _ = writeln!(
                    out,
                    "  … and {} more [{kind}] change(s) (--verbose lists each)",
                    n - CHANGES_LISTED
                );
            }
        }
    }
    if let Some(block) = fixed.managed() {
        let _ = writeln!(out, "  note: {block}");
    }
    let _ = writeln!(
        out,
        "equivalence: {} robot(s) under every profile; {} reading(s) proven identical, {} probed with {} decision(s)",
        e.robots.len(),
        e.proven,
        e.probed,
        e.checks
    );
    if !e.is_complete() {
        let _ = writeln!(
            out,
            "  the proof is PARTIAL, to stay within its work bound: {}",
            partial(&e.unasked)
        );
    }
    if e.intended_found == 0 {
        let _ = writeln!(out, "  every robot decides every probed path as before");
    } else {
        let _ = writeln!(
            out,
            "  {} intended difference(s), the point of a fix:",
            e.intended_found
        );
        for ((profile, kind), n) in &e.intended_by_change {
            let _ = writeln!(out, "    {profile}: {n} decision(s) changed by [{kind}]");
        }
        if verbose {
            let kept: Vec<&Difference> = e.intended().collect();
            if kept.len() < e.intended_found {
                let _ = writeln!(out, "    the first {}:", kept.len());
            }
            for d in kept {
                let _ = writeln!(out, "    {}", line(d));
            }
        }
    }
    if e.unintended_found == 0 {
        let _ = writeln!(out, "  no unintended difference");
    } else {
        let _ = writeln!(
            out,
            "  {} UNINTENDED difference(s): the fixed file does not mean what the original meant",
            e.unintended_found
        );
        let kept: Vec<&Difference> = e.unintended().collect();
        if kept.len() < e.unintended_found {
            let _ = writeln!(out, "    the first {}:", kept.len());
        }
        for d in kept {
            let _ = writeln!(out, "    {}", line(d));
        }
    }
    out
}

fn line(d: &Difference) -> String {
    let verdict = |allowed: bool| if allowed { "allowed" } else { "disallowed" };
    let why = match &d.reason {
        Explanation::Intended { line, why, .. } => format!("line {line}: {why}"),
        Explanation::Unintended { why } => why.clone(),
    };
    if let Some(p) = d.preference {
        return escape(&format!(
            "{} {} {}: {} ({}) {} -> {} ({why})",
            d.profile.name, d.agent, d.path, p.purpose, p.reading, p.before, p.after
        ))
        .into_owned();
    }
    escape(&format!(
        "{} {} {}: {} -> {} ({why})",
        d.profile.name,
        d.agent,
        d.path,
        verdict(d.before.allowed),
        verdict(d.after.allowed)
    ))
    .into_owned()
}

fn status_text(status: u16) -> String {
    match crate::status_reason(status) {
        "" => status.to_string(),
        phrase => format!("{status} {phrase}"),
    }
}

/// The text of `robots fetch`: one line per field, then what each policy
/// decides.
#[must_use]
pub fn fetch_text(r: &FetchSummary) -> String {
    let mut out = String::new();
    if r.robots_url == r.url {
        let _ = writeln!(out, "fetch             {}", r.robots_url);
    } else {
        let _ = writeln!(out, "fetch             {}  (for {})", r.robots_url, r.url);
    }
    for (i, hop) in r.hops.iter().enumerate() {
        let status = hop
            .status
            .map_or_else(|| "---".to_owned(), |s| s.to_string());
        let _ = write!(
            out,
            "hop {:<2}            {status}  {:>5} ms  {}",
            i + 1,
            hop.elapsed_ms,
            hop.url
        );
        match &hop.location {
            Some(location) => {
                let _ = writeln!(out, " -> {location}");
            }
            None => out.push('\n'),
        }
    }
    let none = "none";
    let status = match r.status {
        Some(s) => status_text(s),
        None => "none (no answer)".to_owned(),
    };
    let _ = writeln!(out, "status            {status}");
    let _ = writeln!(
        out,
        "content type      {}",
        r.content_type.as_deref().unwrap_or(none)
    );
    let encoding = match r.encoding_from {
        EncodingFrom::ByteOrderMark => format!("{} (byte-order mark)", r.encoding),
        EncodingFrom::ContentType => format!("{} (Content-Type)", r.encoding),
        EncodingFrom::Assumed => format!("{} (assumed)", r.encoding),
    };
    let _ = writeln!(out, "encoding          {encoding}");
    let _ = writeln!(
        out,
        "content encoding  {}",
        r.content_encoding.as_deref().unwrap_or(none)
    );
    let mut size = format!("{} bytes", r.bytes);
    if r.content_encoding.is_some() {
        let _ = write!(size, " ({} bytes received)", r.wire_bytes);
    }
    let _ = writeln!(out, "size              {size}");
    let cut = match (r.truncated, r.full_bytes) {
        (false, _) => "no".to_owned(),
        (true, Some(full)) => format!("yes: {} of {full} bytes kept", r.bytes),
        (true, None) => format!("yes: {} bytes kept, full length unknown", r.bytes),
    };
    let _ = writeln!(out, "cut               {cut}");
    if let Some(retry) = &r.retry_after {
        let _ = writeln!(out, "retry-after       {retry}");
    }
    let _ = writeln!(out, "elapsed           {} ms", r.elapsed_ms);
    if let Some(probe) = &r.missing_probe {
        let status = match probe.status {
            Some(status) => status_text(status),
            None if !probe.sent => "not sent: no time left".to_owned(),
            None => format!("no answer in the {} ms left", probe.time_left_ms),
        };
        let _ = writeln!(out, "missing path      {}: {status}", probe.url);
    }
    for warning in &r.warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    if let Some(error) = &r.error {
        let _ = writeln!(out, "error: {error}");
    }
    out.push_str("availability\n");
    for (policy, d) in &r.availability.0 {
        let decision = match d.retry_after_secs {
            Some(after) => format!("retry-later after {after} s"),
            None => d.decision.to_owned(),
        };
        let _ = writeln!(out, "  {policy:<10} {decision:<24} {}", d.reason);
    }
    out
}

/// What a report says of the findings it does not list: `None` when it
/// lists them all.
pub(crate) fn unlisted(omitted: &[(&str, usize)]) -> Option<String> {
    if omitted.is_empty() {
        return None;
    }
    let total: usize = omitted.iter().map(|(_, n)| n).sum();
    let codes: Vec<String> = omitted.iter().map(|(c, n)| format!("{c} × {n}")).collect();
    Some(format!(
        "… and {total} more finding(s) not listed (the first {} are): {}",
        super::model::LISTED_FINDINGS,
        codes.join(", ")
    ))
}
