//! Integration tests of botwarden-robots: one binary, one module per concern.

mod conformance;
mod corpus;
mod fixtures;
mod reference;
mod support;
