//! The exports' files replaced whole, through `botwarden-verify`'s atomic
//! writer (the one of botwarden), with this crate's errors.

use std::path::Path;

use crate::Error;

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed to disk, then renamed over `path`.
///
/// A reader opening `path` at any moment gets the old file or the new one,
/// whole. Details ([`botwarden_verify::write_atomic`]):
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
/// [`Error::Io`] naming the path and what was being done when the file
/// cannot be written or renamed (the temporary file is removed);
/// [`Error::Refused`] when `path` is a directory or names no file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    botwarden_verify::write_atomic(path, bytes).map_err(Error::of_file)
}

/// Flushes a directory's entries (a rename, new files) to disk.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), Error> {
    botwarden_verify::sync_dir(dir).map_err(Error::of_file)
}
