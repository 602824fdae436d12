//! `botwarden crawl identity`: what a site owner needs to address and
//! verify the crawler.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_crawl::{
    DEFAULT_INFO_URL, Network, Operator, ranges_json, registry_entry, robots_lines,
};
use clap::{Args, ValueEnum};

/// Arguments of `botwarden crawl identity`.
#[derive(Debug, Args)]
pub(super) struct IdentityArgs {
    /// A host-name suffix of the crawler's addresses (their reverse DNS
    /// points into it and back); repeat for several.
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// An address or CIDR block the crawler runs from; repeat for several.
    #[arg(long = "network", value_name = "CIDR")]
    networks: Vec<Network>,
    /// The page that explains the crawler.
    #[arg(long, value_name = "URL", default_value = DEFAULT_INFO_URL)]
    info_url: String,
    /// Which part to print (default: all three, one after the other).
    #[arg(long, value_enum)]
    only: Option<IdentityPart>,
}

/// `--only`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum IdentityPart {
    /// The robots.txt lines.
    Robots,
    /// The registry entry (YAML).
    Registry,
    /// The range list (JSON).
    Ranges,
}

/// `botwarden crawl identity`.
pub(super) fn identity(args: &IdentityArgs) -> Result<ExitCode> {
    let operator = Operator {
        hosts: args
            .hosts
            .iter()
            .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
            .collect(),
        networks: args.networks.clone(),
    };
    let mut out = std::io::stdout().lock();
    let all = args.only.is_none();
    let part = |p| all || args.only == Some(p);
    if part(IdentityPart::Robots) {
        if all {
            writeln!(out, "# robots.txt")?;
        }
        write!(out, "{}", robots_lines())?;
    }
    if part(IdentityPart::Registry) {
        if all {
            writeln!(
                out,
                "\n# registry entry (botwarden bots verify --registry FILE)"
            )?;
        }
        write!(out, "{}", registry_entry(&operator, &args.info_url))?;
    }
    if part(IdentityPart::Ranges) {
        if all {
            writeln!(out, "\n# range list (Google's JSON format)")?;
        }
        let now = jiff::Timestamp::now().to_string();
        write!(out, "{}", ranges_json(&operator, &now))?;
    }
    out.flush().context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
