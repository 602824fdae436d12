//! The analysis report: its data model and its text, JSON and HTML renderings.
//!
//! The JSON rendering is the model serialized with `serde_json`; see
//! `docs/report.md` for its documented shape.

mod html;
pub mod model;
mod text;

pub use html::render_html;
pub use model::Report;
pub use text::{TextOptions, render_text};
