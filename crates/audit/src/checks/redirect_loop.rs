//! `redirects/loop`: redirects that lead back to themselves.

use std::collections::{HashMap, HashSet};

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every loop of redirects: URLs that redirect from one to the next and
    /// back to the first (a URL that redirects to itself is a loop of
    /// one). One finding per loop, at its first URL in the order of
    /// discovery, with the others in the loop's order and the links that
    /// lead to it.
    ///
    /// ## Why it matters
    /// No visitor and no robot ever reaches a page: browsers stop with an
    /// error, robots give up. Every URL of the loop is lost.
    ///
    /// ## Fix
    /// Make one URL of the loop answer the page (or redirect out of the
    /// loop to it); look for rules that rewrite each other (`www` and
    /// bare host, trailing slash, `http` and `https`).
    "redirects/loop", Error, "redirects that lead back to themselves"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let redirects = cx.redirects()?;
    let next: HashMap<i64, Option<i64>> = redirects.iter().map(|r| (r.id, r.target)).collect();
    // Each redirect leads to one URL: walking from every redirect in order
    // of discovery finds each loop once, first at its smallest id.
    let mut done: HashSet<i64> = HashSet::new();
    let mut out = Vec::new();
    for start in &redirects {
        let mut path: Vec<i64> = Vec::new();
        let mut cur = start.id;
        let mut back_to = None;
        loop {
            if done.contains(&cur) {
                break;
            }
            if path.contains(&cur) {
                back_to = Some(cur);
                break;
            }
            path.push(cur);
            match next.get(&cur).copied().flatten() {
                Some(t) if next.contains_key(&t) => cur = t,
                _ => break,
            }
        }
        if let Some(at) = back_to.and_then(|b| path.iter().position(|&id| id == b)) {
            let mut cycle = path[at..].to_vec();
            // Start at its first URL in the order of discovery.
            let first = cycle
                .iter()
                .enumerate()
                .min_by_key(|(_, id)| **id)
                .map_or(0, |(i, _)| i);
            cycle.rotate_left(first);
            let (url, _) = cx.outcome(cycle[0])?;
            let mut related = Vec::new();
            for id in &cycle[1..] {
                related.push(cx.outcome(*id)?.0);
            }
            let message = if cycle.len() == 1 {
                "redirects to itself".to_owned()
            } else {
                format!("{} URLs redirect in a loop", cycle.len())
            };
            let mut f = cx.linked_finding(cycle[0], url, message)?;
            f.related = related;
            out.push((cycle[0], f));
        }
        done.extend(path);
    }
    out.sort_by_key(|(id, _)| *id);
    Ok(out.into_iter().map(|(_, f)| f).collect())
}
