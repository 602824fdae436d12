//! Integration tests of botwarden-verify.

#![allow(clippy::print_stderr)]

mod ai_robots;
mod classify;
mod client_names;
mod default_registry;
mod dns;
mod interop;
mod published_ranges;
mod registry;
mod ua_corpus;
mod ua_precision;
mod verdicts;
mod webbotauth;
