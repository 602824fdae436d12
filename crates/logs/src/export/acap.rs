//! The ACAP file tree: one empty file per address, replaced as a whole.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use botwarden_verify::{parent_dir, unique_suffix};

use super::atomic::sync_dir;
use super::{Listed, Standing, bot_slug, remote_addr_text, resolve_listed};
use crate::Error;

/// The file botwarden puts at the top of every tree it writes. A plain
/// directory holding it may be replaced.
pub const ACAP_MARKER: &str = ".botwarden-acap";

/// How old generations are kept after a swap.
///
/// A reader that followed the old link just before a swap is still looking
/// up names in the old generation; removing it at once could make such a
/// lookup miss. So a generation is removed only once it has been replaced
/// for `retain`, and the newest `keep_previous` old ones stay regardless.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcapOptions {
    /// Old generations kept whatever their age.
    pub keep_previous: usize,
    /// How long a replaced generation stays before it may be removed.
    pub retain: Duration,
}

impl Default for AcapOptions {
    /// One previous generation, and every generation replaced less than
    /// ten seconds ago.
    fn default() -> Self {
        Self {
            keep_previous: 1,
            retain: Duration::from_secs(10),
        }
    }
}

/// What [`write_acap_tree`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcapSummary {
    /// The generation directory the tree's symbolic link now points to.
    pub generation: PathBuf,
    /// Addresses in `all-ok-bots`.
    pub verified: usize,
    /// Addresses in `suspect-bots`.
    pub spoofed: usize,
    /// Addresses in `other-bots`.
    pub other: usize,
    /// Per-bot directories written.
    pub bots: usize,
}

/// Writes the ACAP tree at `dir` and swaps it in atomically.
///
/// The tree holds empty files named by [`remote_addr_text`]:
/// `all-ok-bots/<ip>` for every verified address, `<bot>/<ip>` for the
/// verified addresses of each bot (directory named by [`bot_slug`]),
/// `suspect-bots/<ip>` for spoofed addresses, `other-bots/<ip>` for
/// addresses of crawlers that cannot be verified. Each address has one
/// standing (see [`resolve_listed`](super::resolve_listed)). The three fixed directories
/// always exist, even when empty.
///
/// `dir` is a symbolic link to a sibling generation directory
/// `.NAME.gen-<n>`. A new generation is built whole, a new link to it is
/// made under a temporary name and renamed over `dir`, and old generations
/// are removed as [`AcapOptions::default`] says (see
/// [`write_acap_tree_with`]). Readers see the old tree or the new one, and
/// addresses no longer listed disappear.
///
/// What `dir` may be beforehand:
///
/// - missing: created (with its parent directories);
/// - a link to a generation directory in the same parent: replaced;
/// - an empty directory, or a directory holding [`ACAP_MARKER`]: moved aside as
///   an old generation and replaced by the link (this first swap is not
///   atomic: for an instant `dir` does not exist);
/// - anything else (a file, another directory, a link elsewhere): refused.
///
/// Concurrent writers of one tree take turns (a lock file
/// `.NAME.lock` next to the tree).
///
/// # Errors
///
/// [`Error::Refused`] when `dir` is something botwarden did not
/// write; [`Error::Io`] naming the path when the file system fails.
/// A half-built generation is removed; the current tree stays in place.
pub fn write_acap_tree(dir: &Path, entries: &[Listed]) -> Result<AcapSummary, Error> {
    write_acap_tree_with(dir, entries, &AcapOptions::default())
}

/// [`write_acap_tree`] with a choice of how long old generations stay.
///
/// # Errors
///
/// As [`write_acap_tree`].
pub fn write_acap_tree_with(
    dir: &Path,
    entries: &[Listed],
    options: &AcapOptions,
) -> Result<AcapSummary, Error> {
    let (dirs, summary) = layout(entries);
    let generation = swap_in(dir, &dirs, options)?;
    Ok(AcapSummary {
        generation,
        ..summary
    })
}

/// A tree's contents: each subdirectory with the names of the empty files
/// it holds (the [`ACAP_MARKER`] at the top is implied).
pub type AcapDirs = BTreeMap<String, BTreeSet<String>>;

/// Writes a tree of the given contents at `dir` and swaps it in exactly as
/// [`write_acap_tree_with`] does: to copy a tree written elsewhere (a web
/// server following the tree another node wrote). Returns the generation
/// directory written.
///
/// Every subdirectory and file name must be one path component: not
/// empty, not `.` or `..`, without `/` or NUL; a subdirectory is not named
/// [`ACAP_MARKER`].
///
/// # Errors
///
/// [`Error::Refused`] naming `dir` for a name that is not one path
/// component; otherwise as [`write_acap_tree`].
pub fn write_acap_dirs(
    dir: &Path,
    dirs: &AcapDirs,
    options: &AcapOptions,
) -> Result<PathBuf, Error> {
    let component = |n: &str| !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\0']);
    for (sub, names) in dirs {
        if !component(sub) || sub == ACAP_MARKER {
            return Err(Error::refused(
                dir,
                format!("subdirectory name {sub:?} is not one path component"),
            ));
        }
        if let Some(bad) = names.iter().find(|n| !component(n)) {
            return Err(Error::refused(
                dir,
                format!("file name {bad:?} in {sub:?} is not one path component"),
            ));
        }
    }
    swap_in(dir, dirs, options)
}

/// Builds a new generation of `dirs` beside `dir` and swaps it in (the
/// body of [`write_acap_tree_with`]).
fn swap_in(dir: &Path, dirs: &AcapDirs, options: &AcapOptions) -> Result<PathBuf, Error> {
    let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Err(Error::refused(dir, "does not end in a directory name"));
    };
    let parent = parent_dir(dir);
    fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, "create the directory", e))?;
    let lock_path = parent.join(format!(".{name}.lock"));
    let lock = open_lock(&lock_path)?;
    lock.lock().map_err(|e| Error::io(&lock_path, "lock", e))?;

    let gen_prefix = format!(".{name}.gen-");
    let current = inspect(dir, &gen_prefix)?;
    let mut generations = list_generations(&parent, &gen_prefix)?;
    let mut next = generations.iter().max().map_or(1, |n| n + 1);
    if current == Current::PlainDir {
        let aside = parent.join(format!("{gen_prefix}{next}"));
        fs::rename(dir, &aside).map_err(|e| Error::io(dir, "move aside the directory", e))?;
        generations.push(next);
        next += 1;
    }

    let gen_name = format!("{gen_prefix}{next}");
    let gen_path = parent.join(&gen_name);
    if let Err(e) = build(&gen_path, dirs) {
        let _ = fs::remove_dir_all(&gen_path);
        return Err(e);
    }

    let link_tmp = parent.join(format!(".{name}.link-{}", unique_suffix()));
    let swap = std::os::unix::fs::symlink(&gen_name, &link_tmp)
        .map_err(|e| Error::io(&link_tmp, "create the symbolic link", e))
        .and_then(|()| {
            fs::rename(&link_tmp, dir)
                .map_err(|e| Error::io(dir, "rename the new symbolic link to", e))
        });
    if let Err(e) = swap {
        let _ = fs::remove_file(&link_tmp);
        let _ = fs::remove_dir_all(&gen_path);
        return Err(e);
    }
    sync_dir(&parent)?;

    prune(&parent, &gen_prefix, generations, next, options)?;
    drop(lock);
    Ok(gen_path)
}

/// Opens (or creates) the lock file without ever following a symbolic
/// link: a link there could make the export create or open a file
/// elsewhere.
fn open_lock(path: &Path) -> Result<File, Error> {
    let refuse_link = || {
        Error::refused(
            path,
            "is a symbolic link; the lock file must be a plain file (remove the link)",
        )
    };
    // `create_new` (O_CREAT | O_EXCL) never follows a link: it fails on one.
    let file = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
    {
        Ok(file) => return Ok(file),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = fs::symlink_metadata(path)
                .map_err(|e| Error::io(path, "read the metadata of", e))?;
            if meta.file_type().is_symlink() {
                return Err(refuse_link());
            }
            if !meta.is_file() {
                return Err(Error::refused(
                    path,
                    "is not a plain file; the lock file must be one (move it away)",
                ));
            }
            // Read-only and without O_CREAT: this open creates nothing.
            OpenOptions::new()
                .read(true)
                .open(path)
                .map_err(|e| Error::io(path, "open the lock file", e))?
        }
        Err(e) => return Err(Error::io(path, "create the lock file", e)),
    };
    // The name may have been swapped for a link between the two looks: the
    // file opened must be the one that is there now.
    let opened = file
        .metadata()
        .map_err(|e| Error::io(path, "read the metadata of", e))?;
    let there =
        fs::symlink_metadata(path).map_err(|e| Error::io(path, "read the metadata of", e))?;
    if there.file_type().is_symlink() || (there.dev(), there.ino()) != (opened.dev(), opened.ino())
    {
        return Err(refuse_link());
    }
    Ok(file)
}

#[derive(Debug, PartialEq, Eq)]
enum Current {
    Missing,
    Link,
    PlainDir,
}

fn inspect(dir: &Path, gen_prefix: &str) -> Result<Current, Error> {
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Current::Missing),
        Err(e) => return Err(Error::io(dir, "read the metadata of", e)),
    };
    if meta.file_type().is_symlink() {
        let target = fs::read_link(dir).map_err(|e| Error::io(dir, "read the symbolic link", e))?;
        let ours = target
            .to_str()
            .and_then(|t| t.strip_prefix(gen_prefix))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if ours {
            return Ok(Current::Link);
        }
        return Err(Error::refused(
            dir,
            format!(
                "is a symbolic link to {}, not to a botwarden generation ({gen_prefix}<n>); \
                 export to the directory it points to, or remove the link",
                target.display()
            ),
        ));
    }
    if meta.is_dir() {
        let mut names = fs::read_dir(dir).map_err(|e| Error::io(dir, "list the directory", e))?;
        let empty = names.next().is_none();
        if empty || dir.join(ACAP_MARKER).exists() {
            return Ok(Current::PlainDir);
        }
        return Err(Error::refused(
            dir,
            format!(
                "is a directory botwarden did not write (it is not empty and has no {ACAP_MARKER} file); \
                 move it away or choose another path"
            ),
        ));
    }
    Err(Error::refused(
        dir,
        "exists and is not a directory; move it away or choose another path",
    ))
}

/// Removes the old generations `options` lets go. A generation was
/// replaced when the next one was built: its successor's modification time.
fn prune(
    parent: &Path,
    gen_prefix: &str,
    mut old: Vec<u64>,
    current: u64,
    options: &AcapOptions,
) -> Result<(), Error> {
    let path = |n: u64| parent.join(format!("{gen_prefix}{n}"));
    old.sort_unstable();
    let now = SystemTime::now();
    let keep_from = old.len().saturating_sub(options.keep_previous);
    for (i, &n) in old.iter().enumerate().take(keep_from) {
        let successor = old.get(i + 1).copied().unwrap_or(current);
        let replaced = fs::metadata(path(successor)).and_then(|m| m.modified());
        let old_enough = replaced
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .is_some_and(|age| age >= options.retain);
        if old_enough {
            let p = path(n);
            fs::remove_dir_all(&p).map_err(|e| Error::io(&p, "remove the old generation", e))?;
        }
    }
    Ok(())
}

fn list_generations(parent: &Path, gen_prefix: &str) -> Result<Vec<u64>, Error> {
    let read = fs::read_dir(parent).map_err(|e| Error::io(parent, "list the directory", e))?;
    let mut found = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| Error::io(parent, "list the directory", e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(n) = name
            .strip_prefix(gen_prefix)
            .and_then(|n| n.parse::<u64>().ok())
        {
            found.push(n);
        }
    }
    Ok(found)
}

/// The subdirectories and files of the tree of `entries`, and its counts
/// (`generation` left empty).
fn layout(entries: &[Listed]) -> (AcapDirs, AcapSummary) {
    let resolved = resolve_listed(entries);
    let mut dirs = AcapDirs::new();
    for fixed in ["all-ok-bots", "other-bots", "suspect-bots"] {
        dirs.insert(fixed.to_owned(), BTreeSet::new());
    }
    let mut summary = AcapSummary {
        generation: PathBuf::new(),
        verified: 0,
        spoofed: 0,
        other: 0,
        bots: 0,
    };
    for entry in &resolved {
        let ip = remote_addr_text(entry.ip);
        let fixed = match entry.standing {
            Standing::Verified => {
                summary.verified += 1;
                for bot in &entry.bots {
                    dirs.entry(bot_slug(bot).into_owned())
                        .or_default()
                        .insert(ip.clone());
                }
                "all-ok-bots"
            }
            Standing::Spoofed => {
                summary.spoofed += 1;
                "suspect-bots"
            }
            Standing::Other => {
                summary.other += 1;
                "other-bots"
            }
        };
        dirs.entry(fixed.to_owned()).or_default().insert(ip);
    }
    summary.bots = dirs.len() - 3;
    (dirs, summary)
}

fn build(gen_path: &Path, dirs: &AcapDirs) -> Result<(), Error> {
    let mut builder = DirBuilder::new();
    builder.mode(0o755);
    builder
        .create(gen_path)
        .map_err(|e| Error::io(gen_path, "create the directory", e))?;
    touch(&gen_path.join(ACAP_MARKER))?;
    for (sub, ips) in dirs {
        let sub_path = gen_path.join(sub);
        builder
            .create(&sub_path)
            .map_err(|e| Error::io(&sub_path, "create the directory", e))?;
        for ip in ips {
            touch(&sub_path.join(ip))?;
        }
        sync_dir(&sub_path)?;
    }
    sync_dir(gen_path)?;
    Ok(())
}

fn touch(path: &Path) -> Result<(), Error> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
        .map(|_: File| ())
        .map_err(|e| Error::io(path, "create the file", e))
}
