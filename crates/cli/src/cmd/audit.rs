//! `botwarden audit`: the problems of a crawled site, from its store.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use botwarden_audit::{
    Audit, AuditDocument, AuditSettings, CONFIG_FILE, LinkGraph, Reader, render_html, write_csv,
};
use botwarden_store::Store;
use botwarden_verify::{ProvenanceOf, Registry};
use clap::{Args, ValueEnum};

/// Arguments of `botwarden audit`.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// The crawl's store (`botwarden crawl --db`).
    #[arg(value_name = "DB")]
    db: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write to this file instead of standard output (a folder for
    /// --format csv and --graph csv).
    #[arg(long, short, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Also say what changed since the crawl in this older store: per
    /// check, the findings fixed, new and still there.
    #[arg(long, value_name = "OTHER.db")]
    compare: Option<PathBuf>,
    /// Export the crawl's link graph instead of the audit: nodes (URLs)
    /// and edges (links) with the link score.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["format", "compare"])]
    graph: Option<GraphFormat>,
    /// Report pages more than this many clicks from the start URL
    /// [default: 5].
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// Run only these checks: codes (`content/near-duplicate`), groups
    /// (`links`) or ALL, comma-separated; replaces the config file's
    /// `select`.
    #[arg(long, value_name = "CODE|GROUP", value_delimiter = ',')]
    select: Option<Vec<String>>,
    /// Leave out these checks (codes or groups, comma-separated); the most
    /// specific of --select and --ignore decides; replaces the config
    /// file's `ignore`.
    #[arg(long, value_name = "CODE|GROUP", value_delimiter = ',')]
    ignore: Option<Vec<String>>,
    /// In the JSON and CSV, list at most N related URLs and N links per
    /// finding (`related_count` and `link_count` count them all)
    /// [default: 100].
    #[arg(long, value_name = "N")]
    max_evidence: Option<usize>,
    /// Read the `[audit]` section of this file instead of
    /// ./botwarden.toml (flags override it key by key).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// The audit's settings: the flags given, then the `[audit]` section of
/// `config` (or of `./botwarden.toml` if there is one) for the rest.
/// The robots of the built-in registry, with whether each renders and
/// the source that says so: what the audit's view per robot shows.
pub(crate) fn readers() -> Vec<Reader> {
    let registry = Registry::builtin();
    registry
        .bots()
        .iter()
        .map(|b| Reader {
            name: b.name.clone(),
            renders: b.renders,
            source: b
                .provenance_of(ProvenanceOf::Renders)
                .next()
                .map(|p| p.source.to_string()),
        })
        .collect()
}

pub(crate) fn settings(flags: AuditSettings, config: Option<&Path>) -> Result<AuditSettings> {
    let default = Path::new(CONFIG_FILE);
    let path = match config {
        Some(p) => Some(p),
        None => default.is_file().then_some(default),
    };
    let file = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("--config: cannot read {}", p.display()))?;
            AuditSettings::from_toml(&text, p)?
        }
        None => AuditSettings::default(),
    };
    Ok(flags.or(file))
}

/// The report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people: most severe first, a few examples per check.
    Text,
    /// One JSON object with every finding (`docs/audit.md`).
    Json,
    /// One self-contained HTML page.
    Html,
    /// A CSV file per check with findings and an index, into the folder
    /// --output names.
    Csv,
}

/// The link graph's export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    /// `nodes.csv` and `edges.csv` in the folder --output names.
    Csv,
    /// One GraphML file (Gephi, yEd, NetworkX).
    Graphml,
}

pub(crate) fn run(args: &AuditArgs) -> Result<ExitCode> {
    let store = Store::open(&args.db)?;
    if let Some(graph) = args.graph {
        return export_graph(&store, graph, args.output.as_deref());
    }
    let earlier = match &args.compare {
        Some(path) => Some(
            Store::open(path)
                .with_context(|| format!("--compare: cannot open {}", path.display()))?,
        ),
        None => None,
    };
    let settings = settings(
        AuditSettings {
            select: args.select.clone(),
            ignore: args.ignore.clone(),
            max_evidence: args.max_evidence,
            max_depth: args.max_depth,
        },
        args.config.as_deref(),
    )?;
    let mut doc = AuditDocument::build(
        &Audit {
            max_depth: settings.max_depth(),
            selection: settings.selection()?,
            readers: readers(),
        },
        &store,
        earlier.as_ref(),
    )?;
    if matches!(args.format, Format::Json | Format::Csv) {
        doc.report.limit_evidence(settings.max_evidence());
    }
    write_document(&doc, args.format, args.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the audit in `format` to `output`, or standard output.
#[allow(clippy::print_stderr)]
pub(crate) fn write_document(
    doc: &AuditDocument,
    format: Format,
    output: Option<&Path>,
) -> Result<()> {
    if format == Format::Csv {
        let Some(dir) = output else {
            bail!("--format csv writes a file per check: give the folder with --output");
        };
        let files = write_csv(&doc.report, doc.compare.as_ref(), dir)?;
        eprintln!(
            "botwarden: wrote {} CSV file(s) to {}",
            files.len(),
            dir.display()
        );
        return Ok(());
    }
    write_to(output, |out| match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, doc)?;
            writeln!(out)?;
            Ok(())
        }
        Format::Html => Ok(out.write_all(render_html(doc).as_bytes())?),
        Format::Text | Format::Csv => Ok(write!(out, "{doc}")?),
    })
}

/// Runs `f` on `output` (created) or standard output, and flushes it.
fn write_to(output: Option<&Path>, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    match output {
        Some(path) => {
            let file = File::create(path)
                .with_context(|| format!("--output: cannot create {}", path.display()))?;
            let mut out = BufWriter::new(file);
            f(&mut out).with_context(|| format!("cannot write {}", path.display()))?;
            out.flush()
                .with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            f(&mut out).context("cannot write to standard output")?;
            out.flush().context("cannot write to standard output")
        }
    }
}

#[allow(clippy::print_stderr)]
fn export_graph(store: &Store, format: GraphFormat, output: Option<&Path>) -> Result<ExitCode> {
    let graph = LinkGraph::load(store)?;
    match format {
        GraphFormat::Graphml => {
            let mut counts = (0, 0);
            write_to(output, |out| {
                counts = graph.write_graphml(store, out)?;
                Ok(())
            })?;
            eprintln!(
                "botwarden: link graph of {} URL(s) and {} link(s)",
                counts.0, counts.1
            );
        }
        GraphFormat::Csv => {
            let Some(dir) = output else {
                bail!("--graph csv writes nodes.csv and edges.csv: give the folder with --output");
            };
            std::fs::create_dir_all(dir)
                .with_context(|| format!("--output: cannot create {}", dir.display()))?;
            let mut nodes = 0;
            let mut edges = 0;
            write_to(Some(&dir.join("nodes.csv")), |out| {
                nodes = graph.write_nodes_csv(out)?;
                Ok(())
            })?;
            write_to(Some(&dir.join("edges.csv")), |out| {
                edges = graph.write_edges_csv(store, out)?;
                Ok(())
            })?;
            eprintln!(
                "botwarden: wrote {} URL(s) to nodes.csv and {} link(s) to edges.csv in {}",
                nodes,
                edges,
                dir.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
