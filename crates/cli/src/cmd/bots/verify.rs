//! `botwarden bots verify`: is this address the crawler it claims to be?

use std::collections::BTreeMap;
use std::io::{BufRead, BufWriter, Write};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use botwarden_verify::{Classifier, Verdict, VerdictJson, Verifier};
use clap::Args;
use futures_util::StreamExt;

use super::signature::{self, GivenRequest};
use crate::args::{DirectoryFetchArgs, DnsArgs, RegistryArgs};
use crate::format::Format;

/// Arguments of `botwarden bots verify`.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The address (IPv4 or IPv6). Without it, lines of `IP<TAB>USER-AGENT`
    /// (or just `IP`) are read from standard input and answered in order.
    ip: Option<String>,
    /// The User-Agent the request sent: it says which bot is claimed.
    #[arg(long, value_name = "UA")]
    ua: Option<String>,
    /// The bot claimed, by registry name (wins over --ua). With neither,
    /// the bots whose ranges or reverse DNS point at the address are tried.
    #[arg(long, value_name = "NAME")]
    bot: Option<String>,
    /// A header field of a signed request (`'Signature-Input: …'`); repeat
    /// for each. The request's Web Bot Auth signature is checked, and
    /// decides the verdict when it can; the address (if given) otherwise.
    #[arg(
        long = "header",
        value_name = "'NAME: VALUE'",
        conflicts_with = "request"
    )]
    headers: Vec<String>,
    /// A raw signed request: its request line, then its header fields.
    #[arg(long, value_name = "FILE")]
    request: Option<PathBuf>,
    /// The signed request's method (with --header).
    #[arg(
        long,
        value_name = "METHOD",
        default_value = "GET",
        requires = "headers"
    )]
    method: String,
    /// The signed request's path and query (with --header).
    #[arg(long, value_name = "TARGET", default_value = "/", requires = "headers")]
    target: String,
    /// The signed request's authority (host, or host:port), if not its Host field.
    #[arg(long, value_name = "HOST")]
    authority: Option<String>,
    /// A key directory (JWK Set) file standing for the signature agent's
    /// directory, which is then not fetched; repeat for several. Without
    /// it, the directories the request names are fetched (unless
    /// --no-fetch).
    #[arg(long = "keys", value_name = "FILE")]
    keys: Vec<PathBuf>,
    /// Fetch no key directory: only the registry's keys and --keys files
    /// are known (a request whose agent's keys are not known is `unknown`).
    #[arg(long)]
    no_fetch: bool,
    #[command(flatten)]
    directories: DirectoryFetchArgs,
    /// Check the signature's times as of this moment (RFC 3339, or seconds
    /// since 1970) instead of now.
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    #[command(flatten)]
    registry: RegistryArgs,
    #[command(flatten)]
    dns: DnsArgs,
    /// Output format (JSON: one object per line).
    #[arg(long, default_value = "text", value_parser = Format::parser(
        "`IP<TAB>verdict<TAB>bot<TAB>how or why`",
        "One JSON object per answer",
    ))]
    format: Format,
}

/// One question: an address, and what it claims.
struct Ask {
    ip: IpAddr,
    ua: Option<String>,
}

/// How or why, in a few words, for the text output.
fn details(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Verified { evidence, .. } => {
            let mut parts = Vec::new();
            if let Some(name) = &evidence.confirmed_name {
                parts.push(format!("PTR {name} confirmed"));
            }
            parts.extend(evidence.matched.iter().cloned());
            if let (Some(p), Some(feed)) = (&evidence.published_prefix, &evidence.feed) {
                let version = evidence.feed_version.as_deref().unwrap_or("unknown");
                parts.push(format!("{p} in {feed} ({version})"));
            }
            format!(
                "{}: {}",
                verdict.method().unwrap_or_default(),
                parts.join("; ")
            )
        }
        other => other.reason().unwrap_or("").to_owned(),
    }
}

/// Writes one answer; the address as verified (IPv4-mapped IPv6 as IPv4).
fn write_one(
    out: &mut impl Write,
    format: Format,
    ip: IpAddr,
    ua: Option<&str>,
    verdict: &Verdict,
) -> Result<()> {
    let ip = botwarden_verify::normalize(ip);
    match format {
        Format::Text => writeln!(
            out,
            "{ip}\t{}\t{}\t{}",
            verdict.kind(),
            verdict.bot().unwrap_or("-"),
            details(verdict)
        )?,
        Format::Json => {
            serde_json::to_writer(&mut *out, &VerdictJson::new(ip, ua, verdict))?;
            writeln!(out)?;
        }
    }
    Ok(())
}

/// Calls `each` with every line of `input` (numbered from 1, without its
/// line end), one at a time. A line that is not UTF-8 is given with each
/// bad sequence replaced by U+FFFD, with the 1-based column of the first bad
/// byte; it does not stop the others.
pub(crate) fn for_each_line(
    mut input: impl BufRead,
    mut each: impl FnMut(usize, &str, Option<usize>) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        if input
            .read_until(b'\n', &mut buf)
            .context("cannot read standard input")?
            == 0
        {
            return Ok(());
        }
        n += 1;
        let bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        match std::str::from_utf8(bytes) {
            Ok(line) => each(n, line, None)?,
            Err(e) => each(
                n,
                &String::from_utf8_lossy(bytes),
                Some(e.valid_up_to() + 1),
            )?,
        }
    }
}

/// What is said of a line that is not UTF-8, its first bad byte at `at`.
pub(crate) fn not_utf8_note(at: usize) -> String {
    format!("not UTF-8 (bad byte at column {at}); read with U+FFFD in its place")
}

fn parse_line(line: &str) -> Result<Option<Ask>, String> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.trim().is_empty() {
        return Ok(None);
    }
    let (ip, ua) = match line.split_once('\t') {
        Some((ip, ua)) => (ip, Some(ua)),
        None => match line.trim().split_once(' ') {
            Some((ip, ua)) => (ip, Some(ua)),
            None => (line, None),
        },
    };
    let ip = ip.trim();
    let ip = ip
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .map_err(|_| format!("'{ip}' is not an IP address"))?;
    let ua = ua
        .map(str::trim)
        .filter(|u| !u.is_empty() && *u != "-")
        .map(str::to_owned);
    Ok(Some(Ask { ip, ua }))
}

fn parse_ip(text: &str) -> Result<IpAddr> {
    text.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .map_err(|_| anyhow::anyhow!("'{text}' is not an IP address"))
}

/// `--at`: RFC 3339, or seconds since 1970.
pub(crate) fn parse_time(text: &str) -> Result<SystemTime> {
    if let Ok(secs) = text.trim().parse::<u64>() {
        return Ok(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs));
    }
    let ts: jiff::Timestamp = text.trim().parse().map_err(|e| {
        anyhow::anyhow!("--at '{text}' is neither RFC 3339 nor seconds since 1970: {e}")
    })?;
    Ok(SystemTime::from(ts))
}

pub(crate) fn run(args: &VerifyArgs) -> Result<ExitCode> {
    let registry = Arc::new(args.registry.load()?);
    let classifier = Classifier::for_registry(&registry)
        .context("cannot build the User-Agent classifier")?
        .with_cache(100_000);
    if let Some(bot) = &args.bot
        && registry.find(bot).is_none()
    {
        bail!("no bot named '{bot}' in the registry (`botwarden bots registry show` lists them)");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut config = args.dns.config();
    args.dns.redis.attach(&mut config, &runtime)?;
    let verifier = Verifier::new(registry, config).context("cannot set up verification")?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if !args.headers.is_empty() || args.request.is_some() {
        verify_signed(args, &mut out, &verifier, &classifier)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    } else if !args.keys.is_empty()
        || args.at.is_some()
        || args.authority.is_some()
        || args.no_fetch
        || args.directories.any()
    {
        bail!(
            "--keys, --no-fetch, --allow-private, --ca-cert, --at and --authority go with a \
             signed request (--header or --request)"
        );
    }
    if let Some(text) = &args.ip {
        let ip = parse_ip(text)?;
        let verdict = runtime.block_on(verifier.check_request(
            &classifier,
            ip,
            args.ua.as_deref(),
            args.bot.as_deref(),
        ));
        write_one(&mut out, args.format, ip, args.ua.as_deref(), &verdict)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    verify_lines(args, &mut out, &runtime, &verifier, &classifier)
}

/// A signed request (`--header` or `--request`): its signature checked,
/// and the verdict written.
fn verify_signed(
    args: &VerifyArgs,
    out: &mut impl Write,
    verifier: &Verifier,
    classifier: &Classifier,
) -> Result<()> {
    let given = match &args.request {
        Some(path) => GivenRequest::from_file(path, args.authority.as_deref())?,
        None => GivenRequest::from_headers(
            &args.headers,
            &args.method,
            &args.target,
            args.authority.as_deref(),
        )?,
    };
    let ip = args.ip.as_deref().map(parse_ip).transpose()?;
    let now = match &args.at {
        Some(t) => parse_time(t)?,
        None => SystemTime::now(),
    };
    signature::run(
        out,
        args.format,
        verifier,
        classifier,
        &given,
        ip,
        args.ua.as_deref(),
        args.bot.as_deref(),
        &signature::Keys {
            files: &args.keys,
            fetch: !args.no_fetch,
            directories: &args.directories,
        },
        now,
    )?;
    Ok(())
}

/// The lines of standard input read: the questions, and the count of
/// lines that were empty, not an address, or not UTF-8.
struct Lines {
    asks: Vec<Ask>,
    empty: usize,
    bad: usize,
    not_utf8: usize,
}

/// Reads every line of standard input, saying on `err` which are skipped
/// and which are not UTF-8.
fn read_lines(err: &mut impl Write) -> Result<Lines> {
    let mut lines = Lines {
        asks: Vec::new(),
        empty: 0,
        bad: 0,
        not_utf8: 0,
    };
    for_each_line(std::io::stdin().lock(), |n, line, invalid| {
        if let Some(at) = invalid {
            lines.not_utf8 += 1;
            writeln!(err, "botwarden: stdin:{n}: {}", not_utf8_note(at))?;
        }
        match parse_line(line) {
            Ok(Some(ask)) => lines.asks.push(ask),
            Ok(None) => lines.empty += 1,
            Err(e) => {
                lines.bad += 1;
                writeln!(err, "botwarden: stdin:{n}: {e}; line skipped")?;
            }
        }
        Ok(())
    })?;
    Ok(lines)
}

/// Standard input: every line answered in order, many at once; the
/// counts said at the end. Lines that were not addresses are the caller's
/// error: exit 1.
fn verify_lines(
    args: &VerifyArgs,
    out: &mut impl Write,
    runtime: &tokio::runtime::Runtime,
    verifier: &Verifier,
    classifier: &Classifier,
) -> Result<ExitCode> {
    let mut err = std::io::stderr().lock();
    let lines = read_lines(&mut err)?;
    let concurrency = args.dns.concurrency as usize;
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    runtime.block_on(async {
        let mut answers = futures_util::stream::iter(lines.asks.iter())
            .map(|ask| async move {
                let verdict = verifier
                    .check_request(classifier, ask.ip, ask.ua.as_deref(), args.bot.as_deref())
                    .await;
                (ask, verdict)
            })
            .buffered(concurrency);
        while let Some((ask, verdict)) = answers.next().await {
            *counts.entry(verdict.kind()).or_default() += 1;
            write_one(out, args.format, ask.ip, ask.ua.as_deref(), &verdict)?;
        }
        Ok::<_, anyhow::Error>(())
    })?;
    out.flush()?;
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let mut parts = summary;
    if lines.bad > 0 {
        parts.push(format!("{} skipped (not an address)", lines.bad));
    }
    if lines.not_utf8 > 0 {
        parts.push(format!("{} not UTF-8 (read with U+FFFD)", lines.not_utf8));
    }
    if lines.empty > 0 {
        parts.push(format!("{} empty", lines.empty));
    }
    writeln!(
        err,
        "botwarden: {} lines: {}",
        lines.asks.len() + lines.bad + lines.empty,
        parts.join(", ")
    )?;
    Ok(if lines.bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
