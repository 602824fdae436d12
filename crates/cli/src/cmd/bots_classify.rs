//! `botwarden bots classify`: which bot a User-Agent claims to be.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_verify::classify::{Classification, Classifier};
use clap::{Args, ValueEnum};

use super::bots_registry::RegistryArgs;
use super::bots_verify::{for_each_line, not_utf8_note};

/// Arguments of `botwarden bots classify`.
#[derive(Debug, Args)]
pub(crate) struct ClassifyArgs {
    /// User-Agent strings; without any, one per line from standard input.
    user_agents: Vec<String>,
    #[command(flatten)]
    registry: RegistryArgs,
    /// Output format (JSON: one object per line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Output of `bots classify`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// `bot<TAB>category<TAB>user-agent`, `-` for none.
    Text,
    /// `{"user_agent", "bot", "category", "source"}` per line.
    Json,
}

fn source(c: &Classification<'_>) -> Option<String> {
    c.source.map(|s| format!("{s:?}").to_lowercase())
}

fn write_one(out: &mut impl Write, format: Format, ua: &str, c: &Classification<'_>) -> Result<()> {
    let bot = c.bot.map(|b| b.name);
    match format {
        Format::Text => writeln!(
            out,
            "{}\t{}\t{ua}",
            bot.unwrap_or("-"),
            c.category.unwrap_or("-")
        )?,
        Format::Json => {
            let doc = serde_json::json!({
                "user_agent": ua,
                "bot": bot,
                "category": c.category,
                "source": source(c),
            });
            serde_json::to_writer(&mut *out, &doc)?;
            writeln!(out)?;
        }
    }
    Ok(())
}

pub(crate) fn run(args: &ClassifyArgs) -> Result<ExitCode> {
    let registry = args.registry.load()?;
    let classifier = Classifier::for_registry(&registry)
        .context("cannot build the User-Agent classifier")?
        .with_cache(100_000);
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.user_agents.is_empty() {
        let mut err = std::io::stderr().lock();
        for_each_line(std::io::stdin().lock(), |n, ua, invalid| {
            if let Some(at) = invalid {
                writeln!(err, "botwarden: stdin:{n}: {}", not_utf8_note(at))?;
            }
            write_one(&mut out, args.format, ua, &classifier.classify(ua))
        })?;
    } else {
        for ua in &args.user_agents {
            write_one(&mut out, args.format, ua, &classifier.classify(ua))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
