//! The crate's one error type.

/// What can stop the service from starting or running.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration (a file, or the values given) is not usable.
    #[error("configuration {path}: {message}")]
    Config {
        /// The file, or `options` for values given otherwise.
        path: String,
        /// What is wrong, with the line and column for a file.
        message: String,
    },
    /// A registry file could not be read.
    #[error("cannot read the registry file {path}")]
    RegistryFile {
        /// The file.
        path: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The registry has errors; each is listed.
    #[error("the registry has errors: {}", problems.join("; "))]
    Registry {
        /// Each problem, with its file, path, line and column.
        problems: Vec<String>,
    },
    /// The verifier or classifier could not be set up (the registry's
    /// patterns or host rules, the DNS resolver), or the feed directory
    /// could not be read.
    #[error("cannot set up verification")]
    Verify(#[from] botwarden_verify::Error),
    /// The robots.txt fetcher could not be set up.
    #[error("cannot set up the robots.txt fetcher")]
    Fetcher(#[from] botwarden_fetch::Error),
    /// Binding or serving the listening socket failed.
    #[error("cannot {what} {addr}")]
    Io {
        /// `listen on` or `serve on`.
        what: &'static str,
        /// The address.
        addr: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}
