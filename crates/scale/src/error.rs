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
