//! The crawl's simulated reading of a verified site's robots.txt (`--as`,
//! `--profile`, `--robots-file`): the site's ownership checked first.

use anyhow::{Context, Result, bail};
use botwarden_crawl::{Simulation, verify_site};
use botwarden_fetch::Fetcher;
use botwarden_robots::TokenChain;
use url::Url;

use super::args::CrawlArgs;
use super::site::site_key;

/// The flags that read robots.txt another way, as given.
fn simulation_flags(args: &CrawlArgs) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if args.as_tokens.is_some() {
        flags.push("--as");
    }
    if args.profile.is_some() {
        flags.push("--profile");
    }
    if args.robots_file.is_some() {
        flags.push("--robots-file");
    }
    flags
}

/// Verifies the start URL's site and builds the simulation the flags ask
/// for; refuses (exit 2) when the site is not verified.
pub(super) fn simulation(
    args: &CrawlArgs,
    start: &Url,
    fetcher: &Fetcher,
    rt: &tokio::runtime::Runtime,
) -> Result<Option<Simulation>> {
    let flags = simulation_flags(args);
    if flags.is_empty() {
        return Ok(None);
    }
    let named = flags.join(", ");
    let tokens = match &args.as_tokens {
        Some(list) => {
            let chain = TokenChain::parse(list);
            if chain.tokens().is_empty() {
                bail!("--as '{list}': no token (give TOKEN[,TOKEN…])");
            }
            let bad: Vec<&str> = chain.invalid_tokens().collect();
            if !bad.is_empty() {
                bail!(
                    "--as '{list}': {} not a product token (letters, '-' and '_' only)",
                    bad.iter()
                        .map(|t| format!("'{t}' is"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            Some(chain)
        }
        None => None,
    };
    let robots_file = match &args.robots_file {
        Some(path) => {
            let body = std::fs::read(path)
                .with_context(|| format!("--robots-file: cannot read {}", path.display()))?;
            Some((path.display().to_string(), body))
        }
        None => None,
    };
    let key = site_key(args.site_secret_file.as_ref())
        .with_context(|| format!("{named} need(s) the site's ownership verified"))?;
    let verification = rt.block_on(verify_site(fetcher, &key, start, false))?;
    let Some(verified) = verification.verified() else {
        bail!(
            "{named} refused: the ownership of {} is not verified ({}); \
             `botwarden crawl verify-site {}` shows the file or meta tag to place",
            verification.token.origin(),
            verification.failures(),
            verification.token.home_url()
        );
    };
    let mut sim = Simulation::new(verified);
    sim.tokens = tokens;
    if let Some(p) = args.profile {
        sim.profile = p;
    }
    sim.robots_file = robots_file;
    Ok(Some(sim))
}
