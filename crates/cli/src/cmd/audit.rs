//! `botwarden audit`: the problems of a crawled site, from its store.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use botwarden_crawl::{Audit, DEFAULT_MAX_DEPTH, Store};
use clap::{Args, ValueEnum};

/// Arguments of `botwarden audit`.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// The crawl's store (`botwarden crawl --db`).
    #[arg(value_name = "DB")]
    db: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Report pages more than this many clicks from the start URL.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DEPTH)]
    max_depth: u32,
}

/// The report's format.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// For people: most severe first, a few examples per check.
    Text,
    /// One JSON object with every finding (`docs/audit.md`).
    Json,
}

pub(crate) fn run(args: &AuditArgs) -> Result<ExitCode> {
    let store = Store::open(&args.db)?;
    let report = Audit {
        max_depth: args.max_depth,
    }
    .run(&store)?;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        Format::Text => write!(out, "{report}")?,
    }
    out.flush().context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
