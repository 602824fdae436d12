//! The crate's one error type.

/// What went wrong: fetching a URL (every such error names the URL),
/// reading a page, or the crawl store (named by its file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Fetching failed, or nothing could be sent.
    #[error(transparent)]
    Fetch(#[from] botwarden_fetch::Error),
    /// The HTML parser gave up on a page (it does not for malformed
    /// markup; only for limits it enforces).
    #[error("the HTML could not be read: {message}")]
    Html {
        /// What it said.
        message: String,
    },
    /// A crawl asked to read a site's robots.txt another way is not
    /// allowed to: the proof of ownership is for another site, or a
    /// resumed crawl is asked to read it otherwise than it did.
    #[error("{origin}: {message}")]
    Ownership {
        /// The site (`scheme://host[:port]`).
        origin: String,
        /// Why.
        message: String,
    },
    /// The crawl store failed, or a file is not a crawl store of this
    /// version, or has no crawl to resume.
    #[error(transparent)]
    Store(#[from] botwarden_store::Error),
    /// One of the workers of [`crawl_workers`](crate::crawl_workers)
    /// failed: its store, and its error, whole.
    #[error("worker store {}: {error}", store.display())]
    Worker {
        /// The worker's store.
        store: std::path::PathBuf,
        /// What went wrong.
        error: Box<Error>,
    },
    /// A crawl's coordinator (the state workers share) failed or refused:
    /// it names itself (a Redis URL, say) and the operation.
    #[error("{coordinator}: {message}")]
    Coordinator {
        /// The coordinator, as it names itself.
        coordinator: String,
        /// What was being done, and what went wrong.
        message: String,
    },
}

impl Error {
    /// Whether the request failed because of how this botwarden is set
    /// up rather than because of the site
    /// ([`botwarden_fetch::Error::is_own_configuration`]).
    #[must_use]
    pub fn is_own_configuration(&self) -> bool {
        matches!(self, Error::Fetch(e) if e.is_own_configuration())
    }

    /// The URL the error is about, if any.
    #[must_use]
    pub fn url(&self) -> Option<&str> {
        match self {
            Error::Fetch(e) => e.url(),
            Error::Worker { error, .. } => error.url(),
            Error::Html { .. }
            | Error::Store(_)
            | Error::Coordinator { .. }
            | Error::Ownership { .. } => None,
        }
    }
}
