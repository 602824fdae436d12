//! Integration tests of botwarden-verify.

#![allow(clippy::print_stderr)]

mod classify;
mod dns;
mod published_ranges;
mod registry;
mod ua_corpus;
mod verdicts;
