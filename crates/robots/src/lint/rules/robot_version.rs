//! R021 `robot-version`: a robot-version line that is not right after the user-agent lines.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds `Robot-version` lines that do not directly follow the user-agent
    /// lines of their group.
    ///
    /// ## Why
    /// The 1996 extended standard puts `Robot-version` right after the user-
    /// agent lines so that a robot knows how to read the rest of the record.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /tmp
    /// Robot-version: 2.0
    /// ```
    ///
    /// ## Fix
    /// Move it right after the user-agent lines.
    "R021", "robot-version", Info, "a robot-version line that is not right after the user-agent lines"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, _) in cx.lines_named(DirectiveName::RobotVersion) {
        let placed = cx.blocks.iter().any(|b| b.members.first() == Some(&i));
        if !placed {
            out.push(
                Diagnostic::new(&LINT, cx.line_span(i), "`Robot-version` belongs right after the user-agent lines of its group")
                    .help("move it right after the user-agent lines"),
            );
        }
    }
}
