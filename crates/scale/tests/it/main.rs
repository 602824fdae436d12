//! Integration tests of botwarden-scale against real servers on loopback.

mod stream;
