//! Integration tests of `botwarden-crawl`, against real servers on loopback.
fn main() {}
