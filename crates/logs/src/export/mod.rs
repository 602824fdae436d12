//! Lists that web servers read at request time, and the configuration that uses them.

use std::net::IpAddr;

/// What an analysis concluded about one address, as the exports list it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Listed {
    /// The client address.
    pub ip: IpAddr,
    /// The registry name of the bot it claimed (or, for
    /// [`Standing::Other`], the crawler's User-Agent family).
    pub bot: String,
    /// What the verification said.
    pub standing: Standing,
}

/// The verdict, as far as exports care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Standing {
    /// Verified as the bot it claimed.
    Verified,
    /// Claimed a registered bot and failed its verification.
    Spoofed,
    /// A crawler that cannot be verified: not in the registry, or a
    /// registered bot with no verification method.
    Other,
}
