//! The follower's side: pairs out, verdicts back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_nats::jetstream::kv;
use async_nats::jetstream::message::PublishMessage;
use botwarden_logs::{Pair, PairVerifier, VerdictFuture};
use botwarden_verify::Verdict;
use futures_util::StreamExt;
use tokio::sync::watch;

use super::record::{PairMessage, VerdictRecord, now_ms};
use super::{NatsLogs, pair_key};

/// How often a waiting pair reads the bucket itself, besides being woken
/// by the bucket's watcher (which can miss an update across a reconnect).
const RECHECK: Duration = Duration::from_secs(15);

/// Longest pause between attempts when NATS does not answer.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// Counters of a [`PairPublisher`].
#[derive(Debug, Default)]
pub struct PublisherStats {
    /// Pairs answered from the bucket without publishing (answered before,
    /// for this server or another).
    pub answered_from_bucket: AtomicU64,
    /// Pairs published and stored in the stream.
    pub published: AtomicU64,
    /// Pairs published and dropped by the stream as copies (another
    /// server, or this one before a restart, published them within the
    /// duplicate window).
    pub duplicates: AtomicU64,
    /// Verdicts received for published pairs.
    pub verdicts: AtomicU64,
    /// Publish or bucket errors retried (NATS unreachable for a while).
    pub retries: AtomicU64,
}

type Waiters = Mutex<HashMap<String, watch::Sender<Option<VerdictRecord>>>>;

/// Hands pairs to central verifiers over NATS and answers the analysis
/// with their verdicts: set it as the analysis's
/// [`AnalyzeOptions::pairs`](botwarden_logs::AnalyzeOptions::pairs).
///
/// A pair with a fresh verdict in the bucket is answered from there; any
/// other is published (message id = its key, [`pair_key`]) and awaited. The
/// analysis hands each pair out once per run: that is the seen-set. A
/// restarted follower therefore asks the bucket first and republishes only
/// pairs still unanswered, which the stream drops as copies within its
/// duplicate window, and a verifier skips as answered after it.
#[derive(Debug, Clone)]
pub struct PairPublisher {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    logs: NatsLogs,
    waiters: Arc<Waiters>,
    stats: Arc<PublisherStats>,
    watcher: tokio::task::JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

impl PairPublisher {
    /// A publisher on `logs`; must be called within a Tokio runtime (it
    /// starts the task that watches the bucket for awaited verdicts).
    #[must_use]
    pub fn new(logs: NatsLogs) -> PairPublisher {
        let waiters: Arc<Waiters> = Arc::default();
        let stats: Arc<PublisherStats> = Arc::default();
        let watcher = tokio::spawn(watch_bucket(
            logs.kv.clone(),
            waiters.clone(),
            stats.clone(),
        ));
        PairPublisher {
            inner: Arc::new(Inner {
                logs,
                waiters,
                stats,
                watcher,
            }),
        }
    }

    /// The counters.
    #[must_use]
    pub fn stats(&self) -> &Arc<PublisherStats> {
        &self.inner.stats
    }

    /// The verdict on one pair (what [`PairVerifier::verify`] answers).
    pub async fn answer(&self, pair: Pair) -> Arc<Verdict> {
        let inner = &self.inner;
        let message = PairMessage::of(&pair);
        let key = pair_key(message.ip, &message.bot);
        let mut rx = inner.subscribe(&key);
        let _unsubscribe = Unsubscribe {
            waiters: &inner.waiters,
            key: &key,
        };
        let mut backoff = Duration::from_millis(100);
        // Answered already?
        loop {
            match inner.logs.fresh(&key).await {
                Ok(Some(record)) => {
                    inner
                        .stats
                        .answered_from_bucket
                        .fetch_add(1, Ordering::Relaxed);
                    return Arc::new(record.to_verdict());
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(key, error = %super::chain(&e), "reading the verdict bucket");
                    inner.stats.retries.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        // Publish it, until the stream has it.
        let payload = serde_json::to_vec(&message).unwrap_or_default();
        let subject = inner.logs.config.subject(&key);
        loop {
            let sent = inner
                .logs
                .js
                .send_publish(
                    subject.clone(),
                    PublishMessage::build()
                        .message_id(&key)
                        .payload(payload.clone().into()),
                )
                .await;
            let acked = match sent {
                Ok(ack) => ack.await.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            match acked {
                Ok(ack) => {
                    let counter = if ack.duplicate {
                        &inner.stats.duplicates
                    } else {
                        &inner.stats.published
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Err(error) => {
                    tracing::warn!(key, error, "publishing a pair");
                    inner.stats.retries.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        // Await its verdict.
        loop {
            let woken = rx.borrow_and_update().clone();
            let record = match woken.filter(|r| !r.expired(now_ms())) {
                Some(r) => Some(r),
                None => inner.logs.fresh(&key).await.ok().flatten(),
            };
            if let Some(record) = record {
                inner.stats.verdicts.fetch_add(1, Ordering::Relaxed);
                return Arc::new(record.to_verdict());
            }
            let _ = tokio::time::timeout(RECHECK, rx.changed()).await;
        }
    }
}

impl PairVerifier for PairPublisher {
    fn verify(&self, pair: Pair) -> VerdictFuture {
        let this = self.clone();
        Box::pin(async move { this.answer(pair).await })
    }
}

impl Inner {
    fn subscribe(&self, key: &str) -> watch::Receiver<Option<VerdictRecord>> {
        let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        waiters
            .entry(key.to_owned())
            .or_insert_with(|| watch::channel(None).0)
            .subscribe()
    }
}

/// Forgets a waiting pair when its answer is done (or dropped).
struct Unsubscribe<'a> {
    waiters: &'a Waiters,
    key: &'a str,
}

impl Drop for Unsubscribe<'_> {
    fn drop(&mut self) {
        let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tx) = waiters.get(self.key)
            && tx.receiver_count() <= 1
        {
            waiters.remove(self.key);
        }
    }
}

/// Wakes the pairs waiting for the verdicts put in the bucket.
async fn watch_bucket(kv: kv::Store, waiters: Arc<Waiters>, stats: Arc<PublisherStats>) {
    let mut backoff = Duration::from_millis(100);
    loop {
        match kv.watch_all().await {
            Ok(mut entries) => {
                backoff = Duration::from_millis(100);
                while let Some(entry) = entries.next().await {
                    let Ok(entry) = entry else { break };
                    if entry.operation != kv::Operation::Put {
                        continue;
                    }
                    let waiters = waiters.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(tx) = waiters.get(&entry.key)
                        && let Ok(record) = VerdictRecord::from_json(&entry.value)
                    {
                        tx.send_replace(Some(record));
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "watching the verdict bucket");
                stats.retries.fetch_add(1, Ordering::Relaxed);
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}
