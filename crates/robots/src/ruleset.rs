//! Compiled rule sets: the part of the matcher that answers one path.
//!
//! The rules of a file live in one [`Tables`]: the rules and their patterns
//! in one text arena. A set over some of them ([`LazySet`]) builds what
//! answers quickly only when it is asked, in one block of bytes: a set
//! asked once tries its rules as they stand; asked again, a small one
//! builds a block that holds everything a scan reads ([`pack`]), a large
//! one its index ([`pack_index`]).
//!
//! A set keeps the literal prefixes of its rules — a prefix rule's pattern
//! (less trailing `*`s), a wildcard rule's part before its first `*` — in a
//! sorted array where each entry links to the longest other entry that is
//! its prefix. The entries that are prefixes of a path are one entry found
//! by a binary search and its ancestors. Each entry carries the best prefix
//! rule among itself and its ancestors, so the prefix answer is known
//! without a scan; the only wildcard rules tried are those of the entries on
//! that chain, best first, while they could still beat the answer, and a
//! byte mask skips those whose literal bytes the path lacks. Wildcard
//! matching is greedy, segment by segment, which is linear in the length of
//! the path. Longest match and first match use the same structure with
//! another ranking.

use std::cell::Cell;
use std::cmp::Reverse;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::path_index::PathIndex;
use crate::profile::{Profile, RuleChoice};
use crate::swar;

/// How a matching rule ranks against another: its length, whether it is an
/// allow, and (reversed) its position, so that the earliest wins a tie.
type Rank = (u32, bool, Reverse<u32>);

/// A range of indices into one of the flat arrays, as `u32`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Range32 {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Range32 {
    pub(crate) fn new(start: usize, end: usize) -> Range32 {
        Range32 {
            start: to_u32(start),
            end: to_u32(end),
        }
    }

    pub(crate) fn of<T>(self, items: &[T]) -> &[T] {
        &items[self.start as usize..self.end as usize]
    }

    pub(crate) fn str(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }

    pub(crate) fn len(self) -> usize {
        (self.end - self.start) as usize
    }
}

/// Sizes and offsets are kept as `u32`: a robots.txt file over 4 GiB is
/// not a use case, and a compact table is a fast one.
pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One rule. Its pattern lives in the text arena; its priority under
/// longest match is the pattern's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) pattern: Range32,
    /// 1-based line number.
    pub(crate) line: u32,
    /// `allow` (true) or `disallow`.
    pub(crate) allow: bool,
    /// Added by a profile rather than written in the file (Google's
    /// `index.html` directory rule).
    pub(crate) derived: bool,
}

impl Rule {
    pub(crate) fn priority(&self) -> u32 {
        self.pattern.end - self.pattern.start
    }

    /// Ordering among matching rules, best last: under longest match a
    /// higher priority, then `allow`, then an earlier line; under first
    /// match an earlier line.
    fn rank(&self, order: Order) -> (u32, bool, Reverse<u32>) {
        match order {
            Order::Longest => (self.priority(), self.allow, Reverse(self.line)),
            Order::First => (0, false, Reverse(self.line)),
        }
    }

    /// [`Rule::rank`] as one number that orders alike.
    fn rank_key(&self, order: Order) -> u64 {
        let (priority, allow, Reverse(line)) = self.rank(order);
        u64::from(priority) << 33 | u64::from(allow) << 32 | u64::from(!line)
    }
}

/// How the matching rules of a set are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// The longest pattern wins, `allow` on a tie; empty patterns never
    /// decide.
    Longest,
    /// The first rule in file order wins; an empty pattern matches every
    /// path and allows.
    First,
}

/// How a profile ranks the matching rules of a set.
#[inline]
pub(crate) fn order_of(profile: &Profile) -> Order {
    match profile.rule_choice {
        RuleChoice::LongestMatch => Order::Longest,
        RuleChoice::FirstMatch => Order::First,
    }
}

const NONE: u32 = u32::MAX;

/// A rule with `ALLOWED` set when its verdict allows.
fn with_allowed(rules: &[Rule], rule: u32, order: Order) -> u32 {
    if verdict(rules, rule, order).allowed {
        rule | ALLOWED
    } else {
        rule
    }
}

/// The rule and verdict a `with_allowed` value holds.
fn hit(flagged: u32) -> Verdict {
    Verdict {
        rule: flagged & !ALLOWED,
        allowed: flagged & ALLOWED != 0,
    }
}
/// `PrefixEntry::parent` of an entry without parent.
const ROOT: u32 = 0x7FFF_FFFF;
/// Flag in `PrefixEntry::parent`: this entry or an ancestor has wildcard
/// rules, so the walk up the chain must go on.
const WILD_ON_CHAIN: u32 = 1 << 31;

impl PrefixEntry {
    fn parent(&self) -> Option<usize> {
        match self.parent & !WILD_ON_CHAIN {
            ROOT => None,
            p => Some(p as usize),
        }
    }

    fn wild_on_chain(&self) -> bool {
        self.parent & WILD_ON_CHAIN != 0
    }
}

/// A distinct literal prefix: of a prefix rule (its pattern without
/// trailing `*`s), or the part of a wildcard rule before its first `*`.
///
/// One record of 32 bytes holds all that a probe reads: the head the
/// binary search compares, the length and place of the bytes, the parent
/// and the best prefix rule with whether it allows. A query reads these
/// records and, only when its head equals an entry's and the entry is
/// longer than sixteen bytes, the entry's bytes; never the rules.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrefixEntry {
    /// The first sixteen bytes of the prefix, big-endian (zeros past its
    /// end): they order entries as their bytes do, so a binary search
    /// compares bytes only among entries that share their first sixteen.
    head: u128,
    /// The prefix in the text arena.
    bytes: Range32,
    /// Best prefix rule among this entry and its ancestors, with `ALLOWED`
    /// set when it allows, or `NONE`.
    best: u32,
    /// The longest other entry that is a prefix of this one (`ROOT`: none),
    /// with `WILD_ON_CHAIN` set when this entry or an ancestor has
    /// wildcard rules.
    parent: u32,
}

/// Flag in `PrefixEntry::best` and `WildEntry::rule`: the rule allows
/// (under the set's order; a strict empty `disallow` allows).
const ALLOWED: u32 = 1 << 31;

#[derive(Debug, Clone, Copy)]
pub(crate) struct WildEntry {
    /// The rule's [`Rule::rank_key`], so that rules that cannot win are
    /// passed over without reading the rule.
    rank: u64,
    /// The rule, with `ALLOWED` set when it allows.
    rule: u32,
    /// One bit per literal byte of the pattern (`b & 63`).
    mask: u64,
}

/// What a rule set answers for one path (the rule's line is in the
/// rules, for those who ask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The deciding rule.
    pub(crate) rule: u32,
    /// Whether the path is allowed (a strict empty `disallow` allows).
    pub(crate) allowed: bool,
}

/// A set as [`build_set`] adds it to an [`Index`]: ranges of its entries.
/// Both orders use the same structure: the matching prefix rules of a path
/// are the ancestors of one entry, so the best of them is known once the
/// entry is found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleSet {
    prefix: Range32,
    wild: Range32,
}

/// The rules of one compiled file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tables {
    /// Patterns, agent values, tokens, sitemap and host values.
    pub(crate) text: String,
    pub(crate) rules: Vec<Rule>,
    /// Group lists of tokens.
    pub(crate) ids: Vec<u32>,
}

/// The sorted prefix entries and wildcard entries that rule sets refer to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    prefix: Vec<PrefixEntry>,
    /// For each prefix entry, the first of its wildcard rules in `wild`
    /// (they run to the next entry's), best first: read only when a chain
    /// has wildcard rules.
    wild_at: Vec<u32>,
    wild: Vec<WildEntry>,
}

/// One bit per byte value of `bytes` (`b & 63`): a rule whose bit is not
/// in a path's mask cannot match it. Two accumulators, so that the bits
/// are gathered two bytes a cycle.
fn byte_mask(bytes: &[u8]) -> u64 {
    let bit = |b: u8| 1u64 << (b & 63);
    let mut chunks = bytes.chunks_exact(4);
    let (mut a, mut b) = (0u64, 0u64);
    for c in &mut chunks {
        a |= bit(c[0]) | bit(c[1]);
        b |= bit(c[2]) | bit(c[3]);
    }
    chunks.remainder().iter().fold(a | b, |m, &x| m | bit(x))
}

/// The [`byte_mask`] of the bytes a path must hold for a wildcard pattern
/// to match it: all but `*` and a final `$`.
fn wild_mask(pattern: &[u8]) -> u64 {
    let literal = pattern.strip_suffix(b"$").unwrap_or(pattern);
    byte_mask(literal) & !byte_mask(b"*")
}

fn pattern<'a>(text: &'a [u8], rule: &Rule) -> &'a [u8] {
    &text[rule.pattern.start as usize..rule.pattern.end as usize]
}

/// How a set matches a rule: the length of its literal prefix (the pattern
/// less trailing `*`s for a prefix rule, the part before the first `*` for
/// a wildcard rule) and whether the rest needs wildcard matching.
fn literal_prefix(pat: &[u8], wildcards: bool) -> (usize, bool) {
    if !wildcards {
        return (pat.len(), false);
    }
    let trimmed = pat.len() - pat.iter().rev().take_while(|&&b| b == b'*').count();
    // Patterns are short: a plain loop beats setting up a vector search.
    let star = if pat.len() < 32 {
        pat.iter().position(|&b| b == b'*')
    } else {
        memchr::memchr(b'*', pat)
    };
    let wild = star.is_some_and(|s| s < trimmed) || pat[..trimmed].last() == Some(&b'$');
    if !wild {
        return (trimmed, false);
    }
    // The part before the first `*`, or before a final `$`.
    let before_dollar = pat.strip_suffix(b"$").unwrap_or(pat);
    (star.unwrap_or(before_dollar.len()), true)
}

impl Tables {
    /// Releases spare capacity once the file is compiled.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.rules.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.text.capacity()
            + self.rules.capacity() * size_of::<Rule>()
            + self.ids.capacity() * size_of::<u32>()
    }
}

/// Adds to `index` a set over the rules `ids` (of `rules`, whose patterns
/// are in `text`), ranked by `order`.
pub(crate) fn build_set(
    text: &[u8],
    rules: &[Rule],
    ids: &[u32],
    wildcards: bool,
    order: Order,
    index: &mut Index,
) -> RuleSet {
    let items = keyed(text, rules, ids, wildcards, order);
    let bytes = |r: Range32| &text[r.start as usize..r.end as usize];
    let rank = |id: u32| rules[id as usize].rank(order);
    let prefix_start = index.prefix.len();
    let wild_start = index.wild.len();
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let key = items[i].0;
        let same = items[i..]
            .iter()
            .take_while(|it| bytes(it.0) == bytes(key))
            .count();
        let group = &items[i..i + same];
        i += same;
        // The best prefix rule here is the first (groups are best first).
        let here = group.iter().find(|it| !it.2).map_or(NONE, |it| it.1);
        let wild_at = to_u32(index.wild.len());
        push_wild(text, rules, group, order, index);
        let me = bytes(key);
        while let Some(&top) = stack.last() {
            if me.starts_with(bytes(index.prefix[top].bytes)) {
                break;
            }
            stack.pop();
        }
        let (parent, inherited, chain_wild) = match stack.last() {
            Some(&p) => (
                to_u32(p - prefix_start),
                match index.prefix[p].best {
                    NONE => NONE,
                    b => b & !ALLOWED,
                },
                index.prefix[p].wild_on_chain(),
            ),
            None => (ROOT, NONE, false),
        };
        let has_wild = to_u32(index.wild.len()) > wild_at;
        let parent = if has_wild || chain_wild {
            parent | WILD_ON_CHAIN
        } else {
            parent
        };
        let best = match (inherited, here) {
            (NONE, b) | (b, NONE) => b,
            (a, b) => {
                if rank(a) > rank(b) {
                    a
                } else {
                    b
                }
            }
        };
        stack.push(index.prefix.len());
        index.wild_at.push(wild_at);
        index.prefix.push(PrefixEntry {
            head: head_be(me),
            bytes: key,
            best: match best {
                NONE => NONE,
                b => with_allowed(rules, b, order),
            },
            parent,
        });
    }
    RuleSet {
        prefix: Range32::new(prefix_start, index.prefix.len()),
        wild: Range32::new(wild_start, index.wild.len()),
    }
}

/// Every rule of `ids` (but a `priority() == 0` one under
/// [`Order::Longest`]) under its literal prefix, with whether it has
/// wildcards past it; sorted by prefix, best rule first.
#[inline]
fn keyed(
    text: &[u8],
    rules: &[Rule],
    ids: &[u32],
    wildcards: bool,
    order: Order,
) -> Vec<(Range32, u32, bool)> {
    // Every rule under its literal prefix.
    let mut items: Vec<(Range32, u32, bool)> = Vec::with_capacity(ids.len());
    for &id in ids {
        let r = rules[id as usize];
        if r.priority() == 0 && order == Order::Longest {
            continue;
        }
        let (key_len, wild) = literal_prefix(pattern(text, &r), wildcards);
        let key = Range32 {
            start: r.pattern.start,
            end: r.pattern.start + to_u32(key_len),
        };
        items.push((key, id, wild));
    }
    let bytes = |r: Range32| &text[r.start as usize..r.end as usize];
    let rank = |id: u32| rules[id as usize].rank(order);
    items.sort_by(|a, b| {
        bytes(a.0)
            .cmp(bytes(b.0))
            .then_with(|| rank(b.1).cmp(&rank(a.1)))
    });
    items
}

/// Adds to `index` a wildcard entry for each rule of `group` (rules under
/// one literal prefix) that has wildcards past it.
#[inline]
fn push_wild(
    text: &[u8],
    rules: &[Rule],
    group: &[(Range32, u32, bool)],
    order: Order,
    index: &mut Index,
) {
    for &(_, id, _) in group.iter().filter(|it| it.2) {
        let mask = wild_mask(pattern(text, &rules[id as usize]));
        let rank = rules[id as usize].rank_key(order);
        index.wild.push(WildEntry {
            rank,
            rule: with_allowed(rules, id, order),
            mask,
        });
    }
}

/// Bytes of a packed prefix entry: the head (16), the place of its bytes
/// in the block (4 + 4), the best rule (4) and the parent (4).
const PREFIX: usize = 32;
/// Bytes of a prefix entry's record in the second array of a block: the
/// first of its wildcard entries (4) and the rank of its best rule (8).
const WILD_AT: usize = 12;
/// Bytes of a packed wildcard entry: the rank (8), the byte mask (8), the
/// rule with `ALLOWED` (4) and the place of the pattern's rest (4 + 4).
const WILD: usize = 28;
/// Blocks with at least this many prefix entries (and at most
/// `u16::MAX`) have a table: for each byte value `c`, how many entries
/// sort before `/c` (then how many before `0`), so that a path `/c…` is
/// searched among the entries that start with `/c` only: a few steps
/// instead of about eight, each a load that waits for the one before.
const TABLE_MIN: usize = 16;

/// The bytes of each of the 257 counts of the table of a block with
/// `prefix` prefix entries: 1 up to 255 entries, 2 up to `u16::MAX`, 0
/// (no table) for fewer than [`TABLE_MIN`] or more.
fn table_width(prefix: usize) -> usize {
    match prefix {
        0..TABLE_MIN => 0,
        TABLE_MIN..=0xFF => 1,
        0x100..=0xFFFF => 2,
        _ => 0,
    }
}

/// The bytes of that table, padded to eight.
fn table_len(prefix: usize) -> usize {
    (257 * table_width(prefix)).next_multiple_of(8)
}

/// `N` bytes of `bytes` from `at` (zeros past its end).
#[inline]
fn array<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    bytes
        .get(at..at + N)
        .and_then(|b| b.try_into().ok())
        .unwrap_or([0; N])
}

/// The index of a set in one allocation, so that an answer follows no
/// pointer from one part to another: a count of prefix entries and of
/// wildcard entries, for a block of many prefix entries a table of where
/// the entries of each second byte start ([`TABLE_MIN`]), the prefix entries
/// ([`PREFIX`] bytes each, sorted),
/// for each prefix entry the first of its wildcard entries (and the count
/// after the last), the wildcard entries ([`WILD`] bytes each, best first
/// within an entry), then the bytes they refer to: each prefix entry's
/// literal prefix and each wildcard rule's pattern after its entry's
/// prefix. An answer reads this block, and the rules only to rank a prefix
/// answer against wildcard rules.
#[derive(Clone, Copy)]
struct Packed<'a> {
    bytes: &'a [u8],
    prefix: usize,
    /// Where the prefix entries start.
    heads: usize,
    wild_at: usize,
    wild: usize,
}

impl<'a> Packed<'a> {
    fn new(bytes: &'a [u8]) -> Packed<'a> {
        let prefix = u32_at(bytes, 0) as usize;
        let heads = 8 + table_len(prefix);
        let wild_at = heads + prefix * PREFIX;
        Packed {
            bytes,
            prefix,
            heads,
            wild_at,
            wild: wild_at + WILD_AT * prefix + 4,
        }
    }

    #[inline]
    fn head(&self, k: usize) -> u128 {
        u128::from_le_bytes(array(self.bytes, self.heads + k * PREFIX))
    }

    /// The first eight bytes of head `k`, as a number that orders alike.
    #[inline]
    fn head_high(&self, k: usize) -> u64 {
        u64::from_le_bytes(array(self.bytes, self.heads + k * PREFIX + 8))
    }

    /// The next eight bytes of head `k`, likewise.
    #[inline]
    fn head_low(&self, k: usize) -> u64 {
        u64::from_le_bytes(array(self.bytes, self.heads + k * PREFIX))
    }

    #[inline]
    fn entry(&self, k: usize) -> PrefixEntry {
        let e: [u8; PREFIX] = array(self.bytes, self.heads + k * PREFIX);
        let word = |i: usize| u32::from_le_bytes([e[i], e[i + 1], e[i + 2], e[i + 3]]);
        let mut head = [0u8; 16];
        head.copy_from_slice(&e[..16]);
        PrefixEntry {
            head: u128::from_le_bytes(head),
            bytes: Range32 {
                start: word(16),
                end: word(16) + word(20),
            },
            best: word(24),
            parent: word(28),
        }
    }

    /// The entries that may share the first two bytes of `path`: those
    /// that start with them when the block has a table and the path starts
    /// with `/` and another byte; all of them otherwise.
    #[inline]
    fn candidates(&self, path: &[u8]) -> (usize, usize) {
        match path {
            [b'/', c, ..] if self.heads > 8 => {
                let c = usize::from(*c);
                if self.prefix <= 0xFF {
                    let [lo, hi] = array(self.bytes, 8 + c);
                    (usize::from(lo), usize::from(hi))
                } else {
                    let [l0, l1, h0, h1] = array(self.bytes, 8 + 2 * c);
                    (
                        usize::from(u16::from_le_bytes([l0, l1])),
                        usize::from(u16::from_le_bytes([h0, h1])),
                    )
                }
            }
            _ => (0, self.prefix),
        }
    }

    #[inline]
    fn slice(&self, r: Range32) -> &'a [u8] {
        self.bytes
            .get(r.start as usize..r.end as usize)
            .unwrap_or_default()
    }

    /// The wildcard entries of prefix entry `k`, as their bytes.
    #[inline]
    fn wild_records(&self, k: usize) -> &'a [u8] {
        let at =
            |k: usize| self.wild + WILD * u32_at(self.bytes, self.wild_at + WILD_AT * k) as usize;
        self.bytes.get(at(k)..at(k + 1)).unwrap_or_default()
    }

    /// The [`Rule::rank_key`] of prefix entry `k`'s best rule (0 if none),
    /// so that an answer that must rank it against wildcard rules does not
    /// read the rules.
    #[inline]
    fn best_rank(&self, k: usize) -> u64 {
        u64::from_le_bytes(array(self.bytes, self.wild_at + WILD_AT * k + 4))
    }
}

/// The rule of a wildcard entry (with `ALLOWED`), its pattern's rest and
/// how that is matched, from the entry's bytes after its rank and mask
/// (read only for the entries that pass both).
#[inline]
fn wild_rest(tail: &[u8]) -> (u32, Range32, Shape) {
    let word = |i: usize| u32_at(tail, i);
    let rest = Range32 {
        start: word(4),
        end: word(4) + (word(8) & !SHAPE_BITS),
    };
    (word(0), rest, Shape::from_bits(word(8)))
}

/// A set over the rules `ids` (of `rules`, whose patterns are in `text`),
/// ranked by `order`, indexed in one block (see [`Packed`]).
pub(crate) fn pack_index(
    text: &[u8],
    rules: &[Rule],
    ids: &[u32],
    wildcards: bool,
    order: Order,
) -> Box<[u8]> {
    let mut index = Index::default();
    let set = build_set(text, rules, ids, wildcards, order, &mut index);
    let prefix = set.prefix.of(&index.prefix);
    let wild_at = set.prefix.of(&index.wild_at);
    let wild = set.wild.of(&index.wild);
    let width = table_width(prefix.len());
    let tails_at = 8
        + table_len(prefix.len())
        + prefix.len() * PREFIX
        + WILD_AT * prefix.len()
        + 4
        + wild.len() * WILD;
    let mut out = Vec::with_capacity(tails_at);
    let mut tails: Vec<u8> = Vec::new();
    let mut place = |bytes: &[u8], out: &mut Vec<u8>| {
        out.extend_from_slice(&to_u32(tails_at + tails.len()).to_le_bytes());
        out.extend_from_slice(&to_u32(bytes.len()).to_le_bytes());
        tails.extend_from_slice(bytes);
    };
    out.extend_from_slice(&to_u32(prefix.len()).to_le_bytes());
    out.extend_from_slice(&to_u32(wild.len()).to_le_bytes());
    if width > 0 {
        // Entries sort by their bytes: those before `/c` are a prefix of
        // the array.
        let mut before = |key: &[u8]| {
            let n = prefix
                .partition_point(|e| &text[e.bytes.start as usize..e.bytes.end as usize] < key);
            out.extend_from_slice(&n.to_le_bytes()[..width]);
        };
        for c in 0..=u8::MAX {
            before(&[b'/', c]);
        }
        before(b"0");
        out.resize(8 + table_len(prefix.len()), 0);
    }
    for e in prefix {
        out.extend_from_slice(&e.head.to_le_bytes());
        place(
            &text[e.bytes.start as usize..e.bytes.end as usize],
            &mut out,
        );
        out.extend_from_slice(&e.best.to_le_bytes());
        out.extend_from_slice(&e.parent.to_le_bytes());
    }
    let first = set.wild.start;
    for (&w, e) in wild_at.iter().zip(prefix) {
        out.extend_from_slice(&(w - first).to_le_bytes());
        let rank = match e.best {
            NONE => 0,
            b => rules[(b & !ALLOWED) as usize].rank_key(order),
        };
        out.extend_from_slice(&rank.to_le_bytes());
    }
    out.extend_from_slice(&to_u32(wild.len()).to_le_bytes());
    for (k, e) in prefix.iter().enumerate() {
        let end = wild_at.get(k + 1).map_or(set.wild.end, |&w| w);
        let from = e.bytes.len();
        for w in &index.wild[wild_at[k] as usize..end as usize] {
            out.extend_from_slice(&w.rank.to_le_bytes());
            out.extend_from_slice(&w.mask.to_le_bytes());
            out.extend_from_slice(&w.rule.to_le_bytes());
            let rest = &pattern(text, &rules[(w.rule & !ALLOWED) as usize])[from..];
            out.extend_from_slice(&to_u32(tails_at + tails.len()).to_le_bytes());
            let len = to_u32(rest.len()).min(!SHAPE_BITS);
            out.extend_from_slice(&(len | Shape::of(rest).bits()).to_le_bytes());
            tails.extend_from_slice(rest);
        }
    }
    out.extend_from_slice(&tails);
    out.into_boxed_slice()
}

/// The rule that decides `path` under a set indexed by [`pack_index`] over
/// `rules`, if any.
pub(crate) fn decide(packed: &[u8], path: &[u8]) -> Option<Verdict> {
    let p = Packed::new(packed);
    let k = deepest(p, path)?;
    let entry = p.entry(k);
    let best = entry.best;
    if !entry.wild_on_chain() {
        return (best != NONE).then(|| hit(best));
    }
    let mut best = (best != NONE).then_some(best);
    let mut best_rank = best.map(|_| p.best_rank(k));
    // The wildcard rules that can match are those of the entries on the
    // chain: their literal part before the first `*` is a prefix of the
    // path, so matching starts after it.
    let mut path_mask = None;
    let mut wild = WildPath::new(path);
    let mut next = Some((k, entry));
    while let Some((k, entry)) = next {
        let from = entry.bytes.len();
        for record in p.wild_records(k).chunks_exact(WILD) {
            let Ok(
                &[
                    r0,
                    r1,
                    r2,
                    r3,
                    r4,
                    r5,
                    r6,
                    r7,
                    m0,
                    m1,
                    m2,
                    m3,
                    m4,
                    m5,
                    m6,
                    m7,
                    ref tail @ ..,
                ],
            ) = <&[u8; WILD]>::try_from(record)
            else {
                break;
            };
            let rank = u64::from_le_bytes([r0, r1, r2, r3, r4, r5, r6, r7]);
            if best_rank.is_some_and(|b| rank <= b) {
                break;
            }
            // The path's mask is made once, when a rule is first tried.
            let have = *path_mask.get_or_insert_with(|| byte_mask(path));
            if u64::from_le_bytes([m0, m1, m2, m3, m4, m5, m6, m7]) & !have != 0 {
                continue;
            }
            let (rule, rest, shape) = wild_rest(tail);
            if wild.matches(shape, p.slice(rest), from) {
                best = Some(rule);
                best_rank = Some(rank);
                break;
            }
        }
        next = entry
            .parent()
            .map(|k| (k, p.entry(k)))
            .filter(|(_, e)| e.wild_on_chain());
    }
    best.map(hit)
}

fn verdict(rules: &[Rule], rule: u32, order: Order) -> Verdict {
    let r = &rules[rule as usize];
    Verdict {
        rule,
        allowed: r.allow || (order == Order::First && r.priority() == 0),
    }
}

/// The first sixteen bytes of `bytes`, big-endian, zeros past its end: if
/// two such numbers differ, they order the slices as the slices' bytes do.
#[inline]
fn head_be(bytes: &[u8]) -> u128 {
    if let Some(first) = bytes.first_chunk::<16>() {
        return u128::from_be_bytes(*first);
    }
    let n = bytes.len();
    let high = u128::from(head_word(bytes).swap_bytes()) << 64;
    match bytes.get(n.saturating_sub(8)..) {
        // Eight to fifteen bytes: the word ending the slice, its bytes
        // before the ninth shifted out.
        Some(last) if n > 8 => {
            let last = u64::from_be_bytes(last.try_into().unwrap_or_default());
            high | u128::from(last << (8 * (16 - n)))
        }
        _ => high,
    }
}

/// How many of the first bytes of `a` and `b` are equal, eight at a time
/// (patterns and paths are short: an inline loop beats a call to
/// `memcmp`).
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let x = u64::from_le_bytes(x.try_into().unwrap_or_default());
        let y = u64::from_le_bytes(y.try_into().unwrap_or_default());
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // The last bytes (fewer than eight) without a loop whose length a new
    // path would mispredict: as the word ending both slices (its bytes
    // before `i` are equal), or two short words.
    let diff = match (a.last_chunk::<8>(), b.last_chunk::<8>()) {
        (Some(x), Some(y)) => (u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y), n - 8),
        _ => (head_word(&a[i..]) ^ head_word(&b[i..]), i),
    };
    (diff.1 + (diff.0.trailing_zeros() / 8) as usize).min(n)
}

/// Whether `a` sorts at or before `b`, byte by byte.
#[inline]
fn not_after(a: &[u8], b: &[u8]) -> bool {
    let c = common_prefix(a, b);
    match (a.get(c), b.get(c)) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(x), Some(y)) => x < y,
    }
}

/// How many heads are below `head`: a binary search whose steps do not
/// branch on the comparison (a conditional move: cold, a branch would go
/// either way). The sixteen-byte comparison is made of two eight-byte ones
/// combined without a branch.
#[inline]
fn heads_below(p: Packed<'_>, head: u128, path: &[u8]) -> usize {
    // Entries before `lo` sort before the path, those from `hi` after it.
    let (lo, hi) = p.candidates(path);
    if lo >= hi {
        return lo;
    }
    let (high, low) = ((head >> 64) as u64, head as u64);
    let below = |k: usize| {
        let h = p.head_high(k);
        (h < high) | ((h == high) & (p.head_low(k) < low))
    };
    let mut base = lo;
    let mut size = hi - lo;
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = std::hint::select_unpredictable(below(mid), mid, base);
        size -= half;
    }
    base + usize::from(below(base))
}

/// The first index in `lo..hi` where `pred` fails (it holds, then fails).
#[inline]
fn partition(mut lo: usize, mut hi: usize, pred: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The deepest entry whose bytes are a prefix of `path`.
fn deepest(p: Packed<'_>, path: &[u8]) -> Option<usize> {
    // The last entry not after the path: entries whose head is below the
    // path's are before it, above it after; only those with the same head
    // need their bytes compared.
    let head = head_be(path);
    let below = heads_below(p, head, path);
    // Most paths share their head with no entry or a few: gallop over
    // the run of equal heads rather than search the rest of the array.
    let found = if below < p.prefix && p.head(below) == head {
        let mut step = 1;
        while below + step < p.prefix && p.head(below + step) == head {
            step *= 2;
        }
        let end = p.prefix.min(below + step + 1);
        let same = partition(below, end, |k| p.head(k) == head);
        partition(below, same, |k| not_after(p.slice(p.entry(k).bytes), path))
    } else {
        below
    };
    let mut k = found.checked_sub(1)?;
    let mut entry = p.entry(k);
    let len = entry.bytes.len();
    // How much of the entry the path shares. Heads that differ settle it
    // without reading the entry's bytes: the equal leading bytes of the
    // two heads, within both lengths. So does an equal head when the
    // entry has no more than sixteen bytes.
    let x = entry.head ^ head;
    let common = if x != 0 || len <= 16 {
        ((x.leading_zeros() / 8) as usize).min(len).min(path.len())
    } else {
        // Equal heads: the first sixteen bytes are equal (up to the path's
        // end, the head being padded with zeros).
        let skip = path.len().min(16);
        skip + common_prefix(&p.slice(entry.bytes)[skip..], &path[skip..])
    };
    if common >= len {
        return Some(k);
    }
    // Every entry that is a prefix of the path is a prefix of this one no
    // longer than their common prefix: walk up to the first such
    // ancestor.
    loop {
        k = entry.parent()?;
        entry = p.entry(k);
        if entry.bytes.len() <= common {
            return Some(k);
        }
    }
}

/// The first eight bytes of `bytes` (zeros after its end), as one word.
/// A shorter slice is read as two overlapping loads (no copy loop, which
/// the compiler would make a call to `memcpy`).
#[inline]
fn head_word(bytes: &[u8]) -> u64 {
    if let Some(first) = bytes.first_chunk::<8>() {
        return u64::from_le_bytes(*first);
    }
    let n = bytes.len();
    if n >= 4 {
        let four = |at: usize| {
            u64::from(u32::from_le_bytes(
                bytes[at..at + 4].try_into().unwrap_or_default(),
            ))
        };
        four(0) | four(n - 4) << (8 * (n - 4))
    } else if n > 0 {
        let byte = |at: usize| u64::from(bytes[at]) << (8 * at);
        byte(0) | byte(n / 2) | byte(n - 1)
    } else {
        0
    }
}

/// Which bytes of a head word count for a literal prefix of `len` bytes.
#[inline]
fn head_mask(len: usize) -> u64 {
    // No branch on the length: a shift of a wider number.
    ((1u128 << (8 * len.min(8))) - 1) as u64
}

/// Flag in a packed entry's key: the rest of the pattern needs wildcard
/// matching.
const SCAN_WILD: u32 = 1 << 31;

/// Bytes of one packed entry: the head (8), the rule with `ALLOWED` (4),
/// the rank (4), the key with `SCAN_WILD` (4), the place of the tail (4)
/// and, for a wildcard rule, the [`wild_mask`] of its pattern (8; zero for
/// a prefix rule).
const ENTRY: usize = 32;

/// Flag in a packed block's count: some entry is a wildcard rule, so a
/// scan makes the path's [`byte_mask`].
const SCAN_ANY_WILD: u32 = 1 << 31;

#[inline]
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(array(bytes, at))
}

#[inline]
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// The rules of a set as a linear scan tries them, in one allocation: a
/// count, then one [`ENTRY`]-byte entry per rule, best first (under
/// longest match by the pattern's length, then `allow`, then the earlier
/// line; under first match in file order), so that the first entry that
/// matches decides; then the pattern bytes a scan may need past an entry's
/// head (its tail). An entry holds the first (up to) eight bytes of the
/// rule's literal prefix, so that most rules are ruled out by one
/// comparison, the pattern's length, and the rule with its verdict. A scan
/// reads this block and nothing else: not the rules, not the text arena.
///
/// The tail of a prefix rule is its literal prefix after the eighth byte;
/// that of a wildcard rule is its pattern after the head's bytes, which
/// wildcard matching starts from.
pub(crate) fn pack(
    text: &[u8],
    rules: &[Rule],
    ids: impl Iterator<Item = u32> + Clone,
    wildcards: bool,
    order: Order,
) -> Box<[u8]> {
    let kept = |id: &u32| !(rules[*id as usize].priority() == 0 && order == Order::Longest);
    let rank = |id: u32| {
        let r = &rules[id as usize];
        r.priority().min(u32::MAX >> 1) << 1 | u32::from(r.allow)
    };
    // Best first: under longest match the longer pattern, then `allow`,
    // then (the sort is stable) the earlier line; under first match, file
    // order. The first entry that matches decides.
    let mut ids: Vec<u32> = ids.filter(kept).collect();
    if order == Order::Longest {
        ids.sort_by_key(|&id| Reverse(rank(id)));
    }
    let count = ids.len();
    let mut out = Vec::with_capacity(4 + count * ENTRY);
    let any_wild = ids
        .iter()
        .any(|&id| literal_prefix(pattern(text, &rules[id as usize]), wildcards).1);
    out.extend_from_slice(
        &(to_u32(count).min(!SCAN_ANY_WILD) | if any_wild { SCAN_ANY_WILD } else { 0 })
            .to_le_bytes(),
    );
    let mut tails: Vec<u8> = Vec::new();
    let tails_at = 4 + count * ENTRY;
    for id in ids {
        let r = &rules[id as usize];
        let pat = pattern(text, r);
        let (key_len, wild) = literal_prefix(pat, wildcards);
        let from = if wild { key_len.min(8) } else { 8 };
        let tail = if wild {
            &pat[from..]
        } else {
            pat.get(from..key_len).unwrap_or_default()
        };
        let rank = rank(id);
        out.extend_from_slice(&(head_word(pat) & head_mask(key_len)).to_le_bytes());
        out.extend_from_slice(&with_allowed(rules, id, order).to_le_bytes());
        out.extend_from_slice(&rank.to_le_bytes());
        let key = to_u32(key_len).min(!(SCAN_WILD | SHAPE_BITS))
            | if wild {
                SCAN_WILD | Shape::of(tail).bits()
            } else {
                0
            };
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&to_u32(tails_at + tails.len()).to_le_bytes());
        out.extend_from_slice(&(if wild { wild_mask(pat) } else { 0 }).to_le_bytes());
        tails.extend_from_slice(tail);
    }
    out.extend_from_slice(&tails);
    out.into_boxed_slice()
}

/// Whether `rules` (in set order) may be packed: ranked by the pattern's
/// length and verdict alone, the earlier of two equal rules must be the
/// one on the earlier line, and under first match no two rules may share
/// a line.
fn packable(rules: &[Rule], order: Order) -> bool {
    match order {
        Order::Longest => rules.windows(2).all(|w| w[0].line <= w[1].line),
        Order::First => rules.windows(2).all(|w| w[0].line < w[1].line),
    }
}

/// The rule that decides `path` among the rules of a [`pack`]ed block: the
/// answer of [`decide`] for a set over the same rules.
pub(crate) fn scan(packed: &[u8], path: &[u8]) -> Option<Verdict> {
    let flagged = u32_at(packed, 0);
    let count = (flagged & !SCAN_ANY_WILD) as usize;
    let entries = packed.get(4..4 + count * ENTRY).unwrap_or_default();
    let word = head_word(path);
    // The bytes of the path, for wildcard rules whose literal bytes it
    // lacks; every path has all a prefix rule's (its mask is zero).
    let have = if flagged & SCAN_ANY_WILD != 0 {
        byte_mask(path)
    } else {
        u64::MAX
    };
    // First, without a branch per entry, the entries whose head the path
    // has (a bit each, 64 entries at a time: a set that is always scanned
    // has at most `SCAN_ALWAYS`); then each of those, best first, until one
    // matches. A new path mispredicts the few candidates, not every entry.
    for group in entries.chunks(64 * ENTRY) {
        let mut candidates = 0u64;
        for (k, e) in group.chunks_exact(ENTRY).enumerate() {
            let head = u64_at(e, 0);
            let len = (u32_at(e, 16) & !(SCAN_WILD | SHAPE_BITS)) as usize;
            let holds = ((word ^ head) & head_mask(len) == 0) & (u64_at(e, 24) & !have == 0);
            candidates |= u64::from(holds) << k;
        }
        while candidates != 0 {
            let k = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let e = group.get(k * ENTRY..(k + 1) * ENTRY).unwrap_or_default();
            if let Some(rule) = scan_entry(packed, e, path) {
                return Some(hit(rule));
            }
        }
    }
    None
}

/// Whether `path`, whose head matched entry `e` of a [`pack`]ed block, is
/// matched by the entry's rule: that rule (with `ALLOWED`) if so.
#[inline]
fn scan_entry(packed: &[u8], e: &[u8], path: &[u8]) -> Option<u32> {
    let rank = u32_at(e, 12);
    let key = u32_at(e, 16);
    let tail = u32_at(e, 20) as usize;
    let len = (key & !(SCAN_WILD | SHAPE_BITS)) as usize;
    let matched = if key & SCAN_WILD != 0 {
        // The head settled the bytes before `from`.
        let from = len.min(8);
        let end = tail + (rank >> 1) as usize - from;
        path.len() >= from
            && Shape::from_bits(key)
                .matches(packed.get(tail..end).unwrap_or_default(), &path[from..])
    } else {
        path.len() >= len
            && (len <= 8 || {
                let rest = packed.get(tail..tail + len - 8).unwrap_or_default();
                common_prefix(rest, &path[8..len]) == len - 8
            })
    };
    matched.then(|| u32_at(e, 8))
}

/// The rule that decides `path` among `rules`, trying each as it stands:
/// what [`scan`] answers, with nothing built first. Under first match the
/// rules must be in file order, with no two on one line.
pub(crate) fn scan_rules(
    text: &[u8],
    rules: &[Rule],
    wildcards: bool,
    order: Order,
    path: &[u8],
) -> Option<Verdict> {
    let mut best: Option<(u32, Rank)> = None;
    let mut wildcard = WildPath::new(path);
    for (id, r) in (0u32..).zip(rules) {
        if r.priority() == 0 && order == Order::Longest {
            continue;
        }
        let pat = pattern(text, r);
        // A first byte that is not a wildcard must be the path's.
        if pat
            .first()
            .is_some_and(|b| path.first() != Some(b) && *b != b'*' && *b != b'$')
        {
            continue;
        }
        let rank = r.rank(order);
        if best.is_some_and(|(_, b)| rank <= b) {
            continue;
        }
        let (key, wild) = literal_prefix(pat, wildcards);
        let hit = if wild {
            wildcard.matches(Shape::General, pat, 0)
        } else {
            path.starts_with(&pat[..key])
        };
        if hit {
            best = Some((id, rank));
            if order == Order::First {
                break;
            }
        }
    }
    best.map(|(rule, _)| verdict(rules, rule, order))
}

thread_local! {
    /// Where the block this thread answered from last starts.
    static LAST_BLOCK: Cell<usize> = const { Cell::new(0) };
}

/// When this thread answers from another block than at its last answer,
/// loads the block's cache lines together before answering: a block not
/// asked for a while is out of the cache, and a search reads its lines one
/// after the other, each load waiting for the one before; loaded together,
/// their misses overlap. Answers from the same block pay one comparison.
#[inline]
fn load_on_switch(block: &[u8]) {
    let at = block.as_ptr().addr();
    LAST_BLOCK.with(|last| {
        if last.get() != at {
            last.set(at);
            load_lines(block);
        }
    });
}

/// Reads one byte of each cache line of `block`'s first [`LOAD_LINES`]
/// bytes, four independent streams at a time.
#[cold]
#[inline(never)]
fn load_lines(block: &[u8]) {
    let block = &block[..block.len().min(LOAD_LINES)];
    let mut acc = [0u8; 4];
    for (k, chunk) in block.chunks(256).enumerate() {
        for (i, a) in acc.iter_mut().enumerate() {
            *a ^= chunk.get(64 * i).copied().unwrap_or(k as u8);
        }
    }
    std::hint::black_box(acc);
}

/// How much of a block [`load_on_switch`] loads: all of most blocks, and
/// the table, prefix entries and wildcard records of large ones (a
/// wildcard answer reads the records after the entries).
const LOAD_LINES: usize = 16384;

/// Sets with at most this many rules are always answered by a scan.
const SCAN_ALWAYS: usize = 16;

/// The rules of one set, indexed on demand, in one block built once. The
/// first question is answered by trying every rule as it stands, so that a
/// one-off question never pays for building anything; at the second, a
/// small set (up to [`SCAN_ALWAYS`] rules) builds a block to scan
/// ([`pack`]) and a larger one its index ([`pack_index`]), which answer
/// from then on. Every stage answers alike.
///
/// It holds no rules: each call is given them (the same every time), with
/// the order and whether wildcards count, which are the file's. A set
/// that is never asked costs this struct and nothing else.
#[derive(Debug)]
pub(crate) struct LazySet {
    /// Whether a scan may answer ([`packable`]): if not, the index answers
    /// every question.
    scannable: bool,
    /// Whether a question was answered by trying the rules (a hint: a
    /// race only moves the moment the block is built).
    answered: AtomicBool,
    /// The scan block of a small set, or the index of a larger one.
    built: OnceLock<Box<[u8]>>,
}

impl Clone for LazySet {
    fn clone(&self) -> Self {
        LazySet {
            scannable: self.scannable,
            answered: AtomicBool::new(self.answered.load(Ordering::Relaxed)),
            built: self.built.clone(),
        }
    }
}

impl LazySet {
    /// A set over all of `rules` (in file order), ranked by `order`.
    pub(crate) fn new(rules: &[Rule], order: Order) -> LazySet {
        LazySet {
            scannable: packable(rules, order),
            answered: AtomicBool::new(false),
            built: OnceLock::new(),
        }
    }

    /// Whether `rules` are answered by a scan once the block is built.
    #[inline]
    fn scans(&self, rules: &[Rule]) -> bool {
        self.scannable && rules.len() <= SCAN_ALWAYS
    }

    /// The rule that decides `path` (its index in `rules`), if any: what a
    /// [`RuleSet`] over the same rules answers.
    #[inline]
    pub(crate) fn decide(
        &self,
        text: &[u8],
        rules: &[Rule],
        wildcards: bool,
        order: Order,
        path: &[u8],
    ) -> Option<Verdict> {
        match self.built.get() {
            Some(packed) if self.scans(rules) => {
                load_on_switch(packed);
                scan(packed, path)
            }
            Some(index) => {
                load_on_switch(index);
                decide(index, path)
            }
            None => self.decide_building(text, rules, wildcards, order, path),
        }
    }

    /// [`LazySet::decide`] while the block is not built: tries the rules
    /// at the first question, builds the block at the second.
    #[cold]
    #[inline(never)]
    fn decide_building(
        &self,
        text: &[u8],
        rules: &[Rule],
        wildcards: bool,
        order: Order,
        path: &[u8],
    ) -> Option<Verdict> {
        let all = || 0..to_u32(rules.len());
        if self.scannable {
            if !self.answered.load(Ordering::Relaxed) {
                self.answered.store(true, Ordering::Relaxed);
                return scan_rules(text, rules, wildcards, order, path);
            }
            if self.scans(rules) {
                let packed = self
                    .built
                    .get_or_init(|| pack(text, rules, all(), wildcards, order));
                return scan(packed, path);
            }
        }
        let index = self.built.get_or_init(|| {
            let ids: Vec<u32> = all().collect();
            pack_index(text, rules, &ids, wildcards, order)
        });
        decide(index, path)
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.built.get().map_or(0, |s| s.len())
    }
}

/// Bits of a packed length that say how the pattern it measures is
/// matched ([`Shape`]).
const SHAPE_BITS: u32 = 3 << 29;

/// How the rest of a wildcard pattern (after its literal prefix) is
/// matched: most are `*X` (the path holds `X`) or `*X$` (the path ends
/// with `X`), with no other `*`; those are told apart when the block is
/// built, so that answering them is one search, not a parse of the
/// pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Anything else: [`wild_match`].
    General,
    /// `*X`: the path holds `X`.
    Contains,
    /// `*X$`: the path ends with `X`.
    EndsWith,
}

impl Shape {
    fn of(rest: &[u8]) -> Shape {
        match rest {
            [b'*', x @ .., b'$'] if !x.is_empty() && !x.contains(&b'*') => Shape::EndsWith,
            [b'*', x @ .., last] if *last != b'$' && !x.contains(&b'*') && *last != b'*' => {
                Shape::Contains
            }
            _ => Shape::General,
        }
    }

    fn bits(self) -> u32 {
        match self {
            Shape::General => 0,
            Shape::Contains => 1 << 29,
            Shape::EndsWith => 2 << 29,
        }
    }

    #[inline]
    fn from_bits(bits: u32) -> Shape {
        match bits & SHAPE_BITS {
            0 => Shape::General,
            b if b == 1 << 29 => Shape::Contains,
            _ => Shape::EndsWith,
        }
    }

    /// Whether `rest` (of this shape) matches `path` from its start: what
    /// [`wild_match`] answers.
    #[inline]
    fn matches(self, rest: &[u8], path: &[u8]) -> bool {
        match self {
            Shape::General => wild_match(rest, path),
            Shape::Contains => find(path, rest.get(1..).unwrap_or_default()).is_some(),
            Shape::EndsWith => {
                let x = rest.get(1..rest.len() - 1).unwrap_or_default();
                path.ends_with(x)
            }
        }
    }
}

/// One path matched against the wildcard rules of a set, one after the
/// other: each rule as it stands while that is cheap; once the rules tried
/// have walked the path [`INDEX_AFTER`] times over, through a
/// [`PathIndex`] of it, so that an answer over `r` wildcard rules costs
/// about the rules' length times `log n`, not `r × n`.
struct WildPath<'p> {
    path: &'p [u8],
    /// Bytes of the path the rules tried so far may have walked.
    walked: usize,
    index: Option<PathIndex<'p>>,
}

/// How many walks of a path (plus a constant for short paths) the rules
/// of one answer may take before the path is indexed: building the index
/// costs a few dozen walks.
const INDEX_AFTER: usize = 64;

impl<'p> WildPath<'p> {
    #[inline]
    fn new(path: &'p [u8]) -> WildPath<'p> {
        WildPath {
            path,
            walked: 0,
            index: None,
        }
    }

    /// Whether `rest`, of shape `shape`, matches the path from byte
    /// `from`: what `shape.matches(rest, &path[from..])` answers.
    #[inline]
    fn matches(&mut self, shape: Shape, rest: &[u8], from: usize) -> bool {
        if let Some(index) = &self.index {
            // Each segment is a binary search over the suffixes.
            self.walked += rest.len() * log2(self.path.len());
            return index.matches(rest, from);
        }
        if shape != Shape::EndsWith {
            self.walked += self.path.len() - from.min(self.path.len());
            if self.walked > INDEX_AFTER * self.path.len() + (1 << 20) {
                self.index_path();
            }
        }
        shape.matches(rest, self.path.get(from..).unwrap_or_default())
    }

    #[cold]
    #[inline(never)]
    fn index_path(&mut self) {
        self.index = Some(PathIndex::new(self.path));
        // The index costs about as much as `log n` walks.
        self.walked += self.path.len() * log2(self.path.len());
    }
}

impl Drop for WildPath<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.walked != 0 {
            WALKED.with(|w| w.set(w.get().saturating_add(self.walked as u64)));
        }
    }
}

fn log2(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

thread_local! {
    /// Bytes of paths walked by wildcard rules on this thread
    /// ([`wildcard_walk`]).
    static WALKED: Cell<u64> = const { Cell::new(0) };
}

/// The bytes of paths that wildcard rules have walked on this thread so
/// far: the work of matching that grows with the number of wildcard rules
/// a path meets, for callers that bound it. It only grows; take the
/// difference over the answers to measure. Answers that try no wildcard
/// rule add nothing; once a path is indexed, its answers add the index's
/// searches (a pattern's length times `log n` each) and its building.
pub fn wildcard_walk() -> u64 {
    WALKED.with(Cell::get)
}

/// Haystacks up to this long are searched without `memchr`: paths are
/// short, and setting up a vector search costs more than scanning them a
/// word at a time.
const SHORT_HAY: usize = 64;
/// Needles up to this long are searched the same way in any haystack.
const SHORT_NEEDLE: usize = 16;

/// The first occurrence of `needle` in `hay`: for short haystacks (typical
/// paths) or short needles (typical segments of a pattern) a scan for the
/// needle's first byte, eight bytes at a time, each candidate compared in
/// place; the two-way searcher of `memchr` otherwise, so that hostile
/// input stays linear.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some(&first) = needle.first() else {
        return Some(0);
    };
    // Comparing each candidate in place is linear when the needle is
    // short or the haystack is.
    if hay.len() > SHORT_HAY && needle.len() > SHORT_NEEDLE {
        return memchr::memmem::find(hay, needle);
    }
    // Candidates start at or before `last`.
    let last = hay.len().checked_sub(needle.len())?;
    // A needle of up to eight bytes is compared as one word where the
    // haystack has a word left.
    let (word, mask) = (head_word(needle), head_mask(needle.len()));
    let short = needle.len() <= 8;
    let mut at = 0;
    while let Some(i) = swar::first_of(hay, at, last + 1, [first]) {
        let here = match hay.get(i..i + 8) {
            Some(w) if short => {
                (u64::from_le_bytes(w.try_into().unwrap_or_default()) ^ word) & mask == 0
            }
            _ => hay[i..].starts_with(needle),
        };
        if here {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// The first `*` in a pattern (patterns are short: a plain loop beats
/// setting up a vector search).
#[inline]
fn star_in(pattern: &[u8]) -> Option<usize> {
    if pattern.len() < 32 {
        pattern.iter().position(|&b| b == b'*')
    } else {
        memchr::memchr(b'*', pattern)
    }
}

/// Whether a pattern with `*` wildcards and an optional final `$` matches
/// `path` from its start. Greedy: each literal segment is matched at its
/// earliest place after the previous one, which is correct for `*`-only
/// patterns and linear in `path`.
pub(crate) fn wild_match(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.split_last() {
        Some((b'$', before)) => (before, true),
        _ => (pattern, false),
    };
    let Some(star) = star_in(pattern) else {
        return if anchored {
            path == pattern
        } else {
            path.starts_with(pattern)
        };
    };
    if !path.starts_with(&pattern[..star]) {
        return false;
    }
    let mut pos = star;
    let mut rest = &pattern[star + 1..];
    loop {
        let Some(star) = star_in(rest) else {
            // The last segment: at the end of an anchored pattern, the
            // path's last bytes; otherwise anywhere after the previous one.
            return if anchored {
                path.len() >= pos + rest.len() && path.ends_with(rest)
            } else {
                rest.is_empty() || find(&path[pos..], rest).is_some()
            };
        };
        let segment = &rest[..star];
        if !segment.is_empty() {
            match find(&path[pos..], segment) {
                Some(i) => pos += i + segment.len(),
                None => return false,
            }
        }
        rest = &rest[star + 1..];
    }
}

#[cfg(test)]
mod tests {
    use botwarden_testdata::Xorshift;

    use super::*;

    /// The heads of every slice of up to twenty bytes of a text whose
    /// bytes all differ are its first bytes, zero-padded.
    #[test]
    fn heads_are_the_first_bytes_padded() {
        let text: Vec<u8> = (1..=20u8).map(|b| b.wrapping_mul(37) | 0x80).collect();
        for n in 0..=text.len() {
            let bytes = &text[..n];
            let mut word = [0u8; 8];
            let mut wide = [0u8; 16];
            word[..n.min(8)].copy_from_slice(&bytes[..n.min(8)]);
            wide[..n.min(16)].copy_from_slice(&bytes[..n.min(16)]);
            assert_eq!(head_word(bytes), u64::from_le_bytes(word), "{n} bytes");
            assert_eq!(head_be(bytes), u128::from_be_bytes(wide), "{n} bytes");
        }
    }

    #[test]
    fn literal_prefixes() {
        let p = |s: &str| literal_prefix(s.as_bytes(), true);
        assert_eq!(p("/a"), (2, false));
        assert_eq!(p("/a**"), (2, false));
        assert_eq!(p("/a*b"), (2, true));
        assert_eq!(p("/a$"), (2, true));
        assert_eq!(p("/a$*"), (3, true));
        assert_eq!(p("/a*$"), (2, true));
        assert_eq!(p("*"), (0, false));
        assert_eq!(p("$"), (0, true));
        assert_eq!(p(""), (0, false));
        assert_eq!(literal_prefix(b"/a*b$", false), (5, false));
    }

    #[test]
    fn wildcards() {
        let m = |p: &str, s: &str| wild_match(p.as_bytes(), s.as_bytes());
        assert!(m("/*.php$", "/index.php"));
        assert!(!m("/*.php$", "/index.php?x"));
        assert!(m("/*.php", "/index.php?x"));
        assert!(m("/fish*", "/fish"));
        assert!(m("/a*b*c", "/aXbYc"));
        assert!(!m("/a*b*c", "/aXcYb"));
        assert!(m("/a$", "/a"));
        assert!(!m("/a$", "/ab"));
        assert!(m("/a*$", "/abc"));
        assert!(m("*", ""));
        assert!(m("/ab*ab$", "/abab"));
        assert!(!m("/ab*ab$", "/ab"));
        assert!(m("/x$y", "/x$y"));
        assert!(m("/*aab", "/aaab"));
    }

    #[test]
    fn find_agrees_with_a_naive_search() {
        let hay = b"/aaabaaabaab/aab";
        for needle in [&b"aab"[..], b"ab", b"b/", b"zz", b"aaab", b"/aab"] {
            let naive = hay.windows(needle.len()).position(|w| w == needle);
            assert_eq!(find(hay, needle), naive, "{needle:?}");
        }
        let long = [b'a'; 300];
        assert_eq!(find(&long, b"ab"), None);
    }

    /// Whether `pattern` matches `path` from its start, by trying every
    /// split: exponential, for short inputs only.
    fn glob_naive(pattern: &[u8], path: &[u8], anchored: bool) -> bool {
        match pattern.split_first() {
            None => !anchored || path.is_empty(),
            Some((b'*', rest)) => (0..=path.len()).any(|i| glob_naive(rest, &path[i..], anchored)),
            Some((&b, rest)) => path.first() == Some(&b) && glob_naive(rest, &path[1..], anchored),
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::unit_proptest_config())]

        /// Both searches (the word-at-a-time scan of short haystacks and
        /// `memmem` for longer ones) find the first occurrence.
        #[test]
        fn find_is_the_first_occurrence(
            hay in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 0..100),
            needle in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 0..20),
        ) {
            let naive = if needle.is_empty() {
                Some(0)
            } else {
                hay.windows(needle.len()).position(|w| w == needle.as_slice())
            };
            proptest::prop_assert_eq!(find(&hay, &needle), naive);
        }

        /// A pattern matched by its shape is matched as [`wild_match`]
        /// matches it.
        #[test]
        fn shapes_match_as_wild_match(
            rest in proptest::collection::vec(proptest::sample::select(b"ab*$".to_vec()), 0..6),
            path in proptest::collection::vec(proptest::sample::select(b"ab$".to_vec()), 0..10),
        ) {
            proptest::prop_assert_eq!(Shape::of(&rest).matches(&rest, &path), wild_match(&rest, &path));
        }

        /// Greedy matching agrees with trying every way to match.
        #[test]
        fn wild_match_is_glob(
            pattern in proptest::collection::vec(proptest::sample::select(b"ab*".to_vec()), 0..7),
            anchored: bool,
            path in proptest::collection::vec(proptest::sample::select(b"ab".to_vec()), 0..12),
        ) {
            let mut p = pattern.clone();
            if anchored {
                p.push(b'$');
            }
            proptest::prop_assert_eq!(wild_match(&p, &path), glob_naive(&pattern, &path, anchored));
        }
    }

    #[test]
    fn shapes_of_wildcard_rests() {
        assert_eq!(Shape::of(b"*?"), Shape::Contains);
        assert_eq!(Shape::of(b"*.php$"), Shape::EndsWith);
        assert_eq!(Shape::of(b"*$"), Shape::General);
        assert_eq!(Shape::of(b"*a*b"), Shape::General);
        assert_eq!(Shape::of(b"*a$b"), Shape::Contains);
        assert_eq!(Shape::of(b"a*"), Shape::General);
        assert_eq!(Shape::of(b"*"), Shape::General);
        assert_eq!(Shape::of(b"**"), Shape::General);
        for shape in [Shape::General, Shape::Contains, Shape::EndsWith] {
            assert_eq!(Shape::from_bits(shape.bits() | 1234), shape);
        }
    }

    #[test]
    fn hostile_pattern_is_linear() {
        let pattern = format!("/{}a$", "*a".repeat(1000));
        let path = format!("/{}", "a".repeat(6000));
        assert!(wild_match(pattern.as_bytes(), path.as_bytes()));
        let path = format!("/{}b", "a".repeat(6000));
        assert!(!wild_match(pattern.as_bytes(), path.as_bytes()));
    }

    fn tables(rules: &[(&str, bool)]) -> Tables {
        let mut t = Tables::default();
        for (line, &(pat, allow)) in (1..).zip(rules) {
            let start = t.text.len();
            t.text.push_str(pat);
            t.rules.push(Rule {
                pattern: Range32::new(start, t.text.len()),
                line,
                allow,
                derived: false,
            });
        }
        t
    }

    /// A set over the rules `ids` of `t`, indexed.
    /// Tables of rules with these patterns, every third an `allow`, and
    /// the ids of all of them.
    fn every_third_allows(patterns: &[String]) -> (Tables, Vec<u32>) {
        let rules: Vec<(&str, bool)> = patterns
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), i % 3 == 0))
            .collect();
        (tables(&rules), (0..to_u32(rules.len())).collect())
    }

    fn indexed(t: &Tables, ids: &[u32], wildcards: bool, order: Order) -> Box<[u8]> {
        pack_index(t.text.as_bytes(), &t.rules, ids, wildcards, order)
    }

    /// Blocks of many prefix entries search only those that share a path's
    /// second byte, through a table of one byte a count up to 255 entries
    /// and two beyond: every size answers as the rules tried one by one.
    #[test]
    fn tables_of_first_bytes_keep_the_answers() {
        for count in [15, 16, 17, 255, 256, 300] {
            let patterns: Vec<String> = (0..count)
                .map(|i| {
                    let second = char::from(b"abz/0*$"[i % 7]);
                    format!("/{second}{}", i / 7)
                })
                .collect();
            let (t, ids) = every_third_allows(&patterns);
            let text = t.text.as_bytes();
            for order in [Order::Longest, Order::First] {
                let index = indexed(&t, &ids, true, order);
                let mut paths: Vec<String> = patterns
                    .iter()
                    .flat_map(|p| [p.clone(), format!("{p}x"), format!("{p}1")])
                    .collect();
                paths.extend(["", "/", "/a", "/z9", "/~", "a/b", "/\u{0}"].map(String::from));
                for path in &paths {
                    let want = scan_rules(text, &t.rules, true, order, path.as_bytes());
                    let got = decide(&index, path.as_bytes());
                    assert_eq!(got, want, "{count} rules, {order:?}, {path:?}");
                }
            }
        }
    }

    #[test]
    fn longest_prefix_walks_to_ancestors() {
        let t = tables(&[
            ("/a", false),
            ("/ab0", true),
            ("/abc/d", true),
            ("/ab", true),
            ("/a", true),
        ]);
        let index = indexed(&t, &[0, 1, 2, 3, 4], true, Order::Longest);
        let decide = |p: &str| decide(&index, p.as_bytes()).map(|v| v.rule);
        assert_eq!(decide("/abc"), Some(3));
        assert_eq!(decide("/abc/d/e"), Some(2));
        assert_eq!(decide("/ax"), Some(4), "allow wins the tie on /a");
        assert_eq!(decide("/b"), None);
        assert_eq!(decide("/ab0"), Some(1));
    }

    #[test]
    fn first_match_is_the_earliest_matching_line() {
        let t = tables(&[
            ("/a/b", true),
            ("/a", false),
            ("", false),
            ("/a/b/c", false),
        ]);
        let index = indexed(&t, &[0, 1, 2, 3], false, Order::First);
        let decide = |p: &str| decide(&index, p.as_bytes()).map(|v| (v.rule, v.allowed));
        assert_eq!(decide("/a/b/c/d"), Some((0, true)));
        assert_eq!(decide("/a/x"), Some((1, false)));
        assert_eq!(decide("/z"), Some((2, true)), "an empty disallow allows");
    }

    /// Patterns and paths over a small alphabet, from a fixed seed.
    fn random_words(seed: u64, count: usize, alphabet: &[u8], max: usize) -> Vec<String> {
        let mut rng = Xorshift::new(seed);
        let mut next = move || rng.next_u64();
        (0..count)
            .map(|_| {
                let len = (next() % (max as u64 + 1)) as usize;
                let mut w = String::from("/");
                for _ in 0..len {
                    w.push(char::from(
                        alphabet[(next() % alphabet.len() as u64) as usize],
                    ));
                }
                w
            })
            .collect()
    }

    /// A stem that paths and patterns share in part: longer than a scan
    /// entry's head (8 bytes), an index entry's head (16) and the eight
    /// bytes after it.
    const LONG_STEM: &str = "/0123456789abcdef/ghijklm/nopqr/";

    #[test]
    fn scan_and_lazy_set_agree_with_the_index() {
        for (seed, order, wildcards) in [
            (1, Order::Longest, true),
            (2, Order::Longest, false),
            (3, Order::First, false),
            (4, Order::First, true),
        ] {
            for (count, long) in [
                (0, false),
                (1, false),
                (5, false),
                (17, false),
                (60, false),
                (9, true),
                (40, true),
            ] {
                let mut patterns = random_words(seed * 100 + count as u64, count, b"ab*$/", 5);
                if count == 5 {
                    // Patterns that do not start with `/`.
                    patterns.extend(["$", "*", "$*", "", "a$", "*a"].map(String::from));
                }
                // Patterns and paths longer than a head (eight bytes in a
                // scan, sixteen in the index) that share their first
                // bytes, so that the bytes past the head decide.
                let stem = |w: &String, k: usize| {
                    let cut = k % LONG_STEM.len();
                    format!("{}{w}", &LONG_STEM[..cut])
                };
                if long {
                    patterns = patterns
                        .iter()
                        .enumerate()
                        .map(|(k, w)| stem(w, k))
                        .collect();
                }
                let (t, ids) = every_third_allows(&patterns);
                let index = indexed(&t, &ids, wildcards, order);
                let text = t.text.as_bytes();
                let packed = pack(text, &t.rules, ids.iter().copied(), wildcards, order);
                let lazy = LazySet::new(&t.rules, order);
                // Enough paths that a large set builds its index midway.
                let mut paths = random_words(seed, 80, b"ab$/", 7);
                paths.extend(["", "a", "$"].map(String::from));
                if long {
                    paths = paths
                        .iter()
                        .enumerate()
                        .map(|(k, w)| stem(w, k * 7))
                        .collect();
                }
                for path in paths {
                    let want = decide(&index, path.as_bytes());
                    let what = format!("{order:?} {wildcards} {patterns:?} {path}");
                    let scanned = scan(&packed, path.as_bytes());
                    assert_eq!(scanned, want, "scan: {what}");
                    let tried = scan_rules(text, &t.rules, wildcards, order, path.as_bytes());
                    assert_eq!(tried, want, "scan of the rules: {what}");
                    let got = lazy.decide(text, &t.rules, wildcards, order, path.as_bytes());
                    assert_eq!(got, want, "lazy set: {what}");
                }
                assert_eq!(
                    lazy.built.get().map(|b| b.len()),
                    Some(if lazy.scans(&t.rules) {
                        packed.len()
                    } else {
                        index.len()
                    }),
                    "a small set builds its scan block, a large one its index"
                );
            }
        }
    }

    #[test]
    fn many_wildcards_use_the_mask_and_agree() {
        let rules: Vec<(String, bool)> = (0..12)
            .map(|i| (format!("/*{}x{i}", char::from(b'a' + i)), i % 2 == 0))
            .collect();
        let refs: Vec<(&str, bool)> = rules.iter().map(|(p, a)| (p.as_str(), *a)).collect();
        let t = tables(&refs);
        let ids: Vec<u32> = (0..12).collect();
        let index = indexed(&t, &ids, true, Order::Longest);
        let decide = |p: &[u8]| decide(&index, p);
        assert_eq!(decide(b"/zzcx2").map(|v| v.rule), Some(2));
        assert_eq!(decide(b"/zzz"), None);
    }
}
