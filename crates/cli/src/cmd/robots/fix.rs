//! `botwarden robots fix`: the corrected file, and the proof that it means
//! what the original meant.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_robots::RobotsTxt;
use botwarden_robots::report::{FixReport, fix_text};
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
    /// List every change and every intended difference kept (the first
    /// 1,000), not only counts.
    #[arg(long)]
    verbose: bool,
}

pub(crate) fn run(args: &FixArgs) -> Result<ExitCode> {
    let source = Source::load(&args.file, args.allow_private)?;
    let txt = RobotsTxt::parse(source.body);
    let report = FixReport::new(source.name, &txt);
    match &args.output {
        Some(path) => std::fs::write(path, &report.fixed.text)
            .with_context(|| format!("cannot write the fixed file to '{path}'"))?,
        None => std::io::stdout()
            .lock()
            .write_all(report.fixed.text.as_bytes())
            .context("cannot write to standard output")?,
    }
    let summary = fix_text(&report, args.verbose);
    std::io::stderr()
        .lock()
        .write_all(summary.as_bytes())
        .context("cannot write to standard error")?;
    Ok(if !report.equivalence.holds() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
