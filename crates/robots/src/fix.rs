//! The fixer: the corrected file the checker describes and every change it
//! makes. Its vocabulary lives in `change`; proving that robots still
//! decide as before is `equivalence`'s ([`compare_fixed`](crate::compare_fixed)).

mod arrange;
mod managed;
mod order;
mod read;
mod write;

use crate::change::{
    Change, ChangeKind, Fixed, Mask, NO_GROUP, Origin, Plan, Recorded, mask_of, profile_names,
};
use crate::parse::{LineEnding, RobotsTxt};
use crate::profile::{Beyond, Profile};

/// Fixes a robots.txt file.
///
#[doc = include_str!("../docs/fixer.md")]
#[must_use]
pub fn fix(txt: &RobotsTxt) -> Fixed {
    let plan = plan(txt);
    Fixed {
        text: plan.text.clone(),
        changes: plan.changes.iter().map(|r| r.change.clone()).collect(),
        plan,
    }
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

/// Fixes `txt` without checking the result; a block a CDN manages at its
/// head is kept as it is (see `managed`).
pub(crate) fn plan(txt: &RobotsTxt) -> Plan {
    match crate::managed::find(txt) {
        Some(block) => managed::plan(txt, block),
        None => plan_whole(txt),
    }
}

/// Fixes the whole of `txt` without checking the result.
fn plan_whole(txt: &RobotsTxt) -> Plan {
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
        managed: None,
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
    use crate::equivalence::{Equivalence, compare_fixed};
    use ChangeKind as K;

    /// A fixed file with its differential check, as callers run them.
    struct Proved {
        fixed: Fixed,
        equivalence: Equivalence,
    }

    impl std::ops::Deref for Proved {
        type Target = Fixed;
        fn deref(&self) -> &Fixed {
            &self.fixed
        }
    }

    /// Fixes `txt`, then compares the result with it.
    fn fix(txt: &RobotsTxt) -> Proved {
        let fixed = super::fix(txt);
        let equivalence = compare_fixed(txt, &fixed);
        Proved { fixed, equivalence }
    }

    /// Fixes `src`, checks the text, the changes (line and kind), that every
    /// difference is intended and that fixing again changes nothing.
    fn check(src: impl Into<Vec<u8>>, want: &str, changes: &[(u32, ChangeKind)]) -> Proved {
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
    fn differing(fixed: &Proved) -> BTreeSet<&'static str> {
        fixed
            .equivalence
            .differences
            .iter()
            .map(|d| d.profile.name)
            .collect()
    }

    /// The kinds of change that explain the differences for `path`.
    fn reasons(fixed: &Proved, path: &str) -> BTreeSet<(&'static str, ChangeKind)> {
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
