//! The two vocabularies of usage preferences and the mapping between them.
//!
//! - **aipref** (`Content-Usage`, IETF `draft-ietf-aipref-vocab`): an
//!   RFC 9651 Dictionary whose keys are category labels (`train-ai`,
//!   `search`) and whose values are the tokens `y` (allowed) or `n` (not
//!   allowed); any other value, and any unknown label, states nothing.
//! - **Content Signals** (`Content-Signal`, Cloudflare's Content Signals
//!   Policy): `search`, `ai-input`, `ai-train`, each `yes` or `no`.
//!
//! Both are answered as the same three [`Purpose`]s. The mapping, and where
//! each part of it comes from:
//!
//! | purpose | aipref label | Content Signals key | source |
//! |---|---|---|---|
//! | [`Purpose::Search`] | `search` | `search` | vocab draft §3 "Search"; Content Signals Policy "search" |
//! | [`Purpose::TrainAi`] | `train-ai` | `ai-train` | vocab draft §3 "AI Training"; Policy "ai-train: training or fine-tuning AI models" |
//! | [`Purpose::AiInput`] | none | `ai-input` | Policy "ai-input: inputting content into one or more AI models (RAG, grounding)"; the IETF vocabulary has no such category |
//!
//! Values: aipref `y`/`n` and Content Signals `yes`/`no`, each only in its
//! own vocabulary (a `yes` in `Content-Usage` states nothing, as the vocab
//! draft reads any value other than `y`/`n`).

use std::fmt;

use super::sf::{self, Bare, SfError};

/// A use of content that a preference speaks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Purpose {
    /// Building a search index and showing results that link to the page.
    Search,
    /// Training or fine-tuning AI models.
    TrainAi,
    /// Putting content into an AI model's input when answering (retrieval,
    /// grounding).
    AiInput,
}

impl Purpose {
    /// Every purpose, in answer order.
    pub const ALL: [Purpose; 3] = [Purpose::Search, Purpose::TrainAi, Purpose::AiInput];

    /// The name botwarden prints: the aipref label where there is one.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Purpose::Search => "search",
            Purpose::TrainAi => "train-ai",
            Purpose::AiInput => "ai-input",
        }
    }

    /// The label of this purpose in a vocabulary, if it has one.
    #[must_use]
    pub const fn label(self, vocabulary: Vocabulary) -> Option<&'static str> {
        match (vocabulary, self) {
            (Vocabulary::Aipref, Purpose::Search)
            | (Vocabulary::ContentSignal, Purpose::Search) => Some("search"),
            (Vocabulary::Aipref, Purpose::TrainAi) => Some("train-ai"),
            (Vocabulary::Aipref, Purpose::AiInput) => None,
            (Vocabulary::ContentSignal, Purpose::TrainAi) => Some("ai-train"),
            (Vocabulary::ContentSignal, Purpose::AiInput) => Some("ai-input"),
        }
    }

    /// The purpose a label names in a vocabulary.
    #[must_use]
    pub fn of_label(vocabulary: Vocabulary, label: &str) -> Option<Purpose> {
        Purpose::ALL
            .into_iter()
            .find(|p| p.label(vocabulary) == Some(label))
    }
}

impl fmt::Display for Purpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a site prefers for one purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Preference {
    /// The use is allowed (`y`, `yes`).
    Allowed,
    /// The use is not allowed (`n`, `no`).
    Refused,
    /// Nothing is stated.
    Unstated,
}

impl Preference {
    /// `y`, `n` or `-`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Preference::Allowed => "y",
            Preference::Refused => "n",
            Preference::Unstated => "-",
        }
    }

    /// Combines statements as the vocab draft does: any `n` refuses, else
    /// any `y` allows, else nothing is stated.
    #[must_use]
    pub fn combine(self, other: Preference) -> Preference {
        use Preference::{Allowed, Refused, Unstated};
        match (self, other) {
            (Refused, _) | (_, Refused) => Refused,
            (Allowed, _) | (_, Allowed) => Allowed,
            (Unstated, Unstated) => Unstated,
        }
    }
}

impl fmt::Display for Preference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The vocabulary a line is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vocabulary {
    /// IETF aipref, in `Content-Usage`.
    Aipref,
    /// Cloudflare's Content Signals, in `Content-Signal`.
    ContentSignal,
}

impl Vocabulary {
    /// The field or directive name it is written under.
    #[must_use]
    pub const fn field(self) -> &'static str {
        match self {
            Vocabulary::Aipref => "Content-Usage",
            Vocabulary::ContentSignal => "Content-Signal",
        }
    }

    /// The value that allows and the value that refuses.
    #[must_use]
    pub const fn values(self) -> (&'static str, &'static str) {
        match self {
            Vocabulary::Aipref => ("y", "n"),
            Vocabulary::ContentSignal => ("yes", "no"),
        }
    }
}

/// One `label=value` of a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The label as written (a valid RFC 9651 key: lower case).
    pub label: String,
    /// The value as written (`y`, `yes`, `?1`, ...).
    pub value: String,
    /// The purpose the label names in the statement's vocabulary.
    pub purpose: Option<Purpose>,
    /// What the value says.
    pub preference: Preference,
}

/// A statement of preferences: the dictionary of one `Content-Usage` or
/// `Content-Signal` line or header, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The vocabulary.
    pub vocabulary: Vocabulary,
    /// The entries, in order (a repeated label keeps its last value).
    pub entries: Vec<Entry>,
    /// Why the dictionary could not be read (then `entries` is empty and the
    /// statement says nothing: RFC 9651 fails a whole field on an error).
    pub error: Option<SfError>,
}

impl Statement {
    /// Reads a dictionary in `vocabulary`.
    ///
    /// ```
    /// use botwarden_robots::prefs::{Preference, Purpose, Statement, Vocabulary};
    /// let s = Statement::read(Vocabulary::ContentSignal, "search=yes, ai-train=no");
    /// assert_eq!(s.preference(Purpose::TrainAi), Preference::Refused);
    /// assert_eq!(s.preference(Purpose::AiInput), Preference::Unstated);
    /// let s = Statement::read(Vocabulary::Aipref, "train-ai=yes");
    /// assert_eq!(s.preference(Purpose::TrainAi), Preference::Unstated);
    /// ```
    #[must_use]
    pub fn read(vocabulary: Vocabulary, text: &str) -> Statement {
        let (yes, no) = vocabulary.values();
        match sf::parse_dictionary(text) {
            Ok(members) => Statement {
                vocabulary,
                entries: members
                    .into_iter()
                    .map(|(label, member)| {
                        let value = match member.item() {
                            Some(b) => b.to_string(),
                            None => "(…)".to_owned(),
                        };
                        let preference = match member.item().and_then(Bare::as_token) {
                            Some(t) if t == yes => Preference::Allowed,
                            Some(t) if t == no => Preference::Refused,
                            _ => Preference::Unstated,
                        };
                        Entry {
                            purpose: Purpose::of_label(vocabulary, &label),
                            label,
                            value,
                            preference,
                        }
                    })
                    .collect(),
                error: None,
            },
            Err(e) => Statement {
                vocabulary,
                entries: Vec::new(),
                error: Some(e),
            },
        }
    }

    /// What the statement says about a purpose.
    #[must_use]
    pub fn preference(&self, purpose: Purpose) -> Preference {
        self.entries
            .iter()
            .filter(|e| e.purpose == Some(purpose))
            .fold(Preference::Unstated, |p, e| p.combine(e.preference))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combining_follows_the_vocab_draft() {
        use Preference::*;
        assert_eq!(Allowed.combine(Refused), Refused);
        assert_eq!(Refused.combine(Allowed), Refused);
        assert_eq!(Unstated.combine(Allowed), Allowed);
        assert_eq!(Allowed.combine(Unstated), Allowed);
        assert_eq!(Unstated.combine(Unstated), Unstated);
        assert_eq!(Unstated.combine(Refused), Refused);
    }

    #[test]
    fn labels_map_both_ways_and_ai_input_has_no_aipref_label() {
        for p in Purpose::ALL {
            for v in [Vocabulary::Aipref, Vocabulary::ContentSignal] {
                if let Some(l) = p.label(v) {
                    assert_eq!(Purpose::of_label(v, l), Some(p));
                }
            }
        }
        assert_eq!(Purpose::AiInput.label(Vocabulary::Aipref), None);
        assert_eq!(Purpose::of_label(Vocabulary::Aipref, "ai-train"), None);
        assert_eq!(
            Purpose::of_label(Vocabulary::ContentSignal, "train-ai"),
            None
        );
    }

    #[test]
    fn values_belong_to_their_vocabulary() {
        let s = Statement::read(Vocabulary::Aipref, "train-ai=n, search=y, foo=n");
        assert_eq!(s.preference(Purpose::TrainAi), Preference::Refused);
        assert_eq!(s.preference(Purpose::Search), Preference::Allowed);
        assert_eq!(s.entries[2].purpose, None);
        let s = Statement::read(Vocabulary::ContentSignal, "search=y, ai-train=no");
        assert_eq!(s.preference(Purpose::Search), Preference::Unstated);
        assert_eq!(s.preference(Purpose::TrainAi), Preference::Refused);
        let s = Statement::read(Vocabulary::ContentSignal, "Search=yes");
        assert!(s.error.is_some());
        assert_eq!(s.preference(Purpose::Search), Preference::Unstated);
        let s = Statement::read(Vocabulary::Aipref, "train-ai=\"n\"");
        assert_eq!(s.preference(Purpose::TrainAi), Preference::Unstated);
    }
}
