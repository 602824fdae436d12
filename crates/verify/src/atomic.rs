//! Replacing one file so that readers see the old or the new content,
//! never a mix: the one atomic writer of botwarden. The feed store writes
//! its feeds with it, and `botwarden-logs` its exports (its ACAP tree's
//! swap too, with [`sync_dir`], [`parent_dir`] and [`unique_suffix`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::Error;

/// An [`Error::File`]: `op` failed on `path`.
fn failed(path: &Path, op: &'static str, source: io::Error) -> Error {
    Error::File {
        path: path.to_path_buf(),
        op,
        source,
    }
}

/// An [`Error::NotAFile`]: `path` is not replaced, for `reason`.
fn refused(path: &Path, reason: &'static str) -> Error {
    Error::NotAFile {
        path: path.to_path_buf(),
        reason,
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed to disk, then renamed over `path`.
///
/// A reader opening `path` at any moment gets the old file or the new one,
/// whole. Details:
///
/// - A new file gets mode `0644` (less the umask): web servers read it as
///   another user. An existing file's mode is kept, and its owner and group
///   too when the writer may set them (root); otherwise the new file belongs
///   to the writer.
/// - If `path` is a symbolic link, the file it points to is replaced and the
///   link stays.
/// - The new file's modification time is made later than the old one's,
///   even within one clock tick: Apache's `RewriteMap txt:` cache reloads a
///   map only when its mtime changes.
/// - The directory must exist; `path` must not be a directory.
///
/// # Errors
///
/// [`Error::File`] naming the path and what was being done when the file
/// cannot be written or renamed (the temporary file is removed);
/// [`Error::NotAFile`] when `path` is a directory or names no file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| failed(path, "resolve the symbolic link", e))?
        }
        _ => path.to_path_buf(),
    };
    let old = match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(refused(&target, "is a directory, not a file"));
        }
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(failed(&target, "read the metadata of", e)),
    };
    let Some(name) = target.file_name() else {
        return Err(refused(&target, "does not name a file"));
    };
    let dir = parent_dir(&target);
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        unique_suffix()
    ));
    let result = fill(&tmp, bytes, old.as_ref()).and_then(|()| {
        fs::rename(&tmp, &target).map_err(|e| failed(&target, "rename the new file to", e))
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(&dir)
}

fn fill(tmp: &Path, bytes: &[u8], old: Option<&fs::Metadata>) -> Result<(), Error> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(tmp)
        .map_err(|e| failed(tmp, "create the temporary file", e))?;
    file.write_all(bytes).map_err(|e| failed(tmp, "write", e))?;
    if let Some(old) = old {
        keep_owner_and_mode(&file, tmp, old)?;
        let new = file
            .metadata()
            .map_err(|e| failed(tmp, "read the metadata of", e))?;
        if let (Ok(old_m), Ok(new_m)) = (old.modified(), new.modified())
            && new_m <= old_m
        {
            file.set_modified(old_m + Duration::from_secs(1))
                .map_err(|e| failed(tmp, "set the modification time of", e))?;
        }
    }
    file.sync_all().map_err(|e| failed(tmp, "flush", e))
}

fn keep_owner_and_mode(file: &File, tmp: &Path, old: &fs::Metadata) -> Result<(), Error> {
    let new = file
        .metadata()
        .map_err(|e| failed(tmp, "read the metadata of", e))?;
    if (new.uid(), new.gid()) != (old.uid(), old.gid()) {
        match std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())) {
            Ok(()) => {}
            // Only root may give a file away; the writer keeps it otherwise.
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {}
            Err(e) => return Err(failed(tmp, "set the owner of", e)),
        }
    }
    let mode = old.permissions().mode() & 0o7777;
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(|e| failed(tmp, "set the permissions of", e))
}

/// The directory holding `path` (`.` for a bare file name).
#[must_use]
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Flushes a directory's entries (a rename, new files) to disk.
///
/// # Errors
/// [`Error::File`] naming the directory.
pub fn sync_dir(dir: &Path) -> Result<(), Error> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| failed(dir, "flush the directory", e))
}

/// A suffix no other temporary file of this process or another one has.
#[must_use]
pub fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
