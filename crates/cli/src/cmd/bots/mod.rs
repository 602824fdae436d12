//! `botwarden bots ...`: crawler registry, classification and verification.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use check_agent::CheckAgentArgs;
use classify::ClassifyArgs;
use keygen::KeygenArgs;
use registry::RegistryCommand;
use update::UpdateArgs;
use verify::VerifyArgs;

mod check_agent;
mod classify;
mod keygen;
pub(crate) mod registry;
mod signature;
mod update;
pub(crate) mod verify;

/// Crawler verification commands.
#[derive(Debug, Subcommand)]
pub(crate) enum BotsCommand {
    /// Verify that addresses belong to the crawlers they claim to be.
    ///
    /// Prints `IP<TAB>verdict<TAB>bot<TAB>how or why`; the verdict is one of
    /// verified, spoofed, unknown (DNS failed or is off: never read as
    /// spoofed), unverifiable (no method for the bot) and not-a-bot. With
    /// no IP, reads `IP<TAB>USER-AGENT` lines from standard input and
    /// answers them in order, many at once; a summary goes to standard
    /// error. Exit 1 when an input line is not an address.
    ///
    /// With --header (repeated) or --request FILE, checks a signed request
    /// instead (Web Bot Auth: HTTP Message Signatures tagged web-bot-auth):
    /// a valid signature with a key of the claimed bot verifies it
    /// (method web_bot_auth), an invalid one is spoofed, a key directory
    /// not at hand is unknown; an unsigned request is judged by its
    /// address, when one is given. The key directories the request names
    /// are fetched (over https, without redirects) unless --keys files
    /// stand for them or --no-fetch forbids it; the registry's keys are
    /// always known.
    Verify(Box<VerifyArgs>),
    /// Tell which registered bot each User-Agent claims to be.
    ///
    /// Prints `bot<TAB>category<TAB>user-agent` (`-` for none): a
    /// registered bot with its category, an unregistered bot with a
    /// category only (`library`, `scanner` for security scanners and
    /// attacks, or `crawler` for every other kind; JSON also gives its
    /// kind), or `-<TAB>-` for browsers and apps.
    /// `--explain` adds which step and rule decided.
    Classify(ClassifyArgs),
    /// Check or show the bot registry (the default one, plus your files).
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Fetch the published IP ranges of every bot with a `ranges_url`.
    ///
    /// Each feed is stored (with the feed's creation time and the fetch
    /// time) in the ranges directory, which later commands lay over the
    /// compiled-in snapshot. A feed that cannot be fetched or read keeps its
    /// previous copy. Prints a line per feed (`updated`, `shared`,
    /// `failed`), then `moved` when the feed's URL redirects permanently
    /// (301, 308: the new URL to record as the bots' `ranges_url`; the copy
    /// is stored under the URL asked for; temporary redirects are followed
    /// silently), and `stale` when the copy in use is older than the feed's
    /// refresh period (the bots' `ranges_refresh`, default 7d) and a day.
    /// Exit 1 when any feed failed.
    Update(UpdateArgs),
    /// Make an Ed25519 key pair for signing requests (Web Bot Auth).
    ///
    /// Writes the private key (a JWK, readable by you alone) and the key
    /// directory to publish at
    /// `/.well-known/http-message-signatures-directory` of the agent's
    /// origin, with media type
    /// application/http-message-signatures-directory+json. Prints the
    /// key's id (its JWK thumbprint). Existing files are not overwritten.
    Keygen(KeygenArgs),
    /// Check a signed agent as sites will (Web Bot Auth): its key
    /// directory and, when given, a request it signed.
    ///
    /// Fetches the directory (no redirect followed) and reports each
    /// deviation as a finding with a code (A001…): https, status, media
    /// type, the JWK Set and its keys (thumbprints, kid, private parts),
    /// Content-Digest, the directory's own signatures, caching headers;
    /// for the sample (--request, --header, or signed here with
    /// --sign-key): the Signature-Agent form and its coverage, the
    /// components and parameters, the times, and botwarden's own check
    /// against the keys fetched. Then whether it verifies under the
    /// protocol draft (-02), under Cloudflare's verifier as documented,
    /// and under botwarden, and which signer setting
    /// (--signature-agent-form) satisfies which. Exit 1 when any finding
    /// is an error.
    CheckAgent(Box<CheckAgentArgs>),
}

pub(crate) fn run(command: BotsCommand) -> Result<ExitCode> {
    match command {
        BotsCommand::Verify(args) => verify::run(&args),
        BotsCommand::Classify(args) => classify::run(&args),
        BotsCommand::Registry(c) => registry::run(c),
        BotsCommand::Update(args) => update::run(&args),
        BotsCommand::Keygen(args) => keygen::run(&args),
        BotsCommand::CheckAgent(args) => check_agent::run(&args),
    }
}
