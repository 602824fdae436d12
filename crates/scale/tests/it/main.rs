//! Integration tests of `botwarden-scale` against real servers on
//! loopback (`redis-server`, `nats-server`), started by the tests.

mod crawl;
mod exports;
mod secrets;
mod stream;
mod verdicts;
