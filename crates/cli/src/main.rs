//! The `botwarden` command.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// botwarden: the contract between websites and the crawlers that visit them.
#[derive(Debug, Parser)]
#[command(name = "botwarden", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// robots.txt: how robots read a file.
    #[command(subcommand)]
    Robots(cmd::robots::RobotsCommand),
    /// Crawlers: the registry, User-Agent classification, verification.
    #[command(subcommand)]
    Bots(cmd::bots::BotsCommand),
    /// Access logs: which requests come from genuine crawlers, and lists
    /// web servers read.
    #[command(subcommand)]
    Logs(Box<cmd::logs::LogsCommand>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Robots(c) => cmd::robots::run(c),
        Command::Bots(c) => cmd::bots::run(c),
        Command::Logs(c) => cmd::logs::run(*c),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("botwarden: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}
