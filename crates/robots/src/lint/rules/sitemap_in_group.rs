//! R015 `sitemap-in-group`: a sitemap inside a group.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds `Sitemap` lines between the first user-agent line of a group and
    /// its last member.
    ///
    /// ## Why
    /// A sitemap applies to the whole file, whatever group it stands in:
    /// inside a group it reads as if it belonged to those robots only.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Sitemap: https://example.com/sitemap.xml
    /// Disallow: /private
    /// ```
    ///
    /// ## Fix
    /// Move sitemaps to the end of the file, after the groups.
    "R015", "sitemap-in-group", Info, "a sitemap inside a group"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let (Some(&first), Some(&last)) = (block.agents.first(), block.members.last()) else { continue };
        for i in first..last {
            if Context::read_name(cx.line(i)) == Some(DirectiveName::Sitemap) {
                out.push(
                    Diagnostic::new(&LINT, cx.line_span(i), "this sitemap applies to every robot, not only to this group")
                        .help("move sitemaps to the end of the file, after the groups"),
                );
            }
        }
    }
}
