//! R022 `misspelt-key`: a misspelt directive name.

use crate::directive::{DirectiveName, Spelling};
use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::LineKind;

declare_lint! {
    /// ## What it does
    /// Finds keys that are a known misspelling (`disalow`, `useragent`,
    /// `crawldelay`) or that only start with a directive's name
    /// (`Disallowed`).
    ///
    /// ## Why
    /// Google accepts a list of misspellings and any key that starts with a
    /// known name; RFC 9309, Bing and Yandex robots (as botwarden reads them)
    /// accept the same misspellings but not longer keys; strict robots accept
    /// only exact names. So the same line is a rule for some robots and
    /// nothing for others.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disalow: /private
    /// ```
    ///
    /// ## Fix
    /// Spell the key exactly: `Disallow`.
    "R022", "misspelt-key", Warning, "a misspelt directive name"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for line in cx.txt.lines() {
        let LineKind::Directive(d) = line.kind else { continue };
        let Some(canonical) = d.name.display() else { continue };
        let key = cx.txt.text(d.key);
        let message = match d.spelling {
            Spelling::Exact => continue,
            Spelling::Misspelt if matches!(d.name, DirectiveName::UserAgent | DirectiveName::Allow | DirectiveName::Disallow | DirectiveName::Sitemap) => {
                format!("Google, RFC 9309, Bing and Yandex robots read `{key}` as `{canonical}`; strict robots ignore this line")
            }
            Spelling::Misspelt => format!("`{key}` is not `{canonical}`: robots that read `{canonical}` ignore this line"),
            Spelling::Prefix => format!("only Google reads `{key}` as `{canonical}` (it compares keys by prefix); every other robot ignores this line"),
        };
        out.push(
            Diagnostic::new(&LINT, d.key, message)
                .help(format!("write `{canonical}`"))
                .fix(format!("write `{canonical}`"), vec![Edit { span: d.key, replacement: canonical.to_owned() }]),
        );
    }
}
