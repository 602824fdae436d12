//! Compiled rule sets: the part of the matcher that answers one path.
//!
//! All sets of a file live in one [`Tables`]: the rules, their patterns in
//! one text arena, and flat arrays that sets refer to by range, so that a
//! compiled file is a handful of allocations.
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

use std::cmp::Reverse;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

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

/// The compiled rules of one group, or of several groups merged: ranges into
/// [`Tables`]. Both orders use the same structure: the matching prefix
/// rules of a path are the ancestors of one entry, so the best of them is
/// known once the entry is found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleSet {
    order: Order,
    prefix: Range32,
    wild: Range32,
}

/// Every rule set of one compiled file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tables {
    /// Patterns, agent values, tokens, sitemap and host values.
    pub(crate) text: String,
    pub(crate) rules: Vec<Rule>,
    pub(crate) index: Index,
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

impl Index {
    fn shrink_to_fit(&mut self) {
        self.prefix.shrink_to_fit();
        self.wild_at.shrink_to_fit();
        self.wild.shrink_to_fit();
    }

    pub(crate) fn heap_size(&self) -> usize {
        self.prefix.capacity() * size_of::<PrefixEntry>()
            + self.wild_at.capacity() * size_of::<u32>()
            + self.wild.capacity() * size_of::<WildEntry>()
    }
}

/// Files with more wildcard rules than this check the byte mask first.
const MASK_FROM: usize = 4;

fn byte_mask(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |m, &b| m | 1 << (b & 63))
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
    /// Adds a set over the rules `ids`, ranked by `order`.
    pub(crate) fn set(&mut self, ids: &[u32], wildcards: bool, order: Order) -> RuleSet {
        build_set(
            self.text.as_bytes(),
            &self.rules,
            ids,
            wildcards,
            order,
            &mut self.index,
        )
    }

    /// The rule that decides `path` under `set`, if any.
    pub(crate) fn decide(&self, set: RuleSet, path: &[u8]) -> Option<Verdict> {
        decide(self.text.as_bytes(), &self.rules, &self.index, set, path)
    }

    /// Releases spare capacity once the file is compiled.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.rules.shrink_to_fit();
        self.index.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.text.capacity()
            + self.rules.capacity() * size_of::<Rule>()
            + self.index.heap_size()
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
        for &(_, id, _) in group.iter().filter(|it| it.2) {
            let pat = pattern(text, &rules[id as usize]);
            let literal = pat.strip_suffix(b"$").unwrap_or(pat);
            let mask = byte_mask(literal) & !byte_mask(b"*");
            let rank = rules[id as usize].rank_key(order);
            index.wild.push(WildEntry {
                rank,
                rule: with_allowed(rules, id, order),
                mask,
            });
        }
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
        order,
        prefix: Range32::new(prefix_start, index.prefix.len()),
        wild: Range32::new(wild_start, index.wild.len()),
    }
}

/// The rule that decides `path` under `set` (built in `index`), if any.
pub(crate) fn decide(
    text: &[u8],
    rules: &[Rule],
    index: &Index,
    set: RuleSet,
    path: &[u8],
) -> Option<Verdict> {
    let entries = set.prefix.of(&index.prefix);
    let k = deepest(text, entries, path)?;
    let best = entries[k].best;
    if !entries[k].wild_on_chain() {
        return (best != NONE).then(|| hit(best));
    }
    let mut best = (best != NONE).then_some(best);
    let mut best_rank = best.map(|b| rules[(b & !ALLOWED) as usize].rank_key(set.order));
    // The wildcard rules that can match are those of the entries on the
    // chain: their literal part before the first `*` is a prefix of the
    // path, so matching starts after it.
    let wild_at = set.prefix.of(&index.wild_at);
    let mut path_mask = None;
    let mut next = Some(k);
    while let Some(k) = next {
        let end = wild_at.get(k + 1).map_or(set.wild.end, |&w| w);
        let wild = &index.wild[wild_at[k] as usize..end as usize];
        let from = entries[k].bytes.len();
        for w in wild {
            if best_rank.is_some_and(|b| w.rank <= b) {
                break;
            }
            if wild.len() > MASK_FROM {
                let have = *path_mask.get_or_insert_with(|| byte_mask(path));
                if w.mask & !have != 0 {
                    continue;
                }
            }
            let pat = pattern(text, &rules[(w.rule & !ALLOWED) as usize]);
            if wild_match(&pat[from..], &path[from..]) {
                best = Some(w.rule);
                best_rank = Some(w.rank);
                break;
            }
        }
        next = entries[k].parent().filter(|&p| entries[p].wild_on_chain());
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
    let mut b = [0u8; 16];
    match bytes.get(..16) {
        Some(first) => b.copy_from_slice(first),
        None => {
            for (w, &x) in b.iter_mut().zip(bytes) {
                *w = x;
            }
        }
    }
    u128::from_be_bytes(b)
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
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
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
/// branch on the comparison, so that it costs no mispredictions.
#[inline]
fn heads_below(entries: &[PrefixEntry], head: u128) -> usize {
    if entries.is_empty() {
        return 0;
    }
    let mut base = 0;
    let mut size = entries.len();
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = if entries[mid].head < head { mid } else { base };
        size -= half;
    }
    base + usize::from(entries[base].head < head)
}

/// The deepest entry whose bytes are a prefix of `path`.
fn deepest(text: &[u8], entries: &[PrefixEntry], path: &[u8]) -> Option<usize> {
    let bytes = |e: &PrefixEntry| &text[e.bytes.start as usize..e.bytes.end as usize];
    // The last entry not after the path: entries whose head is below the
    // path's are before it, above it after; only those with the same head
    // need their bytes compared.
    let head = head_be(path);
    let below = heads_below(entries, head);
    // Most paths share their head with no entry or a few: gallop over
    // the run of equal heads rather than search the rest of the array.
    let same = match entries.get(below) {
        Some(e) if e.head == head => {
            let rest = &entries[below..];
            let mut step = 1;
            while rest.get(step).is_some_and(|e| e.head == head) {
                step *= 2;
            }
            let end = rest.len().min(step + 1);
            rest[..end].partition_point(|e| e.head == head)
        }
        _ => 0,
    };
    let found = if same == 0 {
        below
    } else {
        below + entries[below..below + same].partition_point(|e| not_after(bytes(e), path))
    };
    let mut k = found.checked_sub(1)?;
    let len = entries[k].bytes.len();
    // How much of the entry the path shares. Heads that differ settle it
    // without reading the entry's bytes: the equal leading bytes of the
    // two heads, within both lengths. So does an equal head when the
    // entry has no more than sixteen bytes.
    let x = entries[k].head ^ head;
    let common = if x != 0 || len <= 16 {
        ((x.leading_zeros() / 8) as usize).min(len).min(path.len())
    } else {
        common_prefix(bytes(&entries[k]), path)
    };
    if common >= len {
        return Some(k);
    }
    // Every entry that is a prefix of the path is a prefix of this one no
    // longer than their common prefix: walk up to the first such
    // ancestor.
    loop {
        k = entries[k].parent()?;
        if entries[k].bytes.len() <= common {
            return Some(k);
        }
    }
}

/// The first eight bytes of `bytes` (zeros after its end), as one word.
#[inline]
fn head_word(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    match bytes.get(..8) {
        Some(first) => b.copy_from_slice(first),
        None => {
            for (w, &x) in b.iter_mut().zip(bytes) {
                *w = x;
            }
        }
    }
    u64::from_le_bytes(b)
}

/// A rule as a linear scan tries it: the first bytes of its literal prefix
/// in one word, so that most rules are ruled out by one comparison.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScanEntry {
    /// The first (up to) eight bytes of the literal prefix.
    head: u64,
    /// The rule's [`Rule::rank_key`].
    rank: u64,
    /// The rule's pattern in the text arena.
    pattern: Range32,
    /// Length of the literal prefix, with `SCAN_WILD` set when the rest of
    /// the pattern needs wildcard matching.
    key: u32,
    /// The rule, with `ALLOWED` set when it allows: a scan reads its
    /// entries (and the pattern's bytes past the eighth), not the rules.
    rule: u32,
}

/// Which bytes of a head word count for a literal prefix of `len` bytes.
#[inline]
fn head_mask(len: usize) -> u64 {
    match len {
        0 => 0,
        1..8 => u64::MAX >> (64 - 8 * len),
        _ => u64::MAX,
    }
}

const SCAN_WILD: u32 = 1 << 31;

/// The scan entries of the rules `ids`, in that order (which must be file
/// order): what [`scan`] answers from, without sorting anything.
pub(crate) fn scan_entries(
    text: &[u8],
    rules: &[Rule],
    ids: impl Iterator<Item = u32>,
    wildcards: bool,
    order: Order,
) -> Vec<ScanEntry> {
    let mut out = Vec::with_capacity(ids.size_hint().0);
    for id in ids {
        let r = &rules[id as usize];
        if r.priority() == 0 && order == Order::Longest {
            continue;
        }
        let pat = pattern(text, r);
        let (key_len, wild) = literal_prefix(pat, wildcards);
        out.push(ScanEntry {
            head: head_word(pat) & head_mask(key_len),
            rank: r.rank_key(order),
            pattern: r.pattern,
            key: to_u32(key_len) | if wild { SCAN_WILD } else { 0 },
            rule: with_allowed(rules, id, order),
        });
    }
    out
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
            wild_match(pat, path)
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

/// The rule that decides `path` among `entries`, trying every rule: the
/// answer of [`decide`] for a set over the same rules, with nothing built
/// but the entries. Under first match the entries must be in file order,
/// with no two rules on one line.
pub(crate) fn scan(
    text: &[u8],
    entries: &[ScanEntry],
    order: Order,
    path: &[u8],
) -> Option<Verdict> {
    let word = head_word(path);
    let mut best: Option<(u32, u64)> = None;
    for e in entries {
        let key = (e.key & !SCAN_WILD) as usize;
        if (word ^ e.head) & head_mask(key) != 0 {
            continue;
        }
        if best.is_some_and(|(_, b)| e.rank <= b) {
            continue;
        }
        let pat = &text[e.pattern.start as usize..e.pattern.end as usize];
        let matched = if e.key & SCAN_WILD != 0 {
            wild_match(pat, path)
        } else {
            // The head settled the first eight bytes.
            path.len() >= key && (key <= 8 || common_prefix(&path[8..key], &pat[8..key]) == key - 8)
        };
        if matched {
            best = Some((e.rule, e.rank));
            if order == Order::First {
                break;
            }
        }
    }
    best.map(|(rule, _)| hit(rule))
}

/// Sets with at most this many rules are always answered by a scan.
const SCAN_ALWAYS: usize = 16;
/// Larger sets answer this many questions by a scan before they build
/// their index: a one-off question never pays for sorting the rules, and a
/// set asked many questions pays for it once.
const SCAN_ANSWERS: u32 = 16;

/// The rules of one robot's groups, indexed on demand. The first question
/// is answered by trying every rule as it stands; later ones by a scan over
/// entries made for it ([`ScanEntry`]), built at the second question; once
/// [`SCAN_ANSWERS`] questions have been asked (and unless there are few
/// rules), by a [`RuleSet`] built once. Every stage answers alike.
#[derive(Debug)]
pub(crate) struct LazySet {
    order: Order,
    wildcards: bool,
    /// Whether a scan may answer (first match needs one rule per line).
    scannable: bool,
    /// Questions answered by a scan so far (a hint: races only move the
    /// moment the next stage is built).
    answered: AtomicU32,
    scan: OnceLock<Vec<ScanEntry>>,
    index: OnceLock<(Index, RuleSet)>,
}

impl Clone for LazySet {
    fn clone(&self) -> Self {
        LazySet {
            order: self.order,
            wildcards: self.wildcards,
            scannable: self.scannable,
            answered: AtomicU32::new(self.answered.load(Ordering::Relaxed)),
            scan: self.scan.clone(),
            index: self.index.clone(),
        }
    }
}

impl LazySet {
    /// A set over all of `rules` (in file order), ranked by `order`.
    pub(crate) fn new(rules: &[Rule], wildcards: bool, order: Order) -> LazySet {
        let scannable = order == Order::Longest || rules.windows(2).all(|w| w[0].line != w[1].line);
        LazySet {
            order,
            wildcards,
            scannable,
            answered: AtomicU32::new(0),
            scan: OnceLock::new(),
            index: OnceLock::new(),
        }
    }

    /// The rule that decides `path`, if any: what a [`RuleSet`] over the
    /// same rules answers.
    #[inline]
    pub(crate) fn decide(&self, text: &[u8], rules: &[Rule], path: &[u8]) -> Option<Verdict> {
        if let Some((index, set)) = self.index.get() {
            return decide(text, rules, index, *set, path);
        }
        if self.scannable {
            let small = rules.len() <= SCAN_ALWAYS;
            // A small set is scanned for good once its entries are built:
            // no count is kept, so that answers only read.
            if small && let Some(entries) = self.scan.get() {
                return scan(text, entries, self.order, path);
            }
            let asked = self.answered.load(Ordering::Relaxed);
            if small || asked < SCAN_ANSWERS {
                self.answered
                    .store(asked.saturating_add(1), Ordering::Relaxed);
                if asked == 0 {
                    return scan_rules(text, rules, self.wildcards, self.order, path);
                }
                let entries = self.scan.get_or_init(|| {
                    scan_entries(
                        text,
                        rules,
                        0..to_u32(rules.len()),
                        self.wildcards,
                        self.order,
                    )
                });
                return scan(text, entries, self.order, path);
            }
        }
        let (index, set) = self.index.get_or_init(|| {
            let mut index = Index::default();
            let ids: Vec<u32> = (0..to_u32(rules.len())).collect();
            let set = build_set(text, rules, &ids, self.wildcards, self.order, &mut index);
            index.shrink_to_fit();
            (index, set)
        });
        decide(text, rules, index, *set, path)
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.scan
            .get()
            .map_or(0, |s| s.capacity() * size_of::<ScanEntry>())
            + self.index.get().map_or(0, |(index, _)| index.heap_size())
    }
}

/// The first occurrence of `needle` in `hay`: a first-byte scan for short
/// haystacks (typical paths), the two-way searcher of `memchr` otherwise so
/// that hostile input stays linear.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    match needle {
        [] => Some(0),
        [b] => memchr::memchr(*b, hay),
        [first, ..] if hay.len() <= 128 => {
            let mut from = 0;
            while let Some(i) = memchr::memchr(*first, &hay[from..]) {
                let at = from + i;
                if hay[at..].starts_with(needle) {
                    return Some(at);
                }
                from = at + 1;
            }
            None
        }
        _ => memchr::memmem::find(hay, needle),
    }
}

/// Whether a pattern with `*` wildcards and an optional final `$` matches
/// `path` from its start. Greedy: each literal segment is matched at its
/// earliest place after the previous one, which is correct for `*`-only
/// patterns and linear in `path`.
pub(crate) fn wild_match(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut segments = pattern.split(|&b| b == b'*');
    let first = segments.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let mut pos = first.len();
    let mut segments = segments.peekable();
    if segments.peek().is_none() {
        return !anchored || path.len() == pos;
    }
    while let Some(seg) = segments.next() {
        let last = segments.peek().is_none();
        if last && anchored {
            return path.len() >= pos + seg.len() && path.ends_with(seg);
        }
        if seg.is_empty() {
            continue;
        }
        match find(&path[pos..], seg) {
            Some(i) => pos += i + seg.len(),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn longest_prefix_walks_to_ancestors() {
        let mut t = tables(&[
            ("/a", false),
            ("/ab0", true),
            ("/abc/d", true),
            ("/ab", true),
            ("/a", true),
        ]);
        let set = t.set(&[0, 1, 2, 3, 4], true, Order::Longest);
        let decide = |p: &str| t.decide(set, p.as_bytes()).map(|v| v.rule);
        assert_eq!(decide("/abc"), Some(3));
        assert_eq!(decide("/abc/d/e"), Some(2));
        assert_eq!(decide("/ax"), Some(4), "allow wins the tie on /a");
        assert_eq!(decide("/b"), None);
        assert_eq!(decide("/ab0"), Some(1));
    }

    #[test]
    fn first_match_is_the_earliest_matching_line() {
        let mut t = tables(&[
            ("/a/b", true),
            ("/a", false),
            ("", false),
            ("/a/b/c", false),
        ]);
        let set = t.set(&[0, 1, 2, 3], false, Order::First);
        let decide = |p: &str| t.decide(set, p.as_bytes()).map(|v| (v.rule, v.allowed));
        assert_eq!(decide("/a/b/c/d"), Some((0, true)));
        assert_eq!(decide("/a/x"), Some((1, false)));
        assert_eq!(decide("/z"), Some((2, true)), "an empty disallow allows");
    }

    /// Patterns and paths over a small alphabet, from a fixed seed.
    fn random_words(seed: u64, count: usize, alphabet: &[u8], max: usize) -> Vec<String> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
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

    #[test]
    fn scan_and_lazy_set_agree_with_the_index() {
        for (seed, order, wildcards) in [
            (1, Order::Longest, true),
            (2, Order::Longest, false),
            (3, Order::First, false),
            (4, Order::First, true),
        ] {
            for count in [0, 1, 5, 17, 60] {
                let mut patterns = random_words(seed * 100 + count as u64, count, b"ab*$/", 5);
                if count == 5 {
                    // Patterns that do not start with `/`.
                    patterns.extend(["$", "*", "$*", "", "a$", "*a"].map(String::from));
                }
                let rules: Vec<(&str, bool)> = patterns
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.as_str(), i % 3 == 0))
                    .collect();
                let mut t = tables(&rules);
                let ids: Vec<u32> = (0..rules.len() as u32).collect();
                let set = t.set(&ids, wildcards, order);
                let entries = scan_entries(
                    t.text.as_bytes(),
                    &t.rules,
                    ids.iter().copied(),
                    wildcards,
                    order,
                );
                let lazy = LazySet::new(&t.rules, wildcards, order);
                // Enough paths that a large set builds its index midway.
                let mut paths = random_words(seed, 80, b"ab$/", 7);
                paths.extend(["", "a", "$"].map(String::from));
                for path in paths {
                    let want = t.decide(set, path.as_bytes());
                    let what = format!("{order:?} {wildcards} {patterns:?} {path}");
                    let scanned = scan(t.text.as_bytes(), &entries, order, path.as_bytes());
                    assert_eq!(scanned, want, "scan: {what}");
                    let tried = scan_rules(
                        t.text.as_bytes(),
                        &t.rules,
                        wildcards,
                        order,
                        path.as_bytes(),
                    );
                    assert_eq!(tried, want, "scan of the rules: {what}");
                    let got = lazy.decide(t.text.as_bytes(), &t.rules, path.as_bytes());
                    assert_eq!(got, want, "lazy set: {what}");
                }
                assert_eq!(
                    lazy.index.get().is_some(),
                    t.rules.len() > SCAN_ALWAYS,
                    "the index is built only for large sets"
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
        let mut t = tables(&refs);
        let ids: Vec<u32> = (0..12).collect();
        let set = t.set(&ids, true, Order::Longest);
        assert_eq!(t.decide(set, b"/zzcx2").map(|v| v.rule), Some(2));
        assert_eq!(t.decide(set, b"/zzz"), None);
    }
}
