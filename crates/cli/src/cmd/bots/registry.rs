//! `botwarden bots registry check|show`.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use botwarden_verify::{Problem, Severity};
use clap::{Args, Subcommand, ValueEnum};

// Kept here for the commands that name it from this module.
pub(crate) use crate::args::RegistryArgs;
use crate::args::is_builtin;
use crate::format::Format;

/// `bots registry` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum RegistryCommand {
    /// Validate registry and uap_extras files.
    ///
    /// Checks the given files over the default registry (extras are checked
    /// against the merged bot names) and prints every problem as
    /// `file:line:col: severity: path: message`. Without files, checks the
    /// default registry. Exit 1 when there is an error.
    Check(CheckArgs),
    /// Print the merged registry, or some of its bots.
    ///
    /// Without NAME, the whole registry in the registry format (YAML, or
    /// JSON of the same shape). With names, those bots: in words by default
    /// (category and Cloudflare class, operator, robots tokens, each
    /// verification method with the copy of its feed at hand, and where
    /// each fact comes from, with the day it was confirmed), or in the
    /// registry format with --format yaml|json. Exit 1 when a name is no
    /// bot of the registry.
    Show(ShowArgs),
}

/// Arguments of `bots registry check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Registry or uap_extras files.
    files: Vec<PathBuf>,
    /// Check the files alone, without the default registry.
    #[arg(long)]
    no_default_registry: bool,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = Format::parser(
        "One line per problem, then a summary",
        "`{\"problems\": [...], \"errors\": N, \"warnings\": N}`",
    ))]
    format: Format,
}

/// Arguments of `bots registry show`.
#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// Bots to show, by name (without regard to case when no name matches
    /// exactly); all of them without.
    names: Vec<String>,
    #[command(flatten)]
    registry: RegistryArgs,
    /// Output format [default: text with names, yaml without].
    #[arg(long, value_enum)]
    format: Option<ShowFormat>,
    /// Show the User-Agent extras instead of the bots.
    #[arg(long)]
    extras: bool,
}

/// Output of `bots registry show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShowFormat {
    /// The registry format (readable by `--registry`).
    Yaml,
    /// JSON of the same shape.
    Json,
    /// Each bot in words, with the sources of its facts.
    Text,
}

pub(crate) fn run(command: RegistryCommand) -> Result<ExitCode> {
    match command {
        RegistryCommand::Check(args) => check(&args),
        RegistryCommand::Show(args) => show(&args),
    }
}

fn problem_json(p: &Problem) -> serde_json::Value {
    serde_json::json!({
        "file": &*p.file,
        "line": p.at.line,
        "column": p.at.col,
        "severity": p.severity.as_str(),
        "path": p.path,
        "message": p.message,
    })
}

fn check(args: &CheckArgs) -> Result<ExitCode> {
    let registry_args = RegistryArgs {
        files: args.files.clone(),
        no_default_registry: args.no_default_registry,
        ranges_dir: None,
    };
    let (builder, _) = registry_args.builder()?;
    let (registry, mut problems) = builder.build();
    // Files given: their problems only (the default registry's own
    // warnings are shown when it is checked alone).
    if !args.files.is_empty() {
        problems.retain(|p| !is_builtin(p));
    }
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    let mut out = BufWriter::new(std::io::stdout().lock());
    match args.format {
        Format::Text => {
            for p in &problems {
                writeln!(out, "{p}")?;
            }
            let bots = registry.as_ref().map(|r| r.bots().len());
            match bots {
                Some(n) => writeln!(out, "{n} bots; {errors} errors, {warnings} warnings")?,
                None => writeln!(out, "{errors} errors, {warnings} warnings")?,
            }
        }
        Format::Json => {
            let doc = serde_json::json!({
                "problems": problems.iter().map(problem_json).collect::<Vec<_>>(),
                "errors": errors,
                "warnings": warnings,
                "bots": registry.as_ref().map(|r| r.bots().len()),
            });
            serde_json::to_writer_pretty(&mut out, &doc)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn show(args: &ShowArgs) -> Result<ExitCode> {
    let registry = args.registry.load()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.extras {
        match args.format.unwrap_or(ShowFormat::Yaml) {
            ShowFormat::Yaml | ShowFormat::Text => {
                out.write_all(registry.extras_to_yaml().as_bytes())?;
            }
            ShowFormat::Json => {
                let extras: Vec<_> = registry
                    .extras()
                    .iter()
                    .map(|e| serde_json::json!({"regex": e.regex, "family_replacement": e.family_replacement}))
                    .collect();
                serde_json::to_writer_pretty(
                    &mut out,
                    &serde_json::json!({"user_agent_parsers": extras}),
                )?;
                writeln!(out)?;
            }
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut missing = Vec::new();
    let bots: Vec<_> = args
        .names
        .iter()
        .filter_map(|name| {
            let bot = registry.find(name);
            if bot.is_none() {
                missing.push(name.as_str());
            }
            bot
        })
        .collect();
    let format = args.format.unwrap_or(if args.names.is_empty() {
        ShowFormat::Yaml
    } else {
        ShowFormat::Text
    });
    let shown = if args.names.is_empty() {
        None
    } else {
        Some(registry.subset(&bots))
    };
    let selected = shown.as_ref().unwrap_or(&registry);
    match format {
        ShowFormat::Yaml => out.write_all(selected.to_yaml().as_bytes())?,
        ShowFormat::Json => out.write_all(selected.to_json_text().as_bytes())?,
        ShowFormat::Text => {
            for (i, bot) in selected.bots().iter().enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                write!(out, "{}", selected.describe(bot))?;
            }
        }
    }
    out.flush()?;
    if missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut err = std::io::stderr().lock();
    for name in missing {
        writeln!(
            err,
            "botwarden: no bot named `{name}` in the registry (`botwarden bots registry show --format json` lists them)"
        )?;
    }
    Ok(ExitCode::from(1))
}
