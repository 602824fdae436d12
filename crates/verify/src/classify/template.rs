//! What a uap-core family template (`$1`, `$1 for ArcGIS`) can resolve
//! to, without running it: whether it can be (or contain) a given word, and
//! if so whether the word then always lies inside the capture group, so
//! that the User-Agent must contain the word itself. As in `ua-parser`,
//! only `$1` is replaced (by group 1's text, or nothing when the group did
//! not take part).

use regex_syntax::hir::Hir;

use super::literals::{self, Set, capture};

/// How many strings a capture group may match to be enumerated.
const GROUP_LIMIT: usize = 4096;

/// One piece of a template.
#[derive(Debug)]
pub(crate) enum Piece {
    /// Text of the template itself (lower-cased).
    Text(Vec<u8>),
    /// A capture group: every string it can match (lower-cased), or `None`
    /// when they are too many (or unknown).
    Group(Option<Set>),
}

/// The pieces of `template` for a regex `hir`.
pub(crate) fn pieces(template: &str, hir: &Hir) -> Vec<Piece> {
    // A group that does not take part gives the empty string.
    let group = capture(hir, 1)
        .and_then(|g| literals::exact(g, GROUP_LIMIT))
        .map(|mut set| {
            set.insert(Vec::new());
            set
        });
    let mut out = Vec::new();
    for (i, text) in template.split("$1").enumerate() {
        if i > 0 {
            out.push(Piece::Group(group.clone()));
        }
        if !text.is_empty() {
            out.push(Piece::Text(text.as_bytes().to_ascii_lowercase()));
        }
    }
    out
}

/// How the resolved template may relate to the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The resolved template is the word.
    Equal,
    /// The resolved template contains the word.
    Contains,
}

/// Whether a resolved template can satisfy the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Never.
    Never,
    /// Only with the whole word inside one capture group: the User-Agent
    /// then contains the word.
    InGroup,
    /// Otherwise (the word may come from the template's text, or span
    /// several pieces).
    Other,
}

/// Whether the pieces, resolved, can satisfy `word` (lower case, not
/// empty) in `mode`.
///
/// States: `0` before the word, `k` after its first `k` bytes, `n + 1`
/// after it (`n` its length). A capture group of unknown strings may move
/// from any state to any later one.
pub(crate) fn reach(pieces: &[Piece], word: &[u8], mode: Mode) -> Reach {
    let n = word.len();
    let after = n + 1;
    let states = n + 2;
    let all = moves(pieces, word, mode);
    // Forward: states reachable before each piece.
    let mut forward = vec![vec![false; states]; pieces.len() + 1];
    forward[0][0] = true;
    for (i, m) in all.iter().enumerate() {
        for &(s, t) in m {
            if forward[i][s] {
                forward[i + 1][t] = true;
            }
        }
    }
    // Backward: states from which the end is reached after each piece.
    let mut backward = vec![vec![false; states]; pieces.len() + 1];
    backward[pieces.len()][n] = true;
    backward[pieces.len()][after] = true;
    for (i, m) in all.iter().enumerate().rev() {
        for &(s, t) in m {
            if backward[i + 1][t] {
                backward[i][s] = true;
            }
        }
    }
    if !backward[0][0] {
        return Reach::Never;
    }
    let mut reach = Reach::Never;
    for (i, m) in all.iter().enumerate() {
        for &(s, t) in m {
            if !(forward[i][s] && backward[i + 1][t]) {
                continue;
            }
            let mid = |x: usize| (1..n).contains(&x);
            if mid(s) || mid(t) || (s == 0 && t >= n && !matches!(pieces[i], Piece::Group(_))) {
                return Reach::Other;
            }
            if s == 0 && t >= n {
                reach = Reach::InGroup;
            }
        }
    }
    // An empty template equal to an empty word cannot happen: words are
    // not empty, so an accepting path passed the word somewhere.
    reach
}

/// Every (from, to) between the states of [`reach`] that each piece
/// allows.
fn moves(pieces: &[Piece], word: &[u8], mode: Mode) -> Vec<Vec<(usize, usize)>> {
    let n = word.len();
    let after = n + 1;
    let states = n + 2;
    // Whether bytes may come before and after the word.
    let outside = mode == Mode::Contains;
    // The states one byte leads to.
    let step = |s: usize, b: u8, out: &mut Vec<usize>| {
        if s == 0 {
            if outside {
                out.push(0);
            }
            if word[0] == b {
                out.push(if n == 1 { n } else { 1 });
            }
        } else if s < n {
            if word[s] == b {
                out.push(s + 1);
            }
        } else if outside {
            out.push(after);
        }
    };
    let run = |s: usize, text: &[u8]| -> Vec<usize> {
        let mut cur = vec![s];
        for &b in text {
            let mut next = Vec::new();
            for &c in &cur {
                step(c, b, &mut next);
            }
            next.sort_unstable();
            next.dedup();
            cur = next;
            if cur.is_empty() {
                break;
            }
        }
        cur
    };
    // Every (from, to) a piece allows.
    let moves = |piece: &Piece| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for s in 0..states {
            match piece {
                Piece::Text(t) => out.extend(run(s, t).into_iter().map(|t| (s, t))),
                Piece::Group(Some(set)) => {
                    for option in set {
                        out.extend(run(s, option).into_iter().map(|t| (s, t)));
                    }
                }
                Piece::Group(None) => out.extend((s..states).map(|t| (s, t))),
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    };
    pieces.iter().map(moves).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(template: &str, regex: &str, word: &str, mode: Mode) -> Reach {
        let hir = regex_syntax::Parser::new().parse(regex).unwrap();
        reach(&pieces(template, &hir), word.as_bytes(), mode)
    }

    #[test]
    fn templates_and_words() {
        assert_eq!(
            check("Firefox ($1)", r"(\w+)", "bot", Mode::Contains),
            Reach::InGroup
        );
        assert_eq!(
            check("Firefox ($1)", r"(\w+)", "googlebot", Mode::Equal),
            Reach::Never
        );
        assert_eq!(
            check("$1 for ArcGIS", r"(\w+)", "bot", Mode::Contains),
            Reach::InGroup
        );
        assert_eq!(
            check("$1 Bot", r"(\w+)", "bot", Mode::Contains),
            Reach::Other
        );
        assert_eq!(check("$1ot", r"(\w+)", "bot", Mode::Contains), Reach::Other);
        assert_eq!(check("$1", r"(\w+)", "curl", Mode::Equal), Reach::InGroup);
        assert_eq!(
            check("$1", r"(Nexus|Pixel)", "curl", Mode::Equal),
            Reach::Never
        );
        assert_eq!(
            check("$1 x", r"(Nexus|Pixel)", "x", Mode::Contains),
            Reach::Other
        );
        // The group may not take part: `$1$1` is then empty.
        assert_eq!(check("$1$1", r"(ab)?", "abab", Mode::Equal), Reach::Other);
        assert_eq!(
            check("Apple $1 App", r"(\w+)", "curl", Mode::Equal),
            Reach::Never
        );
    }
}
