//! Robots product tokens found in a User-Agent.
//!
//! A token is found where it occurs without regard to ASCII case and on a
//! word boundary: the byte before it (if any) and the byte after it (if any)
//! are not ASCII letters or digits. So `Googlebot` is found in
//! `Mozilla/5.0 (compatible; Googlebot/2.1)` and in `Googlebot-Image/1.0`,
//! but not in `XGooglebot/1.0` or `Googlebot2/1.0`. Where several tokens are
//! found, the longest wins (`Googlebot-Image` over `Googlebot` when both are
//! registered), then the leftmost, then the bot listed first.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The tokens of every bot, searched at once.
pub(crate) struct Tokens {
    /// `None` when no bot has a token.
    searcher: Option<AhoCorasick>,
    /// For each pattern: the bot it names.
    bots: Vec<u32>,
}

impl Tokens {
    /// Tokens as `(bot, token)`; empty tokens are ignored.
    pub(crate) fn new<'a>(
        tokens: impl IntoIterator<Item = (u32, &'a str)>,
    ) -> Result<Self, aho_corasick::BuildError> {
        let mut patterns = Vec::new();
        let mut bots = Vec::new();
        for (bot, token) in tokens {
            if !token.is_empty() {
                patterns.push(token.to_ascii_lowercase());
                bots.push(bot);
            }
        }
        let searcher = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&patterns)?,
            )
        };
        Ok(Self { searcher, bots })
    }

    /// The bot whose token the User-Agent contains, by the rules above.
    #[cfg(test)]
    pub(crate) fn find(&self, ua: &str) -> Option<u32> {
        self.find_at(ua).map(|(bot, _)| bot)
    }

    /// The bot whose token the User-Agent contains, and where the token is.
    pub(crate) fn find_at(&self, ua: &str) -> Option<(u32, std::ops::Range<usize>)> {
        let searcher = self.searcher.as_ref()?;
        let bytes = ua.as_bytes();
        let boundary = |i: Option<usize>| {
            i.and_then(|i| bytes.get(i))
                .is_none_or(|b| !b.is_ascii_alphanumeric())
        };
        // (length, start, pattern): longest, then leftmost, then first bot.
        let mut found: Option<(usize, usize, usize)> = None;
        for m in searcher.find_overlapping_iter(ua) {
            if !boundary(m.start().checked_sub(1)) || !boundary(Some(m.end())) {
                continue;
            }
            let key = (m.len(), m.start(), m.pattern().as_usize());
            let better = found.is_none_or(|(len, start, pat)| {
                key.0 > len || (key.0 == len && (key.1, self.bots[key.2]) < (start, self.bots[pat]))
            });
            if better {
                found = Some(key);
            }
        }
        found.map(|(len, start, pat)| (self.bots[pat], start..start + len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens::new([
            (0, "Googlebot"),
            (1, "Googlebot-Image"),
            (2, "bingbot"),
            (3, ""),
            (4, "GPTBot"),
        ])
        .unwrap()
    }

    #[test]
    fn tokens_on_word_boundaries_without_case() {
        let t = tokens();
        assert_eq!(t.find("Mozilla/5.0 (compatible; Googlebot/2.1)"), Some(0));
        assert_eq!(t.find("googlebot"), Some(0));
        assert_eq!(t.find("Googlebot-Image/1.0"), Some(1));
        assert_eq!(t.find("Googlebot-Video/1.0"), Some(0));
        assert_eq!(t.find("XGooglebot/1.0"), None);
        assert_eq!(t.find("Googlebot2"), None);
        assert_eq!(
            t.find("Mozilla/5.0 (compatible; bingbot/2.0); gptbot"),
            Some(2)
        );
        assert_eq!(t.find("Mozilla/5.0 Chrome/120.0 Safari/537.36"), None);
        assert_eq!(Tokens::new([]).unwrap().find("Googlebot"), None);
    }

    #[test]
    fn the_longest_token_wins_wherever_it_is() {
        let t = tokens();
        assert_eq!(t.find("Googlebot/2.1 Googlebot-Image/1.0"), Some(1));
        // The same length: the leftmost.
        let t = Tokens::new([(0, "AAbot"), (1, "BBbot")]).unwrap();
        assert_eq!(t.find("BBbot AAbot"), Some(1));
        // The same token twice: the bot listed first.
        let t = Tokens::new([(5, "Foo"), (2, "foo")]).unwrap();
        assert_eq!(t.find("foo"), Some(2));
    }
}
