//! Integration tests of botwarden-logs.
mod report;

mod analyze;
mod export;
mod servers;
