//! Blocks a CDN writes into a site's robots.txt: Cloudflare's managed
//! content, which its edge prepends to the site's own file between
//! `# BEGIN Cloudflare Managed content` and `# END Cloudflare Managed
//! Content` (the published casing differs between the two markers).
//!
//! The fixer never edits such a block nor moves a line across its
//! markers: the site owner cannot change it (it is configured at the
//! edge), and a corrected copy put back at the origin would be prepended
//! again. Only the site's own part, after the end marker, is fixed.

use crate::change::{Change, ChangeKind, ManagedBlock, NO_GROUP, Origin, Plan, Recorded};
use crate::parse::{LineEnding, LineKind, RobotsTxt};

/// The managed block at the head of `txt`, if it has one: a begin marker
/// followed by an end marker.
pub(super) fn find(txt: &RobotsTxt) -> Option<ManagedBlock> {
    let mut begin = None;
    for line in txt.lines() {
        if line.kind != LineKind::Comment {
            continue;
        }
        let text = txt.text(line.span);
        match (marker(&text), begin) {
            (Some(Marker::Begin), None) => begin = Some(line.number),
            (Some(Marker::End), Some(first)) => {
                return Some(ManagedBlock {
                    vendor: "Cloudflare",
                    begin: first,
                    end: line.number,
                });
            }
            _ => {}
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Begin,
    End,
}

/// Whether a comment line is a marker: `# BEGIN Cloudflare Managed
/// content`, in any case and spacing.
fn marker(text: &str) -> Option<Marker> {
    let words: Vec<String> = text
        .trim_start()
        .strip_prefix('#')?
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["begin", "cloudflare", "managed", "content"] => Some(Marker::Begin),
        ["end", "cloudflare", "managed", "content"] => Some(Marker::End),
        _ => None,
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_read_in_any_case_and_spacing() {
        assert_eq!(
            marker("# BEGIN Cloudflare Managed content"),
            Some(Marker::Begin)
        );
        assert_eq!(
            marker("#  end cloudflare managed CONTENT  "),
            Some(Marker::End)
        );
        assert_eq!(
            marker("# END Cloudflare Managed Content"),
            Some(Marker::End)
        );
        assert_eq!(marker("# BEGIN Cloudflare Managed content here"), None);
        assert_eq!(marker("BEGIN Cloudflare Managed content"), None);
    }

    #[test]
    fn an_end_marker_without_a_begin_marker_is_no_block() {
        let txt = RobotsTxt::parse("# END Cloudflare Managed Content\nUser-agent: *\n");
        assert_eq!(find(&txt), None);
        let txt = RobotsTxt::parse("# BEGIN Cloudflare Managed content\nUser-agent: *\n");
        assert_eq!(find(&txt), None);
    }
}
