//! R019 `host-repeated`: more than one host directive.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic, Edit};

declare_lint! {
    /// ## What it does
    /// Finds `Host` lines after the first.
    ///
    /// ## Why
    /// Yandex read only the first `Host` of a file; the others are ignored.
    ///
    /// ## Example
    /// ```text
    /// Host: www.example.com
    /// Host: example.com
    /// ```
    ///
    /// ## Fix
    /// Keep one `Host` line.
    "R019", "host-repeated", Warning, "more than one host directive"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let hosts: Vec<usize> = cx.lines_named(DirectiveName::Host).map(|(i, _)| i).collect();
    let Some((&first, rest)) = hosts.split_first() else { return };
    for &i in rest {
        out.push(
            Diagnostic::new(&LINT, cx.line_span(i), format!("Yandex reads only the first `Host` (line {})", cx.line(first).number))
                .help("keep one `Host` line")
                .fix("remove the line", vec![Edit { span: cx.line_with_ending(i), replacement: String::new() }])
                .caused_by(cx.line(first).number),
        );
    }
}
