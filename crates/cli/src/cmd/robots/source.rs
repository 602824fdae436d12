//! Where a robots.txt comes from, and arguments shared by the commands.

use std::io::Read;

use anyhow::{Context, Result, bail};
use botwarden_fetch::{Error, Fetcher, RobotsFetch, fetch_robots_txt};
use botwarden_robots::{AvailabilityPolicy, Profile};

/// A robots.txt body and the name to show for it.
pub(crate) struct Source {
    /// `robots.txt`, `<stdin>`, or the URL fetched.
    pub(crate) name: String,
    /// The bytes (for a URL: the decoded body, as robots read it).
    pub(crate) body: Vec<u8>,
    /// The fetch, when the source is a URL.
    pub(crate) fetched: Option<RobotsFetch>,
}

/// Whether an argument names a URL rather than a file.
pub(crate) fn is_url(arg: &str) -> bool {
    let lower = arg.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

impl Source {
    /// Reads a robots.txt from a URL (the site's `/robots.txt`, with the
    /// checker's limits: 10 redirects, 10 s, 500 KiB), a path, or `-`
    /// (standard input). Loopback and private addresses are refused unless
    /// `allow_private`.
    pub(crate) fn load(arg: &str, allow_private: bool) -> Result<Source> {
        if !is_url(arg) {
            return Source::read(arg);
        }
        let builder = Fetcher::builder().allow_private(allow_private);
        let fetched = match fetch_robots_txt(arg, &builder) {
            Ok(f) => f,
            Err(e @ Error::Refused { .. }) => bail!("{e}; pass --allow-private to fetch it anyway"),
            Err(e) => return Err(e.into()),
        };
        // The policies say whether any robot parses the body (an error
        // page is nothing they read, so there is nothing to check in it).
        let parsed = fetched.outcome().is_read_by(&AvailabilityPolicy::ALL);
        Ok(Source {
            name: fetched.robots_url.to_string(),
            body: if parsed {
                fetched.report.body.clone()
            } else {
                Vec::new()
            },
            fetched: Some(fetched),
        })
    }

    /// Reads a robots.txt from a path or `-` (standard input).
    pub(crate) fn read(file: &str) -> Result<Source> {
        if file == "-" {
            let mut body = Vec::new();
            std::io::stdin()
                .take(MAX_BODY + 1)
                .read_to_end(&mut body)
                .context("cannot read robots.txt from standard input")?;
            if body.len() as u64 > MAX_BODY {
                bail!(
                    "robots.txt on standard input is over {MAX_BODY} bytes (10 MiB), more than botwarden reads; \
                     Google reads only the first 500 KiB: check those with `head -c 512000`"
                );
            }
            return Ok(Source {
                name: "<stdin>".to_owned(),
                body,
                fetched: None,
            });
        }
        let body = match read_at_most(file, MAX_BODY) {
            Ok(Some(body)) => body,
            Ok(None) => bail!(
                "robots.txt '{file}' is over {MAX_BODY} bytes (10 MiB), more than botwarden reads; \
                 Google reads only the first 500 KiB: check those with `head -c 512000 '{file}' | botwarden robots check -`"
            ),
            Err(e) => {
                // `example.com` is more likely a site than a file.
                let site = !file.contains('/') && file.contains('.') && !file.ends_with(".txt");
                let hint = if site {
                    format!("; to check a site, give its URL: https://{file}/")
                } else {
                    String::new()
                };
                bail!("cannot read robots.txt '{file}': {e}{hint}");
            }
        };
        Ok(Source {
            name: file.to_owned(),
            body,
            fetched: None,
        })
    }
}

/// The most botwarden reads of a robots.txt file or standard input: twenty
/// times the 500 KiB that Google reads, so that any input is read, checked
/// and fixed in bounded memory.
pub(crate) const MAX_BODY: u64 = 10 * 1024 * 1024;

/// The bytes of `file`, or `None` when it holds more than `most`.
fn read_at_most(file: &str, most: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut body = Vec::new();
    std::fs::File::open(file)?
        .take(most + 1)
        .read_to_end(&mut body)?;
    Ok((body.len() as u64 <= most).then_some(body))
}

/// Parses a `--profile` value.
pub(crate) fn parse_profile(name: &str) -> Result<&'static Profile, String> {
    Profile::by_name(name)
        .ok_or_else(|| format!("unknown profile '{name}' (known: {})", Profile::names()))
}
