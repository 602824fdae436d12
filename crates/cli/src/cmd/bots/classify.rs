//! `botwarden bots classify`: which bot a User-Agent claims to be.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use botwarden_verify::{Classification, ClassificationJson, Classifier, Explanation};
use clap::Args;

use super::registry::RegistryArgs;
use super::verify::{for_each_line, not_utf8_note};
use crate::format::Format;

/// Arguments of `botwarden bots classify`.
#[derive(Debug, Args)]
pub(crate) struct ClassifyArgs {
    /// User-Agent strings; without any, one per line from standard input.
    user_agents: Vec<String>,
    #[command(flatten)]
    registry: RegistryArgs,
    /// Output format (JSON: one object per line).
    #[arg(long, default_value = "text", value_parser = Format::parser(
        "`bot<TAB>category<TAB>user-agent`, `-` for none; with `--explain`, \
         `bot<TAB>category<TAB>explanation<TAB>user-agent`",
        "`{\"user_agent\", \"bot\", \"category\", \"kind\", \"source\"}` per line, and \
         `explanation` with `--explain`",
    ))]
    format: Format,
    /// Also say which step and rule decided (text: a column before the
    /// User-Agent; JSON: an `explanation` object). Runs without the cache.
    #[arg(long)]
    explain: bool,
}

fn write_one(
    out: &mut impl Write,
    format: Format,
    ua: &str,
    c: &Classification<'_>,
    explanation: Option<&Explanation<'_>>,
) -> Result<()> {
    let bot = c.bot.map(|b| b.name);
    match format {
        Format::Text => {
            write!(
                out,
                "{}\t{}\t",
                bot.unwrap_or("-"),
                c.category.unwrap_or("-")
            )?;
            if let Some(e) = explanation {
                // One line, one column: tabs and line breaks as spaces.
                let text = e.to_string().replace(['\t', '\n', '\r'], " ");
                write!(out, "{text}\t")?;
            }
            writeln!(out, "{ua}")?;
        }
        Format::Json => {
            let doc = ClassificationJson::new(ua, c, explanation);
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
    let one = |out: &mut BufWriter<std::io::StdoutLock<'_>>, ua: &str| -> Result<()> {
        if args.explain {
            let e = classifier.explain(ua);
            write_one(out, args.format, ua, &e.classification, Some(&e))
        } else {
            write_one(out, args.format, ua, &classifier.classify(ua), None)
        }
    };
    if args.user_agents.is_empty() {
        let mut err = std::io::stderr().lock();
        for_each_line(std::io::stdin().lock(), |n, ua, invalid| {
            if let Some(at) = invalid {
                writeln!(err, "botwarden: stdin:{n}: {}", not_utf8_note(at))?;
            }
            one(&mut out, ua)
        })?;
    } else {
        for ua in &args.user_agents {
            one(&mut out, ua)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
