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
        let text = cx.txt.text(line.span);
        let Some(open) = MARKERS.iter().find_map(|(o, c)| text.find(o).filter(|&at| text[at..].contains(c))) else { continue };
        let start = line.span.start + text[..open].len();
        out.push(
            Diagnostic::new(&LINT, Span::new(start, line.span.end), "template markup: the file was served without being rendered, so robots read this literally")
                .help("render the template before serving robots.txt"),
        );
    }
}
