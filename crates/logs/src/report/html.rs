//! The HTML rendering of a [`Report`]: one self-contained page.
//!
//! The page loads nothing: its style is inline, its charts are SVG drawn
//! here, it has no script, and its Content-Security-Policy forbids
//! anything else. Every string from the report is escaped, and its control
//! and bidirectional-override characters are replaced, so that what a log
//! wrote (User-Agents, paths, names) is shown, never interpreted.

use std::fmt::{self, Write as _};

use jiff::Timestamp;
use jiff::civil::{Date, Time};
use jiff::tz::Offset;

mod crawl;

use super::model::{BotRow, Report, Series};
use botwarden_text::{HtmlLine, report_head, thousands};

use super::text::{bytes, share as share_text, time, verdict_order};

/// The report's own rules, after [`botwarden_text::REPORT_CSS_BASE`].
const CSS: &str = include_str!("report.css");

/// Timeline series drawn on their own; the rest are summed as "other".
const TOP_SERIES: usize = 8;

/// Status codes drawn as bars at most (the most frequent, in code order).
const MAX_STATUS_BARS: usize = 20;

/// Renders `report` as one HTML page that opens offline: a summary, SVG
/// charts of crawl volume over time, verdict shares and status codes, and
/// tables of bots, top paths, spoofed addresses, unknown crawlers and line
/// accounting.
///
/// The output depends on the report only.
#[must_use]
pub fn render_html(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    page(&mut out, report).expect("writing to a String cannot fail");
    out
}

/// `part` as a share of `whole`, escaped (it may read `<0.1%`).
fn share(part: u64, whole: u64) -> String {
    HtmlLine(&share_text(part, whole)).to_string()
}

/// The CSS class suffix of a verdict kind (fixed names: report strings
/// never become class names).
fn verdict_class(v: &str) -> &'static str {
    match v {
        "verified" => "ok",
        "spoofed" => "bad",
        "unverifiable" => "warn",
        "not-a-bot" => "human",
        _ => "unknown",
    }
}

struct Badge<'a>(&'a str);

impl fmt::Display for Badge<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            r#"<span class="badge b-{}">{}</span>"#,
            verdict_class(self.0),
            HtmlLine(self.0)
        )
    }
}

fn page(out: &mut String, r: &Report) -> fmt::Result {
    let period = r.period.as_ref().map_or_else(
        || "no request had a time".to_owned(),
        |p| format!("{} – {} UTC", time(p.first, true), time(p.last, true)),
    );
    report_head(
        out,
        format_args!("Crawler report · {} · botwarden", HtmlLine(&period)),
        CSS,
        "Crawler report",
    )?;
    let dns = if r.dns {
        "addresses verified with DNS"
    } else {
        "no DNS: published ranges and address lists only"
    };
    writeln!(
        out,
        r#"<p class="meta"><b>{}</b> · {} input{} · {dns} · generated {} UTC</p>"#,
        HtmlLine(&period),
        thousands(r.inputs.len() as u64),
        if r.inputs.len() == 1 { "" } else { "s" },
        HtmlLine(&time(r.generated, true)),
    )?;
    writeln!(out, "</div></header>")?;
    writeln!(out, r#"<main class="wrap">"#)?;
    cards(out, r)?;
    timeline(out, r)?;
    writeln!(out, r#"<div class="grid2">"#)?;
    verdicts(out, r)?;
    status_codes(out, r)?;
    writeln!(out, "</div>")?;
    bots(out, r)?;
    usage(out, r)?;
    crawl::crawl(out, r)?;
    top_paths(out, r)?;
    spoofed(out, r)?;
    host_names(out, r)?;
    unknown(out, r)?;
    newer_feeds(out, r)?;
    lines(out, r)?;
    let v = &r.verification;
    writeln!(
        out,
        "<footer>{} (address, bot) pairs verified with {} DNS lookups; {:.1} s waited \
         after the last line · report schema {} · botwarden</footer>",
        thousands(v.pairs),
        thousands(v.dns_lookups),
        v.wait_seconds,
        r.schema
    )?;
    writeln!(out, "</main>")?;
    writeln!(out, "</body>")?;
    writeln!(out, "</html>")
}

fn cards(out: &mut String, r: &Report) -> fmt::Result {
    let t = &r.totals;
    let verdict = |k: &str| r.verdicts.get(k).cloned().unwrap_or_default();
    let (ok, bad, unk) = (verdict("verified"), verdict("spoofed"), verdict("unknown"));
    let addresses = |n: u64| format!("{} address{}", thousands(n), if n == 1 { "" } else { "es" });
    let cards = [
        (
            "total",
            "Requests",
            thousands(t.requests),
            format!(
                "{} · {} user agents",
                addresses(t.ips),
                thousands(t.user_agents)
            ),
        ),
        (
            "bots",
            "Bot requests",
            thousands(t.bot_requests),
            if t.requests == 0 {
                "no requests".to_owned()
            } else {
                format!("{} of requests", share_text(t.bot_requests, t.requests))
            },
        ),
        ("ok", "Verified", thousands(ok.requests), addresses(ok.ips)),
        (
            "bad",
            "Spoofed",
            thousands(bad.requests),
            addresses(bad.ips),
        ),
        (
            "unknown",
            "Unknown",
            thousands(unk.requests),
            match r.unknown_crawlers.len() {
                1 => "1 family".to_owned(),
                n => format!("{} families", thousands(n as u64)),
            },
        ),
        (
            "total",
            "Data served",
            bytes(t.bytes),
            "response bytes".to_owned(),
        ),
        (
            if r.lines.failed > 0 { "warn" } else { "total" },
            "Lines read",
            thousands(r.lines.read),
            format!(
                "{} failed · {} skipped",
                thousands(r.lines.failed),
                thousands(r.lines.skipped)
            ),
        ),
    ];
    writeln!(out, r#"<section class="cards" aria-label="Summary">"#)?;
    for (class, k, v, s) in cards {
        let zero = if v == "0" { " zero" } else { "" };
        writeln!(
            out,
            r#"<div class="card c-{class}{zero}"><div class="k">{k}</div><div class="v">{}</div><div class="s">{}</div></div>"#,
            HtmlLine(&v),
            HtmlLine(&s)
        )?;
    }
    writeln!(out, "</section>")
}

/// A timeline series as drawn.
struct Drawn {
    bot: String,
    verdict: String,
    counts: Vec<u64>,
    total: u64,
}

/// The bots' series, largest first, the ones after [`TOP_SERIES`] summed
/// into "other"; and the human requests left out.
fn drawn_series(series: &[Series]) -> (Vec<Drawn>, u64) {
    let n = series.iter().map(|s| s.counts.len()).max().unwrap_or(0);
    let mut humans = 0;
    let mut all: Vec<Drawn> = Vec::new();
    for s in series {
        let total: u64 = s.counts.iter().sum();
        if s.bot == "humans" {
            humans += total;
            continue;
        }
        if total == 0 {
            continue;
        }
        let mut counts = s.counts.clone();
        counts.resize(n, 0);
        all.push(Drawn {
            bot: s.bot.clone(),
            verdict: s.verdict.clone(),
            counts,
            total,
        });
    }
    all.sort_by(|a, b| {
        b.total
            .cmp(&a.total)
            .then_with(|| a.bot.cmp(&b.bot))
            .then_with(|| a.verdict.cmp(&b.verdict))
    });
    if all.len() > TOP_SERIES + 1 {
        let rest = all.split_off(TOP_SERIES);
        let mut counts = vec![0; n];
        for s in &rest {
            for (c, v) in counts.iter_mut().zip(&s.counts) {
                *c += v;
            }
        }
        all.push(Drawn {
            bot: format!("other ({} series)", rest.len()),
            verdict: String::new(),
            total: counts.iter().sum(),
            counts,
        });
    }
    (all, humans)
}

/// A step of 1, 2, 2.5 or 5 times a power of ten giving about `ticks`
/// intervals up to `max`, and the axis top it gives.
fn nice_axis(max: u64, ticks: u64) -> (u64, u64) {
    let raw = max.div_ceil(ticks).max(1);
    let mut mag = 1;
    while mag * 10 <= raw {
        mag *= 10;
    }
    let step = [1, 2, 5, 10]
        .iter()
        .map(|f| f * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10 * mag);
    (step, max.div_ceil(step).max(1) * step)
}

/// `1234` as `1.2k`, for axis labels.
fn compact(n: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let f = n as f64;
    let (v, unit) = match n {
        0..1_000 => return n.to_string(),
        1_000..1_000_000 => (f / 1e3, "k"),
        1_000_000..1_000_000_000 => (f / 1e6, "M"),
        _ => (f / 1e9, "G"),
    };
    let s = format!("{v:.1}");
    format!("{}{unit}", s.strip_suffix(".0").unwrap_or(&s))
}

fn bucket_name(secs: u64) -> String {
    match secs {
        60 => "minute".to_owned(),
        3600 => "hour".to_owned(),
        86_400 => "day".to_owned(),
        604_800 => "week".to_owned(),
        s if s % 86_400 == 0 => format!("{} days", s / 86_400),
        s if s % 3600 == 0 => format!("{} hours", s / 3600),
        s if s % 60 == 0 => format!("{} minutes", s / 60),
        s => format!("{s} seconds"),
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn month_name(m: i64) -> &'static str {
    usize::try_from(m - 1)
        .ok()
        .and_then(|i| MONTHS.get(i))
        .copied()
        .unwrap_or("?")
}

/// The date (year, month, day) in UTC of Unix seconds; `None` past what a
/// timestamp holds.
fn date_of(at: i64) -> Option<(i64, i64, i64)> {
    let date = Offset::UTC
        .to_datetime(Timestamp::from_second(at).ok()?)
        .date();
    Some((
        i64::from(date.year()),
        i64::from(date.month()),
        i64::from(date.day()),
    ))
}

/// Unix seconds of the first of a month, at midnight UTC.
fn month_start(y: i64, m: i64) -> Option<i64> {
    let date = Date::new(i16::try_from(y).ok()?, i8::try_from(m).ok()?, 1).ok()?;
    let at = Offset::UTC
        .to_timestamp(date.to_datetime(Time::midnight()))
        .ok()?;
    Some(at.as_second())
}

/// A tick on the time axis: where, its label, and a second line (the date
/// or year) where it changes.
struct Tick {
    at: i64,
    label: String,
    second: Option<String>,
}

/// Ticks in UTC for `[start, end)`: whole minutes, hours, days, weeks
/// (from Monday) or months, at most about eight.
fn time_ticks(start: i64, end: i64) -> Vec<Tick> {
    const STEPS: [i64; 12] = [
        60, 300, 900, 1800, 3600, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800, 1_209_600,
    ];
    const DAY: i64 = 86_400;
    let span = (end - start).max(1);
    let mut times = Vec::new();
    let mut daily = false;
    let mut monthly = false;
    if let Some(&step) = STEPS.iter().find(|&&s| span / s <= 8) {
        // 1970-01-05 was a Monday.
        let origin = if step >= 7 * DAY { 4 * DAY } else { 0 };
        let mut t = (start - origin).div_euclid(step) * step + origin;
        if t < start {
            t += step;
        }
        while t < end {
            times.push(t);
            t += step;
        }
        daily = step >= DAY;
    } else {
        monthly = true;
        let months = [1, 3, 6, 12]
            .into_iter()
            .find(|m| span / (m * 30 * DAY) <= 8)
            .unwrap_or(12 * (span / (8 * 365 * DAY) + 1));
        let Some((mut y, mut m, d)) = date_of(start) else {
            return Vec::new();
        };
        let at_start = d == 1 && start.rem_euclid(DAY) == 0;
        if !at_start {
            m += 1;
        }
        loop {
            if m > 12 {
                y += 1;
                m -= 12;
            }
            if (m - 1) % months == 0 {
                let Some(t) = month_start(y, m).filter(|&t| t < end) else {
                    break;
                };
                times.push(t);
            }
            m += 1;
        }
    }
    let mut ticks = Vec::with_capacity(times.len());
    let mut last: Option<(i64, i64, i64)> = None;
    for at in times {
        let Some((y, m, d)) = date_of(at) else {
            continue;
        };
        let (label, second) = if monthly {
            let year = (last.is_none() || m == 1).then(|| y.to_string());
            (month_name(m).to_owned(), year)
        } else if daily {
            let year = (last.is_none_or(|(ly, _, _)| ly != y)).then(|| y.to_string());
            (format!("{} {d}", month_name(m)), year)
        } else {
            let s = at.rem_euclid(DAY);
            let date =
                (last.is_none_or(|l| l != (y, m, d))).then(|| format!("{} {d}", month_name(m)));
            (format!("{:02}:{:02}", s / 3600, s / 60 % 60), date)
        };
        last = Some((y, m, d));
        ticks.push(Tick { at, label, second });
    }
    ticks
}

fn timeline(out: &mut String, r: &Report) -> fmt::Result {
    let tl = &r.timeline;
    let (series, humans) = drawn_series(&tl.series);
    let n = series.first().map_or(0, |s| s.counts.len());
    writeln!(out, r#"<section class="panel" id="timeline">"#)?;
    writeln!(out, "<h2>Crawl volume</h2>")?;
    if tl.bucket_seconds == 0 {
        writeln!(
            out,
            r#"<p class="sub">Bot requests over time (UTC), stacked by bot and verdict.</p>"#
        )?;
    } else {
        writeln!(
            out,
            r#"<p class="sub">Bot requests per {} (UTC), stacked by bot and verdict.</p>"#,
            bucket_name(tl.bucket_seconds)
        )?;
    }
    writeln!(out, "<figure>")?;
    if n == 0 {
        writeln!(out, r#"<p class="empty">No bot request with a time.</p>"#)?;
    } else {
        timeline::svg(out, tl.start, tl.bucket_seconds, &series)?;
    }
    let total: usize = tl.series.iter().filter(|s| s.bot != "humans").count();
    write!(out, "<figcaption>")?;
    if total > series.len() {
        write!(
            out,
            "The {TOP_SERIES} largest of {total} series, the rest summed as “other”. "
        )?;
    }
    writeln!(
        out,
        "Requests that are not bots ({}) are not shown.</figcaption>",
        thousands(humans)
    )?;
    writeln!(out, "</figure>")?;
    if n > 0 {
        writeln!(out, r#"<ul class="legend">"#)?;
        for (i, s) in series.iter().enumerate() {
            write!(
                out,
                r#"<li><span class="sw s{}"></span>{}"#,
                swatch(i, s),
                HtmlLine(&s.bot)
            )?;
            if !s.verdict.is_empty() {
                write!(out, " {}", Badge(&s.verdict))?;
            }
            writeln!(
                out,
                r#" <span class="n">{}</span></li>"#,
                thousands(s.total)
            )?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(out, "</section>")
}

/// The colour index of drawn series `i` ("other" is grey).
fn swatch(i: usize, s: &Drawn) -> usize {
    if s.verdict.is_empty() { 8 } else { i.min(7) }
}

/// The timeline's SVG chart: requests per bucket, stacked by series.
mod timeline {
    use std::fmt::{self, Write as _};

    use jiff::Timestamp;

    use super::{Drawn, HtmlLine, compact, nice_axis, swatch, thousands, time, time_ticks};

    const W: f64 = 1000.0;
    const H: f64 = 300.0;
    const ML: f64 = 56.0;
    const MR: f64 = 24.0;
    const MT: f64 = 12.0;
    const MB: f64 = 44.0;

    /// Where values and buckets fall in the plot.
    struct Scale {
        /// The plot's width and height, inside the margins.
        pw: f64,
        ph: f64,
        /// Buckets.
        nf: f64,
        /// The value at the top of the axis.
        topf: f64,
    }

    impl Scale {
        #[allow(clippy::cast_precision_loss)]
        fn y(&self, v: u64) -> f64 {
            MT + self.ph - v as f64 / self.topf * self.ph
        }

        #[allow(clippy::cast_precision_loss)]
        fn x(&self, i: usize) -> f64 {
            ML + (i as f64 + 0.5) * self.pw / self.nf
        }
    }

    pub(super) fn svg(
        out: &mut String,
        start: Option<Timestamp>,
        bucket: u64,
        series: &[Drawn],
    ) -> fmt::Result {
        let n = series[0].counts.len();
        let mut stack = vec![0u64; n];
        for s in series {
            for (t, c) in stack.iter_mut().zip(&s.counts) {
                *t += c;
            }
        }
        let peak = stack.iter().copied().max().unwrap_or(0);
        let (step, top) = nice_axis(peak, 4);
        #[allow(clippy::cast_precision_loss)]
        let scale = Scale {
            pw: W - ML - MR,
            ph: H - MT - MB,
            nf: n as f64,
            topf: top as f64,
        };
        writeln!(
            out,
            r#"<svg id="timeline-chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="timeline-title">"#
        )?;
        writeln!(
            out,
            r#"<title id="timeline-title">Bot requests over time, stacked by bot and verdict</title>"#
        )?;
        grid(out, &scale, step, top)?;
        areas(out, &scale, series, n)?;
        let (pw, ph) = (scale.pw, scale.ph);
        writeln!(
            out,
            r#"<line class="axis" x1="{ML}" x2="{:.1}" y1="{:.1}" y2="{:.1}"/>"#,
            ML + pw,
            MT + ph,
            MT + ph
        )?;
        let start = start.map(Timestamp::as_second);
        let bucket = i64::try_from(bucket.max(1)).unwrap_or(i64::MAX / 1024);
        if let Some(t0) = start {
            time_axis(out, &scale, t0, bucket, n)?;
        }
        hover_targets(out, &scale, &stack, series, start, bucket)?;
        writeln!(out, "</svg>")
    }

    /// Grid and value axis.
    fn grid(out: &mut String, scale: &Scale, step: u64, top: u64) -> fmt::Result {
        let mut v = 0;
        while v <= top {
            let yv = scale.y(v);
            writeln!(
                out,
                r#"<line class="grid" x1="{ML}" x2="{:.1}" y1="{yv:.1}" y2="{yv:.1}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                ML + scale.pw,
                ML - 8.0,
                yv + 4.0,
                compact(v)
            )?;
            v += step;
        }
        Ok(())
    }

    /// The series' areas, largest at the bottom.
    fn areas(out: &mut String, scale: &Scale, series: &[Drawn], n: usize) -> fmt::Result {
        let (x, y) = (|i| scale.x(i), |v| scale.y(v));
        let pw = scale.pw;
        let mut lower = vec![0u64; n];
        for (k, s) in series.iter().enumerate() {
            let upper: Vec<u64> = lower.iter().zip(&s.counts).map(|(a, b)| a + b).collect();
            let mut d = format!("M{ML:.1},{:.1}", y(upper[0]));
            for (i, &u) in upper.iter().enumerate() {
                write!(d, "L{:.1},{:.1}", x(i), y(u))?;
            }
            write!(d, "L{:.1},{:.1}", ML + pw, y(upper[n - 1]))?;
            write!(d, "L{:.1},{:.1}", ML + pw, y(lower[n - 1]))?;
            for (i, &l) in lower.iter().enumerate().rev() {
                write!(d, "L{:.1},{:.1}", x(i), y(l))?;
            }
            write!(d, "L{ML:.1},{:.1}Z", y(lower[0]))?;
            let label = if s.verdict.is_empty() {
                s.bot.clone()
            } else {
                format!("{} ({})", s.bot, s.verdict)
            };
            writeln!(
                out,
                r#"<path class="series area s{}" data-series="{}" d="{d}"><title>{}: {} requests</title></path>"#,
                swatch(k, s),
                HtmlLine(&label),
                HtmlLine(&label),
                thousands(s.total)
            )?;
            lower = upper;
        }
        Ok(())
    }

    /// The time axis of `n` buckets of `bucket` seconds from `t0`.
    fn time_axis(out: &mut String, scale: &Scale, t0: i64, bucket: i64, n: usize) -> fmt::Result {
        let (pw, ph) = (scale.pw, scale.ph);
        let end = t0.saturating_add(bucket.saturating_mul(i64::try_from(n).unwrap_or(0)));
        #[allow(clippy::cast_precision_loss)]
        let span = (end - t0) as f64;
        for tick in time_ticks(t0, end) {
            #[allow(clippy::cast_precision_loss)]
            let tx = ML + (tick.at - t0) as f64 / span * pw;
            write!(
                out,
                r#"<line class="axis" x1="{tx:.1}" x2="{tx:.1}" y1="{:.1}" y2="{:.1}"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}"#,
                MT + ph,
                MT + ph + 5.0,
                MT + ph + 18.0,
                tick.label
            )?;
            if let Some(second) = tick.second {
                write!(
                    out,
                    r#"<tspan x="{tx:.1}" dy="14" class="lbl">{second}</tspan>"#
                )?;
            }
            writeln!(out, "</text>")?;
        }
        Ok(())
    }

    /// One hover target per bucket with its numbers.
    fn hover_targets(
        out: &mut String,
        scale: &Scale,
        stack: &[u64],
        series: &[Drawn],
        start: Option<i64>,
        bucket: i64,
    ) -> fmt::Result {
        let ph = scale.ph;
        let bw = scale.pw / scale.nf;
        for (i, &sum) in stack.iter().enumerate() {
            #[allow(clippy::cast_precision_loss)]
            let bx = ML + i as f64 * bw;
            let when = start.map_or_else(
                || format!("bucket {}", i + 1),
                |t0| {
                    let at =
                        t0.saturating_add(bucket.saturating_mul(i64::try_from(i).unwrap_or(0)));
                    Timestamp::from_second(at).map_or_else(
                        |_| format!("bucket {}", i + 1),
                        |at| format!("{} UTC", time(at, false)),
                    )
                },
            );
            write!(
                out,
                r#"<rect class="hit" x="{bx:.2}" y="{MT}" width="{bw:.2}" height="{ph}"><title>{when}: {} bot requests"#,
                thousands(sum)
            )?;
            for s in series {
                if s.counts[i] > 0 {
                    write!(out, "\n{}", HtmlLine(&s.bot))?;
                    if !s.verdict.is_empty() {
                        write!(out, " ({})", HtmlLine(&s.verdict))?;
                    }
                    write!(out, ": {}", thousands(s.counts[i]))?;
                }
            }
            writeln!(out, "</title></rect>")?;
        }
        Ok(())
    }
}

fn verdicts(out: &mut String, r: &Report) -> fmt::Result {
    const W: f64 = 480.0;
    const ROW: f64 = 34.0;
    const LABEL: f64 = 104.0;
    const VALUE: f64 = 128.0;
    panel(
        out,
        "verdicts",
        "Verdicts",
        "Share of all requests per verdict.",
    )?;
    let rows = verdict_order(r);
    if rows.is_empty() {
        writeln!(out, r#"<p class="empty">No requests.</p>"#)?;
        return writeln!(out, "</section>");
    }
    let total = r
        .totals
        .requests
        .max(rows.iter().map(|(_, c)| c.requests).sum());
    let bw = W - LABEL - VALUE;
    #[allow(clippy::cast_precision_loss)]
    let h = rows.len() as f64 * ROW;
    writeln!(out, "<figure>")?;
    writeln!(
        out,
        r#"<svg id="verdict-chart" viewBox="0 0 {W} {h}" role="img" aria-labelledby="verdict-title">"#
    )?;
    writeln!(
        out,
        r#"<title id="verdict-title">Requests per verdict</title>"#
    )?;
    for (i, (v, c)) in rows.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let (y, len) = (
            i as f64 * ROW,
            if total == 0 {
                0.0
            } else {
                c.requests as f64 / total as f64 * bw
            },
        );
        writeln!(
            out,
            r#"<g><title>{}: {} requests ({}) from {} addresses</title><text class="lbl" x="0" y="{:.1}">{}</text><rect class="track" x="{LABEL}" y="{:.1}" width="{bw}" height="18" rx="3"/><rect class="f-{}" x="{LABEL}" y="{:.1}" width="{len:.1}" height="18" rx="3"/><text class="val" x="{:.1}" y="{:.1}">{} · {}</text></g>"#,
            HtmlLine(v),
            thousands(c.requests),
            share(c.requests, total),
            thousands(c.ips),
            y + 21.0,
            HtmlLine(v),
            y + 8.0,
            verdict_class(v),
            y + 8.0,
            LABEL + bw + 10.0,
            y + 21.0,
            thousands(c.requests),
            share(c.requests, total)
        )?;
    }
    writeln!(out, "</svg>")?;
    writeln!(
        out,
        "<figcaption>Requests per verdict as a share of all {} requests.</figcaption>",
        thousands(total)
    )?;
    writeln!(out, "</figure>")?;
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    writeln!(
        out,
        r#"<thead><tr><th>Verdict</th><th class="num">Requests</th><th class="num">Share</th><th class="num">Addresses</th></tr></thead><tbody>"#
    )?;
    for (v, c) in &rows {
        writeln!(
            out,
            r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            Badge(v),
            thousands(c.requests),
            share(c.requests, total),
            thousands(c.ips)
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

fn status_class(code: u16) -> &'static str {
    match code {
        100..=299 => "ok",
        300..=399 => "redirect",
        400..=499 => "warn",
        500..=599 => "bad",
        _ => "unknown",
    }
}

fn status_codes(out: &mut String, r: &Report) -> fmt::Result {
    panel(out, "status", "Status codes", "Responses to all requests.")?;
    if r.status_codes.is_empty() {
        writeln!(out, r#"<p class="empty">No requests.</p>"#)?;
        return writeln!(out, "</section>");
    }
    let total: u64 = r.status_codes.values().sum();
    let mut codes: Vec<(u16, u64)> = r.status_codes.iter().map(|(c, n)| (*c, *n)).collect();
    if codes.len() > MAX_STATUS_BARS {
        codes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        codes.truncate(MAX_STATUS_BARS);
        codes.sort_unstable();
    }
    writeln!(out, "<figure>")?;
    status_chart(out, &codes, total)?;
    write!(
        out,
        "<figcaption>Responses per status code: 2xx green, 3xx blue, 4xx amber, 5xx red."
    )?;
    if r.status_codes.len() > codes.len() {
        write!(
            out,
            " The {} most frequent of {} codes; the table lists all.",
            codes.len(),
            r.status_codes.len()
        )?;
    }
    writeln!(out, "</figcaption>")?;
    writeln!(out, "</figure>")?;
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    writeln!(
        out,
        r#"<thead><tr><th>Status</th><th class="num">Requests</th><th class="num">Share</th></tr></thead><tbody>"#
    )?;
    for (code, n) in &r.status_codes {
        writeln!(
            out,
            r#"<tr><td>{code}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            thousands(*n),
            share(*n, total)
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

/// The bar chart of the status codes drawn, out of `total` requests.
fn status_chart(out: &mut String, codes: &[(u16, u64)], total: u64) -> fmt::Result {
    const W: f64 = 480.0;
    const H: f64 = 220.0;
    const ML: f64 = 44.0;
    const MT: f64 = 18.0;
    const MB: f64 = 26.0;
    let peak = codes.iter().map(|c| c.1).max().unwrap_or(0);
    let (step, top) = nice_axis(peak, 4);
    let (pw, ph) = (W - ML, H - MT - MB);
    #[allow(clippy::cast_precision_loss)]
    let y = |v: u64| MT + ph - v as f64 / top as f64 * ph;
    #[allow(clippy::cast_precision_loss)]
    let slot = pw / codes.len() as f64;
    let bw = (slot * 0.7).min(44.0);
    writeln!(
        out,
        r#"<svg id="status-chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="status-title">"#
    )?;
    writeln!(
        out,
        r#"<title id="status-title">Requests per status code</title>"#
    )?;
    let mut v = 0;
    while v <= top {
        let yv = y(v);
        writeln!(
            out,
            r#"<line class="grid" x1="{ML}" x2="{W}" y1="{yv:.1}" y2="{yv:.1}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            ML - 8.0,
            yv + 4.0,
            compact(v)
        )?;
        v += step;
    }
    for (i, (code, n)) in codes.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let cx = ML + (i as f64 + 0.5) * slot;
        let yv = y(*n);
        write!(
            out,
            r#"<g><title>{code}: {} requests ({})</title><rect class="f-{}" x="{:.1}" y="{yv:.1}" width="{bw:.1}" height="{:.1}" rx="2"/><text class="lbl" x="{cx:.1}" y="{:.1}" text-anchor="middle">{code}</text>"#,
            thousands(*n),
            share(*n, total),
            status_class(*code),
            cx - bw / 2.0,
            MT + ph - yv,
            H - 8.0
        )?;
        if slot >= 30.0 {
            write!(
                out,
                r#"<text class="val" x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                yv - 5.0,
                compact(*n)
            )?;
        }
        writeln!(out, "</g>")?;
    }
    writeln!(
        out,
        r#"<line class="axis" x1="{ML}" x2="{W}" y1="{:.1}" y2="{:.1}"/>"#,
        MT + ph,
        MT + ph
    )?;
    writeln!(out, "</svg>")
}

fn num_cell(out: &mut String, n: u64) -> fmt::Result {
    if n == 0 {
        write!(out, r#"<td class="num zero">0</td>"#)
    } else {
        write!(out, r#"<td class="num">{}</td>"#, thousands(n))
    }
}

fn time_cell(out: &mut String, t: Option<Timestamp>) -> fmt::Result {
    match t {
        Some(t) => write!(out, r#"<td class="t">{}</td>"#, HtmlLine(&time(t, false))),
        None => write!(out, r#"<td class="t">–</td>"#),
    }
}

fn bots(out: &mut String, r: &Report) -> fmt::Result {
    panel(
        out,
        "bots",
        "Bots",
        "One row per bot and verdict, most requests first. Status classes count requests; times are UTC.",
    )?;
    if r.bots.is_empty() {
        writeln!(out, r#"<p class="empty">No bot requests.</p>"#)?;
        return writeln!(out, "</section>");
    }
    let other = r.bots.iter().any(|b| b.status.other > 0);
    let top = r.bots.iter().map(|b| b.requests).max().unwrap_or(0).max(1);
    writeln!(out, r#"<div class="scroll"><table class="wide">"#)?;
    write!(
        out,
        r#"<thead><tr><th>Bot</th><th>Category</th><th>Verdict</th><th class="num">Requests</th><th class="num">IPs</th><th class="num">Bytes</th><th class="num">2xx</th><th class="num">3xx</th><th class="num">4xx</th><th class="num">5xx</th>"#
    )?;
    if other {
        write!(out, r#"<th class="num">Other</th>"#)?;
    }
    writeln!(
        out,
        r#"<th class="num">robots.txt</th><th>First seen</th><th>Last seen</th></tr></thead><tbody>"#
    )?;
    for b in &r.bots {
        #[allow(clippy::cast_precision_loss)]
        let p = b.requests as f64 * 100.0 / top as f64;
        write!(
            out,
            r#"<tr><td class="strong">{}</td><td>{}</td><td>{}</td><td class="num bar" style="--p:{p:.1}%">{}</td>"#,
            HtmlLine(&b.bot),
            HtmlLine(b.category.as_deref().unwrap_or("")),
            Badge(&b.verdict),
            thousands(b.requests)
        )?;
        num_cell(out, b.ips)?;
        write!(out, r#"<td class="num">{}</td>"#, bytes(b.bytes))?;
        num_cell(out, b.status.ok)?;
        num_cell(out, b.status.redirect)?;
        num_cell(out, b.status.client_error)?;
        num_cell(out, b.status.server_error)?;
        if other {
            num_cell(out, b.status.other)?;
        }
        robots_cell(out, b)?;
        time_cell(out, b.first_seen)?;
        time_cell(out, b.last_seen)?;
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

/// Crawlers' requests for paths whose usage preferences refuse their use,
/// verified rows first, when the run measured them.
fn usage(out: &mut String, r: &Report) -> fmt::Result {
    let Some(policy) = &r.usage_policy else {
        return Ok(());
    };
    panel(
        out,
        "usage",
        "Usage preferences",
        "Requests of AI and search crawlers for paths whose preferences in the site's robots.txt refuse their use: by group (aipref-attach), and with every Content-Signal read for every robot (crawler-commons). Spoofed rows are their own, never counted as the bot's.",
    )?;
    writeln!(out, "<p>robots.txt: <code>{}</code></p>", HtmlLine(policy))?;
    let mut rows: Vec<&BotRow> = r.bots.iter().filter(|b| b.usage.is_some()).collect();
    if rows.is_empty() {
        writeln!(out, r#"<p class="empty">No request of such a crawler.</p>"#)?;
        return writeln!(out, "</section>");
    }
    rows.sort_by_key(|b| (b.verdict != "verified", b.verdict.clone()));
    writeln!(
        out,
        r#"<div class="scroll"><table><thead><tr><th>Bot</th><th>Category</th><th>Verdict</th><th>Use</th><th class="num">Requests</th><th class="num">Refused</th><th class="num">Refused file-wide</th></tr></thead><tbody>"#
    )?;
    for b in rows {
        let Some(u) = &b.usage else { continue };
        write!(
            out,
            r#"<tr><td class="strong">{}</td><td>{}</td><td>{}</td><td>{}</td>"#,
            HtmlLine(&b.bot),
            HtmlLine(b.category.as_deref().unwrap_or("")),
            Badge(&b.verdict),
            HtmlLine(&u.purpose)
        )?;
        num_cell(out, u.requests)?;
        num_cell(out, u.refused)?;
        num_cell(out, u.refused_file_wide)?;
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

fn robots_cell(out: &mut String, b: &BotRow) -> fmt::Result {
    let rt = &b.robots_txt;
    if rt.requests == 0 {
        return write!(out, r#"<td class="num zero">0</td>"#);
    }
    let list: Vec<String> = rt
        .status
        .iter()
        .map(|(code, n)| format!("{code}: {}", thousands(*n)))
        .collect();
    write!(
        out,
        r#"<td class="num"><span title="{}">{}</span> <span class="mono">({})</span></td>"#,
        list.join(", "),
        thousands(rt.requests),
        rt.status
            .keys()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

fn top_paths(out: &mut String, r: &Report) -> fmt::Result {
    let bots: Vec<&BotRow> = r.bots.iter().filter(|b| !b.top_paths.is_empty()).collect();
    if bots.is_empty() {
        return Ok(());
    }
    panel(
        out,
        "paths",
        "Top paths",
        "The paths each bot requested most. ≥ marks a lower bound: paths are counted in bounded memory.",
    )?;
    writeln!(out, r#"<div class="paths">"#)?;
    for b in bots {
        writeln!(
            out,
            r#"<div class="box"><h3>{} {}</h3><ol>"#,
            HtmlLine(&b.bot),
            Badge(&b.verdict)
        )?;
        for p in &b.top_paths {
            writeln!(
                out,
                r#"<li><span class="c">{}{}</span><span class="p">{}</span></li>"#,
                if p.approximate { "≥" } else { "" },
                thousands(p.requests),
                HtmlLine(&p.path)
            )?;
        }
        writeln!(out, "</ol></div>")?;
    }
    writeln!(out, "</div>")?;
    writeln!(out, "</section>")
}

fn spoofed(out: &mut String, r: &Report) -> fmt::Result {
    panel(
        out,
        "spoofed",
        "Spoofed addresses",
        "Addresses that claimed a registered bot and failed its verification.",
    )?;
    if r.spoofed.is_empty() {
        writeln!(out, r#"<p class="empty">None.</p>"#)?;
        return writeln!(out, "</section>");
    }
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    writeln!(
        out,
        r#"<thead><tr><th>Address</th><th>Claimed</th><th>Reason</th><th class="num">Requests</th><th>First seen</th><th>Last seen</th><th>User-Agent</th></tr></thead><tbody>"#
    )?;
    for s in &r.spoofed {
        write!(
            out,
            r#"<tr><td class="mono">{}</td><td class="strong">{}</td><td>{}</td>"#,
            HtmlLine(&s.ip),
            HtmlLine(&s.claimed),
            HtmlLine(&s.reason)
        )?;
        num_cell(out, s.requests)?;
        time_cell(out, s.first_seen)?;
        time_cell(out, s.last_seen)?;
        writeln!(
            out,
            r#"<td class="ua">{}</td></tr>"#,
            HtmlLine(&s.user_agent)
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    more(out, r.spoofed_omitted, "addresses")?;
    writeln!(out, "</section>")
}

/// A note on the rows a list left out.
fn more(out: &mut String, omitted: u64, what: &str) -> fmt::Result {
    if omitted == 0 {
        return Ok(());
    }
    writeln!(
        out,
        r#"<p class="empty">… and {} more {what}, fewer requests each (the exports list them all).</p>"#,
        thousands(omitted)
    )
}

fn host_names(out: &mut String, r: &Report) -> fmt::Result {
    if r.host_names.is_empty() {
        return Ok(());
    }
    panel(
        out,
        "host-names",
        "Bots named by host name",
        "Clients the log names by host name instead of address (HostnameLookups) that claimed a bot: they cannot be verified.",
    )?;
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    writeln!(
        out,
        r#"<thead><tr><th>Host name</th><th>Claimed</th><th>Reason</th><th class="num">Requests</th><th>First seen</th><th>Last seen</th><th>User-Agent</th></tr></thead><tbody>"#
    )?;
    for h in &r.host_names {
        write!(
            out,
            r#"<tr><td class="mono">{}</td><td class="strong">{}</td><td>{}</td>"#,
            HtmlLine(&h.name),
            HtmlLine(&h.claimed),
            HtmlLine(&h.reason)
        )?;
        num_cell(out, h.requests)?;
        time_cell(out, h.first_seen)?;
        time_cell(out, h.last_seen)?;
        writeln!(
            out,
            r#"<td class="ua">{}</td></tr>"#,
            HtmlLine(&h.user_agent)
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    more(out, r.host_names_omitted, "host names")?;
    writeln!(out, "</section>")
}

fn newer_feeds(out: &mut String, r: &Report) -> fmt::Result {
    if r.newer_feeds.is_empty() {
        return Ok(());
    }
    panel(
        out,
        "newer-feeds",
        "Range lists newer than the log",
        "Published address ranges made after the log began: a request from before a list, outside it, is unknown rather than spoofed.",
    )?;
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    writeln!(
        out,
        r#"<thead><tr><th>List</th><th>Version</th><th>Bots</th></tr></thead><tbody>"#
    )?;
    for f in &r.newer_feeds {
        writeln!(
            out,
            r#"<tr><td class="mono">{}</td><td>{}</td><td>{}</td></tr>"#,
            HtmlLine(&f.url),
            HtmlLine(&f.version),
            HtmlLine(&f.bots.join(", "))
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

fn unknown(out: &mut String, r: &Report) -> fmt::Result {
    panel(
        out,
        "unknown",
        "Unknown crawlers",
        "Crawlers that are not in the registry, by User-Agent family.",
    )?;
    if r.unknown_crawlers.is_empty() {
        writeln!(out, r#"<p class="empty">None.</p>"#)?;
        return writeln!(out, "</section>");
    }
    writeln!(out, r#"<div class="scroll"><table>"#)?;
    writeln!(
        out,
        r#"<thead><tr><th>Crawler</th><th class="num">Requests</th><th class="num">Addresses</th><th>User-Agent</th></tr></thead><tbody>"#
    )?;
    for u in &r.unknown_crawlers {
        write!(out, r#"<tr><td class="strong">{}</td>"#, HtmlLine(&u.name))?;
        num_cell(out, u.requests)?;
        num_cell(out, u.ips)?;
        writeln!(
            out,
            r#"<td class="ua">{}</td></tr>"#,
            HtmlLine(&u.user_agent)
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(out, "</section>")
}

fn reasons(
    out: &mut String,
    what: &str,
    reasons: &std::collections::BTreeMap<String, u64>,
) -> fmt::Result {
    if reasons.is_empty() {
        return Ok(());
    }
    write!(out, r#"<p class="reasons">{what}: "#)?;
    for (i, (k, n)) in reasons.iter().enumerate() {
        if i > 0 {
            write!(out, " · ")?;
        }
        write!(out, "<code>{}</code> {}", HtmlLine(k), thousands(*n))?;
    }
    writeln!(out, "</p>")
}

fn lines(out: &mut String, r: &Report) -> fmt::Result {
    let l = &r.lines;
    writeln!(out, r#"<section class="panel" id="lines">"#)?;
    writeln!(out, "<h2>Inputs and lines</h2>")?;
    writeln!(
        out,
        r#"<p class="acct"><b>{}</b> lines read = <b>{}</b> parsed + <b>{}</b> skipped + <b>{}</b> failed</p>"#,
        thousands(l.read),
        thousands(l.parsed),
        thousands(l.skipped),
        thousands(l.failed)
    )?;
    if l.truncated > 0 {
        writeln!(
            out,
            r#"<p class="reasons">Cut short (parsed as far as they go): {}</p>"#,
            thousands(l.truncated)
        )?;
    }
    reasons(out, "Skipped", &l.skip_reasons)?;
    reasons(out, "Failed", &l.fail_reasons)?;
    if !r.inputs.is_empty() {
        writeln!(out, r#"<div class="scroll"><table>"#)?;
        writeln!(
            out,
            r#"<thead><tr><th>Input</th><th>Format</th><th>gzip</th><th class="num">Read</th><th class="num">Parsed</th><th class="num">Skipped</th><th class="num">Failed</th><th>Stopped by</th></tr></thead><tbody>"#
        )?;
        for i in &r.inputs {
            write!(
                out,
                r#"<tr><td class="mono">{}</td><td class="mono">{}</td><td>{}</td>"#,
                HtmlLine(&i.name),
                HtmlLine(&i.format),
                if i.gzip { "yes" } else { "no" }
            )?;
            num_cell(out, i.lines.read)?;
            num_cell(out, i.lines.parsed)?;
            num_cell(out, i.lines.skipped)?;
            num_cell(out, i.lines.failed)?;
            writeln!(
                out,
                "<td>{}</td></tr>",
                HtmlLine(i.error.as_deref().unwrap_or(""))
            )?;
        }
        writeln!(out, "</tbody></table></div>")?;
    }
    if !r.samples.is_empty() {
        writeln!(out, "<h3>Bad lines (samples)</h3>")?;
        writeln!(out, r#"<div class="scroll"><table>"#)?;
        writeln!(
            out,
            r#"<thead><tr><th>Where</th><th>Reason</th><th>Line</th></tr></thead><tbody>"#
        )?;
        for b in &r.samples {
            let col = b.column.map(|c| format!(":{c}")).unwrap_or_default();
            writeln!(
                out,
                r#"<tr><td class="mono">{}:{}{col}</td><td><code>{}</code></td><td class="line">{}</td></tr>"#,
                HtmlLine(&b.file),
                b.line,
                HtmlLine(&b.reason),
                HtmlLine(&b.text)
            )?;
        }
        writeln!(out, "</tbody></table></div>")?;
    }
    writeln!(out, "</section>")
}

/// Opens a report section: its anchor, heading and one-line description
/// (all fixed text of ours, written as is).
fn panel(out: &mut String, id: &str, title: &str, sub: &str) -> fmt::Result {
    writeln!(out, r#"<section class="panel" id="{id}">"#)?;
    writeln!(out, "<h2>{title}</h2>")?;
    writeln!(out, r#"<p class="sub">{sub}</p>"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes() {
        assert_eq!(nice_axis(0, 4), (1, 1));
        assert_eq!(nice_axis(7, 4), (2, 8));
        assert_eq!(nice_axis(1234, 4), (500, 1500));
        assert_eq!(compact(1500), "1.5k");
        assert_eq!(compact(2_000_000), "2M");
        let day = "2026-11-20T00:00:00Z"
            .parse::<Timestamp>()
            .unwrap()
            .as_second();
        let ticks = time_ticks(day, day + 86_400);
        let labels: Vec<&str> = ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "00:00", "03:00", "06:00", "09:00", "12:00", "15:00", "18:00", "21:00"
            ]
        );
        assert_eq!(ticks[0].second.as_deref(), Some("Nov 20"));
        let ticks = time_ticks(day, day + 400 * 86_400);
        assert_eq!(ticks[0].label, "Jan");
        assert_eq!(ticks[0].second.as_deref(), Some("2027"));
    }
}
