//! Blocks a CDN writes into a site's robots.txt: Cloudflare's managed
//! content, which its edge prepends to the site's own file between
//! `# BEGIN Cloudflare Managed content` and `# END Cloudflare Managed
//! Content` (the published casing differs between the two markers). The
//! fixer keeps such a block as it is; the checker says so where it would
//! otherwise advise editing across it.

use crate::parse::{LineKind, RobotsTxt};

/// Lines a CDN writes at the head of a site's robots.txt (Cloudflare's
/// managed content), which the fixer keeps as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagedBlock {
    /// Who manages it (`Cloudflare`).
    pub vendor: &'static str,
    /// The line of its begin marker.
    pub begin: u32,
    /// The line of its end marker: the lines up to it are the vendor's.
    pub end: u32,
}

impl std::fmt::Display for ManagedBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "lines 1–{} are {}'s managed content (markers on lines {} and {}): kept as they are, since the edge prepends them to the site's own robots.txt; only the lines after the end marker were fixed, and a `User-agent: *` group there stays apart from the managed one (robots merge the two, and the edge keeps adding its block)",
            self.end, self.vendor, self.begin, self.end
        )
    }
}

/// The managed block at the head of `txt`, if it has one: a begin marker
/// followed by an end marker.
pub(crate) fn find(txt: &RobotsTxt) -> Option<ManagedBlock> {
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
