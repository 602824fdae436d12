//! Integration tests of botwarden-logs.
mod report;

mod export;
mod servers;
mod analyze;
