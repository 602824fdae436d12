//! The prefilter: literal strings that a User-Agent must contain for some
//! step of the classification to answer.
//!
//! Each step that can answer brings a requirement: sets of strings, one of
//! each of which the User-Agent must contain (`{android, iphone}` and
//! `{bot-mobile, yrspider}`, say). A User-Agent passes when it meets every
//! set of at least one requirement. One Aho-Corasick automaton, without
//! ASCII case, finds every literal of every set in one pass.

use std::collections::{BTreeSet, HashMap};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::literals::{Requirement, Set, useful};

/// Requirements being gathered; `None` once a step has none (then there
/// is no prefilter).
pub(crate) struct PrefilterBuilder(Option<BTreeSet<Requirement>>);

impl PrefilterBuilder {
    pub(crate) fn new() -> Self {
        Self(Some(BTreeSet::new()))
    }

    /// A step that answers only when the User-Agent meets `requirement`;
    /// an empty requirement (nothing known) turns the prefilter off.
    pub(crate) fn require(&mut self, requirement: Requirement) {
        // Met sets are counted in a byte: at most eight (any of them is
        // a valid requirement on its own).
        let requirement: Requirement = requirement.into_iter().filter(useful).take(8).collect();
        match &mut self.0 {
            Some(all) if !requirement.is_empty() => {
                all.insert(requirement);
            }
            _ => self.0 = None,
        }
    }

    /// A step that answers only when the User-Agent contains one of `set`.
    pub(crate) fn require_one_of(&mut self, set: Set) {
        self.require(vec![set]);
    }

    pub(crate) fn build(self) -> Result<Option<Prefilter>, aho_corasick::BuildError> {
        let Some(requirements) = self.0 else {
            return Ok(None);
        };
        let requirements = minimize(requirements)?;
        let mut ids: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut hits: Vec<Vec<(u32, u8)>> = Vec::new();
        let mut sizes = Vec::new();
        for (r, requirement) in requirements.iter().enumerate() {
            let r = u32::try_from(r).unwrap_or(u32::MAX);
            for (s, set) in requirement.iter().enumerate() {
                let s = u8::try_from(s).unwrap_or(u8::MAX);
                for literal in set {
                    let id = *ids.entry(literal.clone()).or_insert_with(|| {
                        patterns.push(literal.clone());
                        hits.push(Vec::new());
                        patterns.len() - 1
                    });
                    hits[id].push((r, s));
                }
            }
            sizes.push(u8::try_from(requirement.len()).unwrap_or(u8::MAX));
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&patterns)?;
        Ok(Some(Prefilter {
            automaton,
            hits,
            sizes,
        }))
    }
}

/// The same requirements with fewer literals, met by the same strings.
///
/// The requirements of one set merge into one ("holds one of these"). A
/// literal of it that holds another of it (`googlebot` holds `bot`) goes:
/// a string that holds it holds the other. A requirement of several sets
/// goes when one of its sets holds such a literal in each of its strings:
/// a string that meets it holds one of them.
fn minimize(
    requirements: BTreeSet<Requirement>,
) -> Result<Vec<Requirement>, aho_corasick::BuildError> {
    let singles: Set = requirements
        .iter()
        .filter(|r| r.len() == 1)
        .flat_map(|r| r[0].iter().map(|l| l.to_ascii_lowercase()))
        .collect();
    let searcher = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&singles)?;
    // Whether `literal` holds a single literal other than itself.
    let covered = |literal: &[u8]| {
        searcher
            .find_overlapping_iter(literal)
            .any(|m| m.len() < literal.len())
    };
    let holds_single = |literal: &[u8]| searcher.find_overlapping_iter(literal).next().is_some();
    let kept: Set = singles.iter().filter(|l| !covered(l)).cloned().collect();
    let mut out = Vec::new();
    if !kept.is_empty() {
        out.push(vec![kept]);
    }
    for requirement in requirements.into_iter().filter(|r| r.len() > 1) {
        let implied = !singles.is_empty()
            && requirement
                .iter()
                .any(|set| set.iter().all(|l| holds_single(l)));
        if !implied {
            out.push(requirement);
        }
    }
    Ok(out)
}

/// A built prefilter.
pub(crate) struct Prefilter {
    automaton: AhoCorasick,
    /// For each pattern, the (requirement, set) pairs it is a literal of.
    hits: Vec<Vec<(u32, u8)>>,
    /// For each requirement, its number of sets.
    sizes: Vec<u8>,
}

impl Prefilter {
    /// The number of distinct literals.
    pub(crate) fn literals(&self) -> usize {
        self.automaton.patterns_len()
    }

    /// Whether `ua` meets every set of some requirement.
    pub(crate) fn is_match(&self, ua: &str) -> bool {
        // Sets met so far, per requirement of several sets.
        let mut met: HashMap<u32, u8> = HashMap::new();
        for m in self.automaton.find_overlapping_iter(ua) {
            for &(r, s) in &self.hits[m.pattern().as_usize()] {
                let size = self.sizes[r as usize];
                if size == 1 {
                    return true;
                }
                let mask = met.entry(r).or_insert(0);
                *mask |= 1 << s;
                if mask.count_ones() == u32::from(size) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> Set {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn every_set_of_one_requirement() {
        let mut b = PrefilterBuilder::new();
        b.require(vec![
            set(&["android", "iphone"]),
            set(&["bot-mobile", "yrspider"]),
        ]);
        b.require_one_of(set(&["googlebot"]));
        let p = b.build().unwrap().unwrap();
        assert_eq!(p.literals(), 5);
        assert!(p.is_match("Mozilla/5.0 (iPhone) ... Bot-Mobile"));
        assert!(p.is_match("GOOGLEBOT"));
        assert!(!p.is_match("Mozilla/5.0 (iPhone) Safari"));
        assert!(!p.is_match("YRSpider"));
    }

    #[test]
    fn literals_that_hold_others_go() {
        let mut b = PrefilterBuilder::new();
        b.require_one_of(set(&["bot", "googlebot", "crawl"]));
        b.require_one_of(set(&["Sitecrawler"]));
        // Met only where `bot` is: implied.
        b.require(vec![set(&["android"]), set(&["bot-mobile", "yrbot"])]);
        b.require(vec![set(&["iphone"]), set(&["spider"])]);
        let p = b.build().unwrap().unwrap();
        assert_eq!(p.literals(), 4, "bot, crawl, iphone, spider");
        assert!(p.is_match("Googlebot/2.1"));
        assert!(p.is_match("SiteCrawler/1.0"));
        assert!(p.is_match("Mozilla/5.0 (Android) Bot-Mobile"));
        assert!(p.is_match("Mozilla/5.0 (iPhone) Spider"));
        assert!(!p.is_match("Mozilla/5.0 (iPhone) Safari"));
    }

    #[test]
    fn a_step_without_literals_turns_it_off() {
        let mut b = PrefilterBuilder::new();
        b.require_one_of(set(&["googlebot"]));
        b.require(vec![]);
        b.require_one_of(set(&["bingbot"]));
        assert!(b.build().unwrap().is_none());
        let mut b = PrefilterBuilder::new();
        b.require_one_of(set(&["", "x"]));
        assert!(b.build().unwrap().is_none());
    }
}
