//! Integration tests of botwarden-verify.

#![allow(clippy::print_stderr)]

mod classify;
mod published_ranges;
mod ua_corpus;
