//! Lists that web servers read at request time, and the configuration
//! that uses them (described in the crate's documentation).

use std::collections::BTreeSet;
use std::net::IpAddr;

mod acap;
mod addr;
mod atomic;
mod name;
mod snippet;
mod targets;
mod text;

pub use acap::{
    ACAP_MARKER, AcapDirs, AcapOptions, AcapSummary, write_acap_dirs, write_acap_tree,
    write_acap_tree_with,
};
pub use addr::remote_addr_text;
pub use atomic::write_atomic;
pub use name::{RESERVED_NAMES, bot_slug};
pub use snippet::{
    ApacheLookup, BasicAuth, Server, SnippetContext, SnippetOptions, SnippetPart, snippet,
    snippet_parts,
};
pub use targets::Targets;
pub use text::{
    ListFilter, apache_rewrite_map, haproxy_map, json_list, map_value, nginx_geo, plain_list,
};

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

impl Standing {
    /// The lowercase word the exports use: `verified`, `spoofed`, `other`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Verified => "verified",
            Self::Spoofed => "spoofed",
            Self::Other => "other",
        }
    }

    /// Which standing wins when one address is listed more than once:
    /// spoofed over verified over other.
    fn precedence(self) -> u8 {
        match self {
            Self::Spoofed => 2,
            Self::Verified => 1,
            Self::Other => 0,
        }
    }
}

/// One address as every export lists it: a single standing, and the bots
/// listed with that standing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The address; an IPv4-mapped IPv6 address is given as its IPv4 address.
    pub ip: IpAddr,
    /// The standing that won (spoofed over verified over other).
    pub standing: Standing,
    /// The bots listed for this address with that standing, sorted, never empty.
    pub bots: BTreeSet<String>,
}

/// Folds a list into one entry per address, sorted by address.
///
/// An address can be listed more than once: several Google crawlers share
/// addresses, and one address can both pass as one bot and fail as another.
/// A web server looks an address up without its User-Agent, so each address
/// gets one standing: **spoofed** if any listing says spoofed (an address
/// that lied about being a crawler is not trusted), else **verified** if any
/// says verified, else **other**. The bots of the losing standings are
/// dropped. IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) are folded into
/// their IPv4 address, which is what Apache shows for them.
#[must_use]
pub fn resolve_listed(entries: &[Listed]) -> Vec<Resolved> {
    let mut by_ip: std::collections::BTreeMap<IpAddr, Resolved> = std::collections::BTreeMap::new();
    for entry in entries {
        let ip = entry.ip.to_canonical();
        let slot = by_ip.entry(ip).or_insert_with(|| Resolved {
            ip,
            standing: entry.standing,
            bots: BTreeSet::new(),
        });
        let (have, new) = (slot.standing.precedence(), entry.standing.precedence());
        if new > have {
            slot.standing = entry.standing;
            slot.bots.clear();
        }
        if new >= have {
            slot.bots.insert(entry.bot.clone());
        }
    }
    by_ip.into_values().collect()
}
