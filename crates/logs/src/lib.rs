//! Access-log analysis for botwarden.
//!
//! The pipeline reads Apache, nginx and JSON-lines access logs
//! ([`format`]), accounts for every line ([`stats`]), classifies each
//! request's User-Agent and verifies the crawlers' addresses through
//! `botwarden-verify` ([`analyze`]), and produces a [`report`] and the
//! lists that web servers read at request time ([`export`]).

pub mod analyze;
pub mod export;
pub mod format;
pub mod input;
pub mod record;
pub mod report;
