//! `robots/blocked`: URLs of the site that robots.txt kept the crawl from.

use crate::{Context, Finding, RobotsEvidence, RobotsReading};

declare_check! {
    /// ## What it finds
    /// Every URL the crawl met and did not fetch because robots.txt
    /// disallows it for the crawler's token chain, with the rule and its
    /// line (`urls.skip_detail`, and both readings from
    /// `robots_decisions`), and every link that leads there. URLs not
    /// fetched because robots.txt could not be read are not counted here.
    ///
    /// ## Why it matters
    /// Mostly meant; but a rule broader than intended hides pages from
    /// every robot that reads it, and links to disallowed URLs spend the
    /// site's links on pages robots will not see. Robots may still index a
    /// disallowed URL from links alone, without its content.
    ///
    /// ## Fix
    /// Check that each rule listed is meant to cover these URLs; narrow it
    /// (or add an `Allow`) if not. To keep a page out of search results,
    /// allow it and say `noindex` instead.
    "robots/blocked", Notice, "URLs robots.txt disallows, with the rule and line"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.id, u.url, u.skip_detail, d.relaxed_allowed, d.relaxed_rule, d.relaxed_line,
                d.strict_allowed, d.strict_rule, d.strict_line
         FROM urls u LEFT JOIN robots_decisions d ON d.url_id = u.id
         WHERE u.state = 'skipped' AND u.skip_reason = 'robots' ORDER BY u.id",
        |r| {
            let evidence = match r.get::<_, Option<bool>>(3)? {
                Some(obeyed) => Some(RobotsEvidence {
                    obeyed: RobotsReading {
                        allowed: obeyed,
                        rule: r.get(4)?,
                        line: r.get(5)?,
                    },
                    strict: RobotsReading {
                        allowed: r.get::<_, Option<bool>>(6)?.unwrap_or(true),
                        rule: r.get(7)?,
                        line: r.get(8)?,
                    },
                }),
                None => None,
            };
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                evidence,
            ))
        },
    )?;
    rows.into_iter()
        .map(|(id, url, detail, evidence)| {
            let message = format!(
                "disallowed by {}",
                detail.as_deref().unwrap_or("robots.txt (no rule recorded)")
            );
            let mut f = cx.linked_finding(id, url, message)?;
            f.robots = evidence.map(Box::new);
            Ok(f)
        })
        .collect()
}
