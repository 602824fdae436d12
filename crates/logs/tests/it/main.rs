//! Integration tests of botwarden-logs.

mod analyze;
mod export;
mod format;
mod report;
mod servers;
