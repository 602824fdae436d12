//! `botwarden robots fix`: the corrected file, and the proof that it means
//! what the original meant.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_robots::{
    Difference, Equivalence, Explanation, Fixed, RobotsTxt, compare_fixed, fix,
};
use clap::Args;

use super::robots_check::{escape, partial};
use super::source::Source;

/// Arguments of `botwarden robots fix`.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// The robots.txt file, `-` for standard input, or a site URL whose
    /// `/robots.txt` is fetched.
    file: String,
    /// Write the fixed file here instead of standard output.
    #[arg(long, short = 'o', value_name = "OUT")]
    output: Option<String>,
    /// Fetch from loopback and private addresses too.
    #[arg(long)]
    allow_private: bool,
    /// List every change and every intended difference kept (the first
    /// 1,000), not only counts.
    #[arg(long)]
    verbose: bool,
}

pub(crate) fn run(args: &FixArgs) -> Result<ExitCode> {
    let source = Source::load(&args.file, args.allow_private)?;
    let txt = RobotsTxt::parse(source.body);
    let fixed = fix(&txt);
    let equivalence = compare_fixed(&txt, &fixed);
    match &args.output {
        Some(path) => std::fs::write(path, &fixed.text)
            .with_context(|| format!("cannot write the fixed file to '{path}'"))?,
        None => std::io::stdout()
            .lock()
            .write_all(fixed.text.as_bytes())
            .context("cannot write to standard output")?,
    }
    let summary = summary(&source.name, &fixed, &equivalence, args.verbose);
    std::io::stderr()
        .lock()
        .write_all(summary.as_bytes())
        .context("cannot write to standard error")?;
    Ok(if !equivalence.holds() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Changes of one kind listed before the rest are counted, without
/// `--verbose`.
const CHANGES_LISTED: usize = 5;

/// The summary printed on standard error: the changes, then the
/// differential check. Text from the file has its control characters
/// escaped.
pub(crate) fn summary(name: &str, fixed: &Fixed, e: &Equivalence, verbose: bool) -> String {
    let mut out = String::new();
    let name = escape(name);
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
