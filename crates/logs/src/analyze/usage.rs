//! Usage preferences in the log: for each request of a crawler whose
//! category says what it uses content for (AI training, AI input, search),
//! whether the site's robots.txt refuses that use for the path it asked.
//!
//! The categories map to purposes so: `ai-training` → `train-ai`;
//! `ai-search` and `ai-user` (an AI answer engine's index, an assistant
//! fetching for a user) → `ai-input`; `search` → `search`. Other
//! categories use content for none of them and are not counted. A crawler
//! is asked under its registry's robots.txt tokens (its name when it has
//! none), with RFC 9309's grouping, by group and file-wide.

use std::sync::Arc;

use botwarden_robots::prefs::{Preference, Purpose, Reading};
use botwarden_robots::{Profile, RobotMatcher, RobotsTxt, TokenChain};
use foldhash::{HashMap, HashMapExt};

/// The robots.txt a log's requests are measured against.
#[derive(Debug)]
pub struct UsagePolicy {
    /// Its name in the report (a path or URL).
    pub name: String,
    txt: RobotsTxt,
}

impl UsagePolicy {
    /// The robots.txt `body`, named `name`.
    #[must_use]
    pub fn new(name: impl Into<String>, body: impl Into<Vec<u8>>) -> UsagePolicy {
        UsagePolicy {
            name: name.into(),
            txt: RobotsTxt::parse(body),
        }
    }
}

/// The purpose a crawler of `category` uses content for, if one of the
/// three the preferences speak of.
#[must_use]
pub fn purpose_of(category: &str) -> Option<Purpose> {
    match category {
        "ai-training" => Some(Purpose::TrainAi),
        "ai-search" | "ai-user" => Some(Purpose::AiInput),
        "search" => Some(Purpose::Search),
        _ => None,
    }
}

/// A request's standing: asked, refused by group, refused file-wide.
pub(crate) const ASKED: u8 = 1;
pub(crate) const REFUSED: u8 = 2;
pub(crate) const REFUSED_WIDE: u8 = 4;

/// One worker's matchers, per claim.
pub(crate) struct UsageCache {
    policy: Arc<UsagePolicy>,
    claims: HashMap<u32, Option<(RobotMatcher, Purpose)>>,
}

impl UsageCache {
    pub(crate) fn new(policy: Arc<UsagePolicy>) -> UsageCache {
        UsageCache {
            policy,
            claims: HashMap::new(),
        }
    }

    /// The standing of a request of `claim` for `path`: 0 when the claim's
    /// category has no purpose; `tokens` gives its robots.txt tokens and
    /// category the first time.
    pub(crate) fn standing(
        &mut self,
        claim: u32,
        tokens: impl FnOnce() -> (Vec<String>, Option<String>),
        path: &str,
    ) -> u8 {
        let policy = &self.policy;
        let entry = self.claims.entry(claim).or_insert_with(|| {
            let (tokens, category) = tokens();
            let purpose = purpose_of(category.as_deref()?)?;
            let chain = TokenChain::new(tokens);
            Some((
                RobotMatcher::new(&policy.txt, &Profile::RFC9309, &chain),
                purpose,
            ))
        });
        let Some((matcher, purpose)) = entry else {
            return 0;
        };
        let answer = matcher.usage(path);
        if !answer.fetch {
            return ASKED;
        }
        let refused = |reading: Reading| {
            answer
                .reading(reading)
                .iter()
                .any(|a| a.purpose == *purpose && a.preference == Preference::Refused)
        };
        ASKED
            | if refused(Reading::Group) { REFUSED } else { 0 }
            | if refused(Reading::FileWide) {
                REFUSED_WIDE
            } else {
                0
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_training_crawler_on_a_refusing_path() {
        let policy = Arc::new(UsagePolicy::new(
            "robots.txt",
            "Content-Signal: ai-input=no\n\nUser-agent: *\nContent-Usage: /blog/ train-ai=n\nDisallow: /private\n",
        ));
        let mut cache = UsageCache::new(policy);
        let gpt = || (vec!["GPTBot".to_owned()], Some("ai-training".to_owned()));
        assert_eq!(
            cache.standing(1, gpt, "/blog/x"),
            ASKED | REFUSED | REFUSED_WIDE
        );
        assert_eq!(cache.standing(1, gpt, "/about"), ASKED);
        // A path it may not fetch: its preferences do not apply.
        assert_eq!(cache.standing(1, gpt, "/private/x"), ASKED);
        // An assistant: `ai-input` is refused only file-wide.
        let user = || (vec!["ChatGPT-User".to_owned()], Some("ai-user".to_owned()));
        assert_eq!(cache.standing(2, user, "/blog/x"), ASKED | REFUSED_WIDE);
        // A feed reader uses content for none of the three.
        let feed = || (vec!["Feedly".to_owned()], Some("feed".to_owned()));
        assert_eq!(cache.standing(3, feed, "/blog/x"), 0);
    }
}
