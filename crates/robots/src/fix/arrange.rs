//! From what the fixer read to the layout of the fixed file: groups naming
//! the same robots merged, `host` and `clean-param` moved into a Yandex
//! group, groups for `*` last, rules ordered, `Disallow:` added where a
//! group has no rule.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::path::normalize_pattern;
use crate::profile::{AgentMatch, Grouping, Profile, RuleChoice};
use crate::token::AgentName;

use super::Log;
use super::order::{Key, order};
use super::read::{Item, Out, Piece, RawGroup, Reading, What};
use crate::change::{ChangeKind, Mask, NO_GROUP, has, mask_of, profile_names};

/// A group of the fixed file.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// Its id: the index of the first group read that it holds, or one
    /// past them for a created group.
    pub(super) id: u32,
    pub(super) agents: Vec<Item>,
    pub(super) members: Vec<Item>,
    /// Created by the fixer (`User-agent: Yandex`).
    pub(super) created: bool,
}

/// The layout of the fixed file.
#[derive(Debug)]
pub(super) struct Model {
    pub(super) header: Vec<Piece>,
    /// In the order they are written.
    pub(super) groups: Vec<Group>,
    pub(super) sitemaps: Vec<Item>,
    pub(super) trailer: Vec<Piece>,
    /// Per original line: its group id, or [`NO_GROUP`].
    pub(super) group_of_line: Vec<u32>,
    pub(super) blank_in_group: Vec<bool>,
    pub(super) blank: Vec<bool>,
    /// Number of group ids (read groups, plus a created one).
    pub(super) group_count: u32,
    /// Whether a sitemap moved (so a blank line before them is part of it).
    pub(super) sitemap_moved: bool,
    /// Whether a created Yandex group repeats the `*` groups' rules.
    pub(super) copied: bool,
}

fn keys(agents: &[Item]) -> Vec<String> {
    let mut keys: Vec<String> = agents
        .iter()
        .filter_map(|a| match &a.what {
            What::Agent { key, .. } => Some(key.clone()),
            _ => None,
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

fn is_star(agents: &[Item]) -> bool {
    agents
        .iter()
        .any(|a| matches!(&a.what, What::Agent { key, .. } if key == "*"))
}

fn names_yandex(agents: &[Item], exact: bool) -> bool {
    agents.iter().any(|a| match &a.what {
        What::Agent { key, .. } => {
            if exact {
                key == "yandex"
            } else {
                key.starts_with("yandex")
            }
        }
        _ => false,
    })
}

/// Whether robots that match user-agents by substring read the `*` groups
/// as the fixer does: one group, named by exactly `*` (they read only the
/// first `*` record, and `* x` is not `*` to them).
fn star_read_alike(star: &[Group]) -> bool {
    let exact = |g: &Group| {
        g.agents
            .iter()
            .any(|a| matches!(&a.what, What::Agent { lower, .. } if AgentName::read(lower.as_bytes(), AgentMatch::Substring) == AgentName::Every))
    };
    star.len() <= 1 && star.iter().all(exact)
}

fn first_agent_line(agents: &[Item]) -> u32 {
    agents.first().map_or(0, Item::line)
}

/// Arranges what was read into the fixed file's layout. `host` and
/// `clean-param` go to a group naming Yandex; without one, a
/// `User-agent: Yandex` group is created with a `copy` of the `*` groups'
/// rules, or (without `copy`) the `*` groups name Yandex too.
pub(super) fn arrange(reading: Reading, log: &mut Log, copy: bool) -> Model {
    let Reading {
        header,
        groups: raw,
        sitemaps,
        loose,
        trailer,
        mut group_of_line,
        blank_in_group,
        blank,
        last_member,
    } = reading;
    let read_count = raw.len();
    let (mut slots, survivor) = merge(raw, log);
    renumber(&survivor, &mut group_of_line, log);

    // `host` and `clean-param` outside a group naming a Yandex robot.
    let mut moving = yandex_only(&mut slots, loose);
    moving.sort_by_key(Item::line);
    log_moves(&moving, log);
    first_host_only(&mut slots, &mut moving, log);

    let first_match = Profile::ALL
        .iter()
        .find(|p| p.rule_choice == RuleChoice::FirstMatch);
    for g in slots.iter_mut().flatten() {
        reorder(g, first_match, log);
    }

    // Written order: other groups as they came, then `*` groups.
    let (mut groups, mut star) = star_last(slots, log);
    let mut copied = false;
    let group_count = read_count + usize::from(!moving.is_empty());
    if !moving.is_empty() {
        if let Some(g) = groups
            .iter_mut()
            .chain(star.iter_mut())
            .find(|g| names_yandex(&g.agents, true))
        {
            g.members.extend(moving);
        } else if !copy && !star.is_empty() {
            name_yandex(&mut star, moving, log);
        } else {
            let id = u32::try_from(read_count).unwrap_or(NO_GROUP);
            let mut created = yandex_group(id, &star, moving, log);
            copied = !star.is_empty();
            reorder(&mut created, first_match, log);
            groups.push(created);
        }
    }
    groups.extend(star);
    for g in &mut groups {
        add_disallow(g, log);
    }

    let sitemap_moved = sitemaps_moved(&sitemaps, last_member, log);
    Model {
        header,
        groups,
        sitemaps,
        trailer,
        group_of_line,
        blank_in_group,
        blank,
        group_count: u32::try_from(group_count).unwrap_or(NO_GROUP),
        sitemap_moved,
        copied,
    }
}

/// Gives each line and each change logged so far the id of the group its
/// group was merged into (`survivor`, per group read).
fn renumber(survivor: &[u32], group_of_line: &mut [u32], log: &mut Log) {
    for g in group_of_line.iter_mut() {
        if let Some(&s) = survivor.get(*g as usize) {
            *g = s;
        }
    }
    for rec in &mut log.items {
        if let Some(&s) = survivor.get(rec.group as usize) {
            rec.group = s;
        } else if rec.group == NO_GROUP && rec.change.kind.explains() != 0 {
            // Logged before the line's group was known (NUL, byte-order mark).
            rec.group = group_of_line
                .get(rec.change.line as usize)
                .copied()
                .unwrap_or(NO_GROUP);
        }
    }
}

/// Takes the `host` and `clean-param` lines out of the groups that name no
/// Yandex robot: they follow those read outside any group (`loose`).
fn yandex_only(slots: &mut [Option<Group>], loose: Vec<Item>) -> Vec<Item> {
    let mut moving: Vec<Item> = loose;
    for g in slots.iter_mut().flatten() {
        if names_yandex(&g.agents, false) {
            continue;
        }
        let (kept, moved): (Vec<Item>, Vec<Item>) = std::mem::take(&mut g.members)
            .into_iter()
            .partition(|m| !matches!(m.what, What::Host | What::CleanParam));
        g.members = kept;
        moving.extend(moved);
    }
    moving
}

/// The groups left, as the other groups in the order they came and the
/// `*` groups, which are written last; a `*` group that moves is logged.
fn star_last(slots: Vec<Option<Group>>, log: &mut Log) -> (Vec<Group>, Vec<Group>) {
    let live: Vec<Group> = slots.into_iter().flatten().collect();
    let (star, other): (Vec<Group>, Vec<Group>) =
        live.into_iter().partition(|g| is_star(&g.agents));
    let last_other = other.iter().map(|g| g.id).max();
    for g in &star {
        if last_other.is_some_and(|o| o > g.id) {
            let line = first_agent_line(&g.agents);
            log.push(
                line,
                ChangeKind::StarGroupLast,
                0,
                g.id,
                format!("the group for `*` at line {line} moved after the other groups"),
            );
        }
    }
    (other, star)
}

/// Whether a sitemap comes before the last group member (it moves to the
/// end of the file); each that does is logged.
fn sitemaps_moved(sitemaps: &[Item], last_member: u32, log: &mut Log) -> bool {
    let sitemap_moved = sitemaps.iter().any(|s| s.line() < last_member);
    for s in sitemaps.iter().filter(|s| s.line() < last_member) {
        log.push(
            s.line(),
            ChangeKind::SitemapMoved,
            0,
            NO_GROUP,
            format!(
                "the sitemap on line {} moved to the end of the file, outside any group",
                s.line()
            ),
        );
    }
    sitemap_moved
}

/// Merges each group into the first one naming the same robots. Gives the
/// groups (merged ones empty) and, per group read, the id it ended in.
fn merge(raw: Vec<RawGroup>, log: &mut Log) -> (Vec<Option<Group>>, Vec<u32>) {
    let joins = mask_of(|p| p.grouping == Grouping::Rules);
    // Robots that do not end user-agent lines at an extension read a group
    // with extensions and no rule together with the next group.
    // (has an extension, has a rule) of a group's members; kept per group
    // merged into, whose members grow with each merge.
    let kinds = |members: &[Item]| {
        (
            members
                .iter()
                .any(|m| matches!(m.what, What::Extension { .. })),
            members.iter().any(|m| matches!(m.what, What::Rule { .. })),
        )
    };
    let joined = |(extension, rule): (bool, bool)| extension && !rule;
    let mut slot_kinds: Vec<(bool, bool)> = Vec::with_capacity(raw.len());
    let mut slots: Vec<Option<Group>> = Vec::with_capacity(raw.len());
    let mut survivor: Vec<u32> = Vec::with_capacity(raw.len());
    let mut by_key: HashMap<Vec<String>, usize> = HashMap::new();
    // Per group merged into: the user-agent values it names (lower case),
    // so that merging thousands of groups does not compare each with all.
    let mut named: HashMap<usize, HashSet<String>> = HashMap::new();
    for (index, g) in raw.into_iter().enumerate() {
        let id = u32::try_from(index).unwrap_or(NO_GROUP);
        let key = keys(&g.agents);
        let g_kinds = kinds(&g.members);
        slot_kinds.push(g_kinds);
        let Some(&s) = by_key.get(&key) else {
            by_key.insert(key, index);
            survivor.push(id);
            slots.push(Some(Group {
                id,
                agents: g.agents,
                members: g.members,
                created: false,
            }));
            continue;
        };
        survivor.push(survivor[s]);
        slots.push(None);
        let Some(into) = slots[s].as_mut() else {
            continue;
        };
        let line = first_agent_line(&g.agents);
        let at = first_agent_line(&into.agents);
        let into_kinds = slot_kinds[s];
        let joined = if joined(g_kinds) || joined(into_kinds) {
            joins
        } else {
            0
        };
        slot_kinds[s] = (into_kinds.0 || g_kinds.0, into_kinds.1 || g_kinds.1);
        log_merge(log, line, at, into.id, joined);
        let known = named.entry(s).or_insert_with(|| {
            into.agents
                .iter()
                .filter(|a| matches!(a.what, What::Agent { .. }))
                .map(lower_of)
                .collect()
        });
        merge_agents(into, g.agents, known);
        into.members.extend(g.members);
    }
    (slots, survivor)
}

/// The user-agent value of `agent` in lower case (empty for another item).
fn lower_of(agent: &Item) -> String {
    match &agent.what {
        What::Agent { lower, .. } => lower.clone(),
        _ => String::new(),
    }
}

/// Logs that the group at `line` was merged into group `into` at line `at`;
/// `joined` are the profiles that read one of them together with the next
/// group.
fn log_merge(log: &mut Log, line: u32, at: u32, into: u32, joined: Mask) {
    let substring = mask_of(|p| p.agent_match == AgentMatch::Substring);
    let also = if joined == 0 {
        String::new()
    } else {
        format!(
            "; {} read a group with extensions and no rule together with the next group",
            profile_names(joined)
        )
    };
    log.push(
        line,
        ChangeKind::GroupsMerged,
        substring | joined,
        into,
        format!(
            "the group at line {line} names the same robots as the group at line {at} and was merged into it \
             (robots that follow RFC 9309 merge them; {} read only the first{also})",
            profile_names(substring)
        ),
    );
}

/// Adds the user-agent lines of a group merged into `into`: one naming a
/// robot `into` already names (`known`, lower case) is dropped, its
/// comments kept as a note.
fn merge_agents(into: &mut Group, agents: Vec<Item>, known: &mut HashSet<String>) {
    let mut notes = Vec::new();
    for agent in agents {
        let lower = lower_of(&agent);
        let is_agent = matches!(agent.what, What::Agent { .. });
        if is_agent && known.contains(&lower) {
            notes.extend(agent.comments);
        } else {
            if is_agent {
                known.insert(lower);
            }
            into.agents.push(agent);
        }
    }
    if !notes.is_empty() {
        into.members.push(Item {
            comments: notes,
            out: None,
            what: What::Note,
        });
    }
}

/// Keeps the first `host` line of the file; later ones become comments.
fn first_host_only(slots: &mut [Option<Group>], moving: &mut [Item], log: &mut Log) {
    let first = slots
        .iter()
        .flatten()
        .flat_map(|g| &g.members)
        .chain(moving.iter())
        .filter(|m| matches!(m.what, What::Host))
        .map(Item::line)
        .min();
    let Some(first) = first else {
        return;
    };
    let all = slots
        .iter_mut()
        .flatten()
        .flat_map(|g| g.members.iter_mut())
        .chain(moving.iter_mut());
    for m in all.filter(|m| matches!(m.what, What::Host) && m.line() != first) {
        let Some(out) = m.out.as_mut() else {
            continue;
        };
        out.text = format!("# {}", out.text);
        m.what = What::Note;
        log.push(
            out.line,
            ChangeKind::HostDuplicate,
            0,
            NO_GROUP,
            format!(
                "only the first `host` (line {first}) is read; the one on line {} is now a comment",
                out.line
            ),
        );
    }
}

fn log_moves(moving: &[Item], log: &mut Log) {
    for m in moving {
        let (kind, key) = match m.what {
            What::Host => (ChangeKind::HostMoved, "host"),
            What::CleanParam => (ChangeKind::CleanParamMoved, "clean-param"),
            _ => continue,
        };
        log.push(
            m.line(),
            kind,
            0,
            NO_GROUP,
            format!(
                "`{key}` on line {} moved into the `User-agent: Yandex` group (only Yandex reads it)",
                m.line()
            ),
        );
    }
}

/// Adds `User-agent: Yandex` to every `*` group, and `moving` to the last:
/// Yandex's robots read the same groups as before, under every profile
/// (product-token robots merge every group naming `yandex`; substring
/// robots never match a user-agent line of a `*` record).
fn name_yandex(star: &mut [Group], mut moving: Vec<Item>, log: &mut Log) {
    let line = moving.first().map_or(0, Item::line);
    let count = star.len();
    // Substring robots never match a user-agent line of a `*` record, so
    // only `*` groups that are not exactly `*` to them change.
    let mask = if star
        .iter()
        .all(|g| star_read_alike(std::slice::from_ref(g)))
    {
        0
    } else {
        mask_of(|p| p.agent_match == AgentMatch::Substring)
    };
    for (k, g) in star.iter_mut().enumerate() {
        let comments = if k == 0 {
            vec![Out {
                line: 0,
                text: "# Only Yandex reads Host and Clean-param.".to_owned(),
            }]
        } else {
            Vec::new()
        };
        g.agents.push(yandex_agent(comments));
        if k + 1 == count {
            g.members.extend(std::mem::take(&mut moving));
        }
    }
    let strict = if mask == 0 {
        String::new()
    } else {
        format!(
            "; {} did not read these groups as `*` and now read them for Yandex",
            profile_names(mask)
        )
    };
    log.push(
        line,
        ChangeKind::YandexGroupCreated,
        mask,
        star.last().map_or(NO_GROUP, |g| g.id),
        format!(
            "`User-agent: Yandex` added to the `*` group{} to hold `host` and `clean-param`: Yandex reads the same rules as before, \
             and the file does not grow past the size robots read, as a copy of the `*` rules would make it{strict}",
            if count == 1 { "" } else { "s" }
        ),
    );
}

/// A `User-agent: Yandex` group holding the `*` groups' rules and values,
/// then `moving`.
fn yandex_group(id: u32, star: &[Group], moving: Vec<Item>, log: &mut Log) -> Group {
    let copies: Vec<Item> = star
        .iter()
        .flat_map(|g| &g.members)
        .filter(|m| matches!(m.what, What::Rule { .. } | What::Extension { .. }))
        .map(|m| Item {
            comments: Vec::new(),
            out: m.out.clone(),
            what: m.what.clone(),
        })
        .collect();
    let note = if copies.is_empty() {
        "# Only Yandex reads Host and Clean-param."
    } else {
        "# Only Yandex reads Host and Clean-param; the rules repeat the `User-agent: *` group's, so that Yandex reads the same rules as before."
    };
    let line = moving.first().map_or(0, Item::line);
    let mask = if star_read_alike(star) {
        0
    } else {
        mask_of(|p| p.agent_match == AgentMatch::Substring)
    };
    log.push(
        line,
        ChangeKind::YandexGroupCreated,
        mask,
        id,
        if mask != 0 {
            format!(
                "a `User-agent: Yandex` group created for `host` and `clean-param`, with the rules of {} \
                 as Yandex reads them ({} read only a first record named exactly `*`)",
                if star.len() == 1 {
                    "the `*` group".to_owned()
                } else {
                    format!("all {} `*` groups", star.len())
                },
                profile_names(mask)
            )
        } else if star.is_empty() {
            "a `User-agent: Yandex` group created for `host` and `clean-param`".to_owned()
        } else {
            "a `User-agent: Yandex` group created for `host` and `clean-param`, with a copy of the `*` group's rules \
             so that Yandex reads the same rules as before"
                .to_owned()
        },
    );
    let mut members = copies;
    members.extend(moving);
    Group {
        id,
        agents: vec![yandex_agent(vec![Out {
            line: 0,
            text: note.to_owned(),
        }])],
        members,
        created: true,
    }
}

/// Orders the group's rules for first-match robots (see `order`); logs the
/// change.
fn reorder(g: &mut Group, first_match: Option<&&'static Profile>, log: &mut Log) {
    let Some(profile) = first_match else {
        return;
    };
    let slots: Vec<usize> = g
        .members
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m.what, What::Rule { .. }))
        .map(|(i, _)| i)
        .collect();
    let patterns: Vec<(Cow<'_, [u8]>, bool)> = slots
        .iter()
        .map(|&i| match &g.members[i].what {
            What::Rule { allow, value } => (normalize_pattern(value, profile.path_form), *allow),
            _ => (Cow::Borrowed(&[][..]), false),
        })
        .collect();
    let keys: Vec<Key<'_>> = patterns
        .iter()
        .map(|(p, allow)| Key {
            pattern: p,
            allows: *allow || p.is_empty(),
        })
        .collect();
    let perm = order(&keys);
    let Some(moved) = perm.iter().enumerate().position(|(at, &k)| at != k) else {
        return;
    };
    let count = perm.iter().enumerate().filter(|&(at, &k)| at != k).count();
    let ahead = &g.members[slots[perm[moved]]];
    let behind = &g.members[slots[moved]];
    let text = |m: &Item| m.out.as_ref().map_or(String::new(), |o| o.text.clone());
    let mask = mask_of(|p| p.rule_choice == RuleChoice::FirstMatch);
    log.push(
        ahead.line(),
        ChangeKind::RulesReordered,
        mask,
        g.id,
        format!(
            "{count} rules of the group at line {} reordered so that the more specific rule comes first (`allow` on a tie), \
             as longest-match robots weigh them; {} take the first rule that matches. E.g. `{}` (line {}) now comes before `{}` (line {})",
            first_agent_line(&g.agents),
            profile_names(mask),
            text(ahead),
            ahead.line(),
            text(behind),
            behind.line()
        ),
    );
    let rules: Vec<Item> = slots.iter().map(|&i| g.members[i].clone()).collect();
    for (at, &k) in perm.iter().enumerate() {
        g.members[slots[at]] = rules[k].clone();
    }
}

/// Adds `Disallow:` after the user-agent lines of a group without rules.
fn add_disallow(g: &mut Group, log: &mut Log) {
    if g.members
        .iter()
        .any(|m| matches!(m.what, What::Rule { .. }))
    {
        return;
    }
    let read_by = g.members.iter().fold(0, |m, item| match item.what {
        What::Extension { read_by } => m | read_by,
        _ => m,
    });
    let has_extension = g
        .members
        .iter()
        .any(|m| matches!(m.what, What::Extension { .. }));
    g.members.insert(
        0,
        Item {
            comments: Vec::new(),
            out: Some(Out {
                line: 0,
                text: "Disallow:".to_owned(),
            }),
            what: What::Rule {
                allow: false,
                value: Vec::new(),
            },
        },
    );
    if g.created {
        return;
    }
    // Robots that do not end a group's user-agent lines at an extension
    // read them with the next group's; robots reading 1994 records drop a
    // record without a rule or a value they read.
    let joined = mask_of(|p| p.grouping == Grouping::Rules && has_extension);
    let dropped = Profile::ALL
        .iter()
        .enumerate()
        .filter(|&(i, p)| p.grouping == Grouping::BlankLineRecords && !has(read_by, i))
        .fold(0, |m, (i, _)| m | 1 << i);
    let line = first_agent_line(&g.agents);
    let mut readings = Vec::new();
    if joined != 0 {
        readings.push(format!(
            "{} did not end its user-agent lines at an extension and read them with the next group's rules",
            profile_names(joined)
        ));
    }
    if dropped != 0 {
        readings.push(format!(
            "{} dropped it as a record without rules",
            profile_names(dropped)
        ));
    }
    let readings = if readings.is_empty() {
        String::new()
    } else {
        format!(" ({})", readings.join("; "))
    };
    log.push(
        line,
        ChangeKind::DisallowAdded,
        joined | dropped,
        g.id,
        format!(
            "the group at line {line} has no rule; `Disallow:` (allow everything) added, as the 1994 standard asks{readings}"
        ),
    );
}

/// A `User-agent: Yandex` line the fixer adds, with comments above it.
fn yandex_agent(comments: Vec<Out>) -> Item {
    Item {
        comments,
        out: Some(Out {
            line: 0,
            text: "User-agent: Yandex".to_owned(),
        }),
        what: What::Agent {
            key: "yandex".to_owned(),
            lower: "yandex".to_owned(),
        },
    }
}
