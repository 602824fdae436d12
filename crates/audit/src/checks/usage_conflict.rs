//! `usage/conflict`: pages whose robots.txt and response headers state
//! opposite usage preferences.

use botwarden_robots::prefs::{Preference, Purpose, from_code};

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every fetched page for which robots.txt (`Content-Usage` or
    /// `Content-Signal` in the group the crawler obeys) and the response's
    /// own `Content-Usage` or `Content-Signal` header say opposite things
    /// about one use: one allows `train-ai`, the other refuses it. The
    /// finding names the use, both answers, the robots.txt lines and the
    /// header as sent.
    ///
    /// ## Why it matters
    /// A robot that reads both takes the refusal (any `n` wins); a robot
    /// that reads only one source takes its answer. The site says two
    /// things, usually set by different people (the robots.txt, a CDN's
    /// header).
    ///
    /// ## Fix
    /// State the preference once, or make both sources say the same.
    "usage/conflict", Warning, "pages whose robots.txt and headers state opposite usage preferences"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.url, g.robots, g.robots_lines, g.header, g.header_text
         FROM usage g JOIN urls u ON u.id = g.url_id
         WHERE g.robots IS NOT NULL AND g.header IS NOT NULL
         ORDER BY u.id",
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for (url, robots, lines, header, text) in rows {
        let (Some(r), Some(h)) = (from_code(&robots), from_code(&header)) else { continue };
        let opposite: Vec<String> = Purpose::ALL
            .iter()
            .zip(r.iter().zip(&h))
            .filter(|(_, (a, b))| {
                matches!(
                    (a, b),
                    (Preference::Allowed, Preference::Refused) | (Preference::Refused, Preference::Allowed)
                )
            })
            .map(|(p, (a, b))| format!("{p}: robots.txt {a}, header {b}"))
            .collect();
        if opposite.is_empty() {
            continue;
        }
        out.push(Finding::new(
            url,
            format!(
                "{} (robots.txt line {}; {})",
                opposite.join("; "),
                lines.unwrap_or_default(),
                text.unwrap_or_default()
            ),
        ));
    }
    Ok(out)
}
