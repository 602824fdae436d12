//! Integration tests of botwarden-logs.
