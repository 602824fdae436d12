//! Integration tests of botwarden-logs.

mod export;
mod servers;
