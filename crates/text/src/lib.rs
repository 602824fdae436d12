//! Text shared by botwarden's reports and pages: the audit's and the log
//! report's HTML, the service's web checker and the text reports.
//!
//! - [`HtmlText`] and [`HtmlLine`] escape a string for HTML text and
//!   attribute values, with the characters that must not reach a page as
//!   they are ([`is_unsafe_char`]) replaced by U+FFFD; [`HtmlText`] keeps
//!   tabs and line breaks, [`HtmlLine`] replaces them too.
//! - [`thousands`] writes a count with thousands separators.
//! - [`REPORT_CSS_BASE`] is the start of the HTML reports' stylesheets:
//!   their colours, fonts and box model; [`report_head`] writes a report's
//!   head with it, its content security policy and its title.
//!
//! No I/O, no dependencies.

mod html;
mod number;
mod report;

pub use html::{HtmlLine, HtmlText, is_unsafe_char};
pub use number::thousands;
pub use report::{REPORT_CSP, report_head};

/// The start of the HTML reports' inline stylesheets (the audit's and the
/// log report's): the colours and fonts as custom properties, and the box
/// model. Each report writes its own rules after it.
pub const REPORT_CSS_BASE: &str = include_str!("report-base.css");
