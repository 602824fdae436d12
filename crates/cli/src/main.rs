//! The `botwarden` command.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod args;
mod cmd;

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
    let cli = Cli::parse();
    let result = stdout_open().and_then(|()| match cli.command {
        Command::Robots(c) => cmd::robots::run(c),
        Command::Bots(c) => cmd::bots::run(c),
        Command::Logs(c) => cmd::logs::run(*c),
        Command::Crawl(c) => cmd::crawl::run(&c),
        Command::Audit(a) => cmd::audit::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
    });
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

/// Standard output must be open. When a process starts with descriptor 1
/// closed (`>&-`), Rust's standard library puts `/dev/null` there, opened
/// for reading and writing, so every answer would vanish and the command
/// exit 0. A shell's `>/dev/null` opens it for writing only, so the two are
/// told apart by the access mode (Linux: `/proc/self/fdinfo/1`).
fn stdout_open() -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let target = std::fs::read_link("/proc/self/fd/1");
        let info = std::fs::read_to_string("/proc/self/fdinfo/1");
        if let (Ok(target), Ok(info)) = (target, info) {
            let flags = info
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok());
            // O_ACCMODE is 0o3, O_RDWR 0o2.
            if target == std::path::Path::new("/dev/null") && flags.is_some_and(|f| f & 0o3 == 0o2)
            {
                anyhow::bail!(
                    "standard output is closed; redirect it to a file or to /dev/null instead"
                );
            }
        }
    }
    Ok(())
}
