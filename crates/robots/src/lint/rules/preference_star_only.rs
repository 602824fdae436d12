//! R041 `preference-star-only`: preferences only robots without a group of
//! their own read.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds usage preferences written in the `User-agent: *` group of a
    /// file whose other groups, naming robots that may fetch pages, state
    /// none.
    ///
    /// ## Why
    /// A robot obeys the group naming it and no other (RFC 9309 §2.2.1);
    /// aipref-attach reads `Content-Usage` in that group only. The robots
    /// named elsewhere never see the preferences of the `*` group.
    ///
    /// ## Example
    /// ```text
    /// User-agent: Googlebot
    /// Disallow: /search
    ///
    /// User-agent: *
    /// Content-Usage: train-ai=n
    /// ```
    ///
    /// ## Fix
    /// Repeat the preference lines in each group naming a robot that may
    /// fetch pages.
    "R041", "preference-star-only", Warning, "preferences only robots without a group of their own read"
}

/// Robots named in the message at most.
const NAMED: usize = 5;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let robots = cx.robots_named("rfc9309");
    let lines = robots.preference_lines();
    let stated: std::collections::HashSet<u32> = lines.iter().filter_map(|l| l.group).collect();
    let star: std::collections::HashSet<u32> = robots.groups().filter(|g| g.is_star()).map(|g| g.line()).collect();
    let Some(first) = lines.iter().find(|l| l.group.is_some_and(|g| star.contains(&g))) else { return };
    let mut missing: Vec<String> = Vec::new();
    for g in robots.groups().filter(|g| !g.is_star()) {
        if stated.contains(&g.line()) {
            continue;
        }
        // A robot that may fetch nothing has no use for preferences.
        let fetches = !g.rules().any(|r| !r.allow && r.pattern == "/") || g.rules().any(|r| r.allow);
        if fetches {
            missing.extend(g.agents().filter_map(|a| a.token.map(str::to_owned)));
        }
    }
    missing.dedup();
    if missing.is_empty() {
        return;
    }
    let Some(span) = cx.value_span_of(first.line) else { return };
    let shown: Vec<String> = missing.iter().take(NAMED).map(|t| format!("`{t}`")).collect();
    let more = missing.len().saturating_sub(NAMED);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    out.push(
        Diagnostic::new(
            &LINT,
            span,
            format!(
                "robots with a group of their own never read the `*` group's preferences: {}{more} state none",
                shown.join(", ")
            ),
        )
        .help("repeat the preference lines in each group naming a robot that may fetch pages"),
    );
}
