//! `security/missing-headers`: HTTPS pages without HSTS, X-Content-Type-Options: nosniff or a Content-Security-Policy.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page fetched over HTTPS whose answer lacks one of
    /// `Strict-Transport-Security`, `X-Content-Type-Options: nosniff` and
    /// `Content-Security-Policy` (a `…-Report-Only` policy does not
    /// count), naming those missing.
    ///
    /// ## Why it matters
    /// Without HSTS a visitor's first request can be downgraded to plain
    /// HTTP; without `nosniff` browsers may run a file served as text as a
    /// script; without a CSP an injected script runs with the page's
    /// rights.
    ///
    /// ## Fix
    /// Send the three headers from the server or CDN for every page
    /// (`max-age` of a year or more for HSTS).
    "security/missing-headers", Notice, "HTTPS pages without HSTS, X-Content-Type-Options: nosniff or a Content-Security-Policy"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{s} IS NOT NULL AND ({h} = 0 OR {n} = 0 OR {c} = 0)", s = q("$.security"), h = q("$.security.hsts"), n = q("$.security.nosniff"), c = q("$.security.csp")), &format!("'sent without ' || rtrim(CASE WHEN {h} = 0 THEN 'Strict-Transport-Security, ' ELSE '' END || CASE WHEN {n} = 0 THEN 'X-Content-Type-Options: nosniff, ' ELSE '' END || CASE WHEN {c} = 0 THEN 'Content-Security-Policy, ' ELSE '' END, ', ')", h = q("$.security.hsts"), n = q("$.security.nosniff"), c = q("$.security.csp")), "NULL")
}
