//! What a regular expression says about the text it matches, without running
//! it: the strings one of which every match must contain (the prefilter's
//! literals), and the finite set of strings a sub-expression can match (to
//! enumerate the families a capture group can give).
//!
//! All strings are ASCII-lower-cased bytes: the prefilter compares without
//! ASCII case, so `[Bb]ot` and `(?i)bot` both reduce to `bot`.
//!
//! The analysis is sound for the regexes `ua-parser` actually compiles,
//! which rewrite the uap-core sources a little (`\d` to `[0-9]`, `.{0,100}`
//! to `.*`): literals come only from literal text, from classes of at most
//! [`CLASS_LIMIT`] characters (so never from `\d`, `\w` or their negations)
//! and from repetitions by their minimum count, which the rewriting keeps.

use std::collections::BTreeSet;

use regex_syntax::hir::{Class, Hir, HirKind};

/// Classes of more characters than this are "any character" to the analysis.
const CLASS_LIMIT: u32 = 16;

/// The largest exact set kept while combining sub-expressions.
const EXACT_LIMIT: usize = 512;

/// A set of lower-cased byte strings.
pub(crate) type Set = BTreeSet<Vec<u8>>;

/// What the analysis knows of one sub-expression.
struct Info {
    /// Every string the sub-expression can match, when that set is small.
    exact: Option<Set>,
    /// Strings one of which every match contains; `None` when nothing is
    /// known (or the empty string may match).
    required: Option<Set>,
}

/// Strings one of which every match of `hir` contains, or `None` when no
/// such set is known (a regex that can match without any literal text).
pub(crate) fn required(hir: &Hir) -> Option<Set> {
    let info = analyse(hir, EXACT_LIMIT);
    best([info.exact, info.required])
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
fn useful(set: &Set) -> bool {
    !set.is_empty() && !set.contains(&Vec::new())
}

/// How selective a requirement is: longer shortest strings first, then fewer
/// strings.
fn score(set: &Set) -> (usize, std::cmp::Reverse<usize>) {
    let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
    (shortest, std::cmp::Reverse(set.len()))
}

/// The most selective of the useful candidates.
fn best(candidates: impl IntoIterator<Item = Option<Set>>) -> Option<Set> {
    candidates
        .into_iter()
        .flatten()
        .filter(useful)
        .max_by_key(score)
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

fn analyse(hir: &Hir, limit: usize) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info {
            exact: Some(Set::from([Vec::new()])),
            required: None,
        },
        HirKind::Literal(l) => Info {
            exact: Some(Set::from([lower(&l.0)])),
            required: None,
        },
        HirKind::Class(c) => Info {
            exact: class_strings(c).filter(|s| s.len() <= limit),
            required: None,
        },
        HirKind::Capture(c) => analyse(&c.sub, limit),
        HirKind::Repetition(r) => {
            let sub = analyse(&r.sub, limit);
            let exact = match (r.min, r.max, &sub.exact) {
                (1, Some(1), Some(e)) => Some(e.clone()),
                (0, Some(1), Some(e)) => {
                    let mut e = e.clone();
                    e.insert(Vec::new());
                    Some(e)
                }
                _ => None,
            };
            // At least one copy of the sub-expression is in every match.
            let required = if r.min >= 1 {
                best([sub.exact, sub.required])
            } else {
                None
            };
            Info { exact, required }
        }
        HirKind::Alternation(subs) => {
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
            // Every match matches one branch, so contains one of that
            // branch's required strings.
            let mut required = Some(Set::new());
            for i in infos {
                required = match (required, best([i.exact, i.required])) {
                    (Some(mut acc), Some(r)) => {
                        acc.extend(r);
                        Some(acc)
                    }
                    _ => None,
                };
            }
            Info { exact, required }
        }
        HirKind::Concat(subs) => {
            let infos: Vec<Info> = subs.iter().map(|s| analyse(s, limit)).collect();
            let mut exact = Some(Set::from([Vec::new()]));
            for i in &infos {
                exact = match (&exact, &i.exact) {
                    (Some(acc), Some(e)) => product(acc, e, limit),
                    _ => None,
                };
            }
            // Candidates: each run of consecutive sub-expressions with
            // exact sets (a match contains one string of the run's
            // product), and each sub-expression's own requirement.
            let mut candidates: Vec<Option<Set>> = Vec::new();
            let mut run: Option<Set> = None;
            for i in infos {
                match i.exact {
                    Some(e) => {
                        run = match run {
                            None => Some(e),
                            Some(r) => match product(&r, &e, limit) {
                                Some(p) => Some(p),
                                None => {
                                    candidates.push(Some(r));
                                    Some(e)
                                }
                            },
                        };
                    }
                    None => {
                        candidates.push(run.take());
                        candidates.push(i.required);
                    }
                }
            }
            candidates.push(run);
            Info {
                exact,
                required: best(candidates),
            }
        }
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

    fn strings(set: Option<Set>) -> Option<Vec<String>> {
        set.map(|s| {
            s.into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect()
        })
    }

    #[test]
    fn required_literals_of_typical_patterns() {
        let req = |re: &str| strings(required(&parse(re, false)));
        assert_eq!(req(r"(Twitterbot)/(\d+)\.(\d+)"), Some(vec!["twitterbot/".into()]));
        assert_eq!(
            req(r"^.{0,200}?((?:[A-Za-z][A-Za-z0-9 -]{0,50}|)[^C][^Uu][Bb]ot)\b"),
            Some(vec!["bot".into()])
        );
        assert_eq!(
            req(r"(?:[a-zA-Z]{1,30}-|)Googlebot(?:-[a-zA-Z]{1,30}|)"),
            Some(vec!["googlebot".into()])
        );
        assert_eq!(
            req(r"/((?:Ant-|)Nutch|[A-z]+[Bb]ot|Isara)[ \-](\d+)"),
            Some(vec!["ant-nutch".into(), "bot".into(), "isara".into(), "nutch".into()])
        );
        // No literal text at all.
        assert_eq!(req(r"^(.*)/(\d+)"), Some(vec!["/".into()]));
        assert_eq!(req(r"\w+"), None);
        assert_eq!(req(r"(?:foo|\d+)"), None);
    }

    #[test]
    fn case_insensitive_patterns_fold() {
        let req = strings(required(&parse(r"(?:bot|spider)\.html", true)));
        // Unicode case folding: `s` is also the long s.
        assert_eq!(
            req,
            Some(vec!["bot.html".into(), "spider.html".into(), "\u{17f}pider.html".into()])
        );
    }

    #[test]
    fn exact_sets_of_capture_groups() {
        let hir = parse(r"(Googlebot(?:-Image|-News|)|bingbot)/(\d+)", false);
        let group = capture(&hir, 1).unwrap();
        assert_eq!(
            strings(exact(group, 64)),
            Some(vec![
                "bingbot".into(),
                "googlebot".into(),
                "googlebot-image".into(),
                "googlebot-news".into()
            ])
        );
        let hir = parse(r"([A-Za-z]+bot)/(\d+)", false);
        assert_eq!(exact(capture(&hir, 1).unwrap(), 64), None);
    }
}
