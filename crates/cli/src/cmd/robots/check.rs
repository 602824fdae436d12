//! `botwarden robots check`: diagnostics and the interpretation matrix, as
//! text, JSON or SARIF. The report and its renderings are the robots
//! library's (`botwarden_robots::report`).

use std::io::{BufWriter, Write as _};
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_robots::report::{CheckReport, TextView, check_json, check_sarif, check_text};
use botwarden_robots::{AvailabilityPolicy, Profile, RobotsTxt, Severity};
use clap::{Args, ValueEnum};

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
    let agents: Vec<&str> = args.agents.iter().map(String::as_str).collect();
    let fetched = fetched.map(|f| f.summary(&AvailabilityPolicy::ALL));
    let report = CheckReport::new(name, &txt, &args.profiles, &agents, fetched);
    let text = match args.format {
        CheckFormat::Text => check_text(
            &report,
            TextView {
                verbose: args.verbose,
                all_rows: args.all_rows,
            },
        ),
        CheckFormat::Json => check_json(&report)? + "\n",
        CheckFormat::Sarif => check_sarif(&report)? + "\n",
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")?;
    let failing = report.count(Severity::Error) > 0
        || (args.deny == Some(Deny::Warnings) && report.count(Severity::Warning) > 0);
    Ok(if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
