//! The one error type of `botwarden-scale`.

/// What went wrong talking to Redis or NATS, naming the server and the
/// operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A Redis URL or command failed.
    #[error("redis {url}: {operation}")]
    Redis {
        /// The URL as given.
        url: String,
        /// What was being done.
        operation: String,
        /// The client's error.
        #[source]
        source: redis::RedisError,
    },
    /// A Redis node that failed or did not answer, by its address
    /// (`host:port`, never a URL: no password is shown).
    #[error("redis {node}: {operation}: {message}")]
    RedisNode {
        /// The node's `host:port` (or the nodes', comma-separated).
        node: String,
        /// What was being done.
        operation: String,
        /// What went wrong.
        message: String,
    },
    /// A value given is not usable (a crawl name, say).
    #[error("{what}: {message}")]
    Invalid {
        /// What was given.
        what: String,
        /// What is wrong with it.
        message: String,
    },
    /// A Redis URL list that cannot be used.
    #[error("redis URL {url}: {reason}")]
    RedisUrl {
        /// The URL (or list) as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A Redis call that took too long.
    #[error("redis {url}: {operation}: no answer in {after:?}")]
    RedisTimeout {
        /// The server or cluster.
        url: String,
        /// What was being done.
        operation: String,
        /// The time allowed.
        after: std::time::Duration,
    },
    /// A file or directory that cannot be read or written.
    #[error("{}: cannot {operation}", path.display())]
    Io {
        /// The path.
        path: std::path::PathBuf,
        /// What was being done.
        operation: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// An export that cannot be written (the path and the cause).
    #[error(transparent)]
    Export(botwarden_logs::Error),
    /// A NATS server refused or failed an operation.
    #[error("nats {url}: {operation}")]
    Nats {
        /// The URL as given.
        url: String,
        /// What was being done.
        operation: String,
        /// The client's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}
