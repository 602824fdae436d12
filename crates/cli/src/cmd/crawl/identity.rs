//! `botwarden crawl identity`: what a site owner needs to address and
//! verify the crawler, and the range file the operator publishes.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::{Context, Result};
use botwarden_crawl::{
    DEFAULT_INFO_URL, Network, Operator, Publication, default_ranges_url, ranges_json, ranges_link,
    registry_entry, robots_lines,
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
    /// Where the range file is served [default: botwarden-ranges.json
    /// beside the --info-url page].
    #[arg(long, value_name = "URL")]
    ranges_url: Option<String>,
    /// Write the range file (JAFAR) to this file, replacing it whole,
    /// instead of printing it.
    #[arg(long, value_name = "FILE")]
    ranges_file: Option<PathBuf>,
    /// Which part to print (default: all four, one after the other).
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
    /// The range file (JAFAR JSON).
    Ranges,
    /// How to link the range file from the crawler's page.
    Link,
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
    let ranges_url = args
        .ranges_url
        .clone()
        .unwrap_or_else(|| default_ranges_url(&args.info_url));
    let publication = Publication {
        info_url: &args.info_url,
        ranges_url: &ranges_url,
        now: SystemTime::now(),
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
        write!(out, "{}", registry_entry(&operator, &publication))?;
    }
    if part(IdentityPart::Ranges) {
        let json = ranges_json(&operator, publication.now);
        match &args.ranges_file {
            Some(path) => {
                botwarden_verify::write_atomic(path, json.as_bytes())
                    .with_context(|| format!("cannot write the range file {}", path.display()))?;
                writeln!(
                    out,
                    "{}# range file (JAFAR) written to {}: {} prefixes",
                    if all { "\n" } else { "" },
                    path.display(),
                    operator.networks.len()
                )?;
            }
            None => {
                if all {
                    writeln!(out, "\n# range file (JAFAR JSON; Google's format too)")?;
                }
                write!(out, "{json}")?;
            }
        }
    }
    if part(IdentityPart::Link) {
        if all {
            writeln!(out, "\n# the crawler's page")?;
        }
        write!(out, "{}", ranges_link(&publication))?;
    }
    out.flush().context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
