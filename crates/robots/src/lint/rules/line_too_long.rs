//! R037 `line-too-long`: a line Google cuts short.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds lines longer than 16,663 bytes.
    ///
    /// ## Why
    /// Google's parser keeps the first 16,663 bytes of a line (its buffer is
    /// 2083 × 8 bytes) and drops the rest, so a long pattern becomes a
    /// shorter one, which matches more paths.
    ///
    /// ## Example
    /// ```text
    /// (a `Disallow` line of 20,000 bytes)
    /// ```
    ///
    /// ## Fix
    /// Shorten the rule, for example with a wildcard.
    "R037", "line-too-long", Warning, "a line Google cuts short"
}

const LIMIT: usize = 2083 * 8 - 1;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for line in cx.txt.lines() {
        if line.span.len() <= LIMIT {
            continue;
        }
        out.push(
            Diagnostic::new(&LINT, line.span, format!("this line has {} bytes: Google reads only the first 16,663", line.span.len()))
                .help("shorten the rule, for example with a wildcard"),
        );
    }
}
