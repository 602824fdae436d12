//! A classification as a JSON object.

use serde::Serialize;

use super::{Classification, Explanation};

/// A User-Agent's classification as a JSON object, the same wherever it is
/// answered (`bots classify --format json`, `POST /api/v1/classify`):
/// `bot`, `category`, `explanation` (only when explained), `kind`,
/// `source` and `user_agent`, in that order.
#[derive(Debug, Serialize)]
pub struct ClassificationJson<'a> {
    bot: Option<&'a str>,
    category: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<ExplanationJson<'a>>,
    kind: Option<&'static str>,
    source: Option<String>,
    user_agent: &'a str,
}

/// Which step and rule decided, in a [`ClassificationJson`].
#[derive(Debug, Serialize)]
struct ExplanationJson<'a> {
    kind_word: Option<&'a str>,
    layer: &'static str,
    rule: &'a str,
    text: String,
}

impl<'a> ClassificationJson<'a> {
    /// The document of `user_agent`'s classification `c`, with the
    /// `explanation` of how it was reached when one is given.
    #[must_use]
    pub fn new(
        user_agent: &'a str,
        c: &Classification<'a>,
        explanation: Option<&'a Explanation<'_>>,
    ) -> ClassificationJson<'a> {
        ClassificationJson {
            bot: c.bot.map(|b| b.name),
            category: c.category,
            explanation: explanation.map(|e| ExplanationJson {
                kind_word: e.kind_word.as_deref(),
                layer: e.layer,
                rule: &e.rule,
                text: e.to_string(),
            }),
            kind: c.kind.map(super::BotKind::as_str),
            source: c.source.map(|s| s.to_string()),
            user_agent,
        }
    }
}
