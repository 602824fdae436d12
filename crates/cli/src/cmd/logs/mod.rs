//! `botwarden logs`: access-log analysis and the lists web servers read.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use botwarden_logs::{ApacheLookup, BasicAuth, Error, Server, SnippetOptions, snippet};
use clap::{Args, Subcommand, ValueEnum};

use analyze::AnalyzeArgs;

mod analyze;
mod follow;
mod nats;

/// The `logs` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum LogsCommand {
    /// Which requests in access logs come from genuine crawlers: a report,
    /// and optionally lists for web servers.
    ///
    /// Inputs are files (plain or gzip), glob patterns (quoted, so that
    /// botwarden expands them) or `-` for standard input. Every line is
    /// accounted for: parsed, skipped (blank, comment) or failed, with
    /// samples of bad lines as `file:line`. Exits 1 when an input could not
    /// be read (the others are still analysed) or an export failed.
    Analyze(AnalyzeArgs),
    /// Like `analyze`, for the lists only: writes the `--export-…` files
    /// and prints no report unless `--report` asks for one.
    Export(AnalyzeArgs),
    /// Verifies the pairs web servers' followers publish to NATS
    /// (`logs analyze --follow … --nats URL`) and writes the verdicts to
    /// the bucket they render their exports from; runs until interrupted
    /// (Ctrl-C or SIGTERM). Run as many as needed: they share the pairs.
    Verifier(nats::VerifierArgs),
    /// Prints web-server configuration that uses the exports: serve a
    /// different robots.txt to verified crawlers, let them past basic
    /// authentication, and refuse addresses that pretend to be crawlers.
    Snippet(SnippetArgs),
    /// Writes the exports `logs analyze --redis` announces into a
    /// directory as they come — each file atomically, the ACAP tree
    /// swapped in whole — and runs `--reload` after each version written:
    /// run it on every web server.
    ExportsFollow(follow::FollowArgs),
}

/// The web server a snippet is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ServerArg {
    /// Apache httpd (mod_rewrite).
    Apache,
    /// nginx (geo).
    Nginx,
    /// HAProxy (map_ip).
    Haproxy,
}

/// Which Apache export the snippet consults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LookupArg {
    /// `RewriteCond DIR/all-ok-bots/%{REMOTE_ADDR} -f`.
    Acap,
    /// `${botwarden:%{REMOTE_ADDR}}` on the RewriteMap file.
    RewriteMap,
}

/// Options of `logs snippet`.
#[derive(Debug, Args)]
pub(crate) struct SnippetArgs {
    /// The server.
    #[arg(value_enum)]
    server: ServerArg,
    /// The ACAP tree (`--export-acap`).
    #[arg(long, value_name = "DIR", default_value = "/var/lib/botwarden/acap")]
    acap_dir: PathBuf,
    /// The Apache RewriteMap (`--export-apache-map`).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/var/lib/botwarden/apache-rewritemap.txt"
    )]
    apache_map: PathBuf,
    /// Which export Apache consults.
    #[arg(long, value_enum, default_value_t = LookupArg::Acap)]
    apache_lookup: LookupArg,
    /// The nginx geo include (`--export-nginx-geo`).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/var/lib/botwarden/nginx-geo.conf"
    )]
    nginx_geo: PathBuf,
    /// The HAProxy map (`--export-haproxy`).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/var/lib/botwarden/haproxy.map"
    )]
    haproxy_map: PathBuf,
    /// The robots.txt served to verified crawlers.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/var/lib/botwarden/robots-verified.txt"
    )]
    verified_robots: PathBuf,
    /// The URL path behind basic authentication.
    #[arg(long, value_name = "PATH", default_value = "/")]
    auth_path: String,
    /// The password file (htpasswd format) for Apache and nginx.
    #[arg(long, value_name = "FILE", default_value = "/etc/botwarden/htpasswd")]
    auth_user_file: PathBuf,
    /// The HAProxy `userlist` to check credentials against.
    #[arg(long, value_name = "NAME", default_value = "botwarden")]
    auth_userlist: String,
    /// The realm users see.
    #[arg(long, value_name = "TEXT", default_value = "Restricted")]
    auth_realm: String,
    /// No basic authentication in the snippet.
    #[arg(long)]
    no_auth: bool,
}

pub(crate) fn run(command: LogsCommand) -> Result<ExitCode> {
    match command {
        LogsCommand::Analyze(args) => analyze::run(&args, false),
        LogsCommand::Export(args) => analyze::run(&args, true),
        LogsCommand::ExportsFollow(args) => follow::run(&args),
        LogsCommand::Verifier(args) => nats::verifier(&args),
        LogsCommand::Snippet(args) => {
            let server = match args.server {
                ServerArg::Apache => Server::Apache,
                ServerArg::Nginx => Server::Nginx,
                ServerArg::Haproxy => Server::Haproxy,
            };
            let options = SnippetOptions {
                acap_dir: args.acap_dir,
                apache_map: args.apache_map,
                apache_lookup: match args.apache_lookup {
                    LookupArg::Acap => ApacheLookup::AcapTree,
                    LookupArg::RewriteMap => ApacheLookup::RewriteMap,
                },
                nginx_geo: args.nginx_geo,
                haproxy_map: args.haproxy_map,
                verified_robots: args.verified_robots,
                basic_auth: (!args.no_auth).then_some(BasicAuth {
                    path: args.auth_path,
                    realm: args.auth_realm,
                    user_file: args.auth_user_file,
                    haproxy_userlist: args.auth_userlist,
                }),
            };
            let text = snippet(server, &options).map_err(|e| match e {
                Error::Snippet {
                    option,
                    value,
                    reason,
                } => anyhow::anyhow!("{} {value:?}: {reason}", flag(option)),
                other => anyhow::Error::new(other),
            })?;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The command-line option of a snippet option.
fn flag(option: &str) -> &'static str {
    match option {
        "acap_dir" => "--acap-dir",
        "apache_map" => "--apache-map",
        "nginx_geo" => "--nginx-geo",
        "haproxy_map" => "--haproxy-map",
        "verified_robots" => "--verified-robots",
        "basic_auth.path" => "--auth-path",
        "basic_auth.realm" => "--auth-realm",
        "basic_auth.user_file" => "--auth-user-file",
        "basic_auth.haproxy_userlist" => "--auth-userlist",
        _ => "an option",
    }
}
