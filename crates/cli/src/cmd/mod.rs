//! One module per command or subcommand.

pub(crate) mod bots;
mod bots_classify;
pub(crate) mod bots_registry;
mod bots_update;
pub(crate) mod bots_verify;
pub(crate) mod crawl;
pub(crate) mod logs;
mod logs_analyze;
pub(crate) mod robots;
mod robots_check;
mod robots_fetch;
mod robots_fix;
mod robots_test;
mod source;
