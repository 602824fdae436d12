//! Integration tests of botwarden-logs.

mod analyze;
mod export;
mod format;
mod join;
mod memory;
mod pairs;
mod report;
mod servers;
mod signed;

/// Every allocation is counted, for the memory test (`memory.rs`), which
/// runs alone in a process of its own.
#[global_allocator]
static ALLOCATOR: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;
