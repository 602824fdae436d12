//! Where a robots.txt comes from, and arguments shared by the commands.

use std::io::Read;

use anyhow::{Context, Result};
use botwarden_robots::Profile;

/// A robots.txt body and the name to show for it.
pub(crate) struct Source {
    /// `robots.txt`, `<stdin>`.
    pub(crate) name: String,
    /// The bytes.
    pub(crate) body: Vec<u8>,
}

impl Source {
    /// Reads a robots.txt from a path or `-` (standard input).
    pub(crate) fn read(file: &str) -> Result<Source> {
        if file == "-" {
            let mut body = Vec::new();
            std::io::stdin()
                .read_to_end(&mut body)
                .context("cannot read robots.txt from standard input")?;
            return Ok(Source {
                name: "<stdin>".to_owned(),
                body,
            });
        }
        let body =
            std::fs::read(file).with_context(|| format!("cannot read robots.txt '{file}'"))?;
        Ok(Source {
            name: file.to_owned(),
            body,
        })
    }
}

/// Parses a `--profile` value.
pub(crate) fn parse_profile(name: &str) -> Result<&'static Profile, String> {
    Profile::by_name(name).ok_or_else(|| {
        let names: Vec<_> = Profile::ALL.iter().map(|p| p.name).collect();
        format!("unknown profile '{name}' (known: {})", names.join(", "))
    })
}
