//! The crate's one error type.

use std::path::PathBuf;

/// The crawl store failed, or a file is not a crawl store of this
/// version, or has no crawl to resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct Error {
    /// The store's file.
    pub path: PathBuf,
    /// What went wrong, and what was being done.
    pub message: String,
}
