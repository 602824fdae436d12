//! `usage/reader-dependent`: pages whose usage preferences in robots.txt
//! depend on how a robot reads `Content-Signal`.

use botwarden_robots::prefs::{Purpose, from_code};

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every fetched page for which robots.txt states usage preferences
    /// that only some robots see: read by group (aipref-attach, and how
    /// Cloudflare writes `Content-Signal`: in `User-agent: *`), the robot
    /// the crawl ran as gets one answer; read file-wide (crawler-commons:
    /// every `Content-Signal` for every robot) it gets another. The finding
    /// names each use that differs and the lines.
    ///
    /// ## Why it matters
    /// A `Content-Signal` outside the `*` group, or before the first
    /// group, or missing from a group naming a robot, reaches some robots
    /// and not others: the site's preference is not the same for every
    /// reader.
    ///
    /// ## Fix
    /// Write each preference line in every group it is meant for: the `*`
    /// group and each group naming a robot that may fetch pages
    /// (`botwarden robots check` shows which).
    "usage/reader-dependent", Notice, "pages whose usage preferences only some robots see"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.url, g.robots, g.robots_wide, g.robots_lines
         FROM usage g JOIN urls u ON u.id = g.url_id
         WHERE g.robots IS NOT NULL AND g.robots_wide IS NOT NULL AND g.robots != g.robots_wide
         ORDER BY u.id",
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for (url, group, wide, lines) in rows {
        let (Some(g), Some(w)) = (from_code(&group), from_code(&wide)) else { continue };
        let differs: Vec<String> = Purpose::ALL
            .iter()
            .zip(g.iter().zip(&w))
            .filter(|(_, (a, b))| a != b)
            .map(|(p, (a, b))| format!("{p}: {a} by group, {b} file-wide"))
            .collect();
        out.push(Finding::new(
            url,
            format!("{} (robots.txt lines {})", differs.join("; "), lines.unwrap_or_default()),
        ));
    }
    Ok(out)
}
