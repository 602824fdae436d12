//! R042 `preference-no-effect`: a preference for a path its robots may not
//! fetch.

use crate::lint::{Context, Diagnostic, example_path};
use crate::token::TokenChain;

declare_lint! {
    /// ## What it does
    /// Finds `Content-Usage` lines whose path the group's own rules
    /// disallow.
    ///
    /// ## Why
    /// Usage preferences apply only to what a robot may fetch
    /// (aipref-attach §3.1): for a disallowed path they say nothing.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /private/
    /// Content-Usage: /private/ train-ai=n
    /// ```
    ///
    /// ## Fix
    /// Remove the line, or allow the path if the robots may fetch it.
    "R042", "preference-no-effect", Info, "a preference for a path its robots may not fetch"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let robots = cx.robots_named("rfc9309");
    let groups: std::collections::HashMap<u32, crate::robots::Group<'_>> = robots.groups().map(|g| (g.line(), g)).collect();
    for line in robots.preference_lines() {
        let (Some(group), Some(path)) = (line.group, &line.path) else { continue };
        let Some(&g) = groups.get(&group) else { continue };
        let chain = match g.agents().find_map(|a| a.token) {
            Some(t) => TokenChain::new([t]),
            None => cx.star_robot(),
        };
        let m = robots.matcher(&chain);
        if !m.groups().any(|mg| mg.line() == group) {
            continue;
        }
        let probe = example_path(path);
        if m.check(&probe).allowed {
            continue;
        }
        let Some(span) = cx.value_span_of(line.line) else { continue };
        out.push(
            Diagnostic::new(&LINT, span, format!("this group disallows `{probe}`: preferences apply only to what a robot may fetch, so this line says nothing"))
                .help("remove the line, or allow the path"),
        );
    }
}
