//! The `botwarden` command.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod args;
mod cmd;
mod format;

/// mimalloc: the crawler and the log pipeline allocate many small,
/// short-lived strings (links, anchors, log fields) from several threads;
/// it spends about half of what the system allocator does on them. Built
/// without transparent huge pages (`no_thp`): with them, every thread's
/// first allocations took whole 2 MiB pages (a one-line log analysis peaked
/// at 91 MB instead of 55 MB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// botwarden: the contract between websites and the crawlers that visit them.
#[derive(Debug, Parser)]
#[command(name = "botwarden", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
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
    /// Crawl a site politely: every accessible URL, robots.txt obeyed
    /// through the crawler's token chain, into a store to audit.
    Crawl(Box<cmd::crawl::CrawlArgs>),
    /// Audit a crawled site: broken links, redirect chains and loops,
    /// robots.txt blocks, canonicals, duplicates, depth, from the store.
    Audit(cmd::audit::AuditArgs),
    /// Serve the JSON API, the verification endpoint for web servers
    /// (`GET /verify`, for nginx's auth_request), metrics and the web
    /// checker, until Ctrl-C or SIGTERM.
    Serve(Box<cmd::serve::ServeArgs>),
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Robots(c) => cmd::robots::run(c),
        Command::Bots(c) => cmd::bots::run(c),
        Command::Logs(c) => cmd::logs::run(*c),
        // A resumed crawl tells the options given from their defaults.
        Command::Crawl(c) => cmd::crawl::run(&c, matches.subcommand_matches("crawl")),
        Command::Audit(a) => cmd::audit::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            #[allow(clippy::print_stderr)]
            {
                if is_output_error(&e) {
                    eprintln!("botwarden: cannot write to standard output: {e:#}");
                } else {
                    eprintln!("botwarden: {e:#}");
                }
            }
            ExitCode::from(2)
        }
    }
}

/// Whether an error is a write to standard output that failed (a full
/// disk, a closed pipe): the commands write their answers with `?` and no
/// context, while every file they open or read names itself.
fn is_output_error(e: &anyhow::Error) -> bool {
    e.chain().count() == 1
        && e.downcast_ref::<std::io::Error>().is_some_and(|io| {
            !matches!(
                io.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
            )
        })
}
