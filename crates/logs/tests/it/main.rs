//! Integration tests of botwarden-logs.

mod format;
