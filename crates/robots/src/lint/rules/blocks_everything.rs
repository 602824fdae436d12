//! R033 `blocks-everything`: every robot is kept out of the whole site.

use crate::lint::{Context, Diagnostic};
use crate::profile::Profile;
use crate::robots::{Applies, Reason};

declare_lint! {
    /// ## What it does
    /// Finds files where the `*` group disallows every path, so every robot
    /// without a group of its own may fetch nothing.
    ///
    /// ## Why
    /// Often a staging file deployed to production. Search engines drop the
    /// site from their results within days.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /
    /// ```
    ///
    /// ## Fix
    /// Deploy the production robots.txt; if the block is meant, add groups
    /// for the robots that are welcome.
    "R033", "blocks-everything", Warning, "every robot is kept out of the whole site"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let probe = cx.star_robot();
    let robots = cx.robots(&Profile::RFC9309);
    let m = robots.matcher(&probe);
    if m.applies() != &Applies::Star {
        return;
    }
    let blocked = ["/", "/index.html", "/a/b?c=d"].iter().all(|p| !m.check(p).allowed);
    if !blocked {
        return;
    }
    let Reason::Rule { line, .. } = m.check("/").reason else { return };
    let others = cx.blocks.iter().filter(|b| b.agents.iter().any(|&a| cx.token(a).is_some())).count();
    let message = if others == 0 {
        "every robot is kept out of the whole site".to_owned()
    } else {
        format!("every robot without a group of its own is kept out of the whole site ({others} group(s) name robots that are let in)")
    };
    let span = cx.txt.line(line).map_or(cx.txt.lines()[0].span, |l| l.span);
    out.push(Diagnostic::new(&LINT, span, message).help("if this is a staging file, deploy the production robots.txt"));
}
