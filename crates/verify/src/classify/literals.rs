//! What a regular expression says about the text it matches, without running
//! it: the strings one of which every match must contain (the prefilter's
//! literals), and the finite set of strings a sub-expression can match (to
//! enumerate the families a capture group can give).
//!
//! All strings are ASCII-lower-cased bytes: the prefilter compares without
//! ASCII case, so `[Bb]ot` and `(?i)bot` both reduce to `bot`.
//!
//! The analysis is sound for the regexes `ua-parser` actually compiles,
//! which rewrite the uap-core sources a little (`\w` to `[A-Za-z0-9_]`,
//! `.{0,100}` to `.*`; the caller rewrites `\d` to `[0-9]` as it does):
//! literals come only from literal text, from classes of at most
//! [`CLASS_LIMIT`] characters (so never from `\w`, `\D`, `\W`, in either
//! form) and from repetitions by their minimum count, which the rewriting
//! keeps.

use std::collections::BTreeSet;

use regex_syntax::hir::{Class, Hir, HirKind, Repetition};

/// Classes of more characters than this are "any character" to the analysis.
const CLASS_LIMIT: u32 = 32;

/// The largest exact set kept while combining sub-expressions.
const EXACT_LIMIT: usize = 512;

/// A set of lower-cased byte strings.
pub(crate) type Set = BTreeSet<Vec<u8>>;

/// Repetitions of at most this many copies are enumerated.
const REPEAT_LIMIT: u32 = 4;

/// The most sets kept in one requirement.
const CONJUNCTION_LIMIT: usize = 4;

/// The most combinations tried when an alternation's branches each have
/// several sets.
const COMBINATION_LIMIT: usize = 16;

/// Sets of strings a match must contain: one string of each set.
pub(crate) type Requirement = Vec<Set>;

/// What the analysis knows of one sub-expression.
struct Info {
    /// Every string the sub-expression can match, when that set is small.
    exact: Option<Set>,
    /// Sets such that every match contains one string of each.
    required: Requirement,
}

/// Sets such that every match of `hir` contains one string of each, or
/// an empty list when no such set is known (a regex that can match without
/// any literal text).
pub(crate) fn required(hir: &Hir) -> Requirement {
    let info = analyse(hir, EXACT_LIMIT);
    conjunction(info.exact.into_iter().chain(info.required))
}

/// Every string `hir` can match (lower-cased), if that set is finite and at
/// most `limit` strings.
pub(crate) fn exact(hir: &Hir, limit: usize) -> Option<Set> {
    analyse(hir, limit).exact
}

/// The sub-expression of capture group `index`, if the regex has it.
pub(crate) fn capture(hir: &Hir, index: u32) -> Option<&Hir> {
    match hir.kind() {
        HirKind::Capture(c) if c.index == index => Some(hir),
        HirKind::Capture(c) => capture(&c.sub, index),
        HirKind::Repetition(r) => capture(&r.sub, index),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().find_map(|s| capture(s, index))
        }
        _ => None,
    }
}

/// Whether `set` is a useful requirement: not empty, and without the empty
/// string (which every text contains).
pub(crate) fn useful(set: &Set) -> bool {
    !set.is_empty() && !set.contains(&Vec::new())
}

/// How selective a set is: longer shortest strings first, then fewer
/// strings.
fn score(set: &Set) -> (usize, std::cmp::Reverse<usize>) {
    let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
    (shortest, std::cmp::Reverse(set.len()))
}

/// The useful sets among `sets`, most selective first, without repeats, at
/// most [`CONJUNCTION_LIMIT`].
fn conjunction(sets: impl IntoIterator<Item = Set>) -> Requirement {
    let mut all: Vec<Set> = sets.into_iter().filter(useful).collect();
    all.sort_by(|a, b| score(b).cmp(&score(a)).then_with(|| a.cmp(b)));
    all.dedup();
    // Sets of short strings beside a better one cost more searching than
    // they save.
    all.into_iter()
        .enumerate()
        .filter(|(i, set)| *i == 0 || score(set).0 >= 3)
        .map(|(_, set)| set)
        .take(CONJUNCTION_LIMIT)
        .collect()
}

fn lower(bytes: &[u8]) -> Vec<u8> {
    bytes.to_ascii_lowercase()
}

/// The characters of a small class, lower-cased and UTF-8 encoded.
fn class_strings(class: &Class) -> Option<Set> {
    let mut out = Set::new();
    match class {
        Class::Unicode(c) => {
            let size: u32 = c
                .ranges()
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if size > CLASS_LIMIT {
                return None;
            }
            for r in c.ranges() {
                for ch in r.start()..=r.end() {
                    let mut buf = [0; 4];
                    out.insert(lower(ch.encode_utf8(&mut buf).as_bytes()));
                }
            }
        }
        Class::Bytes(c) => {
            let size: u32 = c
                .ranges()
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if size > CLASS_LIMIT {
                return None;
            }
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    out.insert(vec![b.to_ascii_lowercase()]);
                }
            }
        }
    }
    Some(out)
}

/// Every concatenation of a string of `a` with one of `b`, if at most
/// `limit` of them.
fn product(a: &Set, b: &Set, limit: usize) -> Option<Set> {
    if a.len().saturating_mul(b.len()) > limit {
        return None;
    }
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.insert(s);
        }
    }
    Some(out)
}

/// A sub-expression's requirement, its exact set included.
fn whole(info: Info) -> Requirement {
    conjunction(info.exact.into_iter().chain(info.required))
}

fn analyse(hir: &Hir, limit: usize) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info {
            exact: Some(Set::from([Vec::new()])),
            required: Vec::new(),
        },
        HirKind::Literal(l) => Info {
            exact: Some(Set::from([lower(&l.0)])),
            required: Vec::new(),
        },
        HirKind::Class(c) => Info {
            exact: class_strings(c).filter(|s| s.len() <= limit),
            required: Vec::new(),
        },
        HirKind::Capture(c) => analyse(&c.sub, limit),
        HirKind::Repetition(r) => repetition(r, limit),
        HirKind::Alternation(subs) => alternation(subs, limit),
        HirKind::Concat(subs) => concat(subs, limit),
    }
}

/// What [`analyse`] knows of a repetition.
fn repetition(r: &Repetition, limit: usize) -> Info {
    let sub = analyse(&r.sub, limit);
    // A few copies at most: every count from min to max.
    let exact = match (r.max, &sub.exact) {
        (Some(max), Some(e)) if max <= REPEAT_LIMIT => {
            let mut all = Some(Set::new());
            // The strings of `count` copies.
            let mut copies = Set::from([Vec::new()]);
            for count in 0..=max {
                if count >= r.min {
                    all = all.and_then(|mut a| {
                        a.extend(copies.iter().cloned());
                        (a.len() <= limit).then_some(a)
                    });
                }
                if count < max {
                    match product(&copies, e, limit) {
                        Some(p) => copies = p,
                        None => {
                            all = None;
                            break;
                        }
                    }
                }
            }
            all
        }
        _ => None,
    };
    // At least one copy of the sub-expression is in every match.
    let required = if r.min >= 1 { whole(sub) } else { Vec::new() };
    Info { exact, required }
}

/// What [`analyse`] knows of an alternation of `subs`.
fn alternation(subs: &[Hir], limit: usize) -> Info {
    let infos: Vec<Info> = subs.iter().map(|s| analyse(s, limit)).collect();
    let mut exact = Some(Set::new());
    for i in &infos {
        exact = match (exact, &i.exact) {
            (Some(mut acc), Some(e)) if acc.len() + e.len() <= limit => {
                acc.extend(e.iter().cloned());
                Some(acc)
            }
            _ => None,
        };
    }
    // Every match matches one branch, so contains one string of
    // each of that branch's sets: for one set chosen per branch,
    // of their union.
    let branches: Vec<Requirement> = infos.into_iter().map(whole).collect();
    let combinations = branches
        .iter()
        .try_fold(1usize, |n, b| n.checked_mul(b.len()))
        .unwrap_or(usize::MAX);
    let required = if combinations == 0 {
        Vec::new()
    } else if combinations <= COMBINATION_LIMIT {
        let mut unions = vec![Set::new()];
        for b in &branches {
            unions = unions
                .iter()
                .flat_map(|u| {
                    b.iter().map(move |set| {
                        let mut u = u.clone();
                        u.extend(set.iter().cloned());
                        u
                    })
                })
                .collect();
        }
        conjunction(unions)
    } else {
        conjunction([branches
            .into_iter()
            .flat_map(|mut b| b.swap_remove(0))
            .collect()])
    };
    Info { exact, required }
}

/// What [`analyse`] knows of a concatenation of `subs`.
fn concat(subs: &[Hir], limit: usize) -> Info {
    let infos: Vec<Info> = subs.iter().map(|s| analyse(s, limit)).collect();
    let mut exact = Some(Set::from([Vec::new()]));
    for i in &infos {
        exact = match (&exact, &i.exact) {
            (Some(acc), Some(e)) => product(acc, e, limit),
            _ => None,
        };
    }
    // Each run of consecutive sub-expressions with exact sets (a
    // match contains one string of the run's product), and each
    // sub-expression's own requirement.
    let mut sets: Vec<Set> = Vec::new();
    let mut run: Option<Set> = None;
    for i in infos {
        match i.exact {
            Some(e) => {
                run = match run {
                    None => Some(e),
                    Some(r) => match product(&r, &e, limit) {
                        Some(p) => Some(p),
                        None => {
                            sets.push(r);
                            Some(e)
                        }
                    },
                };
            }
            None => {
                sets.extend(run.take());
                sets.extend(i.required);
            }
        }
    }
    sets.extend(run);
    Info {
        exact,
        required: conjunction(sets),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(re: &str, ci: bool) -> Hir {
        regex_syntax::ParserBuilder::new()
            .case_insensitive(ci)
            .build()
            .parse(re)
            .unwrap()
    }

    fn strings(set: &Set) -> Vec<String> {
        set.iter()
            .map(|b| String::from_utf8(b.clone()).unwrap())
            .collect()
    }

    fn req(re: &str, ci: bool) -> Vec<Vec<String>> {
        required(&parse(re, ci)).iter().map(strings).collect()
    }

    #[test]
    fn required_literals_of_typical_patterns() {
        assert_eq!(req(r"(Twitterbot)/(\d+)\.(\d+)", false), [["twitterbot/"]]);
        assert_eq!(
            req(
                r"^.{0,200}?((?:[A-Za-z][A-Za-z0-9 -]{0,50}|)[^C][^Uu][Bb]ot)\b",
                false
            ),
            [["bot"]]
        );
        assert_eq!(
            req(r"(?:[a-zA-Z]{1,30}-|)Googlebot(?:-[a-zA-Z]{1,30}|)", false),
            [["googlebot"]]
        );
        assert_eq!(
            req(r"/((?:Ant-|)Nutch|[A-z]+[Bb]ot|Isara)[ \-](\d+)", false),
            [["ant-nutch", "bot", "isara", "nutch"]]
        );
        assert_eq!(req(r"^(.*)/(\d+)", false), [["/"]]);
        // No literal text at all.
        assert!(req(r"\w+", false).is_empty());
        assert!(req(r"(?:foo|\d+)", false).is_empty());
    }

    #[test]
    fn every_part_of_a_concatenation_is_required() {
        // Both sides of `.{0,300}`, and for the alternation, one set per
        // branch joined.
        let r = req(
            r"(?:(?:iPhone|Android).{0,300}(?:Bot-Mobile|YRSpider)|AdsBot-Google-Mobile.{0,200}iPhone)",
            false,
        );
        assert!(r.contains(&vec![
            "adsbot-google-mobile".to_owned(),
            "bot-mobile".into(),
            "yrspider".into()
        ]));
        assert!(r.contains(&vec!["android".to_owned(), "iphone".into()]));
    }

    #[test]
    fn case_insensitive_patterns_fold() {
        // Unicode case folding: `s` is also the long s.
        assert_eq!(
            req(r"(?:bot|spider)\.html", true),
            [["bot.html", "spider.html", "\u{17f}pider.html"]]
        );
    }

    #[test]
    fn exact_sets_of_capture_groups() {
        let hir = parse(r"(Googlebot(?:-Image|-News|)|bingbot)/(\d+)", false);
        let group = capture(&hir, 1).unwrap();
        assert_eq!(
            strings(&exact(group, 64).unwrap()),
            ["bingbot", "googlebot", "googlebot-image", "googlebot-news"]
        );
        let hir = parse(r"([A-Za-z]+bot)/(\d+)", false);
        assert_eq!(exact(capture(&hir, 1).unwrap(), 64), None);
        let hir = parse(r"(dotnet-(?:[0-9]{1,2}|core))", false);
        let set = exact(capture(&hir, 1).unwrap(), 512).unwrap();
        assert_eq!(set.len(), 111);
        assert!(set.contains(b"dotnet-core".as_slice()) && set.contains(b"dotnet-07".as_slice()));
    }
}
