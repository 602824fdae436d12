//! Public data: the plain-string patterns of the crawler-user-agents list
//! (MIT; `crates/verify/data/crawler-user-agents/`), the last step of the
//! classification.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::literals::Set;

/// The patterns, one a line (`#` lines are comments); `^` and `$` anchor.
pub(crate) const CRAWLER_USER_AGENTS: &str =
    include_str!("../../data/crawler-user-agents/patterns.txt");

/// Patterns left out because a person's browser or app holds them, with
/// the reason.
pub(crate) const LEFT_OUT: &[(&str, &str)] = &[
    (
        "008/",
        "in Opera Mini's build numbers (`Opera Mini/4.4.39008/37.9178`)",
    ),
    ("Butterfly", "HTC's Butterfly phones"),
    (
        "Sonic",
        "phones' names (`ViewSonic-V350`, `Lucky Ultra Sonic U8650`)",
    ),
    (
        "AP3A.240617.008",
        "an Android build number, in phones' browsers",
    ),
    (
        "speedy",
        "HTC's Speedy phones (`(speedy;HTC;PG06100;2.2/FRF91)`)",
    ),
    (
        "Code/1.",
        "the Visual Studio Code desktop app (`Code/1.84.2 … Electron/25.9.2`)",
    ),
    (
        "Notion/",
        "the Notion desktop app (`Notion/2.2.4 … Electron/27.0.4`)",
    ),
];

/// One pattern.
#[derive(Debug, Clone, Copy)]
struct Pattern {
    text: &'static str,
    start: bool,
    end: bool,
}

fn patterns() -> impl Iterator<Item = Pattern> {
    CRAWLER_USER_AGENTS
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !LEFT_OUT.iter().any(|(p, _)| p == l))
        .map(|line| {
            let (start, rest) = match line.strip_prefix('^') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let (end, text) = match rest.strip_suffix('$') {
                Some(text) => (true, text),
                None => (false, rest),
            };
            Pattern { text, start, end }
        })
        .filter(|p| !p.text.is_empty())
}

/// The patterns, compiled: found as written (with ASCII case).
pub(crate) struct PublicList {
    automaton: AhoCorasick,
    patterns: Vec<Pattern>,
}

impl PublicList {
    pub(crate) fn new() -> Result<Self, aho_corasick::BuildError> {
        let patterns: Vec<Pattern> = patterns().collect();
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(patterns.iter().map(|p| p.text))?;
        Ok(Self {
            automaton,
            patterns,
        })
    }

    /// The patterns (lower case), one of which a User-Agent must hold to
    /// match.
    pub(crate) fn literals() -> Set {
        patterns()
            .map(|p| p.text.to_ascii_lowercase().into_bytes())
            .collect()
    }

    /// The first pattern (by position) found in `ua` where its anchors
    /// allow.
    pub(crate) fn find(&self, ua: &str) -> Option<usize> {
        self.automaton
            .find_overlapping_iter(ua)
            .find(|m| {
                let p = self.patterns[m.pattern().as_usize()];
                (!p.start || m.start() == 0) && (!p.end || m.end() == ua.len())
            })
            .map(|m| m.pattern().as_usize())
    }

    /// The pattern of this index, as written in the list.
    pub(crate) fn pattern(&self, index: usize) -> String {
        self.patterns.get(index).map_or_else(String::new, |p| {
            format!(
                "{}{}{}",
                if p.start { "^" } else { "" },
                p.text,
                if p.end { "$" } else { "" }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_with_their_anchors_and_case() {
        let list = PublicList::new().unwrap();
        assert!(list.patterns.len() > 1000);
        let found = |ua: &str| list.find(ua).map(|i| list.pattern(i));
        assert_eq!(
            found("BIGLOTRON (Beta 2;GNU/Linux)").as_deref(),
            Some("BIGLOTRON")
        );
        assert_eq!(found("LCC (+http://example.com)").as_deref(), Some("^LCC "));
        assert_eq!(found("x LCC (+http://example.com)"), None);
        assert_eq!(found("biglotron"), None);
        assert_eq!(
            found("Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36"),
            None
        );
    }
}
