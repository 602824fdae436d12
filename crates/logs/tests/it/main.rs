//! Integration tests of botwarden-logs.
mod report;
