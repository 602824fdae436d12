//! R044 `preference-scope`: a preference line whose robots depend on the
//! reader.

use crate::lint::{Context, Diagnostic};
use crate::prefs::Vocabulary;

declare_lint! {
    /// ## What it does
    /// Finds `Content-Signal` lines outside the `User-agent: *` group, and
    /// `Content-Usage` lines before the first group.
    ///
    /// ## Why
    /// Readers disagree on whom a `Content-Signal` line speaks to: the
    /// group reading (aipref-attach's, and how Cloudflare writes it: in
    /// `User-agent: *`) gives it to the robots of the group it stands in,
    /// or to none before the first group; crawler-commons gives it to every
    /// robot wherever it stands. A `Content-Usage` line is a group member:
    /// before the first group no robot reads it.
    ///
    /// ## Example
    /// ```text
    /// Content-Signal: ai-train=no
    ///
    /// User-agent: *
    /// Allow: /
    /// ```
    ///
    /// ## Fix
    /// Write preference lines inside the groups they are for: the `*` group
    /// and every group naming a robot that may fetch pages.
    "R044", "preference-scope", Warning, "a preference line whose robots depend on the reader"
}

/// Robots named in the message at most.
const NAMED: usize = 5;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let robots = cx.robots_named("rfc9309");
    // Each group with whether it names `*`, read once: one group may name
    // very many robots.
    let groups: std::collections::HashMap<u32, (crate::robots::Group<'_>, bool)> =
        robots.groups().map(|g| (g.line(), (g, g.is_star()))).collect();
    for line in robots.preference_lines() {
        let Some(span) = cx.value_span_of(line.line) else { continue };
        let group = line.group.and_then(|at| groups.get(&at).copied());
        let message = match (line.statement.vocabulary, group) {
            (Vocabulary::Aipref, None) => {
                "`Content-Usage` before the first group: no robot reads it (it is a group member)".to_owned()
            }
            (Vocabulary::Aipref, Some(_)) => continue,
            (Vocabulary::ContentSignal, None) => {
                "`Content-Signal` before the first group: crawler-commons reads it for every robot, readers by group for none".to_owned()
            }
            (Vocabulary::ContentSignal, Some((_, true))) => continue,
            (Vocabulary::ContentSignal, Some((g, false))) => {
                let names: Vec<String> = g.agents().take(NAMED).map(|a| format!("`{}`", a.value)).collect();
                let more = g.agents().len().saturating_sub(NAMED);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                format!(
                    "this `Content-Signal` stands in the group of {}{more} (line {}): readers by group apply it to those robots only, crawler-commons to every robot",
                    names.join(", "),
                    g.line()
                )
            }
        };
        out.push(
            Diagnostic::new(&LINT, span, message)
                .help("write preference lines inside the groups they are for: `User-agent: *` and each group naming a robot that may fetch pages"),
        );
    }
}
