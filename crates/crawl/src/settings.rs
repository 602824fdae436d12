//! A crawl's whole configuration, kept in its store so that a resumed
//! crawl is the same crawl ([`CrawlSettings`]).
//!
//! The settings are the effective value of every option that shapes a
//! crawl (scope, limits, politeness, identity, what is trusted and
//! fetched), defaults included, as text keyed by the option's name, with
//! the version of the rules that read pages ([`READING_RULES`]). A new
//! crawl writes them to its store's `meta` (key `settings`, JSON); a
//! resumed one reads them back and reconciles them with what it was given
//! ([`CrawlSettings::resume`]): an option given again must equal the stored
//! value, unless a [`ChangeRule`] lets it change, and each change allowed
//! is returned to be recorded (`meta` key `settings_changes`, one line a
//! change: when, option, old value, new value).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The version of the rules that read a crawl's pages: URL normal forms,
/// the links, directives and text taken from HTML, the robots.txt
/// readings. A crawl is resumed only by a botwarden whose rules are the
/// ones its store was written with, so that one store never mixes two
/// readings. Raised whenever a change makes a page read differently.
///
/// 2: a `<noscript>` is read as markup (its links, frames and text); a
/// UTF-8 byte-order mark is not text; links to the page they stand on
/// are marked; a refresh made at once is a redirect.
pub const READING_RULES: u32 = 2;

/// The `meta` key of the settings.
pub const SETTINGS_META: &str = "settings";

/// The `meta` key of the changes made on resume.
pub const CHANGES_META: &str = "settings_changes";

/// The effective configuration of a crawl (module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrawlSettings {
    /// [`READING_RULES`] of the botwarden that wrote them.
    pub reading_rules: u32,
    /// The version of the botwarden that wrote them.
    pub version: String,
    /// Each option's value(s) as text, by its name (a flag that is set
    /// holds `true`; an option that may repeat holds each value; one not
    /// given and without default holds nothing).
    pub options: BTreeMap<String, Vec<String>>,
}

/// How an option may differ on resume from its stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeRule {
    /// To any value.
    Any,
    /// Only to a larger number (a limit raised).
    Raise,
}

/// One option changed on resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingChange {
    /// The option.
    pub option: String,
    /// Its value before.
    pub before: Vec<String>,
    /// Its value now.
    pub after: Vec<String>,
}

/// Why a crawl cannot be resumed with the options given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsRefusal {
    /// The store was written by rules that read pages otherwise.
    ReadingRules {
        /// The store's rules.
        stored: u32,
        /// This botwarden's.
        current: u32,
        /// The botwarden that wrote the store.
        version: String,
    },
    /// An option differs from the stored value and may not change.
    Differs {
        /// The option.
        option: String,
        /// Its stored value.
        stored: Vec<String>,
        /// The value given.
        given: Vec<String>,
        /// How it could have changed, if at all.
        rule: Option<ChangeRule>,
    },
}

impl fmt::Display for SettingsRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsRefusal::ReadingRules {
                stored,
                current,
                version,
            } => write!(
                f,
                "the crawl was written by botwarden {version}, whose rules for reading pages \
                 (version {stored}) are not this botwarden's (version {current}); \
                 resume it with botwarden {version}, or start a new crawl"
            ),
            SettingsRefusal::Differs {
                option,
                stored,
                given,
                rule,
            } => {
                write!(
                    f,
                    "{option} {}: the crawl was started with {}",
                    shown(given),
                    shown_as(option, stored)
                )?;
                match rule {
                    Some(ChangeRule::Raise) => {
                        write!(f, "; on resume {option} may only be raised")
                    }
                    Some(ChangeRule::Any) => Ok(()),
                    None => write!(
                        f,
                        "; a resumed crawl keeps it (leave {option} out to keep the stored value)"
                    ),
                }
            }
        }
    }
}

impl std::error::Error for SettingsRefusal {}

/// A value list as text, for messages.
fn shown(values: &[String]) -> String {
    match values {
        [] => "(not given)".to_owned(),
        [one] => format!("'{one}'"),
        many => many
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn shown_as(option: &str, values: &[String]) -> String {
    if values.is_empty() {
        format!("no {option}")
    } else {
        format!("{option} {}", shown(values))
    }
}

impl CrawlSettings {
    /// Settings of this botwarden from the options' values.
    #[must_use]
    pub fn new(options: BTreeMap<String, Vec<String>>) -> CrawlSettings {
        CrawlSettings {
            reading_rules: READING_RULES,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            options,
        }
    }

    /// The settings as kept in `meta`.
    #[must_use]
    pub fn to_meta(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The settings kept in `meta`; `None` when the text is not settings.
    #[must_use]
    pub fn from_meta(text: &str) -> Option<CrawlSettings> {
        serde_json::from_str(text).ok()
    }

    /// An option's value(s).
    #[must_use]
    pub fn get(&self, option: &str) -> Option<&[String]> {
        self.options.get(option).map(Vec::as_slice)
    }

    /// The settings a resumed crawl runs with: these (the stored ones),
    /// with each option of `given` that was given explicitly (`true`)
    /// and differs applied when `rule` lets it change. Returns them and
    /// the changes made.
    ///
    /// # Errors
    /// A [`SettingsRefusal`] naming the first option given that differs
    /// and may not change, or the reading rules when they differ.
    pub fn resume<'a>(
        &self,
        given: impl IntoIterator<Item = (&'a str, &'a [String])>,
        rule: impl Fn(&str) -> Option<ChangeRule>,
    ) -> Result<(CrawlSettings, Vec<SettingChange>), SettingsRefusal> {
        if self.reading_rules != READING_RULES {
            return Err(SettingsRefusal::ReadingRules {
                stored: self.reading_rules,
                current: READING_RULES,
                version: self.version.clone(),
            });
        }
        let mut out = self.clone();
        let mut changes = Vec::new();
        for (option, value) in given {
            let stored = self.get(option).unwrap_or(&[]);
            if stored == value {
                continue;
            }
            let how = rule(option);
            let allowed = match how {
                Some(ChangeRule::Any) => true,
                Some(ChangeRule::Raise) => match (number(stored), number(value)) {
                    (Some(before), Some(after)) => after >= before,
                    _ => false,
                },
                None => false,
            };
            if !allowed {
                return Err(SettingsRefusal::Differs {
                    option: option.to_owned(),
                    stored: stored.to_vec(),
                    given: value.to_vec(),
                    rule: how,
                });
            }
            changes.push(SettingChange {
                option: option.to_owned(),
                before: stored.to_vec(),
                after: value.to_vec(),
            });
            out.options.insert(option.to_owned(), value.to_vec());
        }
        Ok((out, changes))
    }
}

/// The single number of a value list.
fn number(values: &[String]) -> Option<u64> {
    match values {
        [one] => one.trim().parse().ok(),
        _ => None,
    }
}

impl SettingChange {
    /// The change as a line of `meta`'s `settings_changes`: when, the
    /// option, the value before and after (values joined by `,`), tab
    /// separated.
    #[must_use]
    pub fn line(&self, at: &str) -> String {
        let clean = |v: &[String]| v.join(",").replace(['\t', '\n'], " ");
        format!(
            "{at}\t{}\t{}\t{}\n",
            self.option,
            clean(&self.before),
            clean(&self.after)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &[&str])]) -> CrawlSettings {
        CrawlSettings::new(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.iter().map(|s| (*s).to_owned()).collect()))
                .collect(),
        )
    }

    fn v(values: &[&str]) -> Vec<String> {
        values.iter().map(|s| (*s).to_owned()).collect()
    }

    fn rule(option: &str) -> Option<ChangeRule> {
        match option {
            "--parallel" => Some(ChangeRule::Any),
            "--max-urls" => Some(ChangeRule::Raise),
            _ => None,
        }
    }

    #[test]
    fn settings_survive_meta() {
        let s = settings(&[("--exclude", &["/private"]), ("--sitemap", &["a", "b"])]);
        assert_eq!(CrawlSettings::from_meta(&s.to_meta()), Some(s));
        assert_eq!(CrawlSettings::from_meta("not json"), None);
    }

    #[test]
    fn an_option_given_again_unchanged_is_no_change() {
        let s = settings(&[("--exclude", &["/private"]), ("--parallel", &["4"])]);
        let same = v(&["/private"]);
        let (out, changes) = s
            .resume([("--exclude", same.as_slice())], rule)
            .expect("same");
        assert_eq!(out, s);
        assert!(changes.is_empty());
    }

    #[test]
    fn an_option_that_may_not_change_is_refused_by_name() {
        let s = settings(&[("--exclude", &["/private"])]);
        let other = v(&["/other"]);
        let e = s
            .resume([("--exclude", other.as_slice())], rule)
            .expect_err("refused");
        let text = e.to_string();
        assert!(text.starts_with("--exclude '/other'"), "{text}");
        assert!(text.contains("started with --exclude '/private'"), "{text}");
        let none: Vec<String> = Vec::new();
        let e = s
            .resume([("--exclude", none.as_slice())], rule)
            .expect_err("refused");
        assert!(e.to_string().contains("a resumed crawl keeps it"), "{e}");
    }

    #[test]
    fn options_that_may_change_are_applied_and_returned() {
        let s = settings(&[("--parallel", &["4"]), ("--max-urls", &["100"])]);
        let eight = v(&["8"]);
        let more = v(&["200"]);
        let (out, changes) = s
            .resume(
                [
                    ("--parallel", eight.as_slice()),
                    ("--max-urls", more.as_slice()),
                ],
                rule,
            )
            .expect("allowed");
        assert_eq!(out.get("--parallel"), Some(eight.as_slice()));
        assert_eq!(out.get("--max-urls"), Some(more.as_slice()));
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[1].line("T"), "T\t--max-urls\t100\t200\n".to_owned());
        let fewer = v(&["50"]);
        let e = s
            .resume([("--max-urls", fewer.as_slice())], rule)
            .expect_err("lowered");
        assert!(e.to_string().contains("may only be raised"), "{e}");
    }

    #[test]
    fn other_reading_rules_are_refused() {
        let mut s = settings(&[]);
        s.reading_rules = READING_RULES + 1;
        s.version = "9.9.9".into();
        let e = s.resume(std::iter::empty(), rule).expect_err("other rules");
        assert!(e.to_string().contains("botwarden 9.9.9"), "{e}");
    }
}
