//! `botwarden crawl export`: a table of a crawl's store on standard
//! output.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use botwarden_store::{ExportFormat, ExportTable, Store};
use clap::{ArgGroup, Args, ValueEnum};

/// Arguments of `botwarden crawl export`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("table").required(true).args(["pages", "links", "redirects"])))]
pub(super) struct ExportArgs {
    /// The crawl's store.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// Every fetched page.
    #[arg(long)]
    pages: bool,
    /// Every link.
    #[arg(long)]
    links: bool,
    /// Every redirect.
    #[arg(long)]
    redirects: bool,
    /// CSV (with a header line) or JSON lines.
    #[arg(long, value_enum, default_value_t = ExportFormatArg::Csv)]
    format: ExportFormatArg,
}

/// `--format` of `crawl export`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExportFormatArg {
    Csv,
    Jsonl,
}

/// `botwarden crawl export`.
#[allow(clippy::print_stderr)]
pub(super) fn export(args: &ExportArgs) -> Result<ExitCode> {
    let store = Store::open(&args.db)?;
    let table = if args.pages {
        ExportTable::Pages
    } else if args.links {
        ExportTable::Links
    } else {
        ExportTable::Redirects
    };
    let format = match args.format {
        ExportFormatArg::Csv => ExportFormat::Csv,
        ExportFormatArg::Jsonl => ExportFormat::Jsonl,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let rows = store.export(table, format, &mut out)?;
    eprintln!(
        "botwarden: {rows} row(s) exported from {}",
        args.db.display()
    );
    Ok(ExitCode::SUCCESS)
}
