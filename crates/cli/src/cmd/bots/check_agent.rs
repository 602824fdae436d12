//! `botwarden bots check-agent`: will sites accept this signed agent's
//! signatures?

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use botwarden_verify::{RequestParts, agent_directory_url, check_agent};
use clap::Args;

use super::signature::GivenRequest;
use crate::args::{AgentFormArg, DirectoryFetchArgs, load_signer};
use crate::format::Format;

/// The most of a directory read (as `KeyDirectories` reads).
const MAX_DIRECTORY: usize = 64 * 1024;

/// Arguments of `botwarden bots check-agent`.
#[derive(Debug, Args)]
pub(crate) struct CheckAgentArgs {
    /// The agent as it goes in `Signature-Agent`: its origin
    /// (`https://crawler.example`) or its directory's URL. Without it, the
    /// sample's `Signature-Agent` is checked.
    agent: Option<String>,
    /// A raw request the agent signed: its request line, then its header
    /// fields.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["headers", "sign_key"])]
    request: Option<PathBuf>,
    /// A header field of a request the agent signed; repeat for each.
    #[arg(
        long = "header",
        value_name = "'NAME: VALUE'",
        conflicts_with = "sign_key"
    )]
    headers: Vec<String>,
    /// The signed request's method (with --header).
    #[arg(long, value_name = "METHOD", default_value = "GET")]
    method: String,
    /// The signed request's path and query (with --header).
    #[arg(long, value_name = "TARGET", default_value = "/")]
    target: String,
    /// The signed request's authority, if not its Host field.
    #[arg(long, value_name = "HOST")]
    authority: Option<String>,
    /// The agent's private key (a JWK, or PKCS#8 PEM as `bots keygen`
    /// writes): a sample request is signed with it, naming the agent, and
    /// checked.
    #[arg(long, value_name = "FILE", requires = "agent")]
    sign_key: Option<PathBuf>,
    /// The `Signature-Agent` form of the sample signed with --sign-key.
    #[arg(long, value_enum, default_value_t = AgentFormArg::Dictionary, requires = "sign_key")]
    signature_agent_form: AgentFormArg,
    /// Check the times as of this moment (RFC 3339, or seconds since
    /// 1970) instead of now.
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    #[command(flatten)]
    directories: DirectoryFetchArgs,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = Format::parser(
        "The findings, then each reading's verdict",
        "One JSON object",
    ))]
    format: Format,
}

/// The sample: given, or signed here.
fn sample(args: &CheckAgentArgs, now: SystemTime) -> Result<Option<GivenRequest>> {
    if let Some(path) = &args.request {
        return Ok(Some(GivenRequest::from_file(
            path,
            args.authority.as_deref(),
        )?));
    }
    if !args.headers.is_empty() {
        return Ok(Some(GivenRequest::from_headers(
            &args.headers,
            &args.method,
            &args.target,
            args.authority.as_deref(),
        )?));
    }
    let Some(key) = &args.sign_key else {
        return Ok(None);
    };
    let signer = load_signer(
        key,
        "--sign-key",
        args.agent.as_deref(),
        args.signature_agent_form,
    )?;
    let authority = args.authority.as_deref().unwrap_or("site.example");
    let unsigned = RequestParts::new(&args.method, authority, &args.target).scheme("https");
    let h = signer.sign(&unsigned, now)?;
    let fields: Vec<String> = h
        .fields()
        .iter()
        .map(|(n, v)| format!("{n}: {v}"))
        .collect();
    Ok(Some(GivenRequest::from_headers(
        &fields,
        &args.method,
        &args.target,
        Some(authority),
    )?))
}

/// The agent checked: the argument, else the sample's `Signature-Agent`.
fn agent_of(args: &CheckAgentArgs, sample: Option<&GivenRequest>) -> Result<String> {
    if let Some(a) = &args.agent {
        return Ok(a.clone());
    }
    let Some(sample) = sample else {
        bail!("give the agent (its origin or directory URL), a signed sample, or both");
    };
    match botwarden_verify::sample_agent(&sample.parts()) {
        Some(a) => Ok(a.uri),
        None => bail!(
            "the sample names no signature agent (no web-bot-auth signature covering a \
             readable Signature-Agent); give the agent's origin"
        ),
    }
}

pub(crate) fn run(args: &CheckAgentArgs) -> Result<ExitCode> {
    let now = match &args.at {
        Some(t) => super::verify::parse_time(t)?,
        None => SystemTime::now(),
    };
    let sample = sample(args, now)?;
    let agent = agent_of(args, sample.as_ref())?;
    let url = agent_directory_url(&agent).map_err(anyhow::Error::msg)?;
    let fetcher = args.directories.fetcher()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let observed = runtime.block_on(botwarden_fetch::observe_directory(
        &fetcher,
        &url,
        MAX_DIRECTORY,
    ));
    let parts = sample.as_ref().map(GivenRequest::parts);
    let report = check_agent(
        &agent,
        &observed,
        parts.as_ref(),
        now,
        args.directories.allow_private,
    );
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        Format::Text => write!(out, "{report}")?,
    }
    out.flush()?;
    Ok(if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
