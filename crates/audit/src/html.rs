//! The audit as one self-contained HTML page (`docs/audit.md`, "The
//! HTML").
//!
//! The page loads nothing: its style is inline, its chart is SVG drawn
//! here, it has no script, and its Content-Security-Policy forbids
//! anything else. Every string from the crawl (URLs, titles, anchor text,
//! robots.txt rules) is escaped, and control and bidirectional-override
//! characters are replaced, so that what a site wrote is shown, never
//! interpreted. URLs are text, not links: opening the report never
//! reaches the site.

use std::fmt::{self, Write as _};

use botwarden_text::{HtmlText, report_head, thousands};

use super::compare::Comparison;
use super::document::AuditDocument;
use super::site::SiteOverview;
use super::{CheckReport, Finding, RobotsReading, Severity, check};

/// The audit's own rules, after [`botwarden_text::REPORT_CSS_BASE`].
const CSS: &str = include_str!("report.css");

/// Findings shown per check; the JSON and CSV list them all.
pub const HTML_FINDINGS: usize = 200;

/// Links shown per finding.
const HTML_LINKS: usize = 10;

/// URLs shown per kind of change (fixed, new) and check.
const HTML_CHANGES: usize = 200;

/// Renders the audit as one HTML page that opens offline: counts per
/// severity and check, the crawl's statuses and depths, the link graph's
/// most linked and best scored pages, the comparison if any, and a
/// section per check with its documentation and evidence.
///
/// The output depends on the document only.
#[must_use]
pub fn render_html(doc: &AuditDocument) -> String {
    let mut out = String::with_capacity(64 * 1024);
    page(&mut out, doc).expect("writing to a String cannot fail");
    out
}

/// The id of a check's section: `check-` and its code with `/` as `-`
/// (codes are the registry's, never the crawl's).
fn section_id(code: &str) -> String {
    format!("check-{}", code.replace('/', "-"))
}

struct Badge(Severity);

impl fmt::Display for Badge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.as_str();
        write!(f, r#"<span class="badge b-{s}">{s}</span>"#)
    }
}

fn page(out: &mut String, doc: &AuditDocument) -> fmt::Result {
    let r = &doc.report;
    report_head(
        out,
        format_args!("Site audit · {} · botwarden", HtmlText(&r.seed)),
        CSS,
        "Site audit",
    )?;
    let u = &r.urls;
    writeln!(
        out,
        r#"<p class="meta"><b>{}</b> · crawl {} · {} URLs met, {} fetched, {} not fetched, {} still queued · pages deeper than {} clicks reported</p>"#,
        HtmlText(&r.seed),
        HtmlText(&r.state),
        thousands(u.known),
        thousands(u.fetched),
        thousands(u.skipped),
        thousands(u.queued),
        r.max_depth
    )?;
    if r.state.is_empty() {
        writeln!(
            out,
            r#"<p class="meta unfinished">No crawl is recorded in this store.</p>"#
        )?;
    } else if r.state != "finished" {
        writeln!(
            out,
            r#"<p class="meta unfinished">The crawl did not finish: the audit covers what it fetched.</p>"#
        )?;
    }
    for note in &r.notes {
        writeln!(out, r#"<p class="meta unfinished">{}</p>"#, HtmlText(note))?;
    }
    writeln!(out, "</div></header>")?;
    writeln!(out, r#"<main class="wrap">"#)?;
    cards(out, doc)?;
    overview(out, doc)?;
    if let Some(c) = &doc.compare {
        compare(out, c)?;
    }
    writeln!(out, r#"<div class="grid2">"#)?;
    statuses(out, &doc.site)?;
    depths(out, &doc.site)?;
    writeln!(out, "</div>")?;
    link_graph(out, &doc.site)?;
    if let Some(view) = &r.render {
        render_view(out, view)?;
    }
    for c in r.checks_with_findings_first() {
        check_section(out, c)?;
    }
    writeln!(
        out,
        "<footer>{} findings from {} checks · schema {} · botwarden</footer>",
        thousands(r.total()),
        r.checks.len(),
        HtmlText(r.schema)
    )?;
    writeln!(out, "</main>")?;
    writeln!(out, "</body>")?;
    writeln!(out, "</html>")
}

fn cards(out: &mut String, doc: &AuditDocument) -> fmt::Result {
    let r = &doc.report;
    let by = |s: Severity| -> (u64, usize) {
        let checks = r.checks.iter().filter(|c| c.severity == s && c.count > 0);
        (checks.clone().map(|c| c.count).sum(), checks.count())
    };
    writeln!(out, r#"<div class="cards">"#)?;
    let with = r.checks.iter().filter(|c| c.count > 0).count();
    let card = |out: &mut String, class: &str, k: &str, v: u64, s: String| {
        writeln!(
            out,
            r#"<div class="card c-{class}{}"><div class="k">{k}</div><div class="v">{}</div><div class="s">{}</div></div>"#,
            if v == 0 { " zero" } else { "" },
            thousands(v),
            HtmlText(&s)
        )
    };
    card(
        out,
        "total",
        "Findings",
        r.total(),
        format!("from {with} of {} checks", r.checks.len()),
    )?;
    for (s, k) in [
        (Severity::Error, "Errors"),
        (Severity::Warning, "Warnings"),
        (Severity::Notice, "Notices"),
    ] {
        let (n, checks) = by(s);
        card(
            out,
            s.as_str(),
            k,
            n,
            format!("{checks} check{}", if checks == 1 { "" } else { "s" }),
        )?;
    }
    card(
        out,
        "pages",
        "Fetched",
        r.urls.fetched,
        format!("of {} URLs met", thousands(r.urls.known)),
    )?;
    writeln!(out, "</div>")
}

fn overview(out: &mut String, doc: &AuditDocument) -> fmt::Result {
    let r = &doc.report;
    writeln!(
        out,
        r#"<section class="panel" id="overview" aria-labelledby="overview-h">"#
    )?;
    writeln!(out, r#"<h2 id="overview-h">Findings by check</h2>"#)?;
    writeln!(
        out,
        r#"<p class="sub">The checks with findings first, most severe first (errors, warnings, notices), then those without. Each check has its section below, with what it finds, why it matters, how to fix it, and the evidence.</p>"#
    )?;
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    write!(
        out,
        r#"<thead><tr><th>Severity</th><th>Check</th><th class="finds">Finds</th><th class="num">Findings</th>"#
    )?;
    if doc.compare.is_some() {
        write!(
            out,
            r#"<th class="num">Fixed</th><th class="num">New</th><th class="num">Still</th>"#
        )?;
    }
    writeln!(out, "</tr></thead><tbody>")?;
    for c in r.checks_with_findings_first() {
        write!(
            out,
            r##"<tr><td>{}</td><td><a href="#{}"><code>{}</code></a></td><td class="finds">{}</td><td class="num{}">{}</td>"##,
            Badge(c.severity),
            section_id(c.code),
            HtmlText(c.code),
            HtmlText(c.summary),
            if c.count == 0 { " zero" } else { "" },
            thousands(c.count)
        )?;
        if let Some(cmp) = &doc.compare {
            let change = cmp.checks.iter().find(|x| x.code == c.code);
            let n =
                |f: fn(&super::compare::CheckChange) -> usize| change.map_or(0, |c| f(c) as u64);
            for v in [
                n(|c| c.fixed.len()),
                n(|c| c.new.len()),
                n(|c| c.still.len()),
            ] {
                write!(
                    out,
                    r#"<td class="num{}">{}</td>"#,
                    if v == 0 { " zero" } else { "" },
                    thousands(v)
                )?;
            }
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

fn compare(out: &mut String, c: &Comparison) -> fmt::Result {
    writeln!(
        out,
        r#"<section class="panel" id="compare" aria-labelledby="compare-h">"#
    )?;
    writeln!(out, r#"<h2 id="compare-h">Since the earlier crawl</h2>"#)?;
    writeln!(
        out,
        r#"<p class="sub">Compared with the crawl of <span class="url">{}</span> ({}, {} URLs met): <b>{}</b> fixed, <b>{}</b> new, <b>{}</b> still there. A finding is the same when its check and its URL are.</p>"#,
        HtmlText(&c.seed),
        HtmlText(&c.state),
        thousands(c.urls.known),
        thousands(c.fixed),
        thousands(c.new),
        thousands(c.still)
    )?;
    let changed: Vec<_> = c
        .checks
        .iter()
        .filter(|x| !x.fixed.is_empty() || !x.new.is_empty())
        .collect();
    if changed.is_empty() {
        writeln!(out, r#"<p class="empty">No finding came or went.</p>"#)?;
    }
    for x in changed {
        writeln!(
            out,
            r#"<h3 id="compare-{}">{} <code>{}</code></h3>"#,
            HtmlText(&x.code.replace('/', "-")),
            Badge(x.severity),
            HtmlText(x.code)
        )?;
        writeln!(
            out,
            r#"<div class="scroll"><table class="changes"><thead><tr><th>Change</th><th>URL</th></tr></thead><tbody>"#
        )?;
        for (what, urls) in [("fixed", &x.fixed), ("new", &x.new)] {
            for url in urls.iter().take(HTML_CHANGES) {
                writeln!(
                    out,
                    r#"<tr class="{what}"><td><span class="badge b-{what}">{what}</span></td><td class="url">{}</td></tr>"#,
                    HtmlText(url)
                )?;
            }
        }
        writeln!(out, "</tbody></table></div>")?;
        for (what, urls) in [("fixed", &x.fixed), ("new", &x.new)] {
            if urls.len() > HTML_CHANGES {
                writeln!(
                    out,
                    r#"<p class="more">… and {} more {what}: the JSON and CSV list them all.</p>"#,
                    thousands((urls.len() - HTML_CHANGES) as u64)
                )?;
            }
        }
    }
    writeln!(out, "</section>")
}

fn statuses(out: &mut String, site: &SiteOverview) -> fmt::Result {
    writeln!(
        out,
        r#"<section class="panel" id="statuses" aria-labelledby="statuses-h">"#
    )?;
    writeln!(out, r#"<h2 id="statuses-h">Pages by status</h2>"#)?;
    writeln!(
        out,
        r#"<p class="sub">The last answer of every URL fetched, and why the others were not.</p>"#
    )?;
    let fetched: u64 = site.statuses.iter().map(|c| c.count).sum();
    if site.statuses.is_empty() {
        writeln!(out, r#"<p class="empty">Nothing was fetched.</p>"#)?;
    } else {
        counts_table(out, "Status", &site.statuses, fetched)?;
    }
    if !site.not_fetched.is_empty() {
        writeln!(out, "<h3>Not fetched</h3>")?;
        let total = site.not_fetched.iter().map(|c| c.count).sum();
        counts_table(out, "Reason", &site.not_fetched, total)?;
    }
    writeln!(out, "</section>")
}

fn counts_table(
    out: &mut String,
    what: &str,
    rows: &[super::site::Count],
    total: u64,
) -> fmt::Result {
    writeln!(
        out,
        r#"<div class="scroll"><table><thead><tr><th>{what}</th><th class="num">URLs</th><th class="num">Share</th></tr></thead><tbody>"#
    )?;
    for c in rows {
        let share = if total == 0 {
            0.0
        } else {
            c.count as f64 * 100.0 / total as f64
        };
        writeln!(
            out,
            r#"<tr><td class="mono">{}</td><td class="num bar" style="--p:{share:.1}%">{}</td><td class="num">{share:.1}%</td></tr>"#,
            HtmlText(&c.name),
            thousands(c.count)
        )?;
    }
    writeln!(out, "</tbody></table></div>")
}

fn depths(out: &mut String, site: &SiteOverview) -> fmt::Result {
    writeln!(
        out,
        r#"<section class="panel" id="depth" aria-labelledby="depth-h">"#
    )?;
    writeln!(out, r#"<h2 id="depth-h">Pages per depth</h2>"#)?;
    writeln!(
        out,
        r#"<p class="sub">Clicks from the start URL, as the crawl met each URL (breadth first: the fewest links).</p>"#
    )?;
    if site.depths.is_empty() {
        writeln!(out, r#"<p class="empty">No URL was met.</p>"#)?;
        return writeln!(out, "</section>");
    }
    let max = site.depths.iter().map(|d| d.urls).max().unwrap_or(1).max(1);
    let n = site.depths.len();
    let (w, h, top, bottom) = (600.0, 220.0, 22.0, 24.0);
    let slot = w / n as f64;
    let bar = (slot * 0.7).min(60.0);
    let urls: Vec<u64> = site.depths.iter().map(|d| d.urls).collect();
    let (depth_shown, value_shown) = chart_labels(&urls, slot);
    let plot = h - top - bottom;
    writeln!(out, "<figure>")?;
    writeln!(
        out,
        r#"<svg id="depth-chart" viewBox="0 0 {w} {h}" role="img" aria-label="URLs met and fetched per depth">"#
    )?;
    writeln!(
        out,
        r#"<line class="axis" x1="0" x2="{w}" y1="{y}" y2="{y}"/>"#,
        y = h - bottom
    )?;
    for (i, d) in site.depths.iter().enumerate() {
        let x = slot * i as f64 + (slot - bar) / 2.0;
        let hm = plot * d.urls as f64 / max as f64;
        let hf = plot * d.fetched as f64 / max as f64;
        let base = h - bottom;
        writeln!(
            out,
            r#"<g class="depth" data-depth="{}"><title>depth {}: {} URLs met, {} fetched</title>"#,
            d.depth,
            d.depth,
            thousands(d.urls),
            thousands(d.fetched)
        )?;
        writeln!(
            out,
            r#"<rect class="met" x="{x:.1}" y="{:.1}" width="{bar:.1}" height="{hm:.1}"/>"#,
            base - hm
        )?;
        writeln!(
            out,
            r#"<rect class="fetched" x="{x:.1}" y="{:.1}" width="{bar:.1}" height="{hf:.1}"/>"#,
            base - hf
        )?;
        let cx = x + bar / 2.0;
        if value_shown[i] {
            writeln!(
                out,
                r#"<text class="val" x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                base - hm - 5.0,
                thousands(d.urls)
            )?;
        }
        if depth_shown[i] {
            writeln!(
                out,
                r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                h - 8.0,
                d.depth
            )?;
        }
        writeln!(out, "</g>")?;
    }
    writeln!(out, "</svg>")?;
    writeln!(
        out,
        r#"<figcaption>URLs per depth (0 is the start URL); the dark part was fetched.</figcaption>"#
    )?;
    writeln!(out, "</figure>")?;
    writeln!(
        out,
        r#"<ul class="legend"><li><span class="sw met"></span>met</li><li><span class="sw fetched"></span>fetched</li></ul>"#
    )?;
    writeln!(out, "</section>")
}

fn link_graph(out: &mut String, site: &SiteOverview) -> fmt::Result {
    let run = &site.link_score;
    writeln!(
        out,
        r#"<section class="panel" id="link-graph" aria-labelledby="link-graph-h">"#
    )?;
    writeln!(out, r#"<h2 id="link-graph-h">Link graph</h2>"#)?;
    writeln!(
        out,
        r#"<p class="sub">The link score is PageRank over the followed links between the site's HTML pages ({} pages, {} distinct links; {} links left out: to a page that is not HTML, to itself, or repeated), damping 0.85, scaled so that the average page scores 1; {} iteration{}{}.</p>"#,
        thousands(run.pages),
        thousands(run.links),
        thousands(run.links_left_out),
        run.iterations,
        if run.iterations == 1 { "" } else { "s" },
        if run.converged {
            ""
        } else {
            ", stopped before settling"
        }
    )?;
    writeln!(out, r#"<div class="grid2">"#)?;
    writeln!(out, "<div>")?;
    writeln!(out, "<h3>Most linked</h3>")?;
    ranked(out, &site.most_linked, "most-linked")?;
    writeln!(out, "</div>")?;
    writeln!(out, "<div>")?;
    writeln!(out, "<h3>Highest link score</h3>")?;
    ranked(out, &site.top_scores, "top-scores")?;
    writeln!(out, "</div>")?;
    writeln!(out, "</div>")?;
    writeln!(out, "</section>")
}

fn ranked(out: &mut String, pages: &[super::site::PageRank], id: &str) -> fmt::Result {
    if pages.is_empty() {
        return writeln!(out, r#"<p class="empty">No page.</p>"#);
    }
    writeln!(
        out,
        r#"<div class="scroll"><table id="{id}"><thead><tr><th>URL</th><th class="num">Depth</th><th class="num">Links in</th><th class="num">Score</th></tr></thead><tbody>"#
    )?;
    for p in pages {
        writeln!(
            out,
            r#"<tr><td class="url">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            HtmlText(&p.url),
            p.depth,
            thousands(p.in_links),
            p.score
                .map_or_else(|| "–".to_owned(), |s| format!("{s:.2}"))
        )?;
    }
    writeln!(out, "</tbody></table></div>")
}

/// Width of a character of the chart's labels, in the chart's units
/// (11 units of font, bold digits and commas), and the room kept between
/// two labels.
const LABEL_CHAR: f64 = 6.6;
const LABEL_GAP: f64 = 5.0;

/// Which bars of the depth chart get their depth written under them and
/// their count above them, the bars `slot` units apart: all, while the
/// labels fit; past that (some ten depths of large counts, forty of any)
/// every `step`-th bar whose label keeps clear of the always labelled
/// ones: the deepest, and for the counts the tallest bar. Each bar's
/// tooltip has its numbers.
fn chart_labels(urls: &[u64], slot: f64) -> (Vec<bool>, Vec<bool>) {
    let n = urls.len();
    let Some(last) = n.checked_sub(1) else {
        return (Vec::new(), Vec::new());
    };
    let step = |chars: usize| {
        let width = LABEL_CHAR * chars as f64 + LABEL_GAP;
        // At most `n`: a small positive number of bars.
        ((width / slot).ceil() as usize).clamp(1, n)
    };
    let widest = urls.iter().map(|&u| thousands(u).len()).max().unwrap_or(1);
    let tallest = urls
        .iter()
        .enumerate()
        .max_by_key(|&(i, u)| (u, std::cmp::Reverse(i)))
        .map_or(0, |(i, _)| i);
    let spread = |step: usize, keep: &[usize]| {
        let mut on = vec![false; n];
        for &k in keep {
            on[k] = true;
        }
        for i in (0..n).step_by(step) {
            if keep.iter().all(|&k| i == k || i.abs_diff(k) >= step) {
                on[i] = true;
            }
        }
        on
    };
    (
        spread(step(last.to_string().len()), &[last]),
        spread(step(widest), &[tallest, last]),
    )
}

fn check_section(out: &mut String, c: &CheckReport) -> fmt::Result {
    let id = section_id(c.code);
    writeln!(
        out,
        r#"<section class="panel check" id="{}" aria-labelledby="{}-h">"#,
        HtmlText(&id),
        HtmlText(&id)
    )?;
    writeln!(
        out,
        r#"<h2 id="{}-h">{} <code>{}</code></h2>"#,
        HtmlText(&id),
        Badge(c.severity),
        HtmlText(c.code)
    )?;
    writeln!(
        out,
        r#"<p class="sub">{} · <b>{}</b> finding{}</p>"#,
        HtmlText(c.summary),
        thousands(c.count),
        if c.count == 1 { "" } else { "s" }
    )?;
    if let Some(doc) = check(c.code) {
        writeln!(
            out,
            r#"<details class="docs"><summary>About this check</summary>"#
        )?;
        markdown(out, doc.docs)?;
        writeln!(out, "</details>")?;
    }
    if c.findings.is_empty() {
        writeln!(out, r#"<p class="empty">No findings.</p>"#)?;
        return writeln!(out, "</section>");
    }
    writeln!(
        out,
        r#"<div class="scroll"><table class="findings"><thead><tr><th>URL</th><th>Found</th><th>Evidence</th></tr></thead><tbody>"#
    )?;
    for f in c.findings.iter().take(HTML_FINDINGS) {
        finding(out, f)?;
    }
    writeln!(out, "</tbody></table></div>")?;
    if c.findings.len() > HTML_FINDINGS {
        writeln!(
            out,
            r#"<p class="more">The first {HTML_FINDINGS} of {} findings; the JSON and CSV list them all.</p>"#,
            thousands(c.findings.len() as u64)
        )?;
    }
    writeln!(out, "</section>")
}

fn finding(out: &mut String, f: &Finding) -> fmt::Result {
    write!(
        out,
        r#"<tr class="finding"><td class="url">{}</td><td class="msg">{}</td><td><ul class="ev">"#,
        HtmlText(&f.url),
        HtmlText(&f.message)
    )?;
    for r in f.related.iter().take(HTML_LINKS) {
        write!(
            out,
            r#"<li><span class="k">involves</span> <span class="url">{}</span></li>"#,
            HtmlText(r)
        )?;
    }
    let shown = f.related.len().min(HTML_LINKS) as u64;
    if f.related_count > shown {
        write!(
            out,
            r#"<li class="k">and {} more</li>"#,
            thousands(f.related_count - shown)
        )?;
    }
    if let Some(r) = &f.robots {
        write!(
            out,
            r#"<li class="robots"><span class="k">robots.txt, as obeyed:</span> {}</li>"#,
            reading(&r.obeyed)
        )?;
        write!(
            out,
            r#"<li class="robots"><span class="k">strict reading:</span> {}</li>"#,
            reading(&r.strict)
        )?;
    }
    for l in f.links.iter().take(HTML_LINKS) {
        write!(
            out,
            r#"<li class="link"><span class="k">linked from</span> <span class="url">{}</span>"#,
            HtmlText(&l.source)
        )?;
        match &l.anchor {
            Some(a) => write!(out, r#" <span class="a">“{}”</span>"#, HtmlText(a))?,
            None => write!(out, r#" <span class="k">(no anchor text)</span>"#)?,
        }
        if l.kind != "a" {
            write!(out, r#" <span class="k">({})</span>"#, HtmlText(l.kind))?;
        }
        write!(out, "</li>")?;
    }
    let shown = f.links.len().min(HTML_LINKS) as u64;
    if f.link_count > shown {
        write!(
            out,
            r#"<li class="k">and {} more link{}</li>"#,
            thousands(f.link_count - shown),
            if f.link_count - shown == 1 { "" } else { "s" }
        )?;
    }
    writeln!(out, "</ul></td></tr>")
}

fn reading(r: &RobotsReading) -> String {
    let verdict = if r.allowed { "allowed" } else { "disallowed" };
    match (&r.rule, r.line) {
        (Some(rule), Some(line)) => {
            format!("{verdict} by <code>{}</code> (line {line})", HtmlText(rule))
        }
        (Some(rule), None) => format!("{verdict} by <code>{}</code>", HtmlText(rule)),
        _ => format!("{verdict} (no rule)"),
    }
}

/// The check documentation's Markdown: `## ` headings, paragraphs, `- `
/// items and `` `code` ``.
fn markdown(out: &mut String, md: &str) -> fmt::Result {
    let mut para: Vec<&str> = Vec::new();
    let mut list = false;
    let flush = |out: &mut String, para: &mut Vec<&str>| -> fmt::Result {
        if !para.is_empty() {
            writeln!(out, "<p>{}</p>", inline(&para.join(" ")))?;
            para.clear();
        }
        Ok(())
    };
    for line in md.lines() {
        let l = line.trim();
        let item = l.strip_prefix("- ").or_else(|| l.strip_prefix("* "));
        if list && item.is_none() && !(l.is_empty() || line.starts_with("   ")) {
            writeln!(out, "</ul>")?;
            list = false;
        }
        if let Some(h) = l.strip_prefix("## ") {
            flush(out, &mut para)?;
            writeln!(out, "<h3>{}</h3>", inline(h))?;
        } else if let Some(item) = item {
            flush(out, &mut para)?;
            if !list {
                writeln!(out, "<ul>")?;
                list = true;
            }
            writeln!(out, "<li>{}</li>", inline(item))?;
        } else if l.is_empty() {
            flush(out, &mut para)?;
        } else {
            para.push(l);
        }
    }
    flush(out, &mut para)?;
    if list {
        writeln!(out, "</ul>")?;
    }
    Ok(())
}

/// Inline Markdown: `` `code` `` spans; the rest escaped text.
fn inline(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", HtmlText(part));
        } else {
            let _ = write!(out, "{}", HtmlText(part));
        }
    }
    out
}

/// What each robot sees of the rendered pages, as a table.
fn render_view(out: &mut String, view: &crate::RenderView) -> fmt::Result {
    writeln!(
        out,
        r#"<section class="card"><h2>What each robot sees</h2>"#
    )?;
    writeln!(
        out,
        "<p>{} page(s) rendered, {} failed or timed out; {} read differently raw and rendered.</p>",
        view.rendered, view.failed, view.differ
    )?;
    writeln!(
        out,
        "<table><thead><tr><th>robot</th><th>renders</th><th>sees</th><th>source</th></tr></thead><tbody>"
    )?;
    for r in &view.robots {
        let source = r.source.as_deref().unwrap_or("");
        writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            HtmlText(&r.name),
            if r.renders { "yes" } else { "no" },
            HtmlText(&view.what_it_sees(r.renders)),
            HtmlText(source)
        )?;
    }
    writeln!(out, "</tbody></table>")?;
    if view.unknown > 0 {
        writeln!(
            out,
            "<p>{} other robot(s) of the registry: no source says whether they render.</p>",
            view.unknown
        )?;
    }
    writeln!(out, "</section>")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(x, text, is a count)` of the depth chart's labels.
    fn chart_texts(counts: &[u64]) -> Vec<(f64, String, bool)> {
        let site = SiteOverview {
            statuses: Vec::new(),
            not_fetched: Vec::new(),
            depths: counts
                .iter()
                .enumerate()
                .map(|(i, &urls)| super::super::site::DepthCount {
                    depth: u32::try_from(i).expect("few depths"),
                    urls,
                    fetched: urls / 2,
                })
                .collect(),
            most_linked: Vec::new(),
            top_scores: Vec::new(),
            link_score: super::super::graph::ScoreRun {
                pages: 0,
                links: 0,
                links_left_out: 0,
                iterations: 0,
                converged: true,
            },
        };
        let mut out = String::new();
        depths(&mut out, &site).expect("chart");
        out.split("<text ")
            .skip(1)
            .map(|t| {
                let x = t
                    .split("x=\"")
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .and_then(|v| v.parse().ok())
                    .expect("x");
                let text = t.split('>').nth(1).and_then(|v| v.split('<').next());
                (
                    x,
                    text.expect("text").to_owned(),
                    t.starts_with("class=\"val\""),
                )
            })
            .collect()
    }

    #[test]
    fn depth_chart_labels_never_overlap() {
        // Ten depths of small counts: every bar labelled.
        let few = chart_texts(&[1, 30, 200, 90, 40, 9, 3, 2, 1, 1]);
        assert_eq!(few.iter().filter(|t| !t.2).count(), 10);
        assert_eq!(few.iter().filter(|t| t.2).count(), 10);
        // Thirty depths of five-figure counts, and sixty of any.
        let many: Vec<u64> = (0..30u64).map(|i| 12_345 + i * 1_000).collect();
        let deep: Vec<u64> = (0..60u64).map(|i| 1 + i % 7).collect();
        for depths in [&many[..], &deep[..]] {
            let texts = chart_texts(depths);
            for kind in [false, true] {
                let labels: Vec<_> = texts.iter().filter(|t| t.2 == kind).collect();
                for pair in labels.windows(2) {
                    let room = LABEL_CHAR * (pair[0].1.len() + pair[1].1.len()) as f64 / 2.0;
                    assert!(
                        pair[1].0 - pair[0].0 >= room,
                        "labels overlap: {pair:?} of {} depths",
                        depths.len()
                    );
                }
                let last = depths.len() - 1;
                if !kind {
                    assert_eq!(labels.last().map(|l| l.1.clone()), Some(last.to_string()));
                } else {
                    let top = depths.iter().max().copied().unwrap_or(0);
                    assert!(
                        labels.iter().any(|l| l.1 == thousands(top)),
                        "tallest unlabelled"
                    );
                }
            }
        }
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn docs_markdown_becomes_headings_paragraphs_and_code() {
        let mut out = String::new();
        markdown(
            &mut out,
            " ## What it finds\n Links to `<a>` pages\n that fail.\n\n ## Fix\n - one\n - two\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "<h3>What it finds</h3>\n<p>Links to <code>&lt;a&gt;</code> pages that fail.</p>\n\
             <h3>Fix</h3>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
        );
    }
}
