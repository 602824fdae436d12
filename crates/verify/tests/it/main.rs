//! Integration tests of botwarden-verify.

#![allow(clippy::print_stderr)]

mod published_ranges;
mod registry;
