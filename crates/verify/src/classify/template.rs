//! What a family template (`$1`, `Samsung $1`, `$1 $2`) can resolve to,
//! without running it: whether it can be (or contain) a given word, and if
//! so whether the word then always lies inside one capture group, so that
//! the User-Agent must contain the word itself.

use regex_syntax::hir::Hir;

use super::literals::{self, Set};

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

/// How templates refer to groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// uap-core's user-agent families: only `$1` is replaced, as text.
    FamilyDollarOne,
    /// Device families: `regex::Captures::expand` (`$1`…, `${1}`, `$$`;
    /// `$name` takes the longest run of `[0-9A-Za-z_]`).
    Expand,
}

/// The pieces of `template` for a regex `hir`.
pub(crate) fn pieces(template: &str, hir: &Hir, syntax: Syntax) -> Vec<Piece> {
    let group = |name: &str| {
        let set = name
            .parse::<u32>()
            .ok()
            .and_then(|i| literals::capture(hir, i))
            .and_then(|g| literals::exact(g, GROUP_LIMIT));
        Piece::Group(set)
    };
    let mut out = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    // References are ASCII, so `i` stays on character boundaries.
    while let Some(c) = template[i..].chars().next() {
        let rest = &template[i..];
        let reference: Option<(usize, &str)> = match syntax {
            Syntax::FamilyDollarOne => rest.starts_with("$1").then_some((2, "1")),
            Syntax::Expand if rest.starts_with("$$") => {
                text.push(b'$');
                i += 2;
                continue;
            }
            Syntax::Expand if rest.starts_with("${") => rest
                .find('}')
                .map(|end| (end + 1, &rest[2..end])),
            Syntax::Expand if rest.starts_with('$') => {
                let len = rest[1..]
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count();
                (len > 0).then(|| (len + 1, &rest[1..=len]))
            }
            Syntax::Expand => None,
        };
        match reference {
            Some((len, name)) => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(group(name));
                i += len;
            }
            None => {
                let mut buf = [0; 4];
                text.extend(c.encode_utf8(&mut buf).as_bytes().to_ascii_lowercase());
                i += c.len_utf8();
            }
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// How the resolved template may relate to the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The resolved template is the word.
    Equal,
    /// The resolved template, less white space at its ends, is the word.
    EqualTrimmed,
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
    let outside_ok = |b: u8| match mode {
        Mode::Equal => false,
        Mode::EqualTrimmed => b.is_ascii_whitespace(),
        Mode::Contains => true,
    };
    // The states one byte leads to.
    let step = |s: usize, b: u8, out: &mut Vec<usize>| {
        if s == 0 {
            if outside_ok(b) {
                out.push(0);
            }
            if word[0] == b {
                out.push(if n == 1 { n } else { 1 });
            }
        } else if s < n {
            if word[s] == b {
                out.push(s + 1);
            }
        } else if outside_ok(b) {
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
    let all: Vec<Vec<(usize, usize)>> = pieces.iter().map(moves).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check(template: &str, regex: &str, syntax: Syntax, word: &str, mode: Mode) -> Reach {
        let hir = regex_syntax::Parser::new().parse(regex).unwrap();
        reach(&pieces(template, &hir, syntax), word.as_bytes(), mode)
    }

    #[test]
    fn device_templates_and_spider() {
        let spider = |t: &str, re: &str| check(t, re, Syntax::Expand, "spider", Mode::EqualTrimmed);
        assert_eq!(spider("Samsung $1", r"(\w+)"), Reach::Never);
        assert_eq!(spider("$1", r"; (\w+) Build"), Reach::InGroup);
        assert_eq!(spider("$1 $2", r"(\w+) (\w+)"), Reach::InGroup);
        assert_eq!(spider("$1$2", r"(\w+)(\w+)"), Reach::Other);
        assert_eq!(spider("$1$2", r"(Acer |ACER )(\w+)"), Reach::Never);
        assert_eq!(spider("$1", r"(Nexus|Pixel)"), Reach::Never);
        assert_eq!(spider("Spider", r"x"), Reach::Other);
        assert_eq!(spider(" $1 ", r"(Spider|Other)"), Reach::InGroup);
    }

    #[test]
    fn family_templates_and_words() {
        let ua = |t: &str, re: &str, w: &str, m: Mode| check(t, re, Syntax::FamilyDollarOne, w, m);
        assert_eq!(ua("Firefox ($1)", r"(\w+)", "bot", Mode::Contains), Reach::InGroup);
        assert_eq!(ua("Firefox ($1)", r"(\w+)", "googlebot", Mode::Equal), Reach::Never);
        assert_eq!(ua("$1 for ArcGIS", r"(\w+)", "bot", Mode::Contains), Reach::InGroup);
        assert_eq!(ua("$1 Bot", r"(\w+)", "bot", Mode::Contains), Reach::Other);
        assert_eq!(ua("$1ot", r"(\w+)", "bot", Mode::Contains), Reach::Other);
        assert_eq!(ua("$1", r"(\w+)", "curl", Mode::Equal), Reach::InGroup);
        assert_eq!(ua("$1$2", r"(a)(b)", "ab", Mode::Equal), Reach::Never);
    }
}
