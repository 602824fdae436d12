//! The HTML sections of a log joined with a crawl (`--crawl`).

use std::fmt::{self, Write as _};

use botwarden_text::{HtmlLine, thousands};

use super::super::crawl::CrawlJoin;
use super::super::model::Report;
use super::{num_cell, panel, share, time_cell};

/// Rows shown per table; the JSON has them all.
const ROWS: usize = 50;

/// A cell of a plain table.
enum Cell<'a> {
    Text(&'a str),
    Owned(String),
    Num(u64),
    /// A figure that is no count (a score, seconds, a share): right-aligned.
    Fig(String),
}

/// A table: its heads (`true` for a number column) and rows.
fn table(out: &mut String, heads: &[(&str, bool)], rows: &[Vec<Cell<'_>>]) -> fmt::Result {
    writeln!(out, r#"<div class="scroll"><table><thead><tr>"#)?;
    for (head, num) in heads {
        if *num {
            write!(out, r#"<th class="num">{head}</th>"#)?;
        } else {
            write!(out, "<th>{head}</th>")?;
        }
    }
    writeln!(out, "</tr></thead><tbody>")?;
    for row in rows.iter().take(ROWS) {
        write!(out, "<tr>")?;
        for cell in row {
            match cell {
                Cell::Text(t) => write!(out, "<td>{}</td>", HtmlLine(t))?,
                Cell::Owned(t) => write!(out, "<td>{}</td>", HtmlLine(t))?,
                Cell::Num(n) => num_cell(out, *n)?,
                Cell::Fig(t) => write!(out, r#"<td class="num">{}</td>"#, HtmlLine(t))?,
            }
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></div>")?;
    if rows.len() > ROWS {
        writeln!(
            out,
            r#"<p class="empty">{} more rows in the JSON report.</p>"#,
            thousands((rows.len() - ROWS) as u64)
        )?;
    }
    Ok(())
}

pub(super) fn crawl(out: &mut String, r: &Report) -> fmt::Result {
    let Some(c) = &r.crawl else {
        return Ok(());
    };
    bots(out, c)?;
    compliance(out, c)?;
    pages(out, c)?;
    urls(out, c)
}

fn bots(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    panel(
        out,
        "crawl-bots",
        "Bots on the crawl",
        "Verified requests of each registered bot joined with the crawl's URLs; spoofed requests are shown apart and counted in no other column.",
    )?;
    writeln!(
        out,
        "<p>Crawl <code>{}</code>: {} URLs, {} pages.</p>",
        HtmlLine(&c.store),
        thousands(c.urls),
        thousands(c.pages)
    )?;
    robots_copies(out, c)?;
    accounting(out, c)?;
    bot_table(out, c)?;
    waste_table(out, c)?;
    category_table(out, c)?;
    writeln!(out, "</section>")
}

/// Which robots.txt each origin's compliance was judged by.
fn robots_copies(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    for copy in &c.robots {
        let from = match copy.source.as_str() {
            "crawl" => format!(
                "the crawl's copy ({}, fetched {})",
                copy.availability.as_deref().unwrap_or(""),
                copy.name
            ),
            "given" => copy.name.clone(),
            "history" => format!(
                "{}, in force from {}",
                copy.name,
                copy.from.as_deref().unwrap_or("")
            ),
            _ => "none recorded: nothing disallowed".to_owned(),
        };
        writeln!(
            out,
            "<p>robots.txt of <code>{}</code>: {}</p>",
            HtmlLine(&copy.origin),
            HtmlLine(&from)
        )?;
    }
    Ok(())
}

/// Where the registered bots' requests went, in one sentence.
fn accounting(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    let a = &c.accounting;
    writeln!(
        out,
        r#"<p class="sub">Registered bots' requests {} = verified {} + spoofed {} + unconfirmed {}; verified = joined {} + other hosts {} + no URL {} + capped {}.</p>"#,
        thousands(a.requests),
        thousands(a.verified),
        thousands(a.spoofed),
        thousands(a.unconfirmed),
        thousands(a.joined),
        thousands(a.other_host),
        thousands(a.no_url),
        thousands(a.capped),
    )
}

/// A row per bot.
fn bot_table(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    let rows: Vec<Vec<Cell<'_>>> = c
        .bots
        .iter()
        .map(|b| {
            vec![
                Cell::Text(&b.bot),
                Cell::Text(b.category.as_deref().unwrap_or("")),
                Cell::Num(b.requests),
                Cell::Num(b.urls),
                Cell::Num(b.requests_in_crawl),
                Cell::Num(b.requests_not_in_crawl),
                Cell::Num(b.status_changes),
                Cell::Num(b.waste.redirect),
                Cell::Num(b.waste.error),
                Cell::Num(b.waste.non_canonical),
                Cell::Num(b.waste.noindex),
                Cell::Num(b.spoofed),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("Bot", false),
            ("Category", false),
            ("Verified", true),
            ("URLs", true),
            ("In crawl", true),
            ("Not in crawl", true),
            ("Status changed", true),
            ("On redirects", true),
            ("On errors", true),
            ("Non-canonical", true),
            ("Noindex", true),
            ("Spoofed", true),
        ],
        &rows,
    )
}

/// The waste URLs the bots requested, when there are any.
fn waste_table(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    if !c.waste_urls.is_empty() {
        writeln!(out, "<h3>Waste the bots requested</h3>")?;
        let rows: Vec<Vec<Cell<'_>>> = c
            .waste_urls
            .iter()
            .map(|u| {
                vec![
                    Cell::Text(&u.url),
                    Cell::Owned(u.kinds.join(", ")),
                    Cell::Fig(u.crawl_status.map(|s| s.to_string()).unwrap_or_default()),
                    Cell::Num(u.requests),
                    Cell::Owned(u.bots.join(", ")),
                ]
            })
            .collect();
        table(
            out,
            &[
                ("URL", false),
                ("Waste", false),
                ("Crawl status", true),
                ("Requests", true),
                ("Bots", false),
            ],
            &rows,
        )?;
    }
    Ok(())
}

/// A row per bot category.
fn category_table(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    let rows: Vec<Vec<Cell<'_>>> = c
        .categories
        .iter()
        .map(|k| {
            vec![
                Cell::Text(&k.category),
                Cell::Num(k.bots),
                Cell::Num(k.requests),
                Cell::Num(k.urls),
                Cell::Num(k.disallowed),
                Cell::Num(k.waste),
            ]
        })
        .collect();
    writeln!(out, "<h3>Categories</h3>")?;
    table(
        out,
        &[
            ("Category", false),
            ("Bots", true),
            ("Requests", true),
            ("URLs", true),
            ("Disallowed", true),
            ("On waste", true),
        ],
        &rows,
    )
}

fn compliance(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    panel(
        out,
        "crawl-robots",
        "robots.txt compliance",
        "Verified requests for URLs the robots.txt in force disallowed to the bot (its tokens, read in its crawler's profile), and the spacing of its requests against a Crawl-delay: kept when at least 95% of gaps are at least the delay.",
    )?;
    let rows: Vec<Vec<Cell<'_>>> = c
        .bots
        .iter()
        .filter(|b| b.disallowed + b.spoofed_disallowed > 0)
        .map(|b| {
            vec![
                Cell::Text(&b.bot),
                Cell::Text(&b.profile),
                Cell::Num(b.disallowed),
                Cell::Num(b.disallowed_urls),
                Cell::Num(b.disallowed_ips),
                Cell::Num(b.robots_fetches),
                Cell::Num(b.spoofed_disallowed),
                Cell::Owned(b.disallowed_examples.first().cloned().unwrap_or_default()),
            ]
        })
        .collect();
    if rows.is_empty() {
        writeln!(
            out,
            r#"<p class="empty">No bot requested a disallowed URL.</p>"#
        )?;
    } else {
        table(
            out,
            &[
                ("Bot", false),
                ("Profile", false),
                ("Disallowed", true),
                ("URLs", true),
                ("Addresses", true),
                ("robots.txt fetches", true),
                ("Spoofed", true),
                ("Example", false),
            ],
            &rows,
        )?;
    }
    let rows: Vec<Vec<Cell<'_>>> = c
        .bots
        .iter()
        .flat_map(|b| {
            b.crawl_delay.iter().map(move |d| {
                vec![
                    Cell::Text(&b.bot),
                    Cell::Text(&d.origin),
                    Cell::Text(&d.robots),
                    Cell::Fig(format!("{} s", d.delay)),
                    Cell::Num(d.gaps),
                    Cell::Num(d.kept),
                    Cell::Fig(d.min.map(|m| format!("{m} s")).unwrap_or_default()),
                    Cell::Fig(d.median.map(|m| format!("{m} s")).unwrap_or_default()),
                    Cell::Text(if d.keeps { "yes" } else { "no" }),
                ]
            })
        })
        .collect();
    if !rows.is_empty() {
        writeln!(out, "<h3>Crawl-delay</h3>")?;
        table(
            out,
            &[
                ("Bot", false),
                ("Origin", false),
                ("robots.txt", false),
                ("Delay", true),
                ("Gaps", true),
                ("Kept", true),
                ("Min", true),
                ("Median", true),
                ("Keeps", false),
            ],
            &rows,
        )?;
    }
    writeln!(out, "</section>")
}

fn pages(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    let n = &c.never_crawled;
    panel(
        out,
        "crawl-pages",
        "The crawl's pages and search bots",
        "Pages (200, HTML) of the crawl no verified search bot requested in the period, highest link score first; requests by link depth and link score; URLs verified bots requested that the crawl did not find.",
    )?;
    writeln!(
        out,
        "<p>{} of {} pages not requested by a verified search bot ({}).</p>",
        thousands(n.not_requested),
        thousands(n.pages),
        share(n.not_requested, n.pages)
    )?;
    let rows: Vec<Vec<Cell<'_>>> = n
        .list
        .iter()
        .map(|p| {
            vec![
                Cell::Text(&p.url),
                Cell::Num(u64::from(p.depth)),
                Cell::Fig(p.link_score.map(|s| format!("{s:.2}")).unwrap_or_default()),
            ]
        })
        .collect();
    table(
        out,
        &[("Page", false), ("Depth", true), ("Link score", true)],
        &rows,
    )?;
    for (title, head, bands) in [
        ("By link depth", "Depth", &c.depths),
        ("By link score", "Score", &c.scores),
    ] {
        writeln!(out, "<h3>{title}</h3>")?;
        let rows: Vec<Vec<Cell<'_>>> = bands
            .iter()
            .map(|s| {
                vec![
                    Cell::Text(&s.band),
                    Cell::Num(s.pages),
                    Cell::Num(s.requested),
                    Cell::Fig(super::super::text::share(s.requested, s.pages)),
                    Cell::Num(s.requests),
                ]
            })
            .collect();
        table(
            out,
            &[
                (head, false),
                ("Pages", true),
                ("Requested", true),
                ("Share", true),
                ("Requests", true),
            ],
            &rows,
        )?;
    }
    let o = &c.orphans;
    writeln!(
        out,
        "<h3>Not in the crawl</h3><p>{} URLs, {} verified requests.</p>",
        thousands(o.urls),
        thousands(o.requests)
    )?;
    let rows: Vec<Vec<Cell<'_>>> = o
        .list
        .iter()
        .map(|u| {
            vec![
                Cell::Text(&u.url),
                Cell::Text(&u.kind),
                Cell::Num(u.requests),
                Cell::Num(u64::from(u.last_status)),
                Cell::Owned(u.bots.join(", ")),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("URL", false),
            ("Kind", false),
            ("Requests", true),
            ("Last status", true),
            ("Bots", false),
        ],
        &rows,
    )?;
    writeln!(out, "<h3>Directories</h3>")?;
    let rows: Vec<Vec<Cell<'_>>> = c
        .directories
        .iter()
        .map(|d| {
            vec![
                Cell::Text(&d.directory),
                Cell::Num(d.requests),
                Cell::Num(d.urls),
                Cell::Num(d.pages),
                Cell::Num(d.pages_requested),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("Directory", false),
            ("Requests", true),
            ("URLs", true),
            ("Pages", true),
            ("Pages by search", true),
        ],
        &rows,
    )?;
    writeln!(out, "</section>")
}

fn urls(out: &mut String, c: &CrawlJoin) -> fmt::Result {
    panel(
        out,
        "crawl-urls",
        "URLs by verified requests",
        "Per URL and verified bot: requests, days with requests, the last request, the status of the last request and, when it changed, the status before.",
    )?;
    writeln!(
        out,
        r#"<div class="scroll"><table><thead><tr><th>URL</th><th>Bot</th><th class="num">Requests</th><th>Per day</th><th>Last seen</th><th class="num">Status</th><th>Status change</th></tr></thead><tbody>"#
    )?;
    for u in c.top_urls.iter().take(ROWS) {
        for (i, b) in u.bots.iter().enumerate() {
            let url = if i == 0 { u.url.as_str() } else { "" };
            write!(
                out,
                "<tr><td>{}</td><td>{}</td>",
                HtmlLine(url),
                HtmlLine(&b.bot)
            )?;
            num_cell(out, b.requests)?;
            let days: Vec<String> = b.days.iter().map(|(d, n)| format!("{d}: {n}")).collect();
            write!(out, "<td>{}</td>", HtmlLine(&days.join(" · ")))?;
            time_cell(out, b.last_seen)?;
            write!(out, r#"<td class="num">{}</td>"#, b.last_status)?;
            let change = b
                .status_change
                .as_ref()
                .map_or_else(String::new, |s| format!("{} → {}", s.from, s.to));
            writeln!(out, "<td>{}</td></tr>", HtmlLine(&change))?;
        }
    }
    writeln!(out, "</tbody></table></div>")?;
    if c.top_urls.len() > ROWS || c.top_urls_omitted > 0 {
        writeln!(
            out,
            r#"<p class="empty">{} more URLs in the JSON report.</p>"#,
            thousands(c.top_urls.len().saturating_sub(ROWS) as u64 + c.top_urls_omitted)
        )?;
    }
    if !c.status_changes.is_empty() {
        writeln!(out, "<h3>Status changes, the latest first</h3>")?;
        let rows: Vec<Vec<Cell<'_>>> = c
            .status_changes
            .iter()
            .map(|u| {
                let s = &u.change;
                let at = |t: Option<jiff::Timestamp>| {
                    t.map(|t| super::super::text::time(t, false))
                        .unwrap_or_default()
                };
                vec![
                    Cell::Text(&u.url),
                    Cell::Text(&u.bot),
                    Cell::Num(u.requests),
                    Cell::Fig(s.from.to_string()),
                    Cell::Owned(at(s.until)),
                    Cell::Fig(s.to.to_string()),
                    Cell::Owned(at(s.since)),
                ]
            })
            .collect();
        table(
            out,
            &[
                ("URL", false),
                ("Bot", false),
                ("Requests", true),
                ("Was", true),
                ("Until", false),
                ("Now", true),
                ("Since", false),
            ],
            &rows,
        )?;
    }
    writeln!(out, "</section>")
}
