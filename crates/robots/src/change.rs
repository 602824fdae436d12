//! The fixer's vocabulary, shared by the fixer (`fix`) and the
//! differential check (`equivalence`): the kinds of change, the sets of
//! profiles a change may affect ([`Mask`]), where each line of a fixed file
//! comes from ([`Origin`]), and the fixer's output ([`Plan`], [`Fixed`]).
//! Neither of the two modules imports the other.

use crate::managed::ManagedBlock;
use crate::profile::{Profile, name_list};

/// A set of profiles of [`Profile::ALL`], one bit per position.
pub(crate) type Mask = u32;

const _: () = assert!(Profile::ALL.len() <= Mask::BITS as usize);

/// No group: the line is in the header, a sitemap, or the trailer.
pub(crate) const NO_GROUP: u32 = u32::MAX;

/// The profiles of [`Profile::ALL`] for which `f` holds.
pub(crate) fn mask_of(f: impl Fn(&Profile) -> bool) -> Mask {
    Profile::ALL
        .iter()
        .enumerate()
        .filter(|(_, p)| f(p))
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// Whether the profile at `index` of [`Profile::ALL`] is in `mask`.
pub(crate) const fn has(mask: Mask, index: usize) -> bool {
    mask & (1 << index) != 0
}

/// The names of the profiles in `mask`, for messages.
pub(crate) fn profile_names(mask: Mask) -> String {
    let names: Vec<&str> = Profile::ALL
        .iter()
        .enumerate()
        .filter(|&(i, _)| has(mask, i))
        .map(|(_, p)| p.name)
        .collect();
    if names.is_empty() {
        return name_list(&names);
    }
    format!("{} robots", name_list(&names))
}

/// What kind of change the fixer made. Each kind has a stable name
/// ([`ChangeKind::name`]) for summaries and machine-readable output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ChangeKind {
    /// A UTF-8 byte-order mark (or the start of one) removed.
    Bom,
    /// `\r\n` and `\r` line endings written as `\n`, or a line break added
    /// after the last line.
    LineEndings,
    /// Spaces around keys and values, indentation, and blank lines outside
    /// groups normalised.
    Whitespace,
    /// Bytes that are not UTF-8 replaced: percent-encoded in rules (as
    /// robots compare them), U+FFFD elsewhere.
    InvalidUtf8,
    /// The rest of a line after a NUL byte dropped.
    Nul,
    /// A comment after a directive moved to its own line before it (1994
    /// standard).
    CommentMoved,
    /// A line that is neither a directive nor a comment turned into a
    /// comment.
    UnparsedCommented,
    /// A rule or group member before the first user-agent line, which no
    /// robot reads, turned into a comment.
    OrphanCommented,
    /// A misspelt key (`disalow`), or one that only starts with a name
    /// (`Disallowed`), written in full.
    KeySpelling,
    /// The missing colon between key and value added.
    MissingColon,
    /// A blank line inside a group removed.
    BlankLineInGroup,
    /// A blank line added before a group.
    BlankLineAdded,
    /// A group merged into an earlier one naming the same robots.
    GroupsMerged,
    /// A group naming `*` moved after the other groups.
    StarGroupLast,
    /// `Disallow:` (which allows everything) added to a group without rules.
    DisallowAdded,
    /// A group's rules reordered: more specific first, `allow` first on a
    /// tie, wherever they compete.
    RulesReordered,
    /// A sitemap moved to the end of the file, outside any group.
    SitemapMoved,
    /// A `host` line moved into the `User-agent: Yandex` group.
    HostMoved,
    /// A `host` line after the first turned into a comment.
    HostDuplicate,
    /// A `clean-param` line moved into the `User-agent: Yandex` group.
    CleanParamMoved,
    /// A `User-agent: Yandex` group created (with the rules of the `*`
    /// groups) to hold `host` and `clean-param`.
    YandexGroupCreated,
    /// A line longer than a robot's line limit rewritten, so the part that
    /// robot reads changed.
    LongLine,
    /// The file is over a robot's size limit, and lines moved across it.
    Oversize,
}

/// Kinds of change that can change what robots read (a rule gained or
/// lost, a group chosen differently).
pub(crate) const READING: u8 = 1;
/// Kinds that can change the order in which first-match robots see rules.
pub(crate) const ORDER: u8 = 2;
/// Kinds that can change a rule's pattern as some robot reads it.
pub(crate) const PATTERN: u8 = 4;

impl ChangeKind {
    /// Every kind, in the order of the enum.
    pub const ALL: [ChangeKind; 23] = [
        ChangeKind::Bom,
        ChangeKind::LineEndings,
        ChangeKind::Whitespace,
        ChangeKind::InvalidUtf8,
        ChangeKind::Nul,
        ChangeKind::CommentMoved,
        ChangeKind::UnparsedCommented,
        ChangeKind::OrphanCommented,
        ChangeKind::KeySpelling,
        ChangeKind::MissingColon,
        ChangeKind::BlankLineInGroup,
        ChangeKind::BlankLineAdded,
        ChangeKind::GroupsMerged,
        ChangeKind::StarGroupLast,
        ChangeKind::DisallowAdded,
        ChangeKind::RulesReordered,
        ChangeKind::SitemapMoved,
        ChangeKind::HostMoved,
        ChangeKind::HostDuplicate,
        ChangeKind::CleanParamMoved,
        ChangeKind::YandexGroupCreated,
        ChangeKind::LongLine,
        ChangeKind::Oversize,
    ];

    /// A stable kebab-case name (`comment-moved`, `rules-reordered`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ChangeKind::Bom => "bom",
            ChangeKind::LineEndings => "line-endings",
            ChangeKind::Whitespace => "whitespace",
            ChangeKind::InvalidUtf8 => "invalid-utf8",
            ChangeKind::Nul => "nul",
            ChangeKind::CommentMoved => "comment-moved",
            ChangeKind::UnparsedCommented => "unparsed-commented",
            ChangeKind::OrphanCommented => "orphan-commented",
            ChangeKind::KeySpelling => "key-spelling",
            ChangeKind::MissingColon => "missing-colon",
            ChangeKind::BlankLineInGroup => "blank-line-in-group",
            ChangeKind::BlankLineAdded => "blank-line-added",
            ChangeKind::GroupsMerged => "groups-merged",
            ChangeKind::StarGroupLast => "star-group-last",
            ChangeKind::DisallowAdded => "disallow-added",
            ChangeKind::RulesReordered => "rules-reordered",
            ChangeKind::SitemapMoved => "sitemap-moved",
            ChangeKind::HostMoved => "host-moved",
            ChangeKind::HostDuplicate => "host-duplicate",
            ChangeKind::CleanParamMoved => "clean-param-moved",
            ChangeKind::YandexGroupCreated => "yandex-group-created",
            ChangeKind::LongLine => "long-line",
            ChangeKind::Oversize => "oversize",
        }
    }

    /// What differences in decisions this kind of change can account for.
    pub(crate) const fn explains(self) -> u8 {
        match self {
            ChangeKind::KeySpelling
            | ChangeKind::MissingColon
            | ChangeKind::BlankLineInGroup
            | ChangeKind::GroupsMerged
            | ChangeKind::DisallowAdded
            | ChangeKind::YandexGroupCreated => READING,
            ChangeKind::Nul | ChangeKind::Bom | ChangeKind::LongLine | ChangeKind::Oversize => {
                READING | PATTERN
            }
            ChangeKind::RulesReordered => ORDER,
            _ => 0,
        }
    }

    /// Whether the change rewrites the text of its line.
    pub(crate) const fn rewrites_line(self) -> bool {
        matches!(
            self,
            ChangeKind::Bom
                | ChangeKind::InvalidUtf8
                | ChangeKind::Nul
                | ChangeKind::CommentMoved
                | ChangeKind::UnparsedCommented
                | ChangeKind::OrphanCommented
                | ChangeKind::KeySpelling
                | ChangeKind::MissingColon
                | ChangeKind::HostDuplicate
        )
    }
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One change the fixer made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The line of the original file it concerns (1-based); for a change to
    /// a group, the group's first user-agent line.
    pub line: u32,
    /// What kind of change.
    pub kind: ChangeKind,
    /// What was done and why, in one sentence.
    pub description: String,
}

/// The fixed file: its text and the changes made. Whether robots still
/// decide as before is [`compare_fixed`](crate::compare_fixed)'s to say.
#[derive(Debug, Clone)]
pub struct Fixed {
    /// The corrected file (UTF-8, `\n` line endings).
    pub text: String,
    /// Every change, by line of the original file.
    pub changes: Vec<Change>,
    /// What the differential check needs to trace a difference to its
    /// change.
    pub(crate) plan: Plan,
}

impl Fixed {
    /// Whether the file needed no change (then `text` is the original).
    #[must_use]
    pub fn is_unchanged(&self) -> bool {
        self.changes.is_empty()
    }

    /// The managed block kept as it is, if the file has one.
    #[must_use]
    pub fn managed(&self) -> Option<ManagedBlock> {
        self.plan.managed
    }
}

/// A change with what the differential check needs to know about it.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) change: Change,
    /// The profiles whose decisions it may change.
    pub(crate) affects: Mask,
    /// The group of the fixed file it concerns, or [`NO_GROUP`].
    pub(crate) group: u32,
}

/// Where a line of the fixed file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The line of the original file (0: added by the fixer).
    pub(crate) line: u32,
    /// Its group in the fixed file, or [`NO_GROUP`].
    pub(crate) group: u32,
    /// A copy of `line` (the `User-agent: Yandex` group repeats the `*`
    /// group's rules).
    pub(crate) copy: bool,
}

/// The fixer's output before the differential check.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) text: String,
    pub(crate) changes: Vec<Recorded>,
    /// Per line of the fixed text (index = number − 1).
    pub(crate) origins: Vec<Origin>,
    /// Per line of the original (index = number): its group in the fixed
    /// file, or [`NO_GROUP`].
    pub(crate) group_of_line: Vec<u32>,
    /// Per group: whether a line of it lies past a truncating size limit in
    /// either file.
    pub(crate) cut_groups: Vec<bool>,
    /// Whether a created Yandex group repeats the `*` groups' rules.
    pub(crate) copied: bool,
    /// A block a CDN manages, kept as it is.
    pub(crate) managed: Option<ManagedBlock>,
}
