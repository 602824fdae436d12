//! R014 `crawl-delay`: a crawl-delay that is not a whole number of seconds from 1 to 30.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};
use crate::values::parse_crawl_delay;

declare_lint! {
    /// ## What it does
    /// Finds `Crawl-delay` values that are not a whole number from 1 to 30.
    ///
    /// ## Why
    /// Bing reads the delay in whole seconds and treats values above 30 as an
    /// unreachable site for practical purposes; Yandex took decimals but no
    /// longer reads the directive (since 2018); Google ignores it. A value no
    /// robot can parse is lost.
    ///
    /// ## Example
    /// ```text
    /// User-agent: bingbot
    /// Crawl-delay: 0.5
    /// ```
    ///
    /// ## Fix
    /// Use a whole number of seconds between 1 and 30.
    "R014", "crawl-delay", Warning, "a crawl-delay that is not a whole number of seconds from 1 to 30"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, value) in cx.lines_named(DirectiveName::CrawlDelay) {
        let message = match parse_crawl_delay(&value) {
            None => format!("no robot can read `{value}` as a delay: it must be a number of seconds"),
            Some(d) if d.fract() != 0.0 => format!("Bing reads whole seconds: `{value}` is not one (Google ignores crawl-delay, Yandex no longer reads it)"),
            Some(d) if d < 1.0 => "a delay of 0 asks for no delay at all".to_owned(),
            Some(d) if d > 30.0 => format!("a delay of {value} s lets Bing fetch fewer than 3,000 pages a day: values above 30 are rarely meant"),
            Some(_) => continue,
        };
        out.push(Diagnostic::new(&LINT, cx.line_span(i), message).help("use a whole number of seconds from 1 to 30"));
    }
}
