//! IP sets: exact addresses, inclusive ranges and CIDR blocks in named
//! lists, answering which lists contain an address.
//!
//! Every entry is an interval of integers (`u32` for IPv4, `u128` for IPv6)
//! tagged with its list. Building cuts the intervals into disjoint segments,
//! each knowing every list that covers it, so a lookup is one binary search
//! over sorted segment starts, however the lists overlap.

use std::net::IpAddr;

use crate::error::Error;

/// A list of an [`IpSet`] (a bot, or a published feed), by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListId(u32);

/// An address with IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) turned
/// into IPv4, so that one address has one form.
#[must_use]
pub fn normalize(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 @ IpAddr::V4(_) => v4,
    }
}

fn parse_ip(text: &str) -> Result<IpAddr, Error> {
    text.trim()
        .parse::<IpAddr>()
        .map(normalize)
        .map_err(|_| Error::InvalidIp {
            input: text.to_owned(),
        })
}

/// A CIDR block, `address/length`, with its first and last address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cidr {
    /// The network address (host bits cleared).
    pub network: IpAddr,
    /// The prefix length.
    pub len: u8,
}

impl Cidr {
    /// Reads `address/length`. Host bits set in the address are an error
    /// (`10.0.0.1/8` is a typo more often than a network), as is a length
    /// over 32 for IPv4 or 128 for IPv6. An IPv4-mapped IPv6 block
    /// (`::ffff:0:0/96` and longer) is the IPv4 block.
    ///
    /// # Errors
    /// [`Error::InvalidCidr`] naming the text.
    pub fn parse(text: &str) -> Result<Cidr, Error> {
        let bad = |reason: &str| Error::InvalidCidr {
            input: text.to_owned(),
            reason: reason.to_owned(),
        };
        let (addr, len) = text
            .trim()
            .split_once('/')
            .ok_or_else(|| bad("no '/length'"))?;
        let ip: IpAddr = addr
            .parse()
            .map_err(|_| bad("the address is not an IP address"))?;
        let len: u8 = len.parse().map_err(|_| bad("the length is not a number"))?;
        let (ip, len) = match ip {
            IpAddr::V6(v6) if len >= 96 => match v6.to_ipv4_mapped() {
                Some(v4) => (IpAddr::V4(v4), len - 96),
                None => (ip, len),
            },
            _ => (ip, len),
        };
        let host_bits_clear = match ip {
            IpAddr::V4(v4) if len <= 32 => block_u32(u32::from(v4), len).0 == u32::from(v4),
            IpAddr::V6(v6) if len <= 128 => block_u128(u128::from(v6), len).0 == u128::from(v6),
            IpAddr::V4(_) => return Err(bad("the length is over 32")),
            IpAddr::V6(_) => return Err(bad("the length is over 128")),
        };
        if !host_bits_clear {
            return Err(bad("host bits are set in the address"));
        }
        Ok(Cidr { network: ip, len })
    }

    /// The first and last address of the block.
    #[must_use]
    pub fn bounds(&self) -> (IpAddr, IpAddr) {
        match self.network {
            IpAddr::V4(v4) => {
                let (lo, hi) = block_u32(u32::from(v4), self.len);
                (IpAddr::V4(lo.into()), IpAddr::V4(hi.into()))
            }
            IpAddr::V6(v6) => {
                let (lo, hi) = block_u128(u128::from(v6), self.len);
                (IpAddr::V6(lo.into()), IpAddr::V6(hi.into()))
            }
        }
    }
}

impl Cidr {
    /// Whether the block holds `ip` (IPv4-mapped IPv6 read as IPv4).
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (lo, hi) = self.bounds();
        let ip = normalize(ip);
        ip.is_ipv4() == lo.is_ipv4() && lo <= ip && ip <= hi
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.network, self.len)
    }
}

/// The widest block an operator publishes for its crawlers, as a prefix
/// length for IPv4: a list wider than a /8 would let anyone through.
pub(crate) const WIDEST_V4: u8 = 8;
/// The widest block, as a prefix length for IPv6 (/19).
pub(crate) const WIDEST_V6: u8 = 19;
/// Blocks at least as wide as an IPv4 /12 are suspicious: few operators
/// publish one.
pub(crate) const WIDE_V4: u8 = 12;
/// Blocks at least as wide as an IPv6 /32 are suspicious.
pub(crate) const WIDE_V6: u8 = 32;

/// How many addresses a block or range spans, against what operators
/// publish. A range counts as the block of its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    v4: bool,
    /// `last - first`: the size less one, so that every IPv6 address fits.
    span: u128,
}

impl Span {
    /// The span of `first..=last`, both of one family, `first <= last`.
    pub(crate) fn of(first: IpAddr, last: IpAddr) -> Span {
        match (normalize(first), normalize(last)) {
            (IpAddr::V4(a), IpAddr::V4(b)) => Span {
                v4: true,
                span: u128::from(u32::from(b).saturating_sub(u32::from(a))),
            },
            (a, b) => Span {
                v4: false,
                span: v6_bits(b).saturating_sub(v6_bits(a)),
            },
        }
    }

    fn bits(self) -> u32 {
        if self.v4 { 32 } else { 128 }
    }

    /// The base-2 logarithm of the size, rounded down, and whether the size
    /// is a power of two.
    fn log(self) -> (u32, bool) {
        match self.span.checked_add(1) {
            None => (128, true),
            Some(size) => (127 - size.leading_zeros(), size.is_power_of_two()),
        }
    }

    /// Wider than any operator publishes (wider than [`WIDEST_V4`] or
    /// [`WIDEST_V6`]).
    pub(crate) fn too_wide(self) -> bool {
        let widest = u32::from(if self.v4 { WIDEST_V4 } else { WIDEST_V6 });
        let (log, exact) = self.log();
        let most = self.bits() - widest;
        log > most || (log == most && !exact)
    }

    /// At least as wide as [`WIDE_V4`] or [`WIDE_V6`].
    pub(crate) fn wide(self) -> bool {
        let wide = u32::from(if self.v4 { WIDE_V4 } else { WIDE_V6 });
        self.log().0 >= self.bits() - wide
    }

    /// The widest prefix length allowed for this family.
    pub(crate) fn widest(self) -> u8 {
        if self.v4 { WIDEST_V4 } else { WIDEST_V6 }
    }
}

impl std::fmt::Display for Span {
    /// `16,777,216 addresses (a /8)`, `2^109 addresses (a /19)`,
    /// `16,777,217 addresses (more than a /8)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (log, exact) = self.log();
        let prefix = self.bits() - log;
        match (self.v4, exact) {
            (true, _) => {
                // At most 2^32 addresses.
                let count = u64::try_from(self.span + 1).unwrap_or(u64::MAX);
                write!(f, "{} addresses", botwarden_text::thousands(count))?;
            }
            (false, true) => write!(f, "2^{log} addresses")?,
            (false, false) => write!(f, "more than 2^{log} addresses")?,
        }
        if exact {
            write!(f, " (a /{prefix})")
        } else {
            write!(f, " (more than a /{prefix})")
        }
    }
}

fn v6_bits(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

fn block_u32(addr: u32, len: u8) -> (u32, u32) {
    let host = u32::MAX.checked_shr(u32::from(len)).unwrap_or(0);
    (addr & !host, addr | host)
}

fn block_u128(addr: u128, len: u8) -> (u128, u128) {
    let host = u128::MAX.checked_shr(u32::from(len)).unwrap_or(0);
    (addr & !host, addr | host)
}

/// Collects entries into named lists, then builds an [`IpSet`].
#[derive(Debug, Clone, Default)]
pub struct IpSetBuilder {
    names: Vec<String>,
    v4: Vec<(u32, u32, ListId)>,
    v6: Vec<(u128, u128, ListId)>,
}

impl IpSetBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> IpSetBuilder {
        IpSetBuilder::default()
    }

    /// The list with this name, created on first use.
    pub fn list(&mut self, name: &str) -> ListId {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return ListId(i as u32);
        }
        self.names.push(name.to_owned());
        ListId((self.names.len() - 1) as u32)
    }

    fn push(&mut self, lo: IpAddr, hi: IpAddr, list: ListId) {
        match (lo, hi) {
            (IpAddr::V4(a), IpAddr::V4(b)) => self.v4.push((a.into(), b.into(), list)),
            (IpAddr::V6(a), IpAddr::V6(b)) => self.v6.push((a.into(), b.into(), list)),
            _ => {}
        }
    }

    /// Adds one address.
    ///
    /// # Errors
    /// [`Error::InvalidIp`] naming the text.
    pub fn add_ip(&mut self, list: ListId, ip: &str) -> Result<(), Error> {
        let ip = parse_ip(ip)?;
        self.push(ip, ip, list);
        Ok(())
    }

    /// Adds an inclusive range, `min` to `max`.
    ///
    /// # Errors
    /// [`Error::InvalidIp`] for an end that is no address;
    /// [`Error::InvalidRange`] when the ends are of different families or
    /// `min > max`.
    pub fn add_range(&mut self, list: ListId, min: &str, max: &str) -> Result<(), Error> {
        let (lo, hi) = (parse_ip(min)?, parse_ip(max)?);
        let bad = |reason| Error::InvalidRange {
            min: min.to_owned(),
            max: max.to_owned(),
            reason,
        };
        match (lo, hi) {
            (IpAddr::V4(a), IpAddr::V4(b)) if a > b => Err(bad("min is greater than max")),
            (IpAddr::V6(a), IpAddr::V6(b)) if a > b => Err(bad("min is greater than max")),
            (IpAddr::V4(_), IpAddr::V6(_)) | (IpAddr::V6(_), IpAddr::V4(_)) => {
                Err(bad("min and max are of different families"))
            }
            _ => {
                self.push(lo, hi, list);
                Ok(())
            }
        }
    }

    /// Adds a CIDR block (see [`Cidr::parse`]).
    ///
    /// # Errors
    /// [`Error::InvalidCidr`] naming the text.
    pub fn add_cidr(&mut self, list: ListId, cidr: &str) -> Result<(), Error> {
        let cidr = Cidr::parse(cidr)?;
        let (lo, hi) = cidr.bounds();
        self.push(lo, hi, list);
        Ok(())
    }

    /// Adds a parsed address (IPv4-mapped IPv6 read as IPv4).
    pub fn insert_ip(&mut self, list: ListId, ip: IpAddr) {
        let ip = normalize(ip);
        self.push(ip, ip, list);
    }

    /// Adds a parsed range; ends of different families, or `min > max`,
    /// add nothing (the registry rejects them when reading).
    pub fn insert_range(&mut self, list: ListId, min: IpAddr, max: IpAddr) {
        let (min, max) = (normalize(min), normalize(max));
        if min <= max {
            self.push(min, max, list);
        }
    }

    /// Adds a parsed CIDR block.
    pub fn insert_cidr(&mut self, list: ListId, cidr: Cidr) {
        let (lo, hi) = cidr.bounds();
        self.push(lo, hi, list);
    }

    /// Builds the set.
    #[must_use]
    pub fn build(self) -> IpSet {
        let mut lists = Vec::new();
        let v4 = Segments::build(self.v4, &mut lists);
        let v6 = Segments::build(self.v6, &mut lists);
        IpSet {
            names: self.names,
            v4,
            v6,
            lists,
        }
    }
}

/// Disjoint segments of one family, sorted, each with the lists covering it
/// (a range of `IpSet::lists`).
#[derive(Debug, Clone, Default)]
struct Segments<T> {
    starts: Vec<T>,
    ends: Vec<T>,
    lists: Vec<(u32, u32)>,
}

impl<T: Copy + Ord + Bound> Segments<T> {
    fn build(mut entries: Vec<(T, T, ListId)>, lists: &mut Vec<ListId>) -> Segments<T> {
        let mut out = Segments {
            starts: Vec::new(),
            ends: Vec::new(),
            lists: Vec::new(),
        };
        if entries.is_empty() {
            return out;
        }
        // Every point where the set of covering lists may change.
        let mut cuts: Vec<T> = Vec::with_capacity(entries.len() * 2);
        for &(lo, hi, _) in &entries {
            cuts.push(lo);
            if let Some(next) = hi.next() {
                cuts.push(next);
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        entries.sort_unstable_by_key(|e| e.0);
        // Sweep the cuts with the entries that are open at each.
        let mut open: Vec<(T, ListId)> = Vec::new();
        let mut next_entry = 0;
        for (i, &start) in cuts.iter().enumerate() {
            while next_entry < entries.len() && entries[next_entry].0 <= start {
                open.push((entries[next_entry].1, entries[next_entry].2));
                next_entry += 1;
            }
            open.retain(|&(hi, _)| hi >= start);
            if open.is_empty() {
                continue;
            }
            let end = match cuts.get(i + 1) {
                Some(&c) => c.prev(),
                None => T::MAX,
            };
            let mut here: Vec<ListId> = open.iter().map(|&(_, l)| l).collect();
            here.sort_unstable();
            here.dedup();
            // Merge with the previous segment when it is adjacent and has
            // the same lists.
            if let (Some(last_end), Some(&(at, len))) = (out.ends.last_mut(), out.lists.last())
                && last_end.next() == Some(start)
                && lists[at as usize..(at + len) as usize] == here[..]
            {
                *last_end = end;
                continue;
            }
            let at = lists.len() as u32;
            lists.extend_from_slice(&here);
            out.starts.push(start);
            out.ends.push(end);
            out.lists.push((at, here.len() as u32));
        }
        out.starts.shrink_to_fit();
        out.ends.shrink_to_fit();
        out.lists.shrink_to_fit();
        out
    }

    fn find(&self, key: T) -> Option<(u32, u32)> {
        let i = self.starts.partition_point(|&s| s <= key).checked_sub(1)?;
        (key <= self.ends[i]).then(|| self.lists[i])
    }
}

/// Integers that bound segments.
trait Bound: Sized {
    const MAX: Self;
    fn next(self) -> Option<Self>;
    fn prev(self) -> Self;
}

impl Bound for u32 {
    const MAX: u32 = u32::MAX;
    fn next(self) -> Option<u32> {
        self.checked_add(1)
    }
    fn prev(self) -> u32 {
        self.saturating_sub(1)
    }
}

impl Bound for u128 {
    const MAX: u128 = u128::MAX;
    fn next(self) -> Option<u128> {
        self.checked_add(1)
    }
    fn prev(self) -> u128 {
        self.saturating_sub(1)
    }
}

/// Named lists of addresses, ranges and blocks, for IPv4 and IPv6.
#[derive(Debug, Clone, Default)]
pub struct IpSet {
    names: Vec<String>,
    v4: Segments<u32>,
    v6: Segments<u128>,
    lists: Vec<ListId>,
}

impl IpSet {
    /// The lists that contain `ip`, in list order (IPv4-mapped IPv6
    /// addresses are looked up as IPv4).
    pub fn lookup(&self, ip: IpAddr) -> impl Iterator<Item = &str> {
        self.lookup_ids(ip)
            .map(|id| self.names[id.0 as usize].as_str())
    }

    /// The ids of the lists that contain `ip`.
    pub fn lookup_ids(&self, ip: IpAddr) -> impl Iterator<Item = ListId> + '_ {
        let found = match normalize(ip) {
            IpAddr::V4(v4) => self.v4.find(u32::from(v4)),
            IpAddr::V6(v6) => self.v6.find(u128::from(v6)),
        };
        let (at, len) = found.unwrap_or((0, 0));
        self.lists[at as usize..(at + len) as usize].iter().copied()
    }

    /// Whether some list contains `ip`.
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.lookup_ids(ip).next().is_some()
    }

    /// Whether the list `list` contains `ip`.
    #[must_use]
    pub fn list_contains(&self, list: ListId, ip: IpAddr) -> bool {
        self.lookup_ids(ip).any(|l| l == list)
    }

    /// The name of a list.
    #[must_use]
    pub fn name(&self, list: ListId) -> &str {
        &self.names[list.0 as usize]
    }

    /// Disjoint segments held (IPv4, IPv6), for sizing.
    #[must_use]
    pub fn segments(&self) -> (usize, usize) {
        (self.v4.starts.len(), self.v6.starts.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn cidr_parsing() {
        let c = Cidr::parse("66.249.64.0/19").unwrap();
        assert_eq!(c.bounds(), (ip("66.249.64.0"), ip("66.249.95.255")));
        assert_eq!(
            Cidr::parse("::ffff:10.0.0.0/104").unwrap().to_string(),
            "10.0.0.0/8"
        );
        assert_eq!(
            Cidr::parse("0.0.0.0/0").unwrap().bounds().1,
            ip("255.255.255.255")
        );
        assert_eq!(
            Cidr::parse("2001:db8::/32").unwrap().bounds().1,
            ip("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff")
        );
        for bad in [
            "10.0.0.1/8",
            "10.0.0.0/33",
            "10.0.0.0",
            "x/8",
            "10.0.0.0/x",
            "2001:db8::1/32",
        ] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn overlapping_lists_are_all_reported() {
        let mut b = IpSetBuilder::new();
        let (a, c, d) = (b.list("a"), b.list("c"), b.list("d"));
        b.add_cidr(a, "10.0.0.0/8").unwrap();
        b.add_range(c, "10.0.0.5", "10.0.0.9").unwrap();
        b.add_ip(d, "10.0.0.9").unwrap();
        b.add_ip(d, "10.0.0.10").unwrap();
        let set = b.build();
        let at = |s: &str| set.lookup(ip(s)).collect::<Vec<_>>();
        assert_eq!(at("10.0.0.4"), ["a"]);
        assert_eq!(at("10.0.0.5"), ["a", "c"]);
        assert_eq!(at("10.0.0.9"), ["a", "c", "d"]);
        assert_eq!(at("10.0.0.10"), ["a", "d"]);
        assert_eq!(at("10.255.255.255"), ["a"]);
        assert!(at("11.0.0.0").is_empty());
        assert!(at("::ffff:10.0.0.5").contains(&"c"));
    }

    #[test]
    fn ends_of_the_address_space() {
        let mut b = IpSetBuilder::new();
        let l = b.list("all");
        b.add_cidr(l, "0.0.0.0/0").unwrap();
        b.add_ip(l, "::").unwrap();
        b.add_ip(l, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
            .unwrap();
        let set = b.build();
        for s in [
            "0.0.0.0",
            "255.255.255.255",
            "::",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        ] {
            assert!(set.contains(ip(s)), "{s}");
        }
        assert!(!set.contains(ip("::1")));
    }

    #[test]
    fn adjacent_entries_of_one_list_merge() {
        let mut b = IpSetBuilder::new();
        let l = b.list("l");
        b.add_cidr(l, "10.0.0.0/25").unwrap();
        b.add_cidr(l, "10.0.0.128/25").unwrap();
        assert_eq!(b.build().segments(), (1, 0));
    }

    #[test]
    fn bad_ranges() {
        let mut b = IpSetBuilder::new();
        let l = b.list("l");
        assert!(matches!(
            b.add_range(l, "10.0.0.9", "10.0.0.1"),
            Err(Error::InvalidRange { .. })
        ));
        assert!(matches!(
            b.add_range(l, "10.0.0.1", "::1"),
            Err(Error::InvalidRange { .. })
        ));
        assert!(matches!(
            b.add_ip(l, "10.0.0.256"),
            Err(Error::InvalidIp { .. })
        ));
    }

    #[test]
    fn spans_against_what_operators_publish() {
        let span = |c: &str| {
            let (lo, hi) = Cidr::parse(c).unwrap().bounds();
            Span::of(lo, hi)
        };
        let all = span("0.0.0.0/0");
        assert!(all.too_wide());
        assert_eq!(all.to_string(), "4,294,967,296 addresses (a /0)");
        assert!(span("0.0.0.0/7").too_wide());
        assert!(!span("10.0.0.0/8").too_wide() && span("10.0.0.0/8").wide());
        assert!(span("10.0.0.0/12").wide() && !span("10.0.0.0/13").wide());
        assert!(span("::/0").too_wide());
        assert_eq!(span("::/0").to_string(), "2^128 addresses (a /0)");
        assert!(span("2000::/18").too_wide() && !span("2000::/19").too_wide());
        assert!(span("2001:db8::/32").wide() && !span("2001:db8::/33").wide());
        // A range counts as the block of its size.
        let ip = |t: &str| t.parse::<IpAddr>().unwrap();
        let r = Span::of(ip("10.0.0.0"), ip("11.0.0.0"));
        assert!(r.too_wide());
        assert_eq!(r.to_string(), "16,777,217 addresses (more than a /8)");
        assert!(!Span::of(ip("10.0.0.0"), ip("10.255.255.255")).too_wide());
        assert!(Span::of(ip("::"), ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).too_wide());
        assert_eq!(
            Span::of(ip("2001:db8::"), ip("2001:db9::")).to_string(),
            "more than 2^96 addresses (more than a /32)"
        );
        assert!(!Span::of(ip("192.0.2.1"), ip("192.0.2.1")).wide());
    }
}
