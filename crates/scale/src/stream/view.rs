//! Every server's view of the verdicts, for its exports.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_nats::jetstream::kv;
use botwarden_logs::Listed;
use futures_util::StreamExt;

use super::record::{VerdictRecord, now_ms};
use super::{NatsLogs, chain};

/// How often expired verdicts are dropped from the view.
const SWEEP: Duration = Duration::from_secs(1);

/// The bucket's verdicts as one process sees them, kept current by a task
/// that watches the bucket: the input of a server's exports, which then
/// list every address verified for any server of the fleet. Expired
/// verdicts are left out (each carries its expiry; the bucket's own
/// `max_age` removes it later).
///
/// Write the exports with `botwarden_logs::Targets::write(&view.listed())`
/// whenever [`VerdictView::generation`] has changed.
#[derive(Debug)]
pub struct VerdictView {
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Debug, Default)]
struct Shared {
    records: Mutex<HashMap<String, VerdictRecord>>,
    generation: AtomicU64,
    loaded: AtomicBool,
    loaded_notify: tokio::sync::Notify,
}

impl Drop for VerdictView {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl VerdictView {
    /// Starts watching the bucket; returns once the verdicts already in
    /// it are loaded.
    pub async fn start(logs: &NatsLogs) -> VerdictView {
        let shared: Arc<Shared> = Arc::default();
        let task = tokio::spawn(watch(logs.clone(), shared.clone()));
        loop {
            let notified = shared.loaded_notify.notified();
            if shared.loaded.load(Ordering::Acquire) {
                break;
            }
            notified.await;
        }
        VerdictView { shared, task }
    }

    /// Bumped whenever the listed addresses may have changed.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::Relaxed)
    }

    /// Verdicts in the view that stand now (`unknown` ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        let now = now_ms();
        self.records().values().filter(|r| !r.expired(now)).count()
    }

    /// Whether no verdict stands now.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The fresh verdict on a key ([`pair_key`](super::pair_key)).
    #[must_use]
    pub fn get(&self, key: &str) -> Option<VerdictRecord> {
        let now = now_ms();
        self.records().get(key).filter(|r| !r.expired(now)).cloned()
    }

    /// Every address the exports list, sorted: the standing verdicts but
    /// `unknown` ones.
    #[must_use]
    pub fn listed(&self) -> Vec<Listed> {
        let now = now_ms();
        let mut out: Vec<Listed> = self
            .records()
            .values()
            .filter(|r| !r.expired(now))
            .filter_map(VerdictRecord::listed)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<String, VerdictRecord>> {
        self.shared
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Shared {
    fn set_loaded(&self) {
        self.loaded.store(true, Ordering::Release);
        self.loaded_notify.notify_waiters();
    }

    fn bump(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Drops expired verdicts; true when some were.
    fn sweep(&self) -> bool {
        let now = now_ms();
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let before = records.len();
        records.retain(|_, r| !r.expired(now));
        records.len() != before
    }
}

/// Loads the bucket, then follows its changes; after a broken watch (NATS
/// restarted, a reconnect) loads it again and forgets what is gone.
async fn watch(logs: NatsLogs, shared: Arc<Shared>) {
    let kv = &logs.kv;
    let mut backoff = Duration::from_millis(100);
    let mut sweep = tokio::time::interval(SWEEP);
    loop {
        match kv.watch_with_history(">").await {
            Ok(mut entries) => {
                backoff = Duration::from_millis(100);
                // Keys seen in this load; the rest are gone once it is done.
                let mut seen: Option<HashSet<String>> = Some(HashSet::new());
                let empty = bucket_is_empty(&logs).await;
                if empty {
                    finish_load(&shared, &mut seen);
                }
                loop {
                    let entry = tokio::select! {
                        entry = entries.next() => entry,
                        _ = sweep.tick() => {
                            if shared.sweep() {
                                shared.bump();
                            }
                            // What there was to load may have aged out
                            // before it came.
                            if seen.is_some() && bucket_is_empty(&logs).await {
                                finish_load(&shared, &mut seen);
                            }
                            continue;
                        }
                    };
                    let Some(Ok(entry)) = entry else { break };
                    {
                        let mut records = shared
                            .records
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        match entry.operation {
                            kv::Operation::Put => match VerdictRecord::from_json(&entry.value) {
                                Ok(record) => {
                                    records.insert(entry.key.clone(), record);
                                }
                                Err(e) => {
                                    tracing::warn!(key = entry.key, error = %e, "not a verdict: left out");
                                    records.remove(&entry.key);
                                }
                            },
                            kv::Operation::Delete | kv::Operation::Purge => {
                                records.remove(&entry.key);
                            }
                        }
                    }
                    if let Some(keys) = &mut seen {
                        keys.insert(entry.key);
                    }
                    if entry.delta == 0 || entry.seen_current {
                        finish_load(&shared, &mut seen);
                    }
                    shared.bump();
                }
            }
            Err(e) => tracing::warn!(error = %chain(&e), "watching the verdict bucket"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(10));
    }
}

/// The load is done: drops what it did not see.
fn finish_load(shared: &Shared, seen: &mut Option<HashSet<String>>) {
    if let Some(keys) = seen.take() {
        shared
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|k, _| keys.contains(k));
        shared.bump();
        shared.set_loaded();
    }
}

/// Whether the bucket holds no entry now (the store's own status is the
/// one read when it was opened).
async fn bucket_is_empty(logs: &NatsLogs) -> bool {
    let name = format!("KV_{}", logs.config.bucket);
    match logs.js.get_stream(&name).await {
        Ok(mut stream) => stream
            .info()
            .await
            .is_ok_and(|info| info.state.messages == 0),
        Err(_) => false,
    }
}
