//! The crate's one error type.

use std::io;
use std::path::{Path, PathBuf};

use crate::format::Reason;

/// What went wrong: an input argument (named as given), a log format spec,
/// a line a format does not describe (with its column), an export (named by
/// its path) or a snippet option (named by its field).
///
/// The message names the input and the place; when the system gave a
/// cause, the message says what was being done and the cause is the
/// error's [`source`](std::error::Error::source), so that a front end
/// printing the chain (`path: cannot write: No space left on device`)
/// says it once.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input argument that is not a valid glob pattern.
    #[error("{pattern}: not a valid pattern: {message}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
    /// An input glob pattern that matched no file.
    #[error("{pattern}: no file matches")]
    NoMatch {
        /// The pattern.
        pattern: String,
    },
    /// An input path that cannot be read (the cause is the source).
    #[error("{path}")]
    Missing {
        /// The path, as given.
        path: String,
        /// What the system said.
        source: io::Error,
    },
    /// Standard input (`-`) given as an input more than once.
    #[error("standard input (-) given more than once")]
    StdinTwice,
    /// A log format spec that could not be compiled.
    #[error("log format {spec:?}: {what}{}", at_byte(*position))]
    Format {
        /// The spec as given.
        spec: String,
        /// The 0-based byte position in the spec of what is wrong, when
        /// one place is.
        position: Option<usize>,
        /// What is wrong.
        what: &'static str,
    },
    /// A line that gave no record: why, and where. A blank line or a
    /// comment is not a request by design ([`Reason::skipped`]); any other
    /// reason is a failure.
    #[error("column {column}: {reason}")]
    Parse {
        /// Why.
        reason: Reason,
        /// The 1-based byte column where parsing stopped: the start of the
        /// field that was wrong, the place a literal was expected, or the
        /// opening quote or bracket that was never closed.
        column: u32,
    },
    /// A file-system operation of an export failed.
    #[error("{}: cannot {op}", path.display())]
    Io {
        /// The path the operation was about.
        path: PathBuf,
        /// What was being done, e.g. `create the temporary file`.
        op: &'static str,
        /// What the system said.
        source: io::Error,
    },
    /// An export's path holds something the export will not replace.
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The path that was left alone.
        path: PathBuf,
        /// Why, and what to do about it.
        reason: String,
    },
    /// A snippet option refused: a value that would change the meaning of
    /// the configuration around it rather than be part of it.
    #[error("{option} {value:?}: {reason}")]
    Snippet {
        /// The option, by its field in
        /// [`SnippetOptions`](crate::SnippetOptions) (`acap_dir`,
        /// `basic_auth.path`, …).
        option: &'static str,
        /// The value as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The crawl store a log is joined with (`--crawl`) failed; it names
    /// its file.
    #[error(transparent)]
    Store(#[from] botwarden_store::Error),
}

/// ` at byte N` when the place is known.
fn at_byte(position: Option<usize>) -> String {
    position.map_or_else(String::new, |p| format!(" at byte {p}"))
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        Self::Io {
            path: path.into(),
            op,
            source,
        }
    }

    /// The error of `botwarden-verify`'s atomic writer, as this crate's.
    pub(crate) fn of_file(e: botwarden_verify::Error) -> Self {
        match e {
            botwarden_verify::Error::File { path, op, source } => Self::Io { path, op, source },
            botwarden_verify::Error::NotAFile { path, reason } => Self::refused(path, reason),
            other => Self::Io {
                path: PathBuf::new(),
                op: "write",
                source: io::Error::other(other.to_string()),
            },
        }
    }

    pub(crate) fn refused(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Self::Refused {
            path: path.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn format(spec: &str, position: Option<usize>, what: &'static str) -> Self {
        Self::Format {
            spec: spec.to_owned(),
            position,
            what,
        }
    }

    /// The file-system path the error is about: an export's, or an input's.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Io { path, .. } | Self::Refused { path, .. } => Some(path),
            Self::Missing { path, .. } => Some(Path::new(path)),
            _ => None,
        }
    }
}
