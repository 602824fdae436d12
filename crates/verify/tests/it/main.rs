//! Integration tests of botwarden-verify.

#![allow(clippy::print_stderr)]

mod dns;
mod dns_server;
mod published_ranges;
mod registry;
mod verdicts;
