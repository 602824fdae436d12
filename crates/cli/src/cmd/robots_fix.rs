//! `botwarden robots fix`: the corrected file, and the proof that it means
//! what the original meant.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_robots::{Difference, Explanation, Fixed, RobotsTxt, fix};
use clap::Args;

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
    /// List every intended difference, not only a count per reason.
    #[arg(long)]
    verbose: bool,
}

pub(crate) fn run(args: &FixArgs) -> Result<ExitCode> {
    let source = Source::load(&args.file, args.allow_private)?;
    let txt = RobotsTxt::parse(source.body);
    let fixed = fix(&txt);
    match &args.output {
        Some(path) => std::fs::write(path, &fixed.text)
            .with_context(|| format!("cannot write the fixed file to '{path}'"))?,
        None => std::io::stdout()
            .lock()
            .write_all(fixed.text.as_bytes())
            .context("cannot write to standard output")?,
    }
    let summary = summary(&source.name, &fixed, args.verbose);
    std::io::stderr()
        .lock()
        .write_all(summary.as_bytes())
        .context("cannot write to standard error")?;
    Ok(if fixed.equivalence.unintended().next().is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The summary printed on standard error: the changes, then the
/// differential check.
pub(crate) fn summary(name: &str, fixed: &Fixed, verbose: bool) -> String {
    let mut out = String::new();
    if fixed.is_unchanged() {
        let _ = writeln!(out, "{name}: nothing to fix");
    } else {
        let _ = writeln!(out, "{name}: {} change(s)", fixed.changes.len());
        for c in &fixed.changes {
            let _ = writeln!(
                out,
                "  line {}: [{}] {}",
                c.line,
                c.kind.name(),
                c.description
            );
        }
    }
    let e = &fixed.equivalence;
    let _ = writeln!(
        out,
        "equivalence: {} robot(s) under every profile; {} reading(s) proven identical, {} probed with {} decision(s)",
        e.robots.len(),
        e.proven,
        e.probed,
        e.checks
    );
    let intended: Vec<&Difference> = e.intended().collect();
    let unintended: Vec<&Difference> = e.unintended().collect();
    if intended.is_empty() {
        let _ = writeln!(out, "  every robot decides every probed path as before");
    } else {
        let mut by_reason: BTreeMap<(String, &str), usize> = BTreeMap::new();
        for d in &intended {
            if let Explanation::Intended { kind, .. } = &d.reason {
                *by_reason
                    .entry((d.profile.name.to_owned(), kind.name()))
                    .or_default() += 1;
            }
        }
        let _ = writeln!(
            out,
            "  {} intended difference(s), the point of a fix:",
            intended.len()
        );
        for ((profile, kind), n) in &by_reason {
            let _ = writeln!(out, "    {profile}: {n} decision(s) changed by [{kind}]");
        }
        if verbose {
            for d in &intended {
                let _ = writeln!(out, "    {}", line(d));
            }
        }
    }
    if unintended.is_empty() {
        let _ = writeln!(out, "  no unintended difference");
    } else {
        let _ = writeln!(
            out,
            "  {} UNINTENDED difference(s): the fixed file does not mean what the original meant",
            unintended.len()
        );
        for d in &unintended {
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
    format!(
        "{} {} {}: {} -> {} ({why})",
        d.profile.name,
        d.agent,
        d.path,
        verdict(d.before.allowed),
        verdict(d.after.allowed)
    )
}
