//! The fixer: the corrected file the checker describes, every change it
//! makes, and the differential check that robots still decide as before.

mod arrange;
mod order;
mod read;
mod write;

pub(crate) use read::agent_key;

use crate::equivalence::{Equivalence, differential};
use crate::parse::{LineEnding, RobotsTxt};
use crate::profile::{Beyond, Profile};

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
    match names.as_slice() {
        [] => "no robot".to_owned(),
        [one] => format!("{one} robots"),
        [rest @ .., last] => format!("{} and {last} robots", rest.join(", ")),
    }
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
    const fn rewrites_line(self) -> bool {
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

/// The fixed file: its text, the changes made, and the differential check
/// of the fixed file against the original.
#[derive(Debug, Clone)]
pub struct Fixed {
    /// The corrected file (UTF-8, `\n` line endings).
    pub text: String,
    /// Every change, by line of the original file.
    pub changes: Vec<Change>,
    /// How robots' decisions differ between the original and the fixed
    /// file, and why.
    pub equivalence: Equivalence,
}

impl Fixed {
    /// Whether the file needed no change (then `text` is the original).
    #[must_use]
    pub fn is_unchanged(&self) -> bool {
        self.changes.is_empty()
    }
}

/// Fixes a robots.txt file.
///
#[doc = include_str!("../docs/fixer.md")]
#[must_use]
pub fn fix(txt: &RobotsTxt) -> Fixed {
    let plan = plan(txt);
    let after = RobotsTxt::parse(plan.text.as_bytes());
    let equivalence = differential(txt, &after, Some(&plan));
    Fixed {
        text: plan.text,
        changes: plan.changes.into_iter().map(|r| r.change).collect(),
        equivalence,
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
}

/// The changes logged while fixing.
#[derive(Debug)]
pub(crate) struct Log {
    items: Vec<Recorded>,
    /// Per original line: whether a logged change rewrote its text.
    touched: Vec<bool>,
}

impl Log {
    fn new(lines: usize) -> Log {
        Log {
            items: Vec::new(),
            touched: vec![false; lines + 1],
        }
    }

    pub(crate) fn push(
        &mut self,
        line: u32,
        kind: ChangeKind,
        affects: Mask,
        group: u32,
        description: String,
    ) {
        if kind.rewrites_line()
            && let Some(t) = self.touched.get_mut(line as usize)
        {
            *t = true;
        }
        self.items.push(Recorded {
            change: Change {
                line,
                kind,
                description,
            },
            affects,
            group,
        });
    }
}

/// Fixes `txt` without checking the result.
pub(crate) fn plan(txt: &RobotsTxt) -> Plan {
    let plan = plan_with(txt, true);
    // A copy of the `*` rules for Yandex must not push the file past a size
    // some robot reads.
    let smallest = Profile::ALL
        .iter()
        .filter_map(|p| p.size_limit.map(|l| l.bytes))
        .min();
    let grew_past = smallest.is_some_and(|l| plan.text.len() > l && txt.bytes().len() <= l);
    if plan.copied && grew_past {
        return plan_with(txt, false);
    }
    plan
}

fn plan_with(txt: &RobotsTxt, copy: bool) -> Plan {
    let mut log = Log::new(txt.lines().len());
    let reading = read::read(txt, &mut log);
    let model = arrange::arrange(reading, &mut log, copy);
    let written = write::write(txt, &model, &mut log);
    let text = written.text;
    let origins = written.origins;
    file_changes(txt, &model, &mut log, written.whitespace);
    long_lines(txt, &text, &origins, &mut log);
    let cut_groups = oversize(txt, &text, &origins, &model, &mut log);
    let mut changes = log.items;
    changes.sort_by_key(|r| r.change.line);
    Plan {
        text,
        changes,
        origins,
        group_of_line: model.group_of_line,
        cut_groups,
        copied: model.copied,
    }
}

/// Changes to the file as a whole: byte-order mark, line endings, white
/// space.
fn file_changes(txt: &RobotsTxt, model: &arrange::Model, log: &mut Log, ws: write::Spacing) {
    if txt.has_bom() {
        log.push(
            1,
            ChangeKind::Bom,
            0,
            NO_GROUP,
            "the UTF-8 byte-order mark at the start removed".to_owned(),
        );
    }
    let lines = txt.lines();
    let other = lines
        .iter()
        .find(|l| matches!(l.ending, LineEnding::CrLf | LineEnding::Cr));
    let unterminated = lines
        .last()
        .filter(|l| l.ending == LineEnding::None && !model.blank[l.number as usize]);
    match (other, unterminated) {
        (Some(l), _) => log.push(
            l.number,
            ChangeKind::LineEndings,
            0,
            NO_GROUP,
            format!(
                "line endings written as `\\n` (line {} ends with `{}`)",
                l.number,
                l.ending.as_str().escape_default()
            ),
        ),
        (None, Some(l)) => log.push(
            l.number,
            ChangeKind::LineEndings,
            0,
            NO_GROUP,
            "a line break added after the last line".to_owned(),
        ),
        (None, None) => {}
    }
    if let Some(first) = ws.first {
        log.push(
            first,
            ChangeKind::Whitespace,
            0,
            NO_GROUP,
            format!(
                "white space and blank lines normalised on {} line{} (first: line {first})",
                ws.lines,
                if ws.lines == 1 { "" } else { "s" }
            ),
        );
    }
}

/// Lines over a profile's line limit whose text changed: that profile reads
/// another part of them.
fn long_lines(txt: &RobotsTxt, text: &str, origins: &[Origin], log: &mut Log) {
    let Some(limit) = Profile::ALL.iter().filter_map(|p| p.line_limit).min() else {
        return;
    };
    let longest_before = txt.lines().iter().map(|l| l.span.len()).max().unwrap_or(0);
    let longest_after = text.lines().map(str::len).max().unwrap_or(0);
    if longest_before <= limit && longest_after <= limit {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for (out, origin) in text.lines().zip(origins) {
        let Some(line) = txt.line(origin.line) else {
            continue;
        };
        let same = out.as_bytes() == txt.slice(line.span);
        if same || (out.len() <= limit && line.span.len() <= limit) || !seen.insert(origin.line) {
            continue;
        }
        let mask = mask_of(|p| {
            p.line_limit
                .is_some_and(|l| out.len() > l || line.span.len() > l)
        });
        log.push(
            origin.line,
            ChangeKind::LongLine,
            mask,
            origin.group,
            format!(
                "line {} is longer than {} read ({} bytes) and was rewritten, so the part they read changed",
                origin.line,
                profile_names(mask),
                line.span.len().max(out.len())
            ),
        );
    }
}

/// Logs the size limits the file crosses; gives the groups with a line past
/// a truncating limit in either file.
fn oversize(
    txt: &RobotsTxt,
    text: &str,
    origins: &[Origin],
    model: &arrange::Model,
    log: &mut Log,
) -> Vec<bool> {
    let mut cut = vec![false; model.group_count as usize];
    let limited: Vec<_> = Profile::ALL
        .iter()
        .filter_map(|p| p.size_limit)
        .filter(|l| txt.bytes().len() > l.bytes || text.len() > l.bytes)
        .collect();
    if limited.is_empty() || txt.bytes() == text.as_bytes() {
        return cut;
    }
    let mask = mask_of(|p| {
        p.size_limit
            .is_some_and(|l| txt.bytes().len() > l.bytes || text.len() > l.bytes)
    });
    if let Some(at) = limited
        .iter()
        .filter(|l| l.beyond == Beyond::Truncate)
        .map(|l| l.bytes)
        .min()
    {
        for line in txt.lines().iter().filter(|l| l.span.end > at) {
            if let Some(&g) = model.group_of_line.get(line.number as usize)
                && let Some(c) = cut.get_mut(g as usize)
            {
                *c = true;
            }
        }
        let mut end = 0;
        for (out, origin) in text.split_inclusive('\n').zip(origins) {
            end += out.len();
            if end > at
                && let Some(c) = cut.get_mut(origin.group as usize)
            {
                *c = true;
            }
        }
    }
    let first = txt
        .lines()
        .iter()
        .find(|l| limited.iter().any(|s| l.span.end > s.bytes))
        .map_or(1, |l| l.number);
    log.push(
        first,
        ChangeKind::Oversize,
        mask,
        NO_GROUP,
        format!(
            "the file is over the size {} read ({} bytes before, {} after), and the fixer moved lines across that limit",
            profile_names(mask),
            txt.bytes().len(),
            text.len()
        ),
    );
    cut
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use ChangeKind as K;

    /// Fixes `src`, checks the text, the changes (line and kind), that every
    /// difference is intended and that fixing again changes nothing.
    fn check(src: impl Into<Vec<u8>>, want: &str, changes: &[(u32, ChangeKind)]) -> Fixed {
        let src = src.into();
        let fixed = fix(&RobotsTxt::parse(src.clone()));
        assert_eq!(fixed.text, want, "fixed text");
        let got: Vec<(u32, ChangeKind)> = fixed.changes.iter().map(|c| (c.line, c.kind)).collect();
        assert_eq!(got, changes, "changes: {:#?}", fixed.changes);
        assert_eq!(fixed.is_unchanged(), fixed.text.as_bytes() == src);
        let unintended: Vec<_> = fixed.equivalence.unintended().collect();
        assert!(unintended.is_empty(), "{unintended:#?}");
        let again = fix(&RobotsTxt::parse(fixed.text.as_str()));
        assert_eq!(again.text, fixed.text, "not idempotent");
        assert!(again.changes.is_empty(), "{:#?}", again.changes);
        fixed
    }

    /// Found by fuzzing: replacing the invalid bytes of an unknown key on
    /// the first line put a byte where Google skips byte-order-mark look-
    /// alikes, so a second fix changed the file again.
    #[test]
    fn an_unknown_key_outside_ascii_on_line_one_becomes_a_comment() {
        check(
            b"U\x8d\x9au-agent: Mediapartnessrallow:\n".to_vec(),
            "# U\u{FFFD}\u{FFFD}u-agent: Mediapartnessrallow:\n",
            &[(1, K::InvalidUtf8), (1, K::UnparsedCommented)],
        );
    }

    /// Found by fuzzing too: a first-line comment whose first character
    /// is U+FFFD has the mark's last byte at place 2, which Google skips.
    #[test]
    fn a_first_line_comment_cannot_hold_a_byte_order_mark_look_alike() {
        let fixed = fix(&RobotsTxt::parse(
            "#\u{FFFD}x\nUser-agent: *\nDisallow: /a\n",
        ));
        assert!(fixed.text.starts_with("# \u{FFFD}x\n"), "{:?}", fixed.text);
        assert!(!fixed.is_unchanged());
        let again = fix(&RobotsTxt::parse(fixed.text.as_str()));
        assert!(again.is_unchanged(), "{:#?}", again.changes);
        assert!(fixed.equivalence.unintended().next().is_none());
    }

    /// The profiles under which some decision differs.
    fn differing(fixed: &Fixed) -> BTreeSet<&'static str> {
        fixed
            .equivalence
            .differences
            .iter()
            .map(|d| d.profile.name)
            .collect()
    }

    /// The kinds of change that explain the differences for `path`.
    fn reasons(fixed: &Fixed, path: &str) -> BTreeSet<(&'static str, ChangeKind)> {
        fixed
            .equivalence
            .differences
            .iter()
            .filter(|d| d.path == path)
            .filter_map(|d| match d.reason {
                crate::Explanation::Intended { kind, .. } => Some((d.profile.name, kind)),
                crate::Explanation::Unintended { .. } => None,
            })
            .collect()
    }

    #[test]
    fn a_clean_file_is_unchanged() {
        let src = "# hi\n\nUser-agent: a\nDisallow: /x\n\nUser-agent: *\nDisallow: /y\n\n\
                   Sitemap: https://e.example/s.xml\n";
        let fixed = check(src, src, &[]);
        assert!(fixed.is_unchanged());
        assert!(fixed.equivalence.differences.is_empty());
        assert!(fixed.equivalence.proven > 0);
        check("", "", &[]);
    }

    #[test]
    fn bom_and_line_endings() {
        check(
            "\u{FEFF}User-agent: *\r\nDisallow: /x\r\n",
            "User-agent: *\nDisallow: /x\n",
            &[(1, K::Bom), (1, K::LineEndings)],
        );
        check(
            "User-agent: *\nDisallow: /x",
            "User-agent: *\nDisallow: /x\n",
            &[(2, K::LineEndings)],
        );
        // Google skips the start of a byte-order mark; strict robots do not.
        let fixed = check(
            b"\xEF\xBBUser-agent: *\nDisallow: /x\n".to_vec(),
            "User-agent: *\nDisallow: /x\n",
            &[(1, K::Bom)],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(reasons(&fixed, "/x"), BTreeSet::from([("strict", K::Bom)]));
    }

    #[test]
    fn white_space_and_blank_lines_are_normalised() {
        let fixed = check(
            "  User-agent:a  \nDisallow:/x\t\n\n\n\nUser-agent: b\nDisallow: /\n",
            "User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /\n",
            &[(1, K::Whitespace)],
        );
        assert!(fixed.changes[0].description.contains("4 lines"));
        assert!(fixed.equivalence.differences.is_empty());
    }

    #[test]
    fn comments_after_directives_move_before_them() {
        let fixed = check(
            "User-agent: * # everyone\nDisallow: /x # secret\n",
            "# everyone\nUser-agent: *\n# secret\nDisallow: /x\n",
            &[(1, K::CommentMoved), (2, K::CommentMoved)],
        );
        assert!(fixed.equivalence.differences.is_empty());
    }

    #[test]
    fn keys_are_written_in_full() {
        let fixed = check(
            "useragent: *\ndisalow: /a\nDisallowed: /b\nDisallow /c\n",
            "User-agent: *\nDisallow: /a\nDisallow: /b\nDisallow: /c\n",
            &[
                (1, K::KeySpelling),
                (2, K::KeySpelling),
                (3, K::KeySpelling),
                (4, K::MissingColon),
            ],
        );
        // Google read every line; robots that compare keys exactly did not
        // read `Disallowed`; strict robots read none of the misspellings.
        assert_eq!(
            differing(&fixed),
            BTreeSet::from(["bing", "rfc9309", "strict", "yandex"])
        );
        assert_eq!(
            reasons(&fixed, "/b"),
            BTreeSet::from([
                ("bing", K::KeySpelling),
                ("rfc9309", K::KeySpelling),
                ("strict", K::KeySpelling),
                ("yandex", K::KeySpelling),
            ])
        );
        // The change on the deciding line comes first.
        assert_eq!(
            reasons(&fixed, "/c"),
            BTreeSet::from([("strict", K::MissingColon)])
        );
        // Without it, the user-agent line that strict robots did not read.
        assert_eq!(
            reasons(&fixed, "/a"),
            BTreeSet::from([("strict", K::KeySpelling)])
        );
    }

    #[test]
    fn lines_no_robot_reads_become_comments() {
        check(
            "Disallow: /before\nCrawl-delay: 5\n<html>\nUser-agent: *\nDisallow: /x\n\
             this is not a directive\n",
            "# Disallow: /before\n# Crawl-delay: 5\n\n# <html>\nUser-agent: *\nDisallow: /x\n\
             # this is not a directive\n",
            &[
                (1, K::OrphanCommented),
                (2, K::OrphanCommented),
                (3, K::UnparsedCommented),
                (4, K::BlankLineAdded),
                (6, K::UnparsedCommented),
            ],
        );
    }

    #[test]
    fn unknown_directives_stay_where_they_are() {
        let src = "Content-Signal: search=yes\n\nUser-agent: *\nNoindex: /x\nDisallow: /y\n";
        check(src, src, &[]);
    }

    #[test]
    fn blank_lines_inside_groups_are_removed() {
        let fixed = check(
            "User-agent: a\n\nUser-agent: b\nDisallow: /x\n\nDisallow: /y\n",
            "User-agent: a\nUser-agent: b\nDisallow: /x\nDisallow: /y\n",
            &[(2, K::BlankLineInGroup), (5, K::BlankLineInGroup)],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(
            reasons(&fixed, "/y"),
            BTreeSet::from([("strict", K::BlankLineInGroup)])
        );
        let a_on_x = fixed
            .equivalence
            .differences
            .iter()
            .find(|d| d.agent == "a" && d.path == "/x")
            .expect("strict robot `a` now reads the rules");
        assert!(a_on_x.before.allowed && !a_on_x.after.allowed);
    }

    #[test]
    fn groups_naming_the_same_robots_are_merged() {
        let fixed = check(
            "User-agent: *\nDisallow: /a\n\nUser-agent: b\nDisallow: /b\n\nuser-agent: *\nDisallow: /c\n",
            "User-agent: b\nDisallow: /b\n\nUser-agent: *\nDisallow: /a\nDisallow: /c\n",
            &[
                (1, K::StarGroupLast),
                (1, K::BlankLineAdded),
                (3, K::Whitespace),
                (7, K::GroupsMerged),
            ],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(
            reasons(&fixed, "/c"),
            BTreeSet::from([("strict", K::GroupsMerged)])
        );
        // Groups that only share a robot are not merged.
        let src = "User-agent: a\nUser-agent: b\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n";
        check(src, src, &[]);
    }

    #[test]
    fn groups_without_rules_get_disallow() {
        // Google does not end the user-agent lines at `crawl-delay`: `a`
        // read `b`'s rules.
        let fixed = check(
            "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n",
            "User-agent: a\nDisallow:\nCrawl-delay: 5\n\nUser-agent: b\nDisallow: /x\n",
            &[(1, K::DisallowAdded), (3, K::BlankLineAdded)],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["google"]));
        assert_eq!(
            reasons(&fixed, "/x"),
            BTreeSet::from([("google", K::DisallowAdded)])
        );
        // Strict robots dropped the record without rules and read `*`.
        let fixed = check(
            "User-agent: *\nDisallow: /\n\nUser-agent: a\n",
            "User-agent: a\nDisallow:\n\nUser-agent: *\nDisallow: /\n",
            &[
                (1, K::StarGroupLast),
                (1, K::BlankLineAdded),
                (3, K::Whitespace),
                (4, K::DisallowAdded),
            ],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(
            reasons(&fixed, "/"),
            BTreeSet::from([("strict", K::DisallowAdded)])
        );
    }

    #[test]
    fn competing_rules_are_ordered_for_first_match_robots() {
        let fixed = check(
            "User-agent: *\nDisallow: /wp-admin/\nDisallow: /cart\nAllow: /wp-admin/admin-ajax.php\n",
            "User-agent: *\nAllow: /wp-admin/admin-ajax.php\nDisallow: /wp-admin/\nDisallow: /cart\n",
            &[(4, K::RulesReordered)],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(
            reasons(&fixed, "/wp-admin/admin-ajax.php"),
            BTreeSet::from([("strict", K::RulesReordered)])
        );
        // A more specific disallow goes before a broad allow.
        check(
            "User-agent: *\nAllow: /\nDisallow: /private\n",
            "User-agent: *\nDisallow: /private\nAllow: /\n",
            &[(3, K::RulesReordered)],
        );
        // An empty `Disallow` allows everything for first-match robots.
        check(
            "User-agent: *\nDisallow:\nDisallow: /x\n",
            "User-agent: *\nDisallow: /x\nDisallow:\n",
            &[(3, K::RulesReordered)],
        );
        // Rules that do not compete keep their order.
        let src = "User-agent: *\nDisallow: /b\nAllow: /a\nDisallow: /c\n";
        check(src, src, &[]);
    }

    #[test]
    fn sitemaps_go_to_the_end() {
        check(
            "Sitemap: https://e.example/a.xml\nUser-agent: *\nSitemap: https://e.example/b.xml\nDisallow: /x\n",
            "User-agent: *\nDisallow: /x\n\nSitemap: https://e.example/a.xml\nSitemap: https://e.example/b.xml\n",
            &[(1, K::SitemapMoved), (3, K::SitemapMoved)],
        );
        check(
            "User-agent: *\nDisallow: /x\nSitemap: https://e.example/a.xml\n",
            "User-agent: *\nDisallow: /x\n\nSitemap: https://e.example/a.xml\n",
            &[(3, K::Whitespace)],
        );
    }

    #[test]
    fn host_and_clean_param_go_to_the_yandex_group() {
        check(
            "User-agent: Yandex\nDisallow: /y\n\nUser-agent: *\nDisallow: /x\nHost: e.example\nClean-param: ref /\n",
            "User-agent: Yandex\nDisallow: /y\nHost: e.example\nClean-param: ref /\n\nUser-agent: *\nDisallow: /x\n",
            &[(6, K::HostMoved), (7, K::CleanParamMoved)],
        );
        let fixed = check(
            "User-agent: *\nDisallow: /x\nHost: a.example\nHost: b.example\n",
            "# Only Yandex reads Host and Clean-param; the rules repeat the `User-agent: *` group's, \
             so that Yandex reads the same rules as before.\n\
             User-agent: Yandex\nDisallow: /x\nHost: a.example\n# Host: b.example\n\n\
             User-agent: *\nDisallow: /x\n",
            &[
                (1, K::BlankLineAdded),
                (3, K::HostMoved),
                (3, K::YandexGroupCreated),
                (4, K::HostMoved),
                (4, K::HostDuplicate),
            ],
        );
        assert!(fixed.equivalence.differences.is_empty());
    }

    #[test]
    fn a_yandex_copy_never_pushes_the_file_past_500_kib() {
        let mut src = String::from("User-agent: *\n");
        let mut n = 0;
        while src.len() < 300 * 1024 {
            src.push_str(&format!("Disallow: /some/long/path/number/{n}/\n"));
            n += 1;
        }
        src.push_str("Host: e.example\n");
        let fixed = fix(&RobotsTxt::parse(src.as_str()));
        assert!(fixed.text.len() < 500 * 1024, "{}", fixed.text.len());
        assert!(
            fixed.text.starts_with(
                "User-agent: *\n# Only Yandex reads Host and Clean-param.\nUser-agent: Yandex\nDisallow: "
            ),
            "{}",
            &fixed.text[..200]
        );
        assert!(fixed.text.ends_with("\nHost: e.example\n"));
        let kinds: Vec<_> = fixed.changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [K::HostMoved, K::YandexGroupCreated]);
        assert!(fixed.equivalence.differences.is_empty());
        let again = fix(&RobotsTxt::parse(fixed.text.as_str()));
        assert!(again.is_unchanged());
    }

    #[test]
    fn nul_bytes_and_invalid_utf8() {
        let fixed = check(
            b"User-agent: *\nDisallow: /a\x00b\nDisallow: /\xff\n# caf\xe9\n".to_vec(),
            "User-agent: *\nDisallow: /a\nDisallow: /%FF\n# caf\u{FFFD}\n",
            &[(2, K::Nul), (3, K::InvalidUtf8), (4, K::InvalidUtf8)],
        );
        // Strict robots read past the NUL byte.
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(reasons(&fixed, "/a"), BTreeSet::from([("strict", K::Nul)]));
    }

    #[test]
    fn comments_travel_with_their_lines() {
        check(
            "# header\n\n# for everyone\nUser-agent: *\nDisallow: /x\n# closing note\n\n\
             # for a\nUser-agent: a\nDisallow: /a\n# end\n",
            "# header\n\n# for a\nUser-agent: a\nDisallow: /a\n\n# for everyone\nUser-agent: *\n\
             Disallow: /x\n# closing note\n# end\n",
            &[(4, K::StarGroupLast)],
        );
    }

    #[test]
    fn keys_that_start_outside_ascii_become_comments() {
        // At the start of the file Google would skip the bytes of U+FFFD
        // that look like a byte-order mark.
        check(
            b"Sitemap: https://e.example/s.xml\n\xff: x\nUser-agent: *\nDisallow: /\n".to_vec(),
            "# \u{FFFD}: x\nUser-agent: *\nDisallow: /\n\nSitemap: https://e.example/s.xml\n",
            &[
                (1, K::SitemapMoved),
                (2, K::InvalidUtf8),
                (2, K::UnparsedCommented),
            ],
        );
    }

    #[test]
    fn a_star_that_strict_robots_do_not_read_as_star() {
        // `* x` is `*` to robots that read product tokens, not to robots
        // that want exactly `*`: the Yandex group is new to those.
        let fixed = check(
            "User-agent: * x\nDisallow: /a\nHost: e.example\n",
            "# Only Yandex reads Host and Clean-param; the rules repeat the `User-agent: *` group's, \
             so that Yandex reads the same rules as before.\n\
             User-agent: Yandex\nDisallow: /a\nHost: e.example\n\nUser-agent: * x\nDisallow: /a\n",
            &[
                (1, K::BlankLineAdded),
                (3, K::HostMoved),
                (3, K::YandexGroupCreated),
            ],
        );
        assert_eq!(differing(&fixed), BTreeSet::from(["strict"]));
        assert_eq!(
            reasons(&fixed, "/a"),
            BTreeSet::from([("strict", K::YandexGroupCreated)])
        );
    }

    #[test]
    fn change_kinds_have_distinct_names() {
        let names: BTreeSet<&str> = ChangeKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), ChangeKind::ALL.len());
        assert_eq!(K::RulesReordered.to_string(), "rules-reordered");
    }
}
