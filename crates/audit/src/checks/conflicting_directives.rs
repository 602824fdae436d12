//! `robots/conflicting-directives`: pages that say `index` and `noindex`,
//! or `follow` and `nofollow`.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every fetched page whose robots `<meta>` tags (`robots` and
    /// `botwarden`) and `X-Robots-Tag` headers (whatever agent a header
    /// names: they are read together), taken together, say both
    /// `index` and `noindex`, or both `follow` and `nofollow`: in one tag,
    /// or the tag one way and the header the other. `all` counts as
    /// `index, follow` and `none` as `noindex, nofollow`. The finding
    /// quotes each source.
    ///
    /// ## Why it matters
    /// Search engines resolve a conflict by taking the most restrictive
    /// directive: a page meant to be indexed is dropped. The two sources
    /// are usually set by different people (the template, the server).
    ///
    /// ## Fix
    /// Say each thing once, in one place; remove the directive that is
    /// not meant.
    "robots/conflicting-directives", Warning, "pages that say both index and noindex, or follow and nofollow"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.id, u.url, p.robots_meta, p.x_robots_tag
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.robots_meta IS NOT NULL OR p.x_robots_tag IS NOT NULL
         ORDER BY u.id",
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for (_, url, meta, header) in rows {
        let mut words = Words::default();
        for source in meta.iter().chain(header.iter()) {
            for part in source.split(" | ") {
                words.read(part);
            }
        }
        let mut conflicts = Vec::new();
        if words.index && words.noindex {
            conflicts.push("index and noindex");
        }
        if words.follow && words.nofollow {
            conflicts.push("follow and nofollow");
        }
        if conflicts.is_empty() {
            continue;
        }
        let mut sources = Vec::new();
        if let Some(m) = &meta {
            sources.push(format!("meta {m}"));
        }
        if let Some(h) = &header {
            sources.push(format!("X-Robots-Tag {h}"));
        }
        let message = format!("says {} ({})", conflicts.join(", "), sources.join("; "));
        out.push(Finding::new(url, message));
    }
    Ok(out)
}

/// The directive words a page says.
#[derive(Default)]
struct Words {
    index: bool,
    noindex: bool,
    follow: bool,
    nofollow: bool,
}

impl Words {
    /// Reads one tag (`robots: index, follow`) or header value
    /// (`noindex`, `botwarden: nofollow`): the words after an agent's
    /// `name:`.
    fn read(&mut self, value: &str) {
        for item in value.split(',') {
            // `name: words` (meta, or a header's agent) leaves the words.
            let word = item.rsplit(':').next().unwrap_or(item).trim();
            match word.to_ascii_lowercase().as_str() {
                "index" => self.index = true,
                "noindex" => self.noindex = true,
                "follow" => self.follow = true,
                "nofollow" => self.nofollow = true,
                "all" => {
                    self.index = true;
                    self.follow = true;
                }
                "none" => {
                    self.noindex = true;
                    self.nofollow = true;
                }
                _ => {}
            }
        }
    }
}
