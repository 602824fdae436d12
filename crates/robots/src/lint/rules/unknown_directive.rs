//! R028 `unknown-directive`: a directive no robot reads.

use crate::directive::{DirectiveName, KNOWN_UNUSED};
use crate::lint::{Context, Diagnostic};
use crate::parse::LineKind;

declare_lint! {
    /// ## What it does
    /// Finds `key: value` lines whose key is no robots.txt directive, and
    /// names the known ones that belong elsewhere (`noindex`, `nofollow`:
    /// robots meta tag or `X-Robots-Tag` header).
    ///
    /// ## Why
    /// No robot reads the line. `Noindex` in robots.txt was never supported
    /// officially and Google stopped reading it in 2019.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Noindex: /drafts
    /// ```
    ///
    /// ## Fix
    /// Remove the line, or use the mechanism the directive belongs to.
    "R028", "unknown-directive", Warning, "a directive no robot reads"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // An HTML page is reported once, by R031.
    if cx.html.is_some() {
        return;
    }
    for line in cx.txt.lines() {
        let LineKind::Directive(d) = line.kind else { continue };
        if d.name != DirectiveName::Unknown {
            continue;
        }
        let key = cx.txt.text(d.key);
        if looks_like_markup(&key) {
            continue;
        }
        let lower = key.to_ascii_lowercase();
        let diag = if KNOWN_UNUSED.contains(&lower.as_str()) {
            Diagnostic::new(&LINT, d.key, format!("`{key}` is not a robots.txt directive: no robot reads it here"))
                .help("use a robots meta tag or an X-Robots-Tag header on the pages instead")
        } else {
            Diagnostic::new(&LINT, d.key, format!("unknown directive `{key}`: no robot reads it")).help("remove the line, or check its spelling")
        };
        out.push(diag);
    }
}

fn looks_like_markup(key: &str) -> bool {
    key.contains('<') || key.contains('{') || key.contains('%')
}
