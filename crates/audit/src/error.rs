//! The crate's one error type.

/// What went wrong: the audit's settings, or reading the crawl store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The audit's settings (`--select`, `--ignore`, the `[audit]`
    /// section of `botwarden.toml`) are not valid: `input` names the file
    /// and key, or the flag's list and place.
    #[error("{input}: {message}")]
    Settings {
        /// Where: `botwarden.toml: [audit] select[1]`, `select[0]`.
        input: String,
        /// What is wrong, and what is valid.
        message: String,
    },
    /// The crawl store failed (it is named by its file).
    #[error(transparent)]
    Store(#[from] botwarden_store::Error),
}
