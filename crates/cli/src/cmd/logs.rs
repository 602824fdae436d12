//! `botwarden logs`: access-log analysis and the lists web servers read.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use super::logs_analyze::{self, AnalyzeArgs};

/// The `logs` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum LogsCommand {
    /// Which requests in access logs come from genuine crawlers: a report,
    /// and optionally lists for web servers.
    ///
    /// Inputs are files (plain or gzip), glob patterns (quoted, so that
    /// botwarden expands them) or `-` for standard input. Every line is
    /// accounted for: parsed, skipped (blank, comment) or failed, with
    /// samples of bad lines as `file:line`.
    Analyze(AnalyzeArgs),
}

pub(crate) fn run(command: LogsCommand) -> Result<ExitCode> {
    match command {
        LogsCommand::Analyze(args) => logs_analyze::run(&args),
    }
}
