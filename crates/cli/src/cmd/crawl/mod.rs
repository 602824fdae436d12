//! `botwarden crawl`: the polite site-audit crawler, and its subcommands.
//!
//! `args` holds the arguments, `options` what every worker of a crawl is
//! given alike (flattened into `crawl` and `crawl worker`), `run` the
//! crawl itself (with `settings`, the options its store keeps,
//! `simulation`, the simulated reading of a verified site, and
//! `progress`, a crawl by one worker with its progress line), `shared`
//! the crawl shared by workers (`--workers`, `--redis`, `worker`,
//! `merge`, `status`, `reseed`), `site` `verify-site` and the operator's
//! secret, `identity` and `export` their subcommands. The modules import
//! each other without a cycle, and none imports this one (`settings`
//! parses a stored crawl's options with the whole command line's parser,
//! `crate::Cli`).

mod args;
mod export;
mod identity;
mod options;
mod progress;
mod run;
mod settings;
mod shared;
mod simulation;
mod site;

use std::process::ExitCode;

use anyhow::Result;
use clap::ArgMatches;

pub(crate) use args::CrawlArgs;
use args::CrawlCommand;

/// Runs `botwarden crawl` or its subcommand; `matches` tell the options
/// given from their defaults (a resumed crawl keeps the ones it was
/// started with unless given again).
pub(crate) fn run(args: &CrawlArgs, matches: Option<&ArgMatches>) -> Result<ExitCode> {
    match &args.command {
        Some(CrawlCommand::Identity(a)) => identity::identity(a),
        Some(CrawlCommand::Export(a)) => export::export(a),
        Some(CrawlCommand::VerifySite(a)) => site::verify_site_command(a),
        Some(CrawlCommand::Worker(a)) => shared::worker(a),
        Some(CrawlCommand::Merge(a)) => shared::merge(a),
        Some(CrawlCommand::Status(a)) => shared::status(a),
        Some(CrawlCommand::Reseed(a)) => shared::reseed(a),
        None => run::run_crawl(args, matches),
    }
}
