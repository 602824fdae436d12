//! Replacing one file so that readers see the old or the new content, never a mix.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::Error;

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
/// [`Error`] naming the path when the file cannot be written or
/// renamed; the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| Error::io(path, "resolve the symbolic link", e))?
        }
        _ => path.to_path_buf(),
    };
    let old = match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(Error::refused(&target, "is a directory, not a file"));
        }
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&target, "read the metadata of", e)),
    };
    let Some(name) = target.file_name() else {
        return Err(Error::refused(&target, "does not name a file"));
    };
    let dir = parent_dir(&target);
    let tmp = dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), unique()));
    let result = fill(&tmp, bytes, old.as_ref()).and_then(|()| {
        fs::rename(&tmp, &target).map_err(|e| Error::io(&target, "rename the new file to", e))
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
        .map_err(|e| Error::io(tmp, "create the temporary file", e))?;
    file.write_all(bytes)
        .map_err(|e| Error::io(tmp, "write", e))?;
    if let Some(old) = old {
        keep_owner_and_mode(&file, tmp, old)?;
        let new = file
            .metadata()
            .map_err(|e| Error::io(tmp, "read the metadata of", e))?;
        if let (Ok(old_m), Ok(new_m)) = (old.modified(), new.modified())
            && new_m <= old_m
        {
            file.set_modified(old_m + Duration::from_secs(1))
                .map_err(|e| Error::io(tmp, "set the modification time of", e))?;
        }
    }
    file.sync_all().map_err(|e| Error::io(tmp, "flush", e))
}

fn keep_owner_and_mode(file: &File, tmp: &Path, old: &fs::Metadata) -> Result<(), Error> {
    let new = file
        .metadata()
        .map_err(|e| Error::io(tmp, "read the metadata of", e))?;
    if (new.uid(), new.gid()) != (old.uid(), old.gid()) {
        match std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())) {
            Ok(()) => {}
            // Only root may give a file away; the writer keeps it otherwise.
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {}
            Err(e) => return Err(Error::io(tmp, "set the owner of", e)),
        }
    }
    let mode = old.permissions().mode() & 0o7777;
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io(tmp, "set the permissions of", e))
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Flushes a directory's entries (a rename, new files) to disk.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), Error> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, "flush the directory", e))
}

/// A suffix no other temporary file of this process or another one has.
pub(crate) fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
