//! The head of the self-contained HTML reports (the audit's and the log
//! report's): the same document start, policy and stylesheet base.

use std::fmt::{self, Display, Write};

use crate::REPORT_CSS_BASE;

/// The reports' content security policy: nothing is fetched or run; the
/// inline stylesheet and `data:` images (the charts) are all there is.
pub const REPORT_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// Writes a report's document start up to its top header's `<h1>`: the
/// head (charset, [`REPORT_CSP`], no referrer, viewport, `title`, already
/// escaped, and the stylesheet: [`REPORT_CSS_BASE`] then `css`), and the
/// top header with the brand and `heading`.
///
/// # Errors
/// Those of `out`.
pub fn report_head(
    out: &mut impl Write,
    title: impl Display,
    css: &str,
    heading: &str,
) -> fmt::Result {
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, r#"<html lang="en">"#)?;
    writeln!(out, "<head>")?;
    writeln!(out, r#"<meta charset="utf-8">"#)?;
    writeln!(
        out,
        r#"<meta http-equiv="Content-Security-Policy" content="{REPORT_CSP}">"#
    )?;
    writeln!(out, r#"<meta name="referrer" content="no-referrer">"#)?;
    writeln!(
        out,
        r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#
    )?;
    writeln!(out, r#"<meta name="generator" content="botwarden">"#)?;
    writeln!(out, "<title>{title}</title>")?;
    writeln!(out, "<style>\n{REPORT_CSS_BASE}{css}</style>")?;
    writeln!(out, "</head>")?;
    writeln!(out, "<body>")?;
    writeln!(out, r#"<header class="top"><div class="wrap">"#)?;
    writeln!(out, r#"<div class="brand">botwarden</div>"#)?;
    writeln!(out, "<h1>{heading}</h1>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_holds_the_policy_the_title_and_the_stylesheet() {
        let mut out = String::new();
        report_head(&mut out, "A &amp; B", "p{}", "Heading").expect("write");
        assert!(out.starts_with("<!DOCTYPE html>\n"));
        assert!(out.contains(&format!("content=\"{REPORT_CSP}\"")));
        assert!(out.contains("<title>A &amp; B</title>\n"));
        assert!(out.contains(&format!("<style>\n{REPORT_CSS_BASE}p{{}}</style>")));
        assert!(out.ends_with("<h1>Heading</h1>\n"));
    }
}
