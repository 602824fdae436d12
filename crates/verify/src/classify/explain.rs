//! Why a User-Agent was classified as it was: which step decided, and by
//! which rule.

use std::fmt;

use super::vocab::{WORDS, token_around};
use super::{Classification, Classifier, Frame, Source, rules};

/// Which step of the classification decided, and by which rule
/// ([`Classifier::explain`]). Its `Display` is one line:
/// `uap-core: parser 12 gives the family 'Googlebot'`,
/// `vocabulary: product token 'FooBot/1.0' holds 'bot'`,
/// `structure: no browser shape (a single word without version)`,
/// `prefilter: no bot literal, and a browser's shape`; for an unregistered
/// bot, what its kind comes from follows (`; kind monitor from 'pingdom'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation<'c> {
    /// The classification, as [`Classifier::classify_uncached`] gives it.
    pub classification: Classification<'c>,
    /// The step that decided: `registry extra`, `uap-core`, `robots token`,
    /// `uap-core device`, `known client`, `vocabulary`, `contact`,
    /// `structure`, `prefilter` (not a bot: no literal of any step), or
    /// `none` (not a bot: some literal, but no step answered).
    pub layer: &'static str,
    /// The rule of that step, in words.
    pub rule: String,
    /// For an unregistered bot: the word its kind comes from, or `None`
    /// when the kind is the step's own (a library, a crawler by uap-core's
    /// family, an unknown bot).
    pub kind_word: Option<String>,
}

impl fmt::Display for Explanation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.layer, self.rule)?;
        if let Some(kind) = self.classification.kind {
            match &self.kind_word {
                Some(word) => write!(f, "; kind {kind} from '{word}'")?,
                None => write!(f, "; kind {kind}")?,
            }
        }
        Ok(())
    }
}

impl Classifier {
    /// Classifies a User-Agent without the cache, and says which step and
    /// which rule decided.
    pub fn explain<'s>(&'s self, ua: &str) -> Explanation<'s> {
        let answer = self.decide(ua, true);
        let classification = self.resolve(answer);
        let frame = self.frame(ua);
        let (layer, rule) = self.step_and_rule(ua, answer.source, &frame);
        let kind_word = classification.kind.and_then(|kind| {
            let (word_kind, found) = self.vocab.kind(ua, &frame)?;
            (word_kind == kind).then(|| ua[found.start..found.end].to_owned())
        });
        Explanation {
            classification,
            layer,
            rule,
            kind_word,
        }
    }

    /// The step that decided (`source`) and its rule, in words.
    fn step_and_rule(
        &self,
        ua: &str,
        source: Option<Source>,
        frame: &Frame,
    ) -> (&'static str, String) {
        match source {
            None if !self.passes_prefilter(ua) => (
                "prefilter",
                "no bot literal, and a browser's shape".to_owned(),
            ),
            None if frame.kind.is_some() => (
                "none",
                "a literal of some step, but no step answers, and a browser's or app's frame, \
                 where words of apps' names, the public list and uap-core's Spider device do \
                 not count"
                    .to_owned(),
            ),
            None => (
                "none",
                "a literal of some step, but no step answers, and a browser's shape".to_owned(),
            ),
            Some(Source::Extra(i)) => (
                "registry extra",
                format!(
                    "pattern {i} '{}' gives the family '{}'",
                    self.extra_regexes.get(i).map_or("", String::as_str),
                    self.extras
                        .as_ref()
                        .and_then(|e| e.extract(ua))
                        .map(|(_, f)| f.into_owned())
                        .unwrap_or_default()
                ),
            ),
            Some(Source::UapFamily(i) | Source::UapLibrary(i) | Source::UapCrawler(i)) => {
                let family = self.uap_family(ua).unwrap_or_default();
                let what = match source {
                    Some(Source::UapFamily(_)) => "a registered bot's name",
                    Some(Source::UapLibrary(_)) => "an HTTP library's or tool's",
                    _ => "a crawler's",
                };
                (
                    "uap-core",
                    format!("parser {i} gives the family '{family}', {what}"),
                )
            }
            Some(Source::RobotsToken) => {
                let token = self
                    .tokens
                    .find_at(ua)
                    .filter(|(_, at)| !frame.in_device(at))
                    .map(|(_, at)| &ua[at])
                    .unwrap_or_default();
                ("robots token", format!("'{token}'"))
            }
            Some(Source::SpiderDevice) => (
                "uap-core device",
                "the first device parser that matches gives the device 'Spider'".to_owned(),
            ),
            Some(Source::KnownClient) => {
                let name = self
                    .rules
                    .name_at(ua)
                    .map(|(_, at)| &ua[at])
                    .unwrap_or_default();
                ("known client", format!("the name '{name}'"))
            }
            Some(Source::Vocabulary) => {
                let rule = match self.vocab.marking(ua, frame) {
                    Some(found) => format!(
                        "product token '{}' holds '{}'",
                        token_around(ua, found.start, found.end),
                        WORDS[found.word].text
                    ),
                    None => String::new(),
                };
                ("vocabulary", rule)
            }
            Some(Source::ContactUrl) => {
                let at = self.rules.url_at(ua, frame).unwrap_or(0);
                ("contact", format!("the URL '{}'", token_around(ua, at, at)))
            }
            Some(Source::ContactEmail) => {
                let address = rules::email(ua).map(|r| &ua[r]).unwrap_or_default();
                ("contact", format!("the e-mail address '{address}'"))
            }
            Some(Source::ContactDomain) => {
                let name = rules::domain(ua).map(|r| &ua[r]).unwrap_or_default();
                ("contact", format!("the domain name '{name}'"))
            }
            Some(Source::PublicList(i)) => (
                "public list",
                format!("crawler-user-agents pattern '{}'", self.public.pattern(i)),
            ),
            Some(Source::Structure(s)) => ("structure", format!("no browser shape ({s})")),
        }
    }
}
