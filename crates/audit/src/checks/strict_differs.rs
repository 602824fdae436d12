//! `robots/strict-differs`: URLs the strict reading of robots.txt decides
//! otherwise than the reading the crawl obeyed.

use crate::{Context, Finding, RobotsEvidence, RobotsReading};

declare_check! {
    /// ## What it finds
    /// Every URL met whose robots.txt decision differs between the reading
    /// the crawl obeyed (RFC 9309: the longest match wins, `*` and `$` are
    /// wildcards; on a verified site, the simulated profile) and the
    /// strict one of the 1994 standard and 1997 draft (the first matching
    /// rule wins, no wildcards), with each reading's deciding rule and
    /// line (`robots_decisions`).
    ///
    /// ## Why it matters
    /// Old and simple robots read robots.txt the strict way: where the
    /// readings differ, such robots fetch what the file keeps from modern
    /// ones, or skip what it opens to them.
    ///
    /// ## Fix
    /// Order the rules so that the first match is also the longest (the
    /// `Allow` before the `Disallow` it carves out of), and spell out
    /// what a wildcard means with plain prefixes where you can
    /// (`botwarden robots check` shows each line's readings).
    "robots/strict-differs", Notice, "URLs the strict reading of robots.txt decides otherwise"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.id, u.url, d.relaxed_allowed, d.relaxed_rule, d.relaxed_line,
                d.strict_allowed, d.strict_rule, d.strict_line
         FROM robots_decisions d JOIN urls u ON u.id = d.url_id
         WHERE d.relaxed_allowed != d.strict_allowed ORDER BY u.id",
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                RobotsEvidence {
                    obeyed: RobotsReading {
                        allowed: r.get(2)?,
                        rule: r.get(3)?,
                        line: r.get(4)?,
                    },
                    strict: RobotsReading {
                        allowed: r.get(5)?,
                        rule: r.get(6)?,
                        line: r.get(7)?,
                    },
                },
            ))
        },
    )?;
    rows.into_iter()
        .map(|(id, url, evidence)| {
            let message = format!(
                "obeyed reading: {}; strict: {}",
                evidence.obeyed.describe(),
                evidence.strict.describe()
            );
            let mut f = cx.linked_finding(id, url, message)?;
            f.robots = Some(Box::new(evidence));
            Ok(f)
        })
        .collect()
}
