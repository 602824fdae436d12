//! One module per command or subcommand.

pub(crate) mod bots;
pub(crate) mod crawl;
pub(crate) mod logs;
pub(crate) mod robots;
