//! What can go wrong while writing an export.

use std::io;
use std::path::PathBuf;

/// An export that could not be written. Every variant names the path.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file-system operation failed.
    #[error("{}: cannot {op}: {source}", path.display())]
    Io {
        /// The path the operation was about.
        path: PathBuf,
        /// What was being done, e.g. `create the temporary file`.
        op: &'static str,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The path holds something the export will not replace.
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The path that was left alone.
        path: PathBuf,
        /// Why, and what to do about it.
        reason: String,
    },
}

impl ExportError {
    pub(crate) fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        Self::Io {
            path: path.into(),
            op,
            source,
        }
    }

    pub(crate) fn refused(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Self::Refused {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// The path the error is about.
    #[must_use]
    pub fn path(&self) -> &std::path::Path {
        match self {
            Self::Io { path, .. } | Self::Refused { path, .. } => path,
        }
    }
}
