//! One module per command group.

pub(crate) mod robots;
pub(crate) mod robots_fetch;
