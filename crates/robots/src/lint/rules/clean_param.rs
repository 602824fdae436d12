//! R020 `clean-param`: a clean-param that Yandex cannot read.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};
use crate::values::CleanParam;

declare_lint! {
    /// ## What it does
    /// Finds `Clean-param` lines longer than 500 characters, without
    /// parameters, or in a group that names neither Yandex nor `*`.
    ///
    /// ## Why
    /// Yandex reads `Clean-param: p1&p2 [/path]` and ignores a rule over 500
    /// characters. It reads the directive wherever it stands, but in another
    /// robot's group it misleads readers into thinking it applies to that
    /// robot.
    ///
    /// ## Example
    /// ```text
    /// User-agent: Googlebot
    /// Clean-param: ref /articles/
    /// ```
    ///
    /// ## Fix
    /// Put `Clean-param` in a `User-agent: Yandex` group, within 500
    /// characters.
    "R020", "clean-param", Warning, "a clean-param that Yandex cannot read"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, value) in cx.lines_named(DirectiveName::CleanParam) {
        let message = if value.chars().count() > 500 {
            format!("Yandex ignores a `Clean-param` longer than 500 characters (this one has {})", value.chars().count())
        } else if CleanParam::parse(&value).is_none() {
            "Yandex cannot read this `Clean-param`: it needs `param1&param2` and an optional path".to_owned()
        } else if let Some(block) = cx.blocks.iter().rev().find(|b| b.agents.first().is_some_and(|&a| a < i)) {
            let names_yandex = block.agents.iter().any(|&a| cx.token(a).is_none_or(|t| t.starts_with("yandex")));
            if names_yandex {
                continue;
            }
            "`Clean-param` is read by Yandex only, wherever it stands: in this group it looks as if it applied to other robots".to_owned()
        } else {
            continue;
        };
        out.push(Diagnostic::new(&LINT, cx.line_span(i), message).help("put `Clean-param` in a `User-agent: Yandex` group"));
    }
}
