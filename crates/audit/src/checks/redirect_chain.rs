//! `redirects/chain`: redirects that lead to another redirect.

use std::collections::{HashMap, HashSet};

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every chain of more than one redirect: a URL that redirects to a
    /// URL that redirects again. One finding per chain, at its first URL
    /// (a redirect no other redirect leads to), with every next URL in
    /// order and how the chain ends: the final answer, a URL not fetched
    /// (out of the crawl's scope, blocked by robots.txt), or a loop
    /// (reported by `redirects/loop` too). A chain is followed through the
    /// redirects the crawl stored (each redirect's `Location` is queued
    /// like a link).
    ///
    /// ## Why it matters
    /// Every hop is one more request for visitors and robots; robots give
    /// up after a few (RFC 9309: five for robots.txt; Google: ten for
    /// pages), and each hop is one more chance to lose the target's
    /// signals.
    ///
    /// ## Fix
    /// Make the first URL (and every URL of the chain) redirect straight to
    /// the final address, and link to the final address.
    "redirects/chain", Warning, "redirects that lead to another redirect (more than one hop)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let redirects = cx.redirects()?;
    let next: HashMap<i64, Option<i64>> = redirects.iter().map(|r| (r.id, r.target)).collect();
    let led_to: HashSet<i64> = redirects.iter().filter_map(|r| r.target).collect();
    let mut out = Vec::new();
    for head in redirects.iter().filter(|r| !led_to.contains(&r.id)) {
        // The redirects of the chain, in order.
        let mut path = vec![head.id];
        let end = loop {
            let last = path[path.len() - 1];
            match next.get(&last).copied().flatten() {
                None => break End::Nowhere,
                Some(t) if path.contains(&t) => break End::Loop(t),
                Some(t) if next.contains_key(&t) => path.push(t),
                Some(t) => break End::At(t),
            }
        };
        if path.len() < 2 {
            continue;
        }
        let mut related = Vec::new();
        for id in &path[1..] {
            related.push(cx.outcome(*id)?.0);
        }
        let ending = match end {
            End::Nowhere => "the last Location is not a crawlable URL".to_owned(),
            End::Loop(t) => format!("then loops back to {}", cx.outcome(t)?.0),
            End::At(t) => {
                let (url, outcome) = cx.outcome(t)?;
                related.push(url.clone());
                format!("ends at {url}: {outcome}")
            }
        };
        let message = format!("{} redirects in a row; {ending}", path.len());
        let mut f = cx.linked_finding(head.id, head.url.clone(), message)?;
        f.related = related;
        out.push(f);
    }
    Ok(out)
}

/// Where a chain ends.
enum End {
    /// A `Location` that is not a crawlable URL.
    Nowhere,
    /// Back at a URL of the chain.
    Loop(i64),
    /// At a URL that did not redirect.
    At(i64),
}
