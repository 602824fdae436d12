//! `botwarden logs exports-follow`: on each web server, the exports that
//! `logs analyze --redis` announces, written atomically into a directory
//! as they come.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use botwarden_scale::{Announcement, RedisExports, RedisTarget, Timeouts, is_plain_name};
use clap::Args;

/// Options of `logs exports-follow`.
#[derive(Debug, Args)]
pub(crate) struct FollowArgs {
    /// Redis or Valkey: one URL, or a cluster's several comma-separated
    /// (or `redis+cluster://HOST:PORT/`).
    #[arg(long, value_name = "URLS", value_parser = parse_redis)]
    redis: RedisTarget,
    /// The directory the exports are written into (by their file names).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Write the newest announced version and stop.
    #[arg(long)]
    once: bool,
}

fn parse_redis(text: &str) -> Result<RedisTarget, String> {
    RedisTarget::parse(text).map_err(|e| e.to_string())
}

pub(crate) fn run(args: &FollowArgs) -> Result<ExitCode> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(follow(args))
}

async fn follow(args: &FollowArgs) -> Result<ExitCode> {
    let mut timeouts = Timeouts::default();
    timeouts.write = Duration::from_secs(5);
    timeouts.read = Duration::from_secs(5);
    let exports = RedisExports::connect(args.redis.clone(), timeouts).await;
    let mut err = std::io::stderr().lock();
    // Catch up with the newest version, then follow the stream from it
    // (from its start when nothing was announced yet).
    let mut last: Option<String> = None;
    loop {
        let got = match &last {
            None => exports.newest().await,
            Some(id) => exports.next_after(id, Duration::from_secs(5)).await,
        };
        match got {
            Some(Some(a)) => {
                last = Some(a.id.clone());
                write_all(&args.dir, &a, &mut err)?;
                if args.once {
                    return Ok(ExitCode::SUCCESS);
                }
            }
            Some(None) if args.once => {
                writeln!(err, "botwarden: no exports announced yet")?;
                return Ok(ExitCode::from(1));
            }
            Some(None) => {
                last.get_or_insert_with(|| "0-0".to_owned());
            }
            None if args.once => {
                writeln!(
                    err,
                    "botwarden: redis {} does not answer",
                    exports.target().describe()
                )?;
                return Ok(ExitCode::from(1));
            }
            None => {
                writeln!(
                    err,
                    "botwarden: redis {} does not answer; trying again",
                    exports.target().describe()
                )?;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Writes every file of an announcement atomically (a temporary file
/// beside it, synced, renamed over it).
fn write_all(dir: &Path, a: &Announcement, err: &mut impl std::io::Write) -> Result<()> {
    for file in &a.files {
        if !is_plain_name(&file.name) {
            writeln!(
                err,
                "botwarden: skipped export {:?}: not a file name",
                file.name
            )?;
            continue;
        }
        let path = dir.join(&file.name);
        let tmp = dir.join(format!(".{}.tmp", file.name));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&file.body)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(e).with_context(|| format!("cannot write {}", path.display()));
        }
    }
    for name in &a.missing {
        writeln!(
            err,
            "botwarden: export {name} of version {} is no longer in redis; kept the old copy",
            a.version
        )?;
    }
    writeln!(
        err,
        "botwarden: exports version {} written to {} ({} files)",
        a.version,
        dir.display(),
        a.files.len()
    )?;
    Ok(())
}
