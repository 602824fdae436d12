//! A shared crawl's workers in one process (`botwarden crawl --workers N`):
//! each a [`crawl_worker`] with a store of its own, on one
//! [`Coordinator`] (in-process, or one that workers elsewhere share too),
//! their stores merged into one when they are done.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use botwarden_fetch::Fetcher;
use botwarden_store::{MergeReport, Store, merge_stores};
use url::Url;

use crate::coordinator::{Coordinator, WorkerConfig, crawl_worker};
use crate::crawler::{CrawlConfig, CrawlEnd, StopSignal};
use crate::error::Error;

/// The workers [`crawl_workers`] starts.
#[derive(Debug, Clone)]
pub struct Workers {
    /// How many (one at least).
    pub count: usize,
    /// What every worker is given; the name is their common stem, each
    /// worker's is `NAME-1`, `NAME-2`, ….
    pub worker: WorkerConfig,
}

/// How the workers of [`crawl_workers`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkersEnd {
    /// The crawl's end as one crawl's: pages fetched by all the workers,
    /// whether any stopped, the URLs the merged store still queues.
    pub end: CrawlEnd,
    /// What the merge of their stores did.
    pub merged: MergeReport,
}

/// The store of worker `i` (from 1) beside the merged store `db`:
/// `STEM.workerI.db`.
#[must_use]
pub fn worker_store(db: &Path, i: usize) -> PathBuf {
    let stem = db
        .file_stem()
        .map_or_else(|| "crawl".into(), |s| s.to_string_lossy().into_owned());
    db.with_file_name(format!("{stem}.worker{i}.db"))
}

/// Crawls from `start` with `workers.count` workers in this process on
/// `coordinator`, each with a new store beside `db` ([`worker_store`]),
/// until the crawl is done or `stop` is raised; then merges their stores
/// into `db` (a new store), removes them, and returns `db` opened.
///
/// # Errors
/// [`Error::Store`] when a worker's store cannot be created, or the
/// merge fails; [`Error::Worker`] naming the worker's store when a worker
/// fails ([`crawl_worker`]).
pub async fn crawl_workers(
    coordinator: &dyn Coordinator,
    start: &Url,
    config: &CrawlConfig,
    workers: &Workers,
    fetcher: &Fetcher,
    db: &Path,
    stop: &StopSignal,
) -> Result<(Store, WorkersEnd), Error> {
    let paths: Vec<PathBuf> = (1..=workers.count.max(1))
        .map(|i| worker_store(db, i))
        .collect();
    let mut stores = Vec::new();
    for p in &paths {
        stores.push(Store::create(p)?);
    }
    let runs = stores.into_iter().enumerate().map(|(i, store)| {
        let worker = WorkerConfig {
            name: format!("{}-{}", workers.worker.name, i + 1),
            ..workers.worker.clone()
        };
        async move {
            crawl_worker(
                coordinator,
                start,
                config,
                &worker,
                fetcher,
                store,
                stop,
                |_| {},
            )
            .await
        }
    });
    let ends = futures_util::future::join_all(runs).await;
    let mut fetched = 0;
    let mut stopped = false;
    for (end, path) in ends.into_iter().zip(&paths) {
        let (store, end) = end.map_err(|error| Error::Worker {
            store: path.clone(),
            error: Box::new(error),
        })?;
        drop(store);
        fetched += end.stats.fetched;
        stopped |= end.stopped;
    }
    let merged = merge_stores(db, &paths)?;
    for p in &paths {
        remove_store(p);
    }
    let end = CrawlEnd {
        fetched,
        stopped,
        left: merged.queued,
        held: Vec::new(),
    };
    Ok((Store::open(db)?, WorkersEnd { end, merged }))
}

/// Removes a store's file and SQLite's files beside it, as far as it can.
fn remove_store(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = OsString::from(path.as_os_str());
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_stores_sit_beside_the_merged_store() {
        assert_eq!(
            worker_store(Path::new("/data/site.db"), 2),
            Path::new("/data/site.worker2.db")
        );
        assert_eq!(
            worker_store(Path::new("crawl"), 1),
            Path::new("crawl.worker1.db")
        );
    }
}
