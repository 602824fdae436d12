//! The audit as CSV: one file per check with findings, and an index
//! (`docs/audit.md`, "The CSV").

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use super::compare::Comparison;
use super::{AuditReport, CheckReport, RobotsReading};

/// A CSV cell (the audit's and the log join's CSV files write theirs so).
#[derive(Debug, Clone)]
pub enum CsvCell<'a> {
    /// Text from the crawl or the report: quoted as RFC 4180 needs, and a
    /// leading `=`, `+`, `-`, `@`, tab or carriage return (which a
    /// spreadsheet would read as a formula) is preceded by `'`.
    Text(&'a str),
    /// A number or word the report makes: written as is.
    Number(String),
}

/// One CSV record with its CRLF (RFC 4180).
#[must_use]
pub fn csv_row(cells: &[CsvCell<'_>]) -> String {
    let mut out = String::new();
    push_row(&mut out, cells);
    out
}

/// Appends one CSV record with its CRLF to `out`.
pub(crate) fn push_row(out: &mut String, cells: &[CsvCell<'_>]) {
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match cell {
            CsvCell::Text(s) => push_text(out, s),
            CsvCell::Number(s) => out.push_str(s),
        }
    }
    out.push_str("\r\n");
}

fn push_text(out: &mut String, s: &str) {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let quote = formula || s.contains([',', '"', '\r', '\n']);
    if quote {
        out.push('"');
    }
    if formula {
        out.push('\'');
    }
    if quote {
        for (i, part) in s.split('"').enumerate() {
            if i > 0 {
                out.push_str("\"\"");
            }
            out.push_str(part);
        }
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// The file name of a check's CSV: its code with `/` as `-`.
#[must_use]
pub fn csv_file_name(code: &str) -> String {
    format!("{}.csv", code.replace('/', "-"))
}

/// The index's file name.
pub const CSV_INDEX: &str = "index.csv";

/// The comparison's file name.
pub const CSV_COMPARE: &str = "compare.csv";

const FINDING_HEADER: [&str; 14] = [
    "url",
    "message",
    "related",
    "link_source",
    "link_kind",
    "link_anchor",
    "link_count",
    "robots_obeyed",
    "robots_obeyed_rule",
    "robots_obeyed_line",
    "robots_strict",
    "robots_strict_rule",
    "robots_strict_line",
    "related_count",
];

fn header(names: &[&str]) -> String {
    csv_row(&names.iter().map(|n| CsvCell::Text(n)).collect::<Vec<_>>())
}

/// Writes a check's CSV to `out`: a header, then a row per link of each
/// finding (a finding without links has one row), one row at a time.
///
/// # Errors
/// If writing fails.
pub fn write_check_csv(check: &CheckReport, mut out: impl io::Write) -> io::Result<()> {
    out.write_all(header(&FINDING_HEADER).as_bytes())?;
    let mut buf = String::new();
    for f in &check.findings {
        let related = f.related.join(" ");
        let reading = |r: Option<&RobotsReading>| match r {
            Some(r) => (
                if r.allowed { "allowed" } else { "disallowed" },
                r.rule.clone().unwrap_or_default(),
                r.line.map(|l| l.to_string()).unwrap_or_default(),
            ),
            None => ("", String::new(), String::new()),
        };
        let (oa, or, ol) = reading(f.robots.as_ref().map(|r| &r.obeyed));
        let (sa, sr, sl) = reading(f.robots.as_ref().map(|r| &r.strict));
        let mut row = |source: &str, kind: &str, anchor: &str| {
            buf.clear();
            push_row(
                &mut buf,
                &[
                    CsvCell::Text(&f.url),
                    CsvCell::Text(&f.message),
                    CsvCell::Text(&related),
                    CsvCell::Text(source),
                    CsvCell::Text(kind),
                    CsvCell::Text(anchor),
                    CsvCell::Number(f.link_count.to_string()),
                    CsvCell::Text(oa),
                    CsvCell::Text(&or),
                    CsvCell::Number(ol.clone()),
                    CsvCell::Text(sa),
                    CsvCell::Text(&sr),
                    CsvCell::Number(sl.clone()),
                    CsvCell::Number(f.related_count.to_string()),
                ],
            );
            out.write_all(buf.as_bytes())
        };
        if f.links.is_empty() {
            row("", "", "")?;
        }
        for l in &f.links {
            row(&l.source, l.kind, l.anchor.as_deref().unwrap_or(""))?;
        }
    }
    Ok(())
}

/// A check's CSV ([`write_check_csv`]) as a string.
#[must_use]
pub fn check_csv(check: &CheckReport) -> String {
    let mut out = Vec::new();
    write_check_csv(check, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the CSV is UTF-8")
}

/// The index: a row per check, with its count and its file (empty when
/// it found nothing).
#[must_use]
pub fn index_csv(report: &AuditReport) -> String {
    let mut out = header(&["code", "severity", "summary", "findings", "file"]);
    for c in &report.checks {
        let file = if c.count > 0 {
            csv_file_name(c.code)
        } else {
            String::new()
        };
        out.push_str(&csv_row(&[
            CsvCell::Text(c.code),
            CsvCell::Text(c.severity.as_str()),
            CsvCell::Text(c.summary),
            CsvCell::Number(c.count.to_string()),
            CsvCell::Text(&file),
        ]));
    }
    out
}

/// The comparison: a row per finding of either crawl, with what became of
/// it (`fixed`, `new`, `still`).
#[must_use]
pub fn compare_csv(compare: &Comparison) -> String {
    let mut out = header(&["code", "severity", "url", "change"]);
    for c in &compare.checks {
        for (change, urls) in [("fixed", &c.fixed), ("new", &c.new), ("still", &c.still)] {
            for url in urls {
                let _ = write!(
                    out,
                    "{}",
                    csv_row(&[
                        CsvCell::Text(c.code),
                        CsvCell::Text(c.severity.as_str()),
                        CsvCell::Text(url),
                        CsvCell::Text(change),
                    ])
                );
            }
        }
    }
    out
}

/// Writes the audit as CSV files into `dir` (made if missing): one per
/// check with findings ([`csv_file_name`]), [`CSV_INDEX`], and
/// [`CSV_COMPARE`] with a comparison. Returns the files written.
///
/// # Errors
/// If the folder or a file cannot be written; the message names it.
pub fn write_csv(
    report: &AuditReport,
    compare: Option<&Comparison>,
    dir: &Path,
) -> io::Result<Vec<PathBuf>> {
    let named =
        |path: &Path, e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    fs::create_dir_all(dir).map_err(|e| named(dir, e))?;
    let mut files = Vec::new();
    let mut put = |name: &str, body: &dyn Fn(&mut dyn io::Write) -> io::Result<()>| {
        let path = dir.join(name);
        let file = fs::File::create(&path).map_err(|e| named(&path, e))?;
        let mut out = io::BufWriter::new(file);
        body(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| named(&path, e))?;
        files.push(path);
        Ok::<(), io::Error>(())
    };
    for c in report.checks.iter().filter(|c| c.count > 0) {
        put(&csv_file_name(c.code), &|out| write_check_csv(c, out))?;
    }
    put(CSV_INDEX, &|out| {
        out.write_all(index_csv(report).as_bytes())
    })?;
    if let Some(compare) = compare {
        put(CSV_COMPARE, &|out| {
            out.write_all(compare_csv(compare).as_bytes())
        })?;
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_quoted_and_formulas_defused() {
        let row = csv_row(&[
            CsvCell::Text("plain"),
            CsvCell::Text("a,b"),
            CsvCell::Text("say \"hi\""),
            CsvCell::Text("two\nlines"),
            CsvCell::Text("=HYPERLINK(\"x\")"),
            CsvCell::Text("+1"),
            CsvCell::Text("-2"),
            CsvCell::Text("@sum"),
            CsvCell::Text("\tx"),
            CsvCell::Number("-3".to_owned()),
            CsvCell::Text(""),
        ]);
        assert_eq!(
            row,
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"'=HYPERLINK(\"\"x\"\")\",\
             \"'+1\",\"'-2\",\"'@sum\",\"'\tx\",-3,\r\n"
        );
    }
}
