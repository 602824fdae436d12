//! `botwarden robots fetch`: fetch a site's robots.txt and say what each
//! robot makes of the answer.

use std::io::{BufWriter, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_crawl::{Error, Fetcher, RobotsFetch, fetch_robots_txt};
use botwarden_robots::{Availability, AvailabilityPolicy, FetchLimits, status_reason};
use clap::Args;
use serde::Serialize;
use serde::ser::Serializer;

use super::robots_test::Format;

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
    #[arg(long, value_enum, default_value_t = Format::Text)]
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
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_seconds)]
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

fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 3600.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "'{text}' is not a number of seconds between 0 and 3600"
        )),
    }
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
    let mut out = BufWriter::new(std::io::stdout().lock());
    match args.format {
        Format::Text => text(&mut out, &robots, &policies),
        Format::Json => json(&mut out, &robots, &policies),
    }
    .and_then(|()| out.flush())
    .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

fn status_text(status: u16) -> String {
    match status_reason(status) {
        "" => status.to_string(),
        phrase => format!("{status} {phrase}"),
    }
}

fn decision_text(availability: Availability) -> String {
    match availability {
        Availability::RetryLater(after) => format!("retry-later after {} s", after.as_secs()),
        other => other.name().to_owned(),
    }
}

pub(crate) fn text(
    out: &mut impl Write,
    robots: &RobotsFetch,
    policies: &[&AvailabilityPolicy],
) -> std::io::Result<()> {
    let r = &robots.report;
    if robots.robots_url.as_str() == robots.site {
        writeln!(out, "fetch             {}", robots.robots_url)?;
    } else {
        writeln!(
            out,
            "fetch             {}  (for {})",
            robots.robots_url, robots.site
        )?;
    }
    for (i, hop) in r.hops.iter().enumerate() {
        let status = hop
            .status
            .map_or_else(|| "---".to_owned(), |s| s.to_string());
        write!(
            out,
            "hop {:<2}            {status}  {:>5} ms  {}",
            i + 1,
            hop.elapsed.as_millis(),
            hop.url
        )?;
        match &hop.location {
            Some(location) => writeln!(out, " -> {location}")?,
            None => writeln!(out)?,
        }
    }
    let none = || "none".to_owned();
    let status = match r.status {
        Some(s) => status_text(s),
        None => "none (no answer)".to_owned(),
    };
    writeln!(out, "status            {status}")?;
    writeln!(
        out,
        "content type      {}",
        r.content_type.clone().unwrap_or_else(none)
    )?;
    writeln!(out, "encoding          {}", r.encoding())?;
    writeln!(
        out,
        "content encoding  {}",
        r.content_encoding.clone().unwrap_or_else(none)
    )?;
    let mut size = format!("{} bytes", r.body.len());
    if r.content_encoding.is_some() {
        size.push_str(&format!(" ({} bytes received)", r.wire_bytes));
    }
    writeln!(out, "size              {size}")?;
    let cut = match (r.truncated, r.full_length) {
        (false, _) => "no".to_owned(),
        (true, Some(full)) => format!("yes: {} of {full} bytes kept", r.body.len()),
        (true, None) => format!("yes: {} bytes kept, full length unknown", r.body.len()),
    };
    writeln!(out, "cut               {cut}")?;
    if let Some(retry) = &r.retry_after {
        writeln!(out, "retry-after       {}", retry.raw)?;
    }
    writeln!(out, "elapsed           {} ms", r.elapsed.as_millis())?;
    if let Some(probe) = &robots.missing_probe {
        let status = match probe.status {
            Some(status) => status_text(status),
            None if probe.time_left.is_zero() => "not sent: no time left".to_owned(),
            None => format!("no answer in the {} ms left", probe.time_left.as_millis()),
        };
        writeln!(out, "missing path      {}: {status}", probe.url)?;
    }
    for warning in &r.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    if let Some(error) = &r.error {
        writeln!(out, "error: {error}")?;
    }
    writeln!(out, "availability")?;
    for policy in policies {
        let d = robots.decide(policy);
        writeln!(
            out,
            "  {:<10} {:<24} {}",
            policy.name,
            decision_text(d.availability),
            d.reason
        )?;
    }
    Ok(())
}

/// The JSON object.
#[derive(Serialize)]
struct Report<'a> {
    url: &'a str,
    robots_url: &'a str,
    hops: Vec<Hop<'a>>,
    status: Option<u16>,
    content_type: Option<&'a str>,
    charset: Option<&'a str>,
    /// The effective encoding: the byte-order mark's, else the charset's,
    /// else UTF-8.
    encoding: String,
    bom: Option<&'static str>,
    content_encoding: Option<&'a str>,
    bytes: usize,
    wire_bytes: u64,
    full_bytes: Option<u64>,
    truncated: bool,
    retry_after: Option<&'a str>,
    elapsed_ms: u128,
    warnings: Vec<String>,
    error: Option<String>,
    missing_probe: Option<Probe<'a>>,
    availability: Decisions,
}

#[derive(Serialize)]
struct Hop<'a> {
    url: &'a str,
    status: Option<u16>,
    elapsed_ms: u128,
    location: Option<&'a str>,
}

#[derive(Serialize)]
struct Probe<'a> {
    url: &'a str,
    status: Option<u16>,
    time_left_ms: u128,
}

#[derive(Serialize)]
struct Decision {
    decision: &'static str,
    reason: String,
    /// Set for `retry-later`.
    retry_after_secs: Option<u64>,
    /// When the robot fetches robots.txt again.
    refetch_after_secs: u64,
}

/// Decisions keyed by policy name, in the order given.
pub(crate) struct Decisions(Vec<(&'static str, Decision)>);

impl Serialize for Decisions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn json(
    out: &mut impl Write,
    robots: &RobotsFetch,
    policies: &[&AvailabilityPolicy],
) -> std::io::Result<()> {
    let r = &robots.report;
    let decisions = decisions(robots, policies);
    let report = Report {
        url: &robots.site,
        robots_url: robots.robots_url.as_str(),
        hops: r
            .hops
            .iter()
            .map(|h| Hop {
                url: h.url.as_str(),
                status: h.status,
                elapsed_ms: h.elapsed.as_millis(),
                location: h.location.as_deref(),
            })
            .collect(),
        status: r.status,
        content_type: r.content_type.as_deref(),
        charset: r.charset.as_deref(),
        encoding: r.encoding().label().to_owned(),
        bom: r.bom().map(|b| b.encoding()),
        content_encoding: r.content_encoding.as_deref(),
        bytes: r.body.len(),
        wire_bytes: r.wire_bytes,
        full_bytes: r.full_length,
        truncated: r.truncated,
        retry_after: r.retry_after.as_ref().map(|x| x.raw.as_str()),
        elapsed_ms: r.elapsed.as_millis(),
        warnings: r.warnings.iter().map(ToString::to_string).collect(),
        error: r.error.as_ref().map(ToString::to_string),
        missing_probe: robots.missing_probe.as_ref().map(|p| Probe {
            url: p.url.as_str(),
            status: p.status,
            time_left_ms: p.time_left.as_millis(),
        }),
        availability: decisions,
    };
    let line = serde_json::to_string(&report).map_err(std::io::Error::other)?;
    writeln!(out, "{line}")
}

/// What each policy decides from a fetch, for JSON output.
pub(crate) fn decisions(robots: &RobotsFetch, policies: &[&AvailabilityPolicy]) -> Decisions {
    Decisions(
        policies
            .iter()
            .map(|policy| {
                let d = robots.decide(policy);
                let retry_after_secs = match d.availability {
                    Availability::RetryLater(after) => Some(after.as_secs()),
                    _ => None,
                };
                let decision = Decision {
                    decision: d.availability.name(),
                    reason: d.reason.to_string(),
                    retry_after_secs,
                    refetch_after_secs: d.refetch_after.as_secs(),
                };
                (policy.name, decision)
            })
            .collect(),
    )
}
