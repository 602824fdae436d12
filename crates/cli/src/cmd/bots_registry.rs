//! `botwarden bots registry check|show`, and the registry options every
//! `bots` command shares.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use botwarden_verify::registry::{self, FeedStore, Problem, Registry, RegistryBuilder, Severity};
use clap::{Args, Subcommand, ValueEnum};

/// Which registry to use: the default one, your files over it, and the
/// published ranges fetched by `bots update`.
#[derive(Debug, Clone, Args)]
pub(crate) struct RegistryArgs {
    /// A registry or uap_extras file (told by its content), read after the
    /// default registry; later files replace earlier entries of the same
    /// name. Repeat for several.
    #[arg(long = "registry", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Start from an empty registry instead of the default one.
    #[arg(long)]
    pub(crate) no_default_registry: bool,
    /// Where `bots update` stores published ranges [default:
    /// $BOTWARDEN_RANGES_DIR, else $XDG_CACHE_HOME/botwarden/ranges, else
    /// ~/.cache/botwarden/ranges].
    #[arg(long, value_name = "DIR")]
    pub(crate) ranges_dir: Option<PathBuf>,
}

impl RegistryArgs {
    /// The store of fetched feeds: in the option's directory, else the
    /// default one.
    pub(crate) fn feed_store(&self) -> Option<FeedStore> {
        match &self.ranges_dir {
            Some(dir) => Some(FeedStore::new(dir)),
            None => FeedStore::default_location(),
        }
    }

    /// Reads every file into a builder (the default registry first unless
    /// told not to) and lays the stored ranges over the snapshot. Problems
    /// in stored feeds are returned as warnings to print.
    pub(crate) fn builder(&self) -> Result<(RegistryBuilder, Vec<String>)> {
        let mut builder = if self.no_default_registry {
            RegistryBuilder::new()
        } else {
            RegistryBuilder::with_defaults()
        };
        for path in &self.files {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not UTF-8 (byte {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                )
            })?;
            builder.add_file(&path.display().to_string(), &text);
        }
        let mut notes = Vec::new();
        if let Some(store) = self.feed_store() {
            let bad = store.read_into(builder.ranges_mut())?;
            notes.extend(bad.iter().map(|e| format!("warning: skipped {e}")));
        }
        Ok((builder, notes))
    }

    /// The checked registry; problems go to standard error, and errors
    /// stop the command.
    pub(crate) fn load(&self) -> Result<Registry> {
        let (builder, notes) = self.builder()?;
        let (registry, problems) = builder.build();
        let mut err = std::io::stderr().lock();
        for note in &notes {
            writeln!(err, "botwarden: {note}")?;
        }
        // The default registry's own warnings are for `registry check`.
        for p in problems
            .iter()
            .filter(|p| p.severity == Severity::Warning && !is_builtin(p))
        {
            writeln!(err, "{p}")?;
        }
        match registry {
            Some(r) => Ok(r),
            None => {
                for p in problems.iter().filter(|p| p.severity == Severity::Error) {
                    writeln!(err, "{p}")?;
                }
                bail!("the registry has the errors above; fix them, or leave the file out")
            }
        }
    }
}

/// Whether a problem is in the default registry or extras.
fn is_builtin(p: &Problem) -> bool {
    matches!(
        &*p.file,
        registry::DEFAULT_REGISTRY_NAME | registry::DEFAULT_EXTRAS_NAME
    )
}

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
    /// Print the merged registry.
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
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    format: CheckFormat,
}

/// Output of `bots registry check`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum CheckFormat {
    /// One line per problem, then a summary.
    Text,
    /// `{"problems": [...], "errors": N, "warnings": N}`.
    Json,
}

/// Arguments of `bots registry show`.
#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    registry: RegistryArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ShowFormat::Yaml)]
    format: ShowFormat,
    /// Show the User-Agent extras instead of the bots.
    #[arg(long)]
    extras: bool,
}

/// Output of `bots registry show`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ShowFormat {
    /// The registry format (readable by `--registry`).
    Yaml,
    /// JSON of the same shape.
    Json,
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
        CheckFormat::Text => {
            for p in &problems {
                writeln!(out, "{p}")?;
            }
            let bots = registry.as_ref().map(|r| r.bots().len());
            match bots {
                Some(n) => writeln!(out, "{n} bots; {errors} errors, {warnings} warnings")?,
                None => writeln!(out, "{errors} errors, {warnings} warnings")?,
            }
        }
        CheckFormat::Json => {
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
    match (args.format, args.extras) {
        (ShowFormat::Yaml, false) => out.write_all(registry.to_yaml().as_bytes())?,
        (ShowFormat::Yaml, true) => out.write_all(registry.extras_to_yaml().as_bytes())?,
        (ShowFormat::Json, false) => out.write_all(registry.to_json_text().as_bytes())?,
        (ShowFormat::Json, true) => {
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
    Ok(ExitCode::SUCCESS)
}
