//! R023 `missing-colon`: a directive without its colon.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::{LineKind, Separator, Span};

declare_lint! {
    /// ## What it does
    /// Finds lines of two words, a known key and a value, without the `:`
    /// between them.
    ///
    /// ## Why
    /// Google (and botwarden's RFC 9309, Bing and Yandex readings) accept
    /// white space instead of the colon; strict robots and most other parsers
    /// ignore the line.
    ///
    /// ## Example
    /// ```text
    /// User-agent *
    /// Disallow /private
    /// ```
    ///
    /// ## Fix
    /// Add the colon: `Disallow: /private`.
    "R023", "missing-colon", Warning, "a directive without its colon"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for line in cx.txt.lines() {
        let LineKind::Directive(d) = line.kind else { continue };
        if d.separator != Separator::Whitespace || d.name == DirectiveName::Unknown {
            continue;
        }
        let key = cx.txt.text(d.key);
        let gap = Span::new(d.key.end, d.value.start);
        out.push(
            Diagnostic::new(&LINT, line.span, format!("`{key}` has no colon: Google reads the line anyway, strict robots ignore it"))
                .help(format!("write `{key}: {}`", cx.txt.text(d.value)))
                .fix("add the colon", vec![Edit { span: gap, replacement: ": ".to_owned() }]),
        );
    }
}
