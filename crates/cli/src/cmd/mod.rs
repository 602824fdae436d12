//! One module per command group.

pub(crate) mod robots;
