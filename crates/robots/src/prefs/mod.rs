//! Usage preferences: what a site lets robots use its content for, beside
//! whether they may fetch it.
//!
//! Two kinds of robots.txt line state them: `Content-Usage` (IETF aipref,
//! `draft-ietf-aipref-attach`: a group member with an optional path) and
//! `Content-Signal` (Cloudflare's Content Signals Policy: no path). Both are
//! kept losslessly by the parser and compiled beside the rules
//! ([`Robots::preference_lines`](crate::Robots::preference_lines)); a
//! matcher answers them per robot and per path under two readings
//! ([`Reading`]), and says when the readings disagree.
//!
#![doc = include_str!("../../docs/preferences.md")]

pub mod sf;
mod vocab;

use std::fmt;

pub use vocab::{Entry, Preference, Purpose, Statement, Vocabulary};

use crate::path::normalize_pattern;
use crate::profile::Profile;
use crate::ruleset::wild_match;

/// A `Content-Usage` or `Content-Signal` line, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefLine {
    /// The line number.
    pub line: u32,
    /// The first line of the group it stands in, as the profile groups the
    /// file; `None` before the first group.
    pub group: Option<u32>,
    /// The path it applies to (`Content-Usage` only), as written; `None`
    /// for every path.
    pub path: Option<String>,
    /// The path in the profile's normal form, as rules are compared.
    pub(crate) pattern: Option<Vec<u8>>,
    /// What it states.
    pub statement: Statement,
    /// What it states per purpose ([`Purpose::ALL`] order), read once.
    pub(crate) states: [Preference; 3],
}

impl PrefLine {
    /// Reads the value of a preference line.
    pub(crate) fn read(
        profile: &Profile,
        vocabulary: Vocabulary,
        line: u32,
        group: Option<u32>,
        value: &str,
    ) -> PrefLine {
        let (path, prefs) = match vocabulary {
            Vocabulary::Aipref => split_path(value),
            Vocabulary::ContentSignal => (None, value),
        };
        let pattern = path.map(|p| normalize_pattern(p.as_bytes(), profile.path_form).into_owned());
        let statement = Statement::read(vocabulary, prefs);
        PrefLine {
            line,
            group,
            path: path.map(str::to_owned),
            pattern,
            states: Purpose::ALL.map(|p| statement.preference(p)),
            statement,
        }
    }

    /// The length of the path as rules count it (0 without a path), when
    /// the line applies to `path`.
    pub(crate) fn matches(&self, path: &[u8], wildcards: bool) -> Option<usize> {
        match &self.pattern {
            None => Some(0),
            Some(p) if wildcards => wild_match(p, path).then_some(p.len()),
            Some(p) => path.starts_with(p).then_some(p.len()),
        }
    }
}

/// Splits `Content-Usage`'s value into its optional path and its
/// preferences (aipref-attach §3.2): a value starting with `/` starts with a
/// path, which ends before the first space or tab.
fn split_path(value: &str) -> (Option<&str>, &str) {
    let value = value.trim();
    if value.starts_with('/') {
        match value.find([' ', '\t']) {
            Some(i) => (Some(&value[..i]), value[i..].trim_start()),
            None => (Some(value), ""),
        }
    } else {
        (None, value)
    }
}

/// How a robot reads preference lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reading {
    /// IETF aipref-attach: a line belongs to the group it stands in; of a
    /// group's `Content-Usage` lines that match a path, the longest path
    /// decides (a line without a path matches every path, with length 0),
    /// lines of that length combining; the group's `Content-Signal` lines
    /// apply to every path. Lines before the first group are read by no
    /// robot.
    Group,
    /// As [`Reading::Group`] for `Content-Usage`, but every
    /// `Content-Signal` line applies to every robot and path wherever it
    /// stands (crawler-commons' `RobotsExtension`).
    FileWide,
}

impl Reading {
    /// Both readings.
    pub const ALL: [Reading; 2] = [Reading::Group, Reading::FileWide];

    /// `group` or `file-wide`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Reading::Group => "group",
            Reading::FileWide => "file-wide",
        }
    }
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Deciding lines an [`Answer`] names at most.
pub const LINES_NAMED: usize = 8;

/// One purpose's answer under one reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The purpose.
    pub purpose: Purpose,
    /// The combined preference.
    pub preference: Preference,
    /// The lines that decided it: the ones stating that preference, the
    /// first [`LINES_NAMED`] in file order (empty when nothing is stated).
    pub lines: Vec<u32>,
}

/// A robot's usage preferences for one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageAnswer {
    /// Whether the robot may fetch the path. Where it may not, the
    /// preferences have no effect (aipref-attach: they apply only where the
    /// group lets the robot fetch), but are still answered.
    pub fetch: bool,
    /// Per purpose ([`Purpose::ALL`] order), under [`Reading::Group`].
    pub group: [Answer; 3],
    /// Per purpose, under [`Reading::FileWide`].
    pub file_wide: [Answer; 3],
}

impl UsageAnswer {
    /// The answers of a reading.
    #[must_use]
    pub fn reading(&self, reading: Reading) -> &[Answer; 3] {
        match reading {
            Reading::Group => &self.group,
            Reading::FileWide => &self.file_wide,
        }
    }

    /// The purposes on which the two readings disagree, where the robot
    /// may fetch the path (elsewhere preferences apply under neither).
    pub fn disagreements(&self) -> impl Iterator<Item = Purpose> + '_ {
        self.group
            .iter()
            .zip(&self.file_wide)
            .filter(|(g, f)| self.fetch && g.preference != f.preference)
            .map(|(g, _)| g.purpose)
    }

    /// Whether the readings disagree on any purpose.
    #[must_use]
    pub fn disagree(&self) -> bool {
        self.disagreements().next().is_some()
    }

    /// Whether any line states anything for this robot and path.
    #[must_use]
    pub fn is_stated(&self) -> bool {
        self.group
            .iter()
            .chain(&self.file_wide)
            .any(|a| a.preference != Preference::Unstated)
    }
}

/// The three preferences of an answer as a code of three characters, in
/// [`Purpose::ALL`] order: `y`, `n` or `-` each (`-n-`: training refused,
/// the rest unstated). The crawl store keeps them so.
#[must_use]
pub fn code(preferences: [Preference; 3]) -> String {
    preferences.iter().map(|p| p.as_str()).collect()
}

/// The preferences a [`code`] holds; `None` for any other text.
#[must_use]
pub fn from_code(code: &str) -> Option<[Preference; 3]> {
    let b = code.as_bytes();
    if b.len() != 3 {
        return None;
    }
    let one = |c: u8| match c {
        b'y' => Some(Preference::Allowed),
        b'n' => Some(Preference::Refused),
        b'-' => Some(Preference::Unstated),
        _ => None,
    };
    Some([one(b[0])?, one(b[1])?, one(b[2])?])
}

/// The preferences of a reading's answers.
#[must_use]
pub fn preferences(answers: &[Answer; 3]) -> [Preference; 3] {
    [
        answers[0].preference,
        answers[1].preference,
        answers[2].preference,
    ]
}

/// The preferences a response's `Content-Usage` (aipref) and
/// `Content-Signal` (Cloudflare) header fields state, combined: any `n`
/// refuses (a field that is not a valid Dictionary states nothing).
#[must_use]
pub fn of_headers<'a>(
    content_usage: impl IntoIterator<Item = &'a str>,
    content_signal: impl IntoIterator<Item = &'a str>,
) -> [Preference; 3] {
    let statements: Vec<Statement> = content_usage
        .into_iter()
        .map(|v| Statement::read(Vocabulary::Aipref, v))
        .chain(
            content_signal
                .into_iter()
                .map(|v| Statement::read(Vocabulary::ContentSignal, v)),
        )
        .collect();
    Purpose::ALL.map(|p| {
        statements
            .iter()
            .fold(Preference::Unstated, |acc, s| acc.combine(s.preference(p)))
    })
}

/// Answers the preference lines `lines` (a compiled file's) for a robot
/// that obeys the groups starting at `groups`, for the normalised `path`
/// it may (`fetch`) or may not fetch.
pub(crate) fn answer(
    lines: &[PrefLine],
    groups: &[u32],
    path: &[u8],
    fetch: bool,
    wildcards: bool,
) -> UsageAnswer {
    let in_groups = |l: &&PrefLine| l.group.is_some_and(|g| groups.binary_search(&g).is_ok());
    // The longest matching path among the groups' Content-Usage lines.
    let longest = lines
        .iter()
        .filter(in_groups)
        .filter(|l| l.statement.vocabulary == Vocabulary::Aipref)
        .filter_map(|l| l.matches(path, wildcards))
        .max();
    let usage = |l: &&PrefLine| {
        l.statement.vocabulary == Vocabulary::Aipref
            && in_groups(l)
            && longest.is_some()
            && l.matches(path, wildcards) == longest
    };
    let signal_in_group =
        |l: &&PrefLine| l.statement.vocabulary == Vocabulary::ContentSignal && in_groups(l);
    let signal_anywhere = |l: &&PrefLine| l.statement.vocabulary == Vocabulary::ContentSignal;
    let group: Vec<&PrefLine> = lines
        .iter()
        .filter(|l| usage(l) || signal_in_group(l))
        .collect();
    let file_wide: Vec<&PrefLine> = lines
        .iter()
        .filter(|l| usage(l) || signal_anywhere(l))
        .collect();
    let (group, file_wide) = (combine(&group), combine(&file_wide));
    UsageAnswer {
        fetch,
        group,
        file_wide,
    }
}

/// Combines the statements of some lines, per purpose.
fn combine(lines: &[&PrefLine]) -> [Answer; 3] {
    let mut i = 0;
    Purpose::ALL.map(|purpose| {
        let at = i;
        i += 1;
        let preference = lines
            .iter()
            .fold(Preference::Unstated, |p, l| p.combine(l.states[at]));
        let lines = if preference == Preference::Unstated {
            Vec::new()
        } else {
            lines
                .iter()
                .filter(|l| l.states[at] == preference)
                .map(|l| l.line)
                .take(LINES_NAMED)
                .collect()
        };
        Answer {
            purpose,
            preference,
            lines,
        }
    })
}

/// The heap a list of preference lines holds, roughly.
#[allow(clippy::ptr_arg)] // its capacity counts
pub(crate) fn heap_size(lines: &Vec<PrefLine>) -> usize {
    lines.capacity() * size_of::<PrefLine>()
        + lines
            .iter()
            .map(|l| {
                l.path.as_ref().map_or(0, String::capacity)
                    + l.pattern.as_ref().map_or(0, Vec::capacity)
                    + l.statement.entries.capacity() * size_of::<Entry>()
                    + l.statement
                        .entries
                        .iter()
                        .map(|e| e.label.capacity() + e.value.capacity())
                        .sum::<usize>()
            })
            .sum::<usize>()
}
