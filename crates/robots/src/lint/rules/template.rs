//! R030 `template`: an unrendered template.

use crate::lint::{Context, Diagnostic};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds template markup (`{{ … }}`, `{% … %}`, `<% … %>`, `${…}`) left
    /// in the file.
    ///
    /// ## Why
    /// The file was served without its template being rendered: robots read
    /// the markup literally, so the rules it was meant to produce do not
    /// exist.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: {{ admin_path }}
    /// ```
    ///
    /// ## Fix
    /// Render the template before serving the file.
    "R030", "template", Error, "an unrendered template"
}

const MARKERS: [(&str, &str); 4] = [("{{", "}}"), ("{%", "%}"), ("<%", "%>"), ("${", "}")];

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for line in cx.txt.lines() {
        // Search the raw bytes: offsets in a lossily decoded line would not
        // be offsets in the file.
        let bytes = cx.txt.slice(line.span);
        let open = MARKERS.iter().find_map(|(o, c)| {
            let at = memchr::memmem::find(bytes, o.as_bytes())?;
            memchr::memmem::find(&bytes[at..], c.as_bytes()).map(|_| at)
        });
        let Some(open) = open else { continue };
        out.push(
            Diagnostic::new(&LINT, Span::new(line.span.start + open, line.span.end), "template markup: the file was served without being rendered, so robots read this literally")
                .help("render the template before serving robots.txt"),
        );
    }
}
