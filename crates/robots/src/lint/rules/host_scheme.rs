//! R018 `host-scheme`: a host directive with a scheme or a path.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds `Host` values that hold `http://`, a path, or other text than a
    /// host name with an optional `https://` and port.
    ///
    /// ## Why
    /// Yandex read `Host` as a host name (`https://` was allowed for HTTPS
    /// mirrors, with an optional port); anything else was ignored. Yandex
    /// retired the directive in 2018 in favour of redirects, and no other
    /// robot reads it.
    ///
    /// ## Example
    /// ```text
    /// Host: http://www.example.com/
    /// ```
    ///
    /// ## Fix
    /// Write the host name alone (or use a 301 redirect, which Yandex now
    /// reads).
    "R018", "host-scheme", Warning, "a host directive with a scheme or a path"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, value) in cx.lines_named(DirectiveName::Host) {
        let host = value.strip_prefix("https://").unwrap_or(&value);
        let plain = !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'));
        if plain {
            continue;
        }
        out.push(
            Diagnostic::new(&LINT, cx.line_span(i), format!("Yandex expects a host name here, not `{value}`"))
                .help("write the host name alone, e.g. `Host: www.example.com`"),
        );
    }
}
