//! `content/near-duplicate`: HTML pages whose visible text is nearly the
//! same.

use std::collections::{HashMap, HashSet};

use crate::{CANONICAL_ELSEWHERE, Context, Finding, HTML_PAGE};

/// Pages at most this many bits apart (of 64) are near duplicates.
pub(crate) const MAX_DISTANCE: u32 = 3;

/// The fingerprint is cut into this many blocks: two fingerprints at most
/// [`MAX_DISTANCE`] bits apart agree on at least one block (`BLOCKS >
/// MAX_DISTANCE`), so candidates come from equal blocks only.
const BLOCKS: u32 = MAX_DISTANCE + 1;

declare_check! {
    /// ## What it finds
    /// Groups of HTML pages whose text fingerprints are at most 3 bits
    /// apart: the SimHash of each page's text (64 bits over the distinct
    /// three-word shingles of the text outside `<script>`, `<style>` and
    /// `<title>`, computed by the crawler as it reads the page). That
    /// distance is the only threshold, and the message gives each page's.
    /// It estimates how many shingles two pages do not share, with noise:
    /// measured over pairs of 600-word texts, pairs that share 99 % of
    /// their shingles are within 3 bits 87 % of the time, 97 %: 57 %,
    /// 90 %: 8.5 %, 82 %: 1 %, 74 % and less: none of 200. On a large
    /// site, with millions of pairs, a few pairs only 65–80 % alike fall
    /// within 3 bits by chance (at 80 % about one pair in 120, at 65 % one
    /// in 4,000); a distance of 0 or 1 is nearly always a copy with a date
    /// or a counter changed (`docs/audit.md`, "Near duplicates: what 3
    /// bits mean").
    ///
    /// Pages are taken in the order of discovery; each joins the first
    /// earlier group whose first page is within 3 bits, else starts a
    /// group. One finding per group of two or more, at its first page,
    /// with the others (`related`) and their distance. A page with the
    /// same body, byte for byte, as an earlier page is left out
    /// (`content/exact-duplicate` reports it): only the first page of
    /// each body is compared, so no exact copy is reported here. Pages
    /// with fewer than ten words have no fingerprint and are not
    /// compared; pages that name another URL as canonical are left out.
    ///
    /// Measured: on the planted sites of the audit's tests (one word of
    /// 1,000 changed, an exact copy of the same page, a pair of exact
    /// copies only, and as the near miss one word in twenty changed),
    /// precision and recall 1.0. On the `alloc` API docs of the Rust 1.95
    /// toolchain (rustdoc, 248 pages crawled from a local server): 19
    /// groups, 41 pages beside their groups' first; by hand, 4 pairs are
    /// one page at two paths (`ffi::CString` and `ffi::c_str::CString`,
    /// 98–99.6 % of shingles shared), the other 37 are different types
    /// whose pages share rustdoc's long lists of trait methods (67–97 %
    /// shared, 24 of them under 90 %), all 1 to 3 bits away: what 3 bits
    /// mean on pages of many shingles and many pairs. Shared
    /// navigation and footers are text too: on pages with little text of
    /// their own, the template can make them near duplicates, which is
    /// what a search engine sees as well.
    ///
    /// ## Why it matters
    /// Search engines fold near duplicates together and index one of them,
    /// perhaps not the one meant; thin variants (a product in six colours,
    /// a calendar's empty days) spend the crawl and dilute the site.
    ///
    /// ## Fix
    /// Merge the variants into one page, or have them name the main one
    /// with `<link rel="canonical">`; give pages that must stay apart
    /// content of their own.
    "content/near-duplicate", Warning, "HTML pages whose text fingerprints (SimHash, 64 bits) are at most 3 bits apart, exact copies left out"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, p.simhash, p.content_hash
             FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE {HTML_PAGE} AND p.simhash IS NOT NULL AND NOT {CANONICAL_ELSEWHERE}
             ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?.cast_unsigned(),
                r.get::<_, Option<String>>(2)?,
            ))
        },
    )?;
    // An exact copy of an earlier page is `content/exact-duplicate`'s:
    // only the first page of each body takes part.
    let mut bodies: HashSet<String> = HashSet::new();
    let pages: Vec<(i64, u64)> = rows
        .into_iter()
        .filter(|(_, _, body)| body.as_ref().is_none_or(|b| bodies.insert(b.clone())))
        .map(|(id, hash, _)| (id, hash))
        .collect();
    let hashes: Vec<u64> = pages.iter().map(|p| p.1).collect();
    let groups = group(&hashes);
    let mut out = Vec::new();
    for members in groups.into_iter().filter(|g| g.len() > 1) {
        let first = pages[members[0]];
        let (url, _) = cx.outcome(first.0)?;
        let mut related = Vec::new();
        let mut distances = Vec::new();
        for &m in &members[1..] {
            related.push(cx.outcome(pages[m].0)?.0);
            distances.push((pages[m].1 ^ first.1).count_ones().to_string());
        }
        let message = format!(
            "{} pages with nearly the same text: SimHash {:016x}, the others {} bit(s) of 64 away \
             (at most {MAX_DISTANCE})",
            members.len(),
            first.1,
            distances.join(", ")
        );
        let mut f = cx.linked_finding(first.0, url, message)?;
        f.related = related;
        out.push(f);
    }
    Ok(out)
}

/// Groups fingerprints (indexes into `hashes`, each group in order, its
/// first the leader): each joins the first earlier leader within
/// [`MAX_DISTANCE`] bits, else leads a group. Candidate leaders come from
/// equal blocks ([`BLOCKS`]), never from all pairs; equal fingerprints
/// join without a comparison.
pub(crate) fn group(hashes: &[u64]) -> Vec<Vec<usize>> {
    let width = 64 / BLOCKS;
    let block = |h: u64, b: u32| (b, (h >> (b * width)) & ((1u64 << width) - 1));
    let mut leaders_by_block: HashMap<(u32, u64), Vec<usize>> = HashMap::new();
    let mut exact: HashMap<u64, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of_leader: HashMap<usize, usize> = HashMap::new();
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&g) = exact.get(&h) {
            groups[g].push(i);
            continue;
        }
        let mut best: Option<usize> = None;
        for b in 0..BLOCKS {
            if let Some(leaders) = leaders_by_block.get(&block(h, b)) {
                for &l in leaders {
                    if (hashes[l] ^ h).count_ones() <= MAX_DISTANCE {
                        if best.is_none_or(|x| l < x) {
                            best = Some(l);
                        }
                        break;
                    }
                }
            }
        }
        let g = match best {
            Some(l) => {
                let g = group_of_leader[&l];
                groups[g].push(i);
                g
            }
            None => {
                groups.push(vec![i]);
                group_of_leader.insert(i, groups.len() - 1);
                for b in 0..BLOCKS {
                    leaders_by_block.entry(block(h, b)).or_default().push(i);
                }
                groups.len() - 1
            }
        };
        exact.insert(h, g);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_come_from_equal_blocks_and_the_distance_decides() {
        let a = 0x0123_4567_89ab_cdef_u64;
        // 3 bits flipped, one per block: still one block equal.
        let near = a ^ 1 ^ (1 << 20) ^ (1 << 40);
        // 4 bits, one per block: no block equal, and too far anyway.
        let far = a ^ 1 ^ (1 << 20) ^ (1 << 40) ^ (1 << 60);
        let other = !a;
        let groups = group(&[a, other, near, far, a]);
        assert_eq!(groups, vec![vec![0, 2, 4], vec![1], vec![3]]);
    }

    #[test]
    fn a_page_joins_the_earliest_close_leader() {
        let a = 0u64;
        let b = 0xffff_0000_0000_0000_u64;
        let between = 0b111;
        let groups = group(&[b, a, between]);
        assert_eq!(groups, vec![vec![0], vec![1, 2]]);
    }
}
