//! botwarden beyond one machine, on engines that already exist: Redis (or
//! Valkey) holds the state many processes share — verdicts and DNS answers
//! behind each process's own cache, and a crawl's frontier, seen-set and
//! per-host politeness for many workers — and NATS JetStream carries the
//! (address, claim) pairs of a fleet's logs to central verifiers.
//!
//! The libraries below stay single-machine and know nothing of Redis or
//! NATS: this crate plugs into the seams they offer.

mod connect;
pub mod error;
pub mod redis_crawl;
pub mod redis_verdicts;
pub mod stream;

pub use connect::{NatsTarget, RedisTarget, Secret, redact_url};
pub use error::Error;
pub use redis_crawl::{
    CrawlStatus, DEAD_AFTER, HostStatus, Outage, Patience, RedisCoordinator, Reseeded, WorkerStatus,
};
pub use redis_verdicts::{
    Announced, Announcement, Applied, ExportFile, ExportTree, ExportsFollower, FollowStep,
    RedisExports, RedisFeeds, RedisVerdicts, Refused, ReloadCommand, ReloadStatus, Reloaded,
    SharedFeed, Timeouts, TreeLimits, Written, is_plain_name, write_announcement,
};
