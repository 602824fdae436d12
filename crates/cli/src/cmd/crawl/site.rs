//! `botwarden crawl verify-site`, and the operator's secret that a site's
//! token is derived from (which `crawl --as`, `--profile` and
//! `--robots-file` need too).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use botwarden_crawl::{DEFAULT_INFO_URL, Identity, SiteKey, SiteReport, verify_site};
use clap::Args;
use url::Url;

use super::options::{fetcher_for, runtime};
use crate::format::Format;

/// Arguments of `botwarden crawl verify-site`.
#[derive(Debug, Args)]
pub(super) struct VerifySiteArgs {
    /// A URL of the site (its scheme, host and port are the site).
    url: String,
    /// The operator's secret (default: the BOTWARDEN_SITE_SECRET
    /// environment variable).
    #[arg(long, value_name = "FILE")]
    site_secret_file: Option<PathBuf>,
    /// Only print the token, the file and the meta tag; ask nothing.
    #[arg(long)]
    offline: bool,
    /// Allow loopback and private addresses (refused by default).
    #[arg(long)]
    allow_private: bool,
    /// Seconds for one request.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// The name server that resolves the site's names (ADDR:PORT).
    #[arg(long, value_name = "ADDR:PORT")]
    nameserver: Option<SocketAddr>,
    /// The page that explains the crawler, in its User-Agent.
    #[arg(long, value_name = "URL", default_value = DEFAULT_INFO_URL)]
    info_url: String,
    /// Output format.
    #[arg(long, default_value = "text",
          value_parser = Format::parser("For people", "One JSON object"))]
    format: Format,
}

/// The environment variable that holds the operator's secret.
const SECRET_VAR: &str = "BOTWARDEN_SITE_SECRET";

/// The operator's secret, from the file given or the environment; the
/// errors name where it was looked for, never what it is.
pub(super) fn site_key(file: Option<&PathBuf>) -> Result<SiteKey> {
    let (secret, place) = match file {
        Some(path) => (
            std::fs::read(path)
                .with_context(|| format!("cannot read the site secret {}", path.display()))?,
            path.display().to_string(),
        ),
        None => match std::env::var_os(SECRET_VAR) {
            Some(v) => (v.into_encoded_bytes(), format!("${SECRET_VAR}")),
            None => bail!(
                "no site secret: pass --site-secret-file FILE or set {SECRET_VAR} \
                 (the operator's secret, at least 16 bytes, that site tokens are derived from)"
            ),
        },
    };
    SiteKey::new(&secret).map_err(|e| anyhow::anyhow!("{place}: {e}"))
}

/// `botwarden crawl verify-site`: exit 1 when the site was asked and is
/// not verified.
pub(super) fn verify_site_command(args: &VerifySiteArgs) -> Result<ExitCode> {
    let key = site_key(args.site_secret_file.as_ref())?;
    let url =
        Url::parse(args.url.trim()).with_context(|| format!("'{}' is not a URL", args.url))?;
    let token = key.token(&url)?;
    let verification = if args.offline {
        None
    } else {
        let identity = Identity {
            info_url: args.info_url.clone(),
            ..Identity::default()
        };
        let fetcher = fetcher_for(
            &identity,
            args.allow_private,
            args.timeout,
            1024 * 1024,
            args.nameserver,
        )
        .build()?;
        let rt = runtime()?;
        let v = rt.block_on(verify_site(&fetcher, &key, &url, true))?;
        rt.shutdown_background();
        Some(v)
    };
    let report = SiteReport::new(&token, verification.as_ref());
    let mut out = std::io::stdout().lock();
    args.format.write(&mut out, &report)?;
    out.flush().context("cannot write to standard output")?;
    Ok(if verification.is_some() && report.verified().is_none() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
