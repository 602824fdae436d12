//! `botwarden robots fetch`: fetch a site's robots.txt and say what each
//! robot makes of the answer.

use std::io::{BufWriter, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_fetch::{Error, Fetcher, fetch_robots_txt};
use botwarden_robots::report::{fetch_json, fetch_text};
use botwarden_robots::{AvailabilityPolicy, FetchLimits};
use clap::Args;

use super::test::format_parser;
use crate::args::seconds_up_to;
use crate::format::Format;

/// Arguments of `botwarden robots fetch`.
#[derive(Debug, Args)]
pub(crate) struct FetchArgs {
    /// A URL of the site (any page): its origin's /robots.txt is fetched.
    url: String,
    /// Whose reading of the answer to show: rfc9309, google, bing, yandex,
    /// strict, mandelbot (repeat or comma-separate; default: all).
    #[arg(long, short = 'p', value_name = "P", value_delimiter = ',', value_parser = parse_policy)]
    profile: Vec<&'static AvailabilityPolicy>,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = format_parser())]
    format: Format,
    /// Allow loopback and private addresses (refused by default).
    #[arg(long)]
    allow_private: bool,
    /// Bytes of body kept, after decompression.
    #[arg(long, value_name = "N", default_value_t = FetchLimits::CHECKER.max_bytes as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_bytes: u64,
    /// Seconds for the whole fetch: name resolution, redirects, body, and
    /// the probe for a missing path after a 5xx; a warning comes after half
    /// of it.
    #[arg(long, value_name = "SECS", default_value = "10",
          value_parser = |s: &str| seconds_up_to(s, 3600))]
    timeout: Duration,
    /// The name server that resolves the site's name (ADDR:PORT), instead
    /// of the system's.
    #[arg(long, value_name = "ADDR:PORT")]
    nameserver: Option<SocketAddr>,
}

fn parse_policy(name: &str) -> Result<&'static AvailabilityPolicy, String> {
    AvailabilityPolicy::by_name(name).ok_or_else(|| {
        let names: Vec<_> = AvailabilityPolicy::ALL.iter().map(|p| p.name).collect();
        format!("unknown profile '{name}' (known: {})", names.join(", "))
    })
}

pub(crate) fn run(args: &FetchArgs) -> Result<ExitCode> {
    let max_bytes = usize::try_from(args.max_bytes).context("--max-bytes is too large")?;
    let builder = Fetcher::builder()
        .allow_private(args.allow_private)
        .max_bytes(max_bytes)
        .timeout(args.timeout)
        .warn_after(args.timeout / 2)
        .nameserver(args.nameserver);
    let robots = match fetch_robots_txt(&args.url, &builder) {
        Ok(robots) => robots,
        Err(e @ Error::Refused { .. }) => bail!("{e}; pass --allow-private to fetch it anyway"),
        Err(e) => return Err(e.into()),
    };
    let mut policies: Vec<&'static AvailabilityPolicy> = Vec::new();
    for policy in &args.profile {
        if !policies.contains(policy) {
            policies.push(policy);
        }
    }
    if policies.is_empty() {
        policies = AvailabilityPolicy::ALL.to_vec();
    }
    let summary = robots.summary(&policies);
    let text = match args.format {
        Format::Text => fetch_text(&summary),
        Format::Json => fetch_json(&summary)? + "\n",
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
