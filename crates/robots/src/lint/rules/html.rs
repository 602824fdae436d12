//! R031 `html`: HTML served as robots.txt.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds files that are HTML pages (a doctype, `<html>`, `<head>`,
    /// `<body>`, or lines of tags).
    ///
    /// ## Why
    /// A server that answers every path with a page (a soft 404, a login
    /// page) serves HTML as robots.txt. Robots read no rule from it, so the
    /// site is open to all of them.
    ///
    /// ## Example
    /// ```text
    /// <!DOCTYPE html>
    /// <html><head><title>Not found</title></head>
    /// ```
    ///
    /// ## Fix
    /// Serve a plain-text robots.txt, or a 404 for `/robots.txt`.
    "R031", "html", Error, "HTML served as robots.txt"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(i) = cx.html else { return };
    out.push(
        Diagnostic::new(&LINT, cx.line_span(i), "this is an HTML page, not a robots.txt: robots read no rule from it")
            .help("serve a plain-text robots.txt, or answer 404 for /robots.txt"),
    );
}
