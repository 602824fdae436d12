//! Blocks a CDN writes into a site's robots.txt: Cloudflare's managed
//! content, which its edge prepends to the site's own file between
//! `# BEGIN Cloudflare Managed content` and `# END Cloudflare Managed
//! Content` (the published casing differs between the two markers).
//!
//! The fixer never edits such a block nor moves a line across its
//! markers: the site owner cannot change it (it is configured at the
//! edge), and a corrected copy put back at the origin would be prepended
//! again. Only the site's own part, after the end marker, is fixed.

use crate::change::{Change, ChangeKind, NO_GROUP, Origin, Plan, Recorded};
use crate::managed::ManagedBlock;
use crate::parse::{LineEnding, RobotsTxt};

/// Fixes the site's part of `txt` (the lines after the block's end marker)
/// and writes the lines up to the marker as they are (with `\n` line
/// endings).
///
/// The site's part is fixed as a file of its own whose first lines are
/// empty comments standing for the block, so that every line keeps its
/// number in the changes and their descriptions; those comments are then
/// dropped from the fixed text (they travel with the group they head, and
/// a comment changes no robot's reading).
pub(super) fn plan(txt: &RobotsTxt, block: ManagedBlock) -> Plan {
    let lines = txt.lines();
    let offset = block.end;
    let head = &lines[..offset as usize];
    let site_start = lines
        .get(offset as usize)
        .map_or(txt.bytes().len(), |l| l.span.start);
    let mut site = b"#\n".repeat(offset as usize);
    site.extend_from_slice(&txt.bytes()[site_start..]);
    let inner = super::plan_whole(&RobotsTxt::parse(site));
    let mut text = String::with_capacity(txt.bytes().len());
    let mut origins = Vec::with_capacity(inner.origins.len());
    for line in head {
        text.push_str(&txt.text(line.span));
        text.push('\n');
        origins.push(Origin {
            line: line.number,
            group: NO_GROUP,
            copy: false,
        });
    }
    for (out, origin) in inner.text.split_inclusive('\n').zip(&inner.origins) {
        if origin.line == 0 || origin.line > offset {
            text.push_str(out);
            origins.push(*origin);
        }
    }
    let mut changes: Vec<Recorded> = inner
        .changes
        .into_iter()
        .filter(|c| c.change.line > offset)
        .collect();
    if let Some(l) = head.iter().find(|l| l.ending != LineEnding::Lf) {
        changes.insert(
            0,
            Recorded {
                change: Change {
                    line: l.number,
                    kind: ChangeKind::LineEndings,
                    description: format!(
                        "line endings of the managed block written as `\\n` (line {} ends with `{}`)",
                        l.number,
                        l.ending.as_str().escape_default()
                    ),
                },
                affects: 0,
                group: NO_GROUP,
            },
        );
    }
    Plan {
        text,
        changes,
        origins,
        group_of_line: inner.group_of_line,
        cut_groups: inner.cut_groups,
        copied: inner.copied,
        managed: Some(block),
    }
}
