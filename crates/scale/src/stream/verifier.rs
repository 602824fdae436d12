//! The central side: pairs in, verdicts to the bucket.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_nats::jetstream::{AckKind, Message};
use botwarden_verify::{Claim, Verdict, Verifier};
use futures_util::StreamExt;

use super::record::{PairMessage, VerdictRecord, now_ms};
use super::{NatsLogs, chain, nats_error, pair_key};
use crate::Error;

/// How a verifier takes pairs.
#[derive(Debug, Clone)]
pub struct VerifierOptions {
    /// Pairs verified at once (and so held unacknowledged at once).
    /// Default 64.
    pub in_flight: usize,
    /// Longest a request for more pairs waits when none come, before the
    /// verifier asks again. Default 1 s.
    pub fetch_wait: Duration,
}

impl Default for VerifierOptions {
    fn default() -> VerifierOptions {
        VerifierOptions {
            in_flight: 64,
            fetch_wait: Duration::from_secs(1),
        }
    }
}

/// Counters of a verifier.
#[derive(Debug, Default)]
pub struct VerifierStats {
    /// Pairs taken from the stream (redeliveries included).
    pub received: AtomicU64,
    /// Pairs verified and written to the bucket.
    pub verified: AtomicU64,
    /// Pairs whose verdict was in the bucket already (answered for another
    /// server, or before a redelivery): acknowledged without a lookup.
    pub already_answered: AtomicU64,
    /// Messages that were not a pair: refused (terminated), never
    /// redelivered, and logged.
    pub rejected: AtomicU64,
    /// Pairs verified whose verdict could not be written: left
    /// unacknowledged for redelivery.
    pub failed: AtomicU64,
}

/// Verifies the stream's pairs with `verifier` until `stop` completes,
/// sharing the durable consumer with any other verifier of the fleet, and
/// finishes the pairs it holds before it returns.
///
/// Each pair's verdict is written to the bucket (with the expiry of its
/// TTL class, [`StreamConfig`](super::StreamConfig)) before its message is
/// acknowledged: a verifier that dies holding pairs loses none, as
/// JetStream hands them to another after `ack_wait`.
///
/// # Errors
/// The consumer cannot be created or read.
pub async fn run_verifier(
    logs: &NatsLogs,
    verifier: Arc<Verifier>,
    options: &VerifierOptions,
    stats: Arc<VerifierStats>,
    stop: impl Future<Output = ()>,
) -> Result<(), Error> {
    let consumer = logs.consumer().await?;
    let in_flight = options.in_flight.max(1);
    let mut tasks = tokio::task::JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    'run: loop {
        while let Some(done) = tasks.try_join_next() {
            drop(done);
        }
        if tasks.len() >= in_flight {
            tokio::select! {
                _ = tasks.join_next() => continue 'run,
                () = &mut stop => break 'run,
            }
        }
        let batch = consumer
            .batch()
            .max_messages(in_flight - tasks.len())
            .expires(options.fetch_wait)
            .messages()
            .await;
        let mut batch = match batch {
            Ok(b) => b,
            Err(e) => {
                // NATS away for a while: try again (the client reconnects).
                tracing::warn!(error = %chain(&e), "asking for pairs");
                tokio::select! {
                    () = tokio::time::sleep(options.fetch_wait) => continue 'run,
                    () = &mut stop => break 'run,
                }
            }
        };
        loop {
            let next = tokio::select! {
                next = batch.next() => next,
                () = &mut stop => break 'run,
            };
            match next {
                Some(Ok(message)) => {
                    stats.received.fetch_add(1, Ordering::Relaxed);
                    let logs = logs.clone();
                    let verifier = verifier.clone();
                    let stats = stats.clone();
                    tasks.spawn(async move { handle(&logs, &verifier, &stats, message).await });
                }
                Some(Err(e)) => {
                    tracing::warn!(error = %chain(&*e), "receiving pairs");
                    break;
                }
                None => break,
            }
        }
    }
    // Finish what is held: its messages are acknowledged, not redelivered.
    while tasks.join_next().await.is_some() {}
    Ok(())
}

/// One pair: answered already, or verified and written, then acknowledged.
async fn handle(logs: &NatsLogs, verifier: &Verifier, stats: &VerifierStats, message: Message) {
    let pair: PairMessage = match serde_json::from_slice(&message.payload) {
        Ok(p) => p,
        Err(e) => {
            stats.rejected.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                subject = %message.subject,
                error = %e,
                "not a pair: refused"
            );
            let _ = message.ack_with(AckKind::Term).await;
            return;
        }
    };
    let key = pair_key(pair.ip, &pair.bot);
    if let Ok(Some(_)) = logs.fresh(&key).await {
        stats.already_answered.fetch_add(1, Ordering::Relaxed);
        let _ = message.ack().await;
        return;
    }
    let claim = Claim::Bot {
        name: pair.bot.clone(),
        category: pair.category.clone(),
    };
    let verdict = verifier
        .verify_claim(pair.ip, &claim, pair.as_of_time())
        .await;
    let ttl = match *verdict {
        Verdict::Unknown { .. } => logs.config.unknown_ttl,
        _ => logs.config.verdict_ttl,
    };
    let record = VerdictRecord::new(pair.ip, &pair.bot, &verdict, now_ms(), ttl);
    match logs.kv.put(&key, record.to_json().into()).await {
        Ok(_) => {
            stats.verified.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = message.ack().await {
                // Redelivered later and then found answered.
                tracing::warn!(key, error = %e, "acknowledging a pair");
            }
        }
        Err(e) => {
            stats.failed.fetch_add(1, Ordering::Relaxed);
            let error = nats_error(&logs.url, &format!("put {key}"), e);
            tracing::warn!(key, error = %chain(&error), "writing a verdict: left for redelivery");
            let _ = message
                .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                .await;
        }
    }
}
