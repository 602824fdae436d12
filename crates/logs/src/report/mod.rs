//! The analysis report: its data model and its text, JSON and HTML renderings.

pub mod model;

pub use model::Report;
