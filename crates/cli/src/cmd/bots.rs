//! `botwarden bots ...`: crawler registry, classification and verification.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use super::bots_registry::{self, RegistryCommand};
use super::bots_update::{self, UpdateArgs};

/// Crawler verification commands.
#[derive(Debug, Subcommand)]
pub(crate) enum BotsCommand {
    /// Check or show the bot registry (the default one, plus your files).
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Fetch the published IP ranges of every bot with a `ranges_url`.
    ///
    /// Each feed is stored (with the feed's creation time and the fetch
    /// time) in the ranges directory, which later commands lay over the
    /// compiled-in snapshot. A feed that cannot be fetched or read keeps its
    /// previous copy. Exit 1 when any feed failed.
    Update(UpdateArgs),
}

pub(crate) fn run(command: BotsCommand) -> Result<ExitCode> {
    match command {
        BotsCommand::Registry(c) => bots_registry::run(c),
        BotsCommand::Update(args) => bots_update::run(&args),
    }
}
