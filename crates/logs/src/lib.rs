//! Access-log analysis for botwarden.
//!
//! The pipeline ([`analyze`]) reads Apache, nginx and JSON-lines access
//! logs ([`input`], [`mod@format`]), accounts for every line, classifies
//! each request's User-Agent and verifies the crawlers' addresses through
//! `botwarden-verify`, and produces a [`report`] and the lists that web
//! servers read at request time ([`export`]).

pub mod analyze;
pub mod export;
pub mod format;
pub mod input;
pub mod record;
pub mod report;
