//! Escaping for HTML.

use std::fmt;

/// Whether a character must not reach a page or a terminal as is: control
/// characters and bidirectional overrides and isolates.
#[must_use]
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A string escaped for HTML text and attribute values (`&`, `<`, `>`, `"`
/// and `'` as references), its [unsafe characters](is_unsafe_char) but
/// tabs and line breaks replaced by U+FFFD. Shown with `Display`.
#[derive(Debug, Clone, Copy)]
pub struct HtmlText<'a>(pub &'a str);

/// [`HtmlText`] for a value shown on one line: tabs and line breaks are
/// replaced by U+FFFD too.
#[derive(Debug, Clone, Copy)]
pub struct HtmlLine<'a>(pub &'a str);

impl fmt::Display for HtmlText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, |c| {
            is_unsafe_char(c) && !matches!(c, '\n' | '\t')
        })
    }
}

impl fmt::Display for HtmlLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, is_unsafe_char)
    }
}

/// Writes `s` escaped, the characters `replaced` says as U+FFFD.
fn write_escaped(f: &mut fmt::Formatter<'_>, s: &str, replaced: fn(char) -> bool) -> fmt::Result {
    let mut from = 0;
    for (i, c) in s.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#39;",
            c if replaced(c) => "\u{fffd}",
            _ => continue,
        };
        f.write_str(&s[from..i])?;
        f.write_str(rep)?;
        from = i + c.len_utf8();
    }
    f.write_str(&s[from..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_escaped() {
        let s = HtmlText("<script>alert(1)</script>\"'&\u{202e}\u{1b}").to_string();
        assert_eq!(
            s,
            "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\u{fffd}\u{fffd}"
        );
        assert_eq!(
            HtmlLine("<a href=\"x\">'&'</a>\u{1b}").to_string(),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\u{fffd}"
        );
    }

    #[test]
    fn only_text_keeps_tabs_and_line_breaks() {
        assert_eq!(
            HtmlText("a\tb\nc\rd\u{2066}").to_string(),
            "a\tb\nc\u{fffd}d\u{fffd}"
        );
        assert_eq!(HtmlLine("a\tb\nc").to_string(), "a\u{fffd}b\u{fffd}c");
        assert_eq!(HtmlText("é ü 日本").to_string(), "é ü 日本");
    }
}
