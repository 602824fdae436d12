//! The published range feeds compiled into the binary, by URL.

pub(super) const FEEDS: &[(&str, &str)] = &[];
