//! Integration tests of botwarden-robots: one binary, one module per concern.

#![allow(clippy::print_stderr, clippy::print_stdout)]

mod agent_values;
mod conformance;
mod corpus;
mod fixer;
mod fixtures;
mod layering;
mod preferences;
mod reference;
mod support;
