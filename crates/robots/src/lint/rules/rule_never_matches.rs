//! R034 `rule-never-matches`: a rule that can never match.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds rules whose pattern does not start with `/` or `*`.
    ///
    /// ## Why
    /// Paths always start with `/`, and rules match from the start of the
    /// path: `Disallow: private` matches no URL for any robot.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: private/
    /// ```
    ///
    /// ## Fix
    /// Start the pattern with `/`: `Disallow: /private/`.
    "R034", "rule-never-matches", Warning, "a rule that can never match"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        for r in cx.rules(block) {
            if r.value.is_empty() || r.value.starts_with('/') || r.value.starts_with('*') {
                continue;
            }
            let Some(d) = cx.directive(r.index) else { continue };
            let looks_like_url = r.value.starts_with("http://") || r.value.starts_with("https://");
            let mut diag = Diagnostic::new(&LINT, d.value, format!("`{}` does not start with `/`: it matches no URL for any robot", r.value));
            diag = if looks_like_url {
                diag.help("rules take a path, not a URL: keep the part from the first `/` after the host")
            } else {
                diag.help(format!("write `/{}`", r.value))
                    .fix("add the leading `/`", vec![Edit { span: Span::new(d.value.start, d.value.start), replacement: "/".to_owned() }])
            };
            out.push(diag);
        }
    }
}
