//! The terminal rendering of a [`Report`]: aligned plain-text tables.
//!
//! The helpers at the end (byte, share and time formatting, and the
//! cleaning of log-supplied strings) are shared with the HTML rendering;
//! counts are written with `botwarden_text::thousands`.

use std::borrow::Cow;

use botwarden_text::{is_unsafe_char, thousands};
use jiff::Timestamp;

use super::model::{BotRow, Report};

/// How [`render_text`] lays a report out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOptions {
    /// Colour headings and verdicts with ANSI escapes (for a terminal).
    pub color: bool,
    /// Rows per table at most; a last line counts the rows left out.
    /// `0` shows every row.
    pub max_rows: usize,
    /// Paths shown per bot under "Top paths"; `0` leaves the section out.
    pub top_paths: usize,
}

impl Default for TextOptions {
    /// No colour, 20 rows per table, 5 paths per bot.
    fn default() -> Self {
        Self {
            color: false,
            max_rows: 20,
            top_paths: 5,
        }
    }
}

/// The line width the tables aim for.
const WIDTH: usize = 100;
/// Spaces before every table row.
const INDENT: usize = 2;
/// Spaces between columns.
const GAP: usize = 2;
/// The narrowest a shrinking column gets.
const MIN_FLEX: usize = 12;

const BOLD: &str = "1";
const DIM: &str = "2";

/// Renders `report` as terminal text: the line accounting, period and
/// totals, verdict shares, one table per kind of finding, and the status
/// codes.
///
/// Strings that come from the logs (paths, User-Agents, names) have their
/// control characters replaced, so that a log cannot move the cursor or
/// recolour the terminal.
#[must_use]
pub fn render_text(report: &Report, opts: &TextOptions) -> String {
    let mut t = Text {
        out: String::new(),
        opts,
    };
    t.header(report);
    t.lines(report);
    t.totals(report);
    t.verdicts(report);
    t.bots(report);
    t.usage(report);
    t.crawl(report);
    t.activity(report);
    t.spoofed(report);
    t.host_names(report);
    t.unknown(report);
    t.newer_feeds(report);
    t.top_paths(report);
    t.status_codes(report);
    t.verification(report);
    t.out
}

/// A column of a table.
struct Col {
    head: &'static str,
    right: bool,
    max: usize,
    /// Shrinks (down to [`MIN_FLEX`]) when the table is wider than [`WIDTH`].
    flex: bool,
}

const fn left(head: &'static str, max: usize) -> Col {
    Col {
        head,
        right: false,
        max,
        flex: false,
    }
}

const fn right(head: &'static str) -> Col {
    Col {
        head,
        right: true,
        max: 24,
        flex: false,
    }
}

const fn flex(head: &'static str) -> Col {
    Col {
        head,
        right: false,
        max: WIDTH,
        flex: true,
    }
}

/// A table cell: its text (already cleaned) and an optional ANSI style.
struct Cell {
    text: String,
    sgr: Option<&'static str>,
}

impl Cell {
    fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            sgr: None,
        }
    }

    fn log(text: &str) -> Self {
        Self::plain(clean(text))
    }

    fn num(n: u64) -> Self {
        Self::plain(thousands(n))
    }

    fn verdict(v: &str) -> Self {
        Self {
            text: clean(v).into_owned(),
            sgr: Some(verdict_sgr(v)),
        }
    }
}

fn verdict_sgr(v: &str) -> &'static str {
    match v {
        "verified" => "32",
        "spoofed" => "1;31",
        "unverifiable" => "33",
        "not-a-bot" => "34",
        _ => "90",
    }
}

struct Text<'a> {
    out: String,
    opts: &'a TextOptions,
}

impl Text<'_> {
    fn paint<'s>(&self, sgr: &str, s: &'s str) -> Cow<'s, str> {
        if self.opts.color && !s.is_empty() {
            Cow::Owned(format!("\x1b[{sgr}m{s}\x1b[0m"))
        } else {
            Cow::Borrowed(s)
        }
    }

    fn line(&mut self, s: &str) {
        self.out.push_str(s.trim_end());
        self.out.push('\n');
    }

    fn heading(&mut self, title: &str) {
        self.out.push('\n');
        let rule = "─".repeat(chars(title));
        let head = self.paint(BOLD, title).into_owned();
        self.line(&head);
        self.line(&rule);
    }

    fn note(&mut self, s: &str) {
        let s = format!("{:INDENT$}{}", "", self.paint(DIM, s));
        self.line(&s);
    }

    /// How many of `n` rows to show.
    fn limit(&self, n: usize) -> usize {
        if self.opts.max_rows == 0 {
            n
        } else {
            n.min(self.opts.max_rows)
        }
    }

    fn more(&mut self, shown: usize, total: usize) {
        if total > shown {
            let n = total - shown;
            let s = if n == 1 { "" } else { "s" };
            self.note(&format!("… {n} more row{s}"));
        }
    }

    /// Writes an aligned table (see [`Self::table_lines`]).
    fn table(&mut self, cols: &[Col], rows: &[Vec<Cell>]) {
        for line in self.table_lines(cols, rows) {
            self.line(&line);
        }
    }

    /// Lays out a table: its header line (unless every heading is empty),
    /// then one line per row. Columns are as wide as their widest cell (up
    /// to their maximum); when the table is wider than [`WIDTH`], its
    /// flexible column shrinks. Cells wider than their column end in `…`.
    fn table_lines(&self, cols: &[Col], rows: &[Vec<Cell>]) -> Vec<String> {
        let mut w: Vec<usize> = cols.iter().map(|c| chars(c.head)).collect();
        for row in rows {
            for ((w, cell), col) in w.iter_mut().zip(row).zip(cols) {
                *w = (*w).max(chars(&cell.text).min(col.max));
            }
        }
        let total = INDENT + w.iter().sum::<usize>() + GAP * cols.len().saturating_sub(1);
        if total > WIDTH
            && let Some(f) = cols.iter().position(|c| c.flex)
        {
            let others = total - w[f];
            w[f] = w[f].min(WIDTH.saturating_sub(others).max(MIN_FLEX));
        }
        let mut lines = Vec::with_capacity(rows.len() + 1);
        if cols.iter().any(|c| !c.head.is_empty()) {
            let heads: Vec<Cell> = cols
                .iter()
                .map(|c| Cell {
                    text: c.head.to_owned(),
                    sgr: Some(BOLD),
                })
                .collect();
            lines.push(self.row(cols, &w, &heads));
        }
        for row in rows {
            lines.push(self.row(cols, &w, row));
        }
        lines
    }

    fn row(&self, cols: &[Col], w: &[usize], cells: &[Cell]) -> String {
        let mut s = " ".repeat(INDENT);
        for (i, ((cell, col), &w)) in cells.iter().zip(cols).zip(w).enumerate() {
            if i > 0 {
                s.push_str(&" ".repeat(GAP));
            }
            let text = fit(&cell.text, w);
            let pad = " ".repeat(w - chars(&text));
            let text = match cell.sgr {
                Some(sgr) => self.paint(sgr, &text).into_owned(),
                None => text,
            };
            if col.right {
                s.push_str(&pad);
                s.push_str(&text);
            } else {
                s.push_str(&text);
                s.push_str(&pad);
            }
        }
        s.trim_end().to_owned()
    }

    fn header(&mut self, r: &Report) {
        let title = self.paint(BOLD, "botwarden access-log report").into_owned();
        self.line(&title);
        let dns = if r.dns {
            "addresses verified with DNS"
        } else {
            "no DNS: published ranges and lists only"
        };
        let meta = format!(
            "generated {} UTC · {dns} · schema {}",
            time(r.generated, true),
            r.schema
        );
        let meta = self.paint(DIM, &meta).into_owned();
        self.line(&meta);
        match &r.period {
            Some(p) => self.line(&format!(
                "period {} – {} UTC",
                time(p.first, true),
                time(p.last, true)
            )),
            None => self.line("period: no request had a time"),
        }
    }

    fn lines(&mut self, r: &Report) {
        self.heading("Lines");
        let l = &r.lines;
        self.line(&format!(
            "{:INDENT$}read {} = parsed {} + skipped {} + failed {}",
            "",
            thousands(l.read),
            thousands(l.parsed),
            thousands(l.skipped),
            thousands(l.failed)
        ));
        if l.truncated > 0 {
            self.line(&format!(
                "{:INDENT$}cut short: {} (parsed as far as they go)",
                "",
                thousands(l.truncated)
            ));
        }
        for (what, reasons) in [("skipped", &l.skip_reasons), ("failed", &l.fail_reasons)] {
            if reasons.is_empty() {
                continue;
            }
            let list: Vec<String> = reasons
                .iter()
                .map(|(k, n)| format!("{} {}", clean(k), thousands(*n)))
                .collect();
            self.line(&format!("{:INDENT$}{what}: {}", "", list.join(", ")));
        }
        if !r.inputs.is_empty() {
            self.out.push('\n');
            let cols = [
                flex("input"),
                left("format", 24),
                left("gzip", 4),
                right("read"),
                right("parsed"),
                right("skipped"),
                right("failed"),
                left("stopped by", 40),
            ];
            let shown = self.limit(r.inputs.len());
            let rows: Vec<Vec<Cell>> = r.inputs[..shown]
                .iter()
                .map(|i| {
                    vec![
                        Cell::log(&i.name),
                        Cell::log(&i.format),
                        Cell::plain(if i.gzip { "yes" } else { "no" }),
                        Cell::num(i.lines.read),
                        Cell::num(i.lines.parsed),
                        Cell::num(i.lines.skipped),
                        Cell::num(i.lines.failed),
                        Cell::log(i.error.as_deref().unwrap_or("")),
                    ]
                })
                .collect();
            self.table(&cols, &rows);
            self.more(shown, r.inputs.len());
        }
        if !r.samples.is_empty() {
            self.out.push('\n');
            self.line(&format!("{:INDENT$}bad lines (samples):", ""));
            let shown = self.limit(r.samples.len());
            for b in &r.samples[..shown] {
                // The place is never cut (editors and terminals jump to
                // `file:line:col`); the line's text fills what is left.
                let col = b.column.map(|c| format!(":{c}")).unwrap_or_default();
                let place = format!("{}:{}{col}: {}: ", clean(&b.file), b.line, clean(&b.reason));
                let room = (WIDTH - 2 * INDENT)
                    .saturating_sub(place.chars().count())
                    .max(20);
                let text = fit(&clean(&b.text), room);
                self.line(&format!("{:w$}{place}{text}", "", w = 2 * INDENT));
            }
            self.more(shown, r.samples.len());
        }
    }

    fn totals(&mut self, r: &Report) {
        self.heading("Totals");
        let t = &r.totals;
        let cols = [left("", 20), right(""), left("", 40)];
        let rows = vec![
            vec![
                Cell::plain("requests"),
                Cell::num(t.requests),
                Cell::plain(""),
            ],
            vec![
                Cell::plain("bot requests"),
                Cell::num(t.bot_requests),
                Cell::plain(share(t.bot_requests, t.requests)),
            ],
            vec![Cell::plain("addresses"), Cell::num(t.ips), Cell::plain("")],
        ];
        let mut rows = rows;
        if t.host_names > 0 {
            rows.push(vec![
                Cell::plain("host names"),
                Cell::num(t.host_names),
                Cell::plain(format!(
                    "clients logged by name, {} requests",
                    thousands(t.host_name_requests)
                )),
            ]);
        }
        if t.requests_without_client > 0 {
            rows.push(vec![
                Cell::plain("no client"),
                Cell::num(t.requests_without_client),
                Cell::plain("requests the log gives no client for"),
            ]);
        }
        rows.extend([
            vec![
                Cell::plain("user agents"),
                Cell::num(t.user_agents),
                Cell::plain(""),
            ],
            vec![
                Cell::plain("bytes"),
                Cell::plain(bytes(t.bytes)),
                Cell::plain(""),
            ],
        ]);
        self.table(&cols, &rows);
    }

    fn verdicts(&mut self, r: &Report) {
        self.heading("Verdicts");
        if r.verdicts.is_empty() {
            self.note("no requests");
            return;
        }
        let cols = [
            left("verdict", 20),
            right("requests"),
            right("share"),
            right("IPs"),
        ];
        let rows: Vec<Vec<Cell>> = verdict_order(r)
            .into_iter()
            .map(|(v, c)| {
                vec![
                    Cell::verdict(v),
                    Cell::num(c.requests),
                    Cell::plain(share(c.requests, r.totals.requests)),
                    Cell::num(c.ips),
                ]
            })
            .collect();
        self.table(&cols, &rows);
    }

    fn bots(&mut self, r: &Report) {
        self.heading("Bots");
        if r.bots.is_empty() {
            self.note("no bot requests");
            return;
        }
        let other = r.bots.iter().any(|b| b.status.other > 0);
        let mut cols = vec![
            flex("bot"),
            left("category", 14),
            left("verdict", 12),
            right("requests"),
            right("IPs"),
            right("bytes"),
            right("2xx"),
            right("3xx"),
            right("4xx"),
            right("5xx"),
        ];
        if other {
            cols.push(right("other"));
        }
        let shown = self.limit(r.bots.len());
        let rows: Vec<Vec<Cell>> = r.bots[..shown]
            .iter()
            .map(|b| {
                let mut row = vec![
                    Cell::log(&b.bot),
                    Cell::log(b.category.as_deref().unwrap_or("")),
                    Cell::verdict(&b.verdict),
                    Cell::num(b.requests),
                    Cell::num(b.ips),
                    Cell::plain(bytes(b.bytes)),
                    Cell::num(b.status.ok),
                    Cell::num(b.status.redirect),
                    Cell::num(b.status.client_error),
                    Cell::num(b.status.server_error),
                ];
                if other {
                    row.push(Cell::num(b.status.other));
                }
                row
            })
            .collect();
        self.table(&cols, &rows);
        self.more(shown, r.bots.len());
    }

    /// Crawlers' requests for paths whose usage preferences refuse their
    /// use, verified rows first, when the run measured them.
    fn usage(&mut self, r: &Report) {
        let Some(policy) = &r.usage_policy else {
            return;
        };
        self.heading("Usage preferences");
        self.note(&format!("robots.txt: {}", clean(policy)));
        self.note("requests for paths whose preferences refuse the crawler's use, by group");
        self.note("and file-wide (every Content-Signal read for every robot)");
        let mut rows: Vec<&BotRow> = r.bots.iter().filter(|b| b.usage.is_some()).collect();
        if rows.is_empty() {
            self.note("no request of such a crawler");
            return;
        }
        rows.sort_by_key(|b| (b.verdict != "verified", b.verdict.clone()));
        let cols = [
            flex("bot"),
            left("category", 14),
            left("verdict", 12),
            left("use", 9),
            right("requests"),
            right("refused"),
            right("file-wide"),
        ];
        let shown = self.limit(rows.len());
        let cells: Vec<Vec<Cell>> = rows[..shown]
            .iter()
            .filter_map(|b| {
                let u = b.usage.as_ref()?;
                Some(vec![
                    Cell::log(&b.bot),
                    Cell::log(b.category.as_deref().unwrap_or("")),
                    Cell::verdict(&b.verdict),
                    Cell::plain(u.purpose.clone()),
                    Cell::num(u.requests),
                    Cell::num(u.refused),
                    Cell::num(u.refused_file_wide),
                ])
            })
            .collect();
        self.table(&cols, &cells);
        self.more(shown, rows.len());
    }

    fn activity(&mut self, r: &Report) {
        if r.bots.is_empty() {
            return;
        }
        self.heading("Bot activity");
        let cols = [
            flex("bot"),
            left("verdict", 12),
            right("robots.txt"),
            left("robots.txt statuses", 30),
            left("first seen", 20),
            left("last seen", 20),
        ];
        let shown = self.limit(r.bots.len());
        let rows: Vec<Vec<Cell>> = r.bots[..shown]
            .iter()
            .map(|b| {
                vec![
                    Cell::log(&b.bot),
                    Cell::verdict(&b.verdict),
                    Cell::num(b.robots_txt.requests),
                    Cell::plain(robots_statuses(b)),
                    Cell::plain(opt_time(b.first_seen)),
                    Cell::plain(opt_time(b.last_seen)),
                ]
            })
            .collect();
        self.table(&cols, &rows);
        self.more(shown, r.bots.len());
    }

    fn spoofed(&mut self, r: &Report) {
        self.heading("Spoofed addresses");
        if r.spoofed.is_empty() {
            self.note("none");
            return;
        }
        let cols = [
            left("address", 39),
            left("claimed", 20),
            right("requests"),
            left("first seen", 20),
            left("last seen", 20),
            flex("reason"),
        ];
        let shown = self.limit(r.spoofed.len());
        let rows: Vec<Vec<Cell>> = r.spoofed[..shown]
            .iter()
            .map(|s| {
                vec![
                    Cell::log(&s.ip),
                    Cell::log(&s.claimed),
                    Cell::num(s.requests),
                    Cell::plain(opt_time(s.first_seen)),
                    Cell::plain(opt_time(s.last_seen)),
                    Cell::log(&s.reason),
                ]
            })
            .collect();
        let mut lines = self.table_lines(&cols, &rows).into_iter();
        if let Some(head) = lines.next() {
            self.line(&head);
        }
        for (line, s) in lines.zip(&r.spoofed) {
            self.line(&line);
            let ua = fit(&clean(&s.user_agent), WIDTH - 2 * INDENT - 4);
            let ua = format!("{:w$}UA: {ua}", "", w = 2 * INDENT);
            let ua = self.paint(DIM, &ua).into_owned();
            self.line(&ua);
        }
        self.more(
            shown,
            r.spoofed.len().saturating_add(omitted(r.spoofed_omitted)),
        );
    }

    fn host_names(&mut self, r: &Report) {
        if r.host_names.is_empty() {
            return;
        }
        self.heading("Bots named by host name (unverifiable)");
        let cols = [
            left("host name", 40),
            left("claimed", 20),
            right("requests"),
            left("first seen", 20),
            left("last seen", 20),
        ];
        let shown = self.limit(r.host_names.len());
        let rows: Vec<Vec<Cell>> = r.host_names[..shown]
            .iter()
            .map(|h| {
                vec![
                    Cell::log(&h.name),
                    Cell::log(&h.claimed),
                    Cell::num(h.requests),
                    Cell::plain(opt_time(h.first_seen)),
                    Cell::plain(opt_time(h.last_seen)),
                ]
            })
            .collect();
        self.table(&cols, &rows);
        self.more(
            shown,
            r.host_names
                .len()
                .saturating_add(omitted(r.host_names_omitted)),
        );
        self.note("verification needs the address, which the log does not keep (HostnameLookups);");
        self.note("log %a, or turn HostnameLookups off");
    }

    fn newer_feeds(&mut self, r: &Report) {
        if r.newer_feeds.is_empty() {
            return;
        }
        self.heading("Range lists newer than the log");
        self.note("requests before a list was made, outside it, are unknown rather than spoofed");
        let cols = [flex("list"), left("version", 26), left("bots", 30)];
        let rows: Vec<Vec<Cell>> = r
            .newer_feeds
            .iter()
            .map(|f| {
                vec![
                    Cell::log(&f.url),
                    Cell::log(&f.version),
                    Cell::log(&f.bots.join(", ")),
                ]
            })
            .collect();
        self.table(&cols, &rows);
    }

    fn unknown(&mut self, r: &Report) {
        self.heading("Unknown crawlers");
        if r.unknown_crawlers.is_empty() {
            self.note("none");
            return;
        }
        let cols = [
            left("crawler", 30),
            right("requests"),
            right("IPs"),
            flex("user agent"),
        ];
        let shown = self.limit(r.unknown_crawlers.len());
        let rows: Vec<Vec<Cell>> = r.unknown_crawlers[..shown]
            .iter()
            .map(|u| {
                vec![
                    Cell::log(&u.name),
                    Cell::num(u.requests),
                    Cell::num(u.ips),
                    Cell::log(&u.user_agent),
                ]
            })
            .collect();
        self.table(&cols, &rows);
        self.more(shown, r.unknown_crawlers.len());
    }

    fn top_paths(&mut self, r: &Report) {
        let n = self.opts.top_paths;
        let bots: Vec<&BotRow> = r.bots.iter().filter(|b| !b.top_paths.is_empty()).collect();
        if n == 0 || bots.is_empty() {
            return;
        }
        self.heading("Top paths");
        let shown = self.limit(bots.len());
        let mut approximate = false;
        for (i, b) in bots[..shown].iter().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            let head = format!(
                "{:INDENT$}{} ({})",
                "",
                clean(&b.bot),
                self.paint(verdict_sgr(&b.verdict), &clean(&b.verdict))
            );
            self.line(&head);
            let cols = [left("", 0), right(""), flex("")];
            let rows: Vec<Vec<Cell>> = b
                .top_paths
                .iter()
                .take(n)
                .map(|p| {
                    approximate |= p.approximate;
                    let mark = if p.approximate { "≥" } else { "" };
                    vec![
                        Cell::plain(""),
                        Cell::plain(format!("{mark}{}", thousands(p.requests))),
                        Cell::log(&p.path),
                    ]
                })
                .collect();
            self.table(&cols, &rows);
        }
        self.more(shown, bots.len());
        if approximate {
            self.note("≥ a lower bound: paths are counted in bounded memory");
        }
    }

    fn status_codes(&mut self, r: &Report) {
        self.heading("Status codes");
        if r.status_codes.is_empty() {
            self.note("no requests");
            return;
        }
        let total: u64 = r.status_codes.values().sum();
        let top = r.status_codes.values().copied().max().unwrap_or(0);
        let cols = [
            left("status", 6),
            right("requests"),
            right("share"),
            left("", 40),
        ];
        let shown = self.limit(r.status_codes.len());
        let rows: Vec<Vec<Cell>> = r
            .status_codes
            .iter()
            .take(shown)
            .map(|(code, &n)| {
                vec![
                    Cell::plain(code.to_string()),
                    Cell::num(n),
                    Cell::plain(share(n, total)),
                    Cell::plain(bar(n, top, 40)),
                ]
            })
            .collect();
        self.table(&cols, &rows);
        self.more(shown, r.status_codes.len());
    }

    fn verification(&mut self, r: &Report) {
        self.heading("Verification");
        let v = &r.verification;
        self.line(&format!(
            "{:INDENT$}{} (address, bot) pairs verified with {} DNS lookups; \
             {:.1} s waited after the last line",
            "",
            thousands(v.pairs),
            thousands(v.dns_lookups),
            v.wait_seconds
        ));
        let w = &v.web_bot_auth;
        if !w.is_empty() {
            let mut line = format!(
                "{:INDENT$}{} signed lines (Web Bot Auth): {} verified by web_bot_auth, \
                 {} spoofed, {} unknown, {} left to the address",
                "",
                thousands(w.signed),
                thousands(w.verified),
                thousands(w.spoofed),
                thousands(w.unknown),
                thousands(w.address_decided + w.without_time)
            );
            if !w.failures.is_empty() {
                let failures: Vec<String> = w
                    .failures
                    .iter()
                    .map(|(code, n)| format!("{code} {}", thousands(*n)))
                    .collect();
                line.push_str(&format!("; failures: {}", failures.join(", ")));
            }
            self.line(&line);
        }
    }
}

fn robots_statuses(b: &BotRow) -> String {
    let list: Vec<String> = b
        .robots_txt
        .status
        .iter()
        .map(|(code, n)| format!("{code}×{}", thousands(*n)))
        .collect();
    list.join(" ")
}

/// A bar of `width` cells at most, for `n` out of `top`.
fn bar(n: u64, top: u64, width: u64) -> String {
    if top == 0 || n == 0 {
        return String::new();
    }
    let cells = (n * width).div_ceil(top).max(1);
    "█".repeat(usize::try_from(cells).unwrap_or(0))
}

/// Characters in `s` (the width this module assumes).
pub(super) fn chars(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `width` characters, ending in `…` when cut.
pub(super) fn fit(s: &str, width: usize) -> String {
    if chars(s) <= width {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `s` with [`is_unsafe_char`] characters replaced by U+FFFD.
pub(super) fn clean(s: &str) -> Cow<'_, str> {
    if s.chars().any(is_unsafe_char) {
        Cow::Owned(
            s.chars()
                .map(|c| if is_unsafe_char(c) { '\u{fffd}' } else { c })
                .collect(),
        )
    } else {
        Cow::Borrowed(s)
    }
}

/// A byte count in binary units: `512 B`, `1.5 KiB`, `12.0 MiB`.
pub(super) fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    #[allow(clippy::cast_precision_loss)]
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1023.95 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// `part` as a share of `whole`: `30.2%`, `<0.1%`, or `–` when `whole`
/// is 0.
pub(super) fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "–".to_owned();
    }
    #[allow(clippy::cast_precision_loss)]
    let p = part as f64 * 100.0 / whole as f64;
    if part > 0 && p < 0.05 {
        "<0.1%".to_owned()
    } else {
        format!("{p:.1}%")
    }
}

/// The canonical order of the verdict kinds; others follow by name.
pub(super) fn verdict_rank(v: &str) -> usize {
    match v {
        "verified" => 0,
        "spoofed" => 1,
        "unverifiable" => 2,
        "unknown" => 3,
        "not-a-bot" => 4,
        _ => 5,
    }
}

/// The report's verdicts in canonical order.
pub(super) fn verdict_order(r: &Report) -> Vec<(&str, &super::model::VerdictCount)> {
    let mut v: Vec<_> = r.verdicts.iter().map(|(k, c)| (k.as_str(), c)).collect();
    v.sort_by_key(|(k, _)| verdict_rank(k));
    v
}

/// `2026-11-20 13:05` (or with `:07` seconds), in UTC.
pub(super) fn time(t: Timestamp, seconds: bool) -> String {
    let format = if seconds {
        "%Y-%m-%d %H:%M:%S"
    } else {
        "%Y-%m-%d %H:%M"
    };
    t.strftime(format).to_string()
}

fn opt_time(t: Option<Timestamp>) -> String {
    t.map(|t| time(t, false)).unwrap_or_default()
}

/// A count of rows left out of a report list, as a length.
fn omitted(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The sections of a log joined with a crawl (`--crawl`).
impl Text<'_> {
    fn crawl(&mut self, r: &Report) {
        let Some(c) = &r.crawl else {
            return;
        };
        self.heading("Bots on the crawl");
        self.note(&format!(
            "crawl {}: {} URLs, {} pages",
            clean(&c.store),
            thousands(c.urls),
            thousands(c.pages)
        ));
        for copy in &c.robots {
            let from = match copy.source.as_str() {
                "crawl" => format!(
                    "the crawl's copy of {} ({}, fetched {})",
                    copy.origin,
                    copy.availability.as_deref().unwrap_or(""),
                    copy.name
                ),
                "given" => format!("{} for {}", copy.name, copy.origin),
                "history" => format!(
                    "{} in force from {} for every origin",
                    copy.name,
                    copy.from.as_deref().unwrap_or("")
                ),
                _ => format!("none recorded for {}: nothing disallowed", copy.origin),
            };
            self.note(&format!("robots.txt: {}", clean(&from)));
        }
        let a = &c.accounting;
        self.note(&format!(
            "registered bots' requests {} = verified {} + spoofed {} + unconfirmed {}",
            thousands(a.requests),
            thousands(a.verified),
            thousands(a.spoofed),
            thousands(a.unconfirmed)
        ));
        self.note(&format!(
            "verified {} = joined {} + other hosts {} + no URL {} + capped {} ({} URLs)",
            thousands(a.verified),
            thousands(a.joined),
            thousands(a.other_host),
            thousands(a.no_url),
            thousands(a.capped),
            thousands(a.distinct_urls)
        ));
        if c.bots.is_empty() {
            self.note("no request of a registered bot");
            return;
        }
        let cols = [
            flex("bot"),
            left("category", 12),
            right("verified"),
            right("URLs"),
            right("in crawl"),
            right("not in crawl"),
            right("changed"),
            right("disallowed"),
            right("spoofed"),
        ];
        let shown = self.limit(c.bots.len());
        let cells: Vec<Vec<Cell>> = c.bots[..shown]
            .iter()
            .map(|b| {
                vec![
                    Cell::log(&b.bot),
                    Cell::log(b.category.as_deref().unwrap_or("")),
                    Cell::num(b.requests),
                    Cell::num(b.urls),
                    Cell::num(b.requests_in_crawl),
                    Cell::num(b.requests_not_in_crawl),
                    Cell::num(b.status_changes),
                    Cell::num(b.disallowed),
                    Cell::num(b.spoofed),
                ]
            })
            .collect();
        self.table(&cols, &cells);
        self.more(shown, c.bots.len());
        self.crawl_categories(c);
        self.crawl_waste(c);
        self.crawl_compliance(c);
        self.crawl_pages(c);
        self.crawl_urls(c);
    }

    fn crawl_categories(&mut self, c: &super::CrawlJoin) {
        if c.categories.is_empty() {
            return;
        }
        self.heading("Bot categories on the crawl");
        let cols = [
            flex("category"),
            right("bots"),
            right("requests"),
            right("URLs"),
            right("disallowed"),
            right("on waste"),
        ];
        let cells: Vec<Vec<Cell>> = c
            .categories
            .iter()
            .map(|k| {
                vec![
                    Cell::plain(k.category.clone()),
                    Cell::num(k.bots),
                    Cell::num(k.requests),
                    Cell::num(k.urls),
                    Cell::num(k.disallowed),
                    Cell::num(k.waste),
                ]
            })
            .collect();
        self.table(&cols, &cells);
    }

    fn crawl_waste(&mut self, c: &super::CrawlJoin) {
        let rows: Vec<&super::JoinBot> = c
            .bots
            .iter()
            .filter(|b| {
                let w = &b.waste;
                w.redirect + w.error + w.non_canonical + w.noindex > 0
            })
            .collect();
        if rows.is_empty() {
            return;
        }
        self.heading("Crawl budget on waste");
        self.note("verified requests for URLs the crawl found to redirect, fail, name another");
        self.note("canonical URL or be noindex");
        let cols = [
            flex("bot"),
            right("redirect"),
            right("error"),
            right("non-canonical"),
            right("noindex"),
        ];
        let shown = self.limit(rows.len());
        let cells: Vec<Vec<Cell>> = rows[..shown]
            .iter()
            .map(|b| {
                vec![
                    Cell::log(&b.bot),
                    Cell::num(b.waste.redirect),
                    Cell::num(b.waste.error),
                    Cell::num(b.waste.non_canonical),
                    Cell::num(b.waste.noindex),
                ]
            })
            .collect();
        self.table(&cols, &cells);
        self.more(shown, rows.len());
        let shown = self.limit(c.waste_urls.len());
        let cells: Vec<Vec<Cell>> = c.waste_urls[..shown]
            .iter()
            .map(|u| {
                vec![
                    Cell::log(&u.url),
                    Cell::plain(u.kinds.join(", ")),
                    Cell::plain(u.crawl_status.map(|s| s.to_string()).unwrap_or_default()),
                    Cell::num(u.requests),
                    Cell::log(&u.bots.join(", ")),
                ]
            })
            .collect();
        self.line("");
        self.table(
            &[
                flex("URL"),
                left("waste", 24),
                right("crawl"),
                right("requests"),
                left("bots", 24),
            ],
            &cells,
        );
        self.more(shown, c.waste_urls.len() + omitted(c.waste_urls_omitted));
    }

    fn crawl_compliance(&mut self, c: &super::CrawlJoin) {
        let rows: Vec<&super::JoinBot> = c
            .bots
            .iter()
            .filter(|b| b.disallowed + b.spoofed_disallowed > 0 || !b.crawl_delay.is_empty())
            .collect();
        self.heading("robots.txt compliance");
        if rows.is_empty() {
            self.note("no bot requested a disallowed URL; no group has a Crawl-delay");
            return;
        }
        let cols = [
            flex("bot"),
            left("profile", 8),
            right("disallowed"),
            right("URLs"),
            right("addresses"),
            right("robots.txt"),
            right("spoofed"),
        ];
        let shown = self.limit(rows.len());
        let cells: Vec<Vec<Cell>> = rows[..shown]
            .iter()
            .map(|b| {
                vec![
                    Cell::log(&b.bot),
                    Cell::plain(b.profile.clone()),
                    Cell::num(b.disallowed),
                    Cell::num(b.disallowed_urls),
                    Cell::num(b.disallowed_ips),
                    Cell::num(b.robots_fetches),
                    Cell::num(b.spoofed_disallowed),
                ]
            })
            .collect();
        self.table(&cols, &cells);
        self.more(shown, rows.len());
        for b in &rows[..shown] {
            for url in b.disallowed_examples.iter().take(3) {
                self.note(&format!("{}: {}", clean(&b.bot), clean(url)));
            }
        }
        let delays: Vec<(&str, &super::DelayKept)> = rows
            .iter()
            .flat_map(|b| b.crawl_delay.iter().map(move |d| (b.bot.as_str(), d)))
            .collect();
        if delays.is_empty() {
            return;
        }
        self.line("");
        self.note("Crawl-delay: gaps between consecutive verified requests, in whole seconds;");
        self.note("kept when at least 95% of gaps are at least the delay");
        let cols = [
            flex("bot"),
            left("origin", 30),
            left("robots.txt", 24),
            right("delay"),
            right("gaps"),
            right("kept"),
            right("min"),
            right("median"),
            left("keeps", 5),
        ];
        let cells: Vec<Vec<Cell>> = delays
            .iter()
            .map(|(bot, d)| {
                vec![
                    Cell::log(bot),
                    Cell::log(&d.origin),
                    Cell::log(&d.robots),
                    Cell::plain(format!("{}", d.delay)),
                    Cell::num(d.gaps),
                    Cell::num(d.kept),
                    Cell::plain(d.min.map(|m| m.to_string()).unwrap_or_default()),
                    Cell::plain(d.median.map(|m| m.to_string()).unwrap_or_default()),
                    Cell::plain(if d.keeps { "yes" } else { "no" }),
                ]
            })
            .collect();
        self.table(&cols, &cells);
    }

    fn crawl_pages(&mut self, c: &super::CrawlJoin) {
        let n = &c.never_crawled;
        self.heading("Pages no verified search bot requested");
        self.note(&format!(
            "{} of {} pages ({} requested)",
            thousands(n.not_requested),
            thousands(n.pages),
            thousands(n.requested)
        ));
        let shown = self.limit(n.list.len());
        let cells: Vec<Vec<Cell>> = n.list[..shown]
            .iter()
            .map(|p| {
                vec![
                    Cell::log(&p.url),
                    Cell::num(u64::from(p.depth)),
                    Cell::plain(p.link_score.map(|s| format!("{s:.2}")).unwrap_or_default()),
                ]
            })
            .collect();
        self.table(&[flex("page"), right("depth"), right("score")], &cells);
        self.more(shown, omitted(n.not_requested));
        for (title, rows) in [("depth", &c.depths), ("link score", &c.scores)] {
            if rows.is_empty() {
                continue;
            }
            self.line("");
            self.note(&format!("verified search bots' requests by {title}"));
            let cells: Vec<Vec<Cell>> = rows
                .iter()
                .map(|s| {
                    vec![
                        Cell::plain(s.band.clone()),
                        Cell::num(s.pages),
                        Cell::num(s.requested),
                        Cell::plain(share(s.requested, s.pages)),
                        Cell::num(s.requests),
                    ]
                })
                .collect();
            let head = if title == "depth" { "depth" } else { "score" };
            self.table(
                &[
                    left(head, 14),
                    right("pages"),
                    right("requested"),
                    right("share"),
                    right("requests"),
                ],
                &cells,
            );
        }
        let o = &c.orphans;
        self.heading("URLs verified bots requested that the crawl did not find");
        let kinds: Vec<String> = o
            .kinds
            .iter()
            .map(|(k, n)| format!("{k} {}", thousands(*n)))
            .collect();
        self.note(&format!(
            "{} URLs, {} requests{}{}",
            thousands(o.urls),
            thousands(o.requests),
            if kinds.is_empty() { "" } else { ": " },
            kinds.join(", ")
        ));
        let shown = self.limit(o.list.len());
        let cells: Vec<Vec<Cell>> = o.list[..shown]
            .iter()
            .map(|u| {
                vec![
                    Cell::log(&u.url),
                    Cell::plain(u.kind.clone()),
                    Cell::num(u.requests),
                    Cell::num(u64::from(u.last_status)),
                    Cell::log(&u.bots.join(", ")),
                ]
            })
            .collect();
        self.table(
            &[
                flex("URL"),
                left("kind", 9),
                right("requests"),
                right("status"),
                left("bots", 24),
            ],
            &cells,
        );
        self.more(shown, omitted(o.urls));
        if !c.directories.is_empty() {
            self.heading("Directories");
            let shown = self.limit(c.directories.len());
            let cells: Vec<Vec<Cell>> = c.directories[..shown]
                .iter()
                .map(|d| {
                    vec![
                        Cell::log(&d.directory),
                        Cell::num(d.requests),
                        Cell::num(d.urls),
                        Cell::num(d.pages),
                        Cell::num(d.pages_requested),
                    ]
                })
                .collect();
            self.table(
                &[
                    flex("directory"),
                    right("requests"),
                    right("URLs"),
                    right("pages"),
                    right("by search"),
                ],
                &cells,
            );
            self.more(shown, c.directories.len());
        }
    }

    fn crawl_urls(&mut self, c: &super::CrawlJoin) {
        if c.top_urls.is_empty() {
            return;
        }
        self.heading("URLs by verified requests");
        let mut rows: Vec<Vec<Cell>> = Vec::new();
        let shown = self.limit(c.top_urls.len());
        for u in &c.top_urls[..shown] {
            for (i, b) in u.bots.iter().enumerate() {
                rows.push(vec![
                    Cell::log(if i == 0 { &u.url } else { "" }),
                    Cell::log(&b.bot),
                    Cell::num(b.requests),
                    Cell::plain(b.days.len().to_string()),
                    Cell::plain(opt_time(b.last_seen)),
                    Cell::num(u64::from(b.last_status)),
                    Cell::plain(if b.status_change.is_some() { "yes" } else { "" }),
                ]);
            }
        }
        self.table(
            &[
                flex("URL"),
                left("bot", 16),
                right("requests"),
                right("days"),
                left("last seen", 16),
                right("status"),
                left("changed", 7),
            ],
            &rows,
        );
        self.more(shown, c.top_urls.len() + omitted(c.top_urls_omitted));
        if !c.status_changes.is_empty() {
            self.line("");
            self.note("status changes, the latest first:");
            let n = self.limit(c.status_changes.len());
            for u in &c.status_changes[..n] {
                let s = &u.change;
                self.note(&format!(
                    "{} {}: {} until {} → {} since {}",
                    clean(&u.url),
                    clean(&u.bot),
                    s.from,
                    opt_time(s.until),
                    s.to,
                    opt_time(s.since)
                ));
            }
            self.more(
                n,
                c.status_changes.len() + omitted(c.status_changes_omitted),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_shown_in_utc() {
        let t: Timestamp = "2024-02-29T23:59:58Z".parse().unwrap();
        assert_eq!(time(t, true), "2024-02-29 23:59:58");
        assert_eq!(time(t, false), "2024-02-29 23:59");
        let t: Timestamp = "2026-11-20T14:00:00.5+01:00".parse().unwrap();
        assert_eq!(time(t, true), "2026-11-20 13:00:00");
        assert_eq!(opt_time(None), "");
    }

    #[test]
    fn numbers() {
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(1024 * 1024 - 1), "1.0 MiB");
        assert_eq!(share(1, 3), "33.3%");
        assert_eq!(share(1, 100_000), "<0.1%");
        assert_eq!(share(1, 0), "–");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(clean("a\x1b[2Jb\u{202e}"), "a\u{fffd}[2Jb\u{fffd}");
    }
}
