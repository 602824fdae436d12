//! The seam for verification done elsewhere: a fleet's followers hand
//! their pairs to central verifiers instead of asking DNS themselves.

use std::fmt;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use botwarden_verify::Verdict;

/// One (address, claimed bot) pair, as the analysis hands it to
/// verification: once per run, the first time any reading thread sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The client address.
    pub ip: IpAddr,
    /// The registry name of the bot it claimed.
    pub bot: String,
    /// The bot's category, when the User-Agent classifier gave one.
    pub category: Option<String>,
    /// The time of the pair's first request: verification is as of then
    /// (`Verifier::verify_as_of`).
    pub as_of: Option<SystemTime>,
}

/// The future a [`PairVerifier`] answers with.
pub type VerdictFuture = Pin<Box<dyn Future<Output = Arc<Verdict>> + Send + 'static>>;

/// Verification of pairs done outside the analysis (for instance by
/// central verifiers the pairs are sent to), in place of the analysis's
/// own [`Verifier`](botwarden_verify::Verifier). Set it in
/// [`AnalyzeOptions::pairs`](crate::AnalyzeOptions::pairs).
///
/// The analysis calls [`PairVerifier::verify`] once per registered-bot
/// pair and run, with at most [`REMOTE_IN_FLIGHT`](crate::REMOTE_IN_FLIGHT)
/// futures waiting at once, and reads the verdict's kind and (for a
/// spoofed one) its reason. The future may take as long as the answer
/// takes: when the run is stopped ([`AnalyzeOptions::stop`](crate::AnalyzeOptions::stop)),
/// the futures still waiting are dropped and their pairs are counted as
/// `unknown` in the report.
pub trait PairVerifier: Send + Sync + fmt::Debug {
    /// The verdict on one pair.
    fn verify(&self, pair: Pair) -> VerdictFuture;
}
