//! One module per command or subcommand.

pub(crate) mod bots;
mod bots_classify;
pub(crate) mod bots_registry;
mod bots_update;
pub(crate) mod bots_verify;
pub(crate) mod crawl;
pub(crate) mod logs;
pub(crate) mod robots;
