//! Logs of many web servers verified centrally over NATS JetStream.
//!
//! Each web server's follower hands the (address, claimed bot) pairs its
//! log shows to [`PairPublisher`] (a [`PairVerifier`](botwarden_logs::PairVerifier)
//! for [`AnalyzeOptions::pairs`](botwarden_logs::AnalyzeOptions::pairs)):
//! a pair already answered in the verdict bucket is answered from there;
//! any other is published once to the stream `BOTWARDEN_PAIRS` (subject
//! `botwarden.pairs.<shard>`, message id = the pair's key, so that
//! JetStream drops the copies other servers publish within the duplicate
//! window) and its verdict awaited from the bucket. Central verifiers
//! ([`run_verifier`]) share one durable pull consumer: each takes pairs,
//! verifies them (DNS), writes the verdict to the KV bucket
//! `botwarden_verdicts` and only then acknowledges the message, so that a
//! verifier killed mid-stream leaves its unacknowledged pairs to be
//! redelivered to another. Every server renders its exports from the
//! bucket ([`VerdictView`]). `crates/scale/docs/nats.md` has the whole
//! design, the names and the settings.

mod publisher;
mod record;
mod verifier;
mod view;

use std::net::IpAddr;
use std::time::Duration;

use async_nats::jetstream::{self, consumer, kv, stream};

use crate::{Error, NatsTarget};

pub use publisher::{PairPublisher, PublisherStats};
pub use record::{PairMessage, VerdictRecord};
pub use verifier::{VerifierOptions, VerifierStats, run_verifier};
pub use view::VerdictView;

/// Names and settings of the stream, the consumer and the bucket. Every
/// process of a fleet must use the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamConfig {
    /// The stream of pairs. Default `BOTWARDEN_PAIRS`.
    pub stream: String,
    /// The subjects' prefix: pairs go to `<prefix>.<shard>`. Default
    /// `botwarden.pairs`.
    pub subject_prefix: String,
    /// Shards the subjects are split in (by the pair's key), so that
    /// consumers can later be split by subject. Default 16.
    pub shards: u32,
    /// How long JetStream remembers a message id to drop a copy of it
    /// (the stream's `duplicate_window`). Default 10 minutes.
    pub duplicate_window: Duration,
    /// How long a pair waits in the stream for a verifier before it is
    /// dropped (the stream's `max_age`). Default 7 days.
    pub pair_max_age: Duration,
    /// The verifiers' durable consumer. Default `botwarden-verifiers`.
    pub consumer: String,
    /// How long a verifier may hold a pair without acknowledging it before
    /// JetStream hands it to another (`ack_wait`). Default 30 s.
    pub ack_wait: Duration,
    /// Deliveries of one pair before JetStream gives up on it
    /// (`max_deliver`); each takes a verifier that took it and did not
    /// acknowledge it in `ack_wait`. Default 20.
    pub max_deliver: i64,
    /// The bucket of verdicts. Default `botwarden_verdicts`.
    pub bucket: String,
    /// How long a verified, spoofed or unverifiable verdict stands.
    /// Default 24 hours.
    pub verdict_ttl: Duration,
    /// How long an `unknown` verdict (DNS failed) stands. Default 60 s.
    pub unknown_ttl: Duration,
}

impl Default for StreamConfig {
    fn default() -> StreamConfig {
        StreamConfig {
            stream: "BOTWARDEN_PAIRS".to_owned(),
            subject_prefix: "botwarden.pairs".to_owned(),
            shards: 16,
            duplicate_window: Duration::from_secs(600),
            pair_max_age: Duration::from_secs(7 * 24 * 3600),
            consumer: "botwarden-verifiers".to_owned(),
            ack_wait: Duration::from_secs(30),
            max_deliver: 20,
            bucket: "botwarden_verdicts".to_owned(),
            verdict_ttl: Duration::from_secs(24 * 3600),
            unknown_ttl: Duration::from_secs(60),
        }
    }
}

impl StreamConfig {
    /// The bucket's one `max_age`: the longest TTL. Each verdict carries
    /// its own expiry, which readers check; the bucket's age only removes
    /// it from the server at last.
    #[must_use]
    pub fn bucket_max_age(&self) -> Duration {
        self.verdict_ttl.max(self.unknown_ttl)
    }

    /// The subject a pair is published on.
    #[must_use]
    pub fn subject(&self, key: &str) -> String {
        let shard = fnv1a(key.as_bytes()) % u64::from(self.shards.max(1));
        format!("{}.{shard}", self.subject_prefix)
    }
}

/// A connection to NATS with the stream and the bucket in place.
#[derive(Debug, Clone)]
pub struct NatsLogs {
    url: String,
    config: StreamConfig,
    js: jetstream::Context,
    kv: kv::Store,
    stream: stream::Stream,
}

impl NatsLogs {
    /// Connects to `url` (`nats://host:port`, several comma-separated for
    /// a cluster; credentials in it as [`NatsTarget`] takes them) and
    /// creates the stream and the bucket when they are missing (an
    /// existing one is used as it is).
    ///
    /// # Errors
    /// The URL does not parse, the server cannot be reached, refuses the
    /// credentials, has no JetStream, or refuses to create the stream or
    /// the bucket.
    pub async fn connect(url: &str, config: StreamConfig) -> Result<NatsLogs, Error> {
        NatsLogs::open(&NatsTarget::parse(url)?, config).await
    }

    /// Connects to `target` (its credentials and TLS settings) as
    /// [`NatsLogs::connect`] does. Messages show the target without its
    /// secrets.
    ///
    /// # Errors
    /// As [`NatsLogs::connect`].
    pub async fn open(target: &NatsTarget, config: StreamConfig) -> Result<NatsLogs, Error> {
        let url = &target.to_string();
        let client = target
            .options()?
            .connect(target.servers())
            .await
            .map_err(|e| nats_error(url, "connect", e))?;
        let js = jetstream::new(client);
        let stream = js
            .get_or_create_stream(stream::Config {
                name: config.stream.clone(),
                description: Some("botwarden: (address, claimed bot) pairs to verify".to_owned()),
                subjects: vec![format!("{}.>", config.subject_prefix)],
                retention: stream::RetentionPolicy::WorkQueue,
                storage: stream::StorageType::File,
                duplicate_window: config.duplicate_window,
                max_age: config.pair_max_age,
                ..stream::Config::default()
            })
            .await
            .map_err(|e| nats_error(url, &format!("create stream {}", config.stream), e))?;
        let kv = match js.get_key_value(config.bucket.clone()).await {
            Ok(kv) => kv,
            Err(_) => {
                // The bucket's stream, as `create_key_value` makes it: that
                // call first reads the account's information, which
                // async-nats 0.51 cannot parse from a 2.9 server.
                let created = js
                    .create_stream(stream::Config {
                        name: format!("KV_{}", config.bucket),
                        description: Some("botwarden: verdicts on (address, bot) pairs".to_owned()),
                        subjects: vec![format!("$KV.{}.>", config.bucket)],
                        max_messages_per_subject: 1,
                        max_age: config.bucket_max_age(),
                        storage: stream::StorageType::File,
                        allow_rollup: true,
                        deny_delete: true,
                        allow_direct: true,
                        discard: stream::DiscardPolicy::New,
                        num_replicas: 1,
                        ..stream::Config::default()
                    })
                    .await;
                let what = format!("create bucket {}", config.bucket);
                match (created, js.get_key_value(config.bucket.clone()).await) {
                    (_, Ok(kv)) => kv,
                    (Err(e), Err(_)) => return Err(nats_error(url, &what, e)),
                    (Ok(_), Err(e)) => return Err(nats_error(url, &what, e)),
                }
            }
        };
        Ok(NatsLogs {
            url: url.to_owned(),
            config,
            js,
            kv,
            stream,
        })
    }

    /// The URL given to [`NatsLogs::connect`], its secrets hidden.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// The verdict bucket.
    #[must_use]
    pub fn bucket(&self) -> &kv::Store {
        &self.kv
    }

    /// The fresh verdict on a pair in the bucket, if any: `Ok(None)` when
    /// there is none or it has expired.
    ///
    /// # Errors
    /// The bucket cannot be read.
    pub async fn verdict(&self, ip: IpAddr, bot: &str) -> Result<Option<VerdictRecord>, Error> {
        self.fresh(&pair_key(ip, bot)).await
    }

    async fn fresh(&self, key: &str) -> Result<Option<VerdictRecord>, Error> {
        let value = self.kv.get(key).await.map_err(|e| {
            nats_error(
                &self.url,
                &format!("get {key} from {}", self.config.bucket),
                e,
            )
        })?;
        Ok(value
            .and_then(|v| VerdictRecord::from_json(&v).ok())
            .filter(|r| !r.expired(record::now_ms())))
    }

    /// Pairs waiting in the stream for a verifier (and held by one,
    /// unacknowledged).
    ///
    /// # Errors
    /// The stream's information cannot be read.
    pub async fn waiting(&self) -> Result<u64, Error> {
        let mut stream = self.stream.clone();
        let info = stream
            .info()
            .await
            .map_err(|e| nats_error(&self.url, &format!("info of {}", self.config.stream), e))?;
        Ok(info.state.messages)
    }

    async fn consumer(&self) -> Result<consumer::PullConsumer, Error> {
        let name = self.config.consumer.clone();
        self.stream
            .get_or_create_consumer(
                &name,
                consumer::pull::Config {
                    durable_name: Some(name.clone()),
                    description: Some("botwarden verifiers".to_owned()),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ack_wait: self.config.ack_wait,
                    max_deliver: self.config.max_deliver,
                    ..consumer::pull::Config::default()
                },
            )
            .await
            .map_err(|e| nats_error(&self.url, &format!("create consumer {name}"), e))
    }
}

/// The key of a pair, in the bucket and as the message id: the address
/// (IPv4-mapped IPv6 as IPv4; `:` written `_`), a `.`, and the bot's name
/// with every byte outside `A-Z a-z 0-9 - _` written `=XX` (two uppercase
/// hex digits). `192.0.2.1.Googlebot`, `2001_db8__1.Sogou=20web=20spider`.
#[must_use]
pub fn pair_key(ip: IpAddr, bot: &str) -> String {
    let mut key = ip.to_canonical().to_string().replace(':', "_");
    key.push('.');
    for &b in bot.as_bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            key.push(char::from(b));
        } else {
            key.push_str(&format!("={b:02X}"));
        }
    }
    key
}

/// FNV-1a, 64 bits: a stable hash for shards (the same in every process
/// and version).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn nats_error(
    url: &str,
    operation: &str,
    source: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::Nats {
        url: url.to_owned(),
        operation: operation.to_owned(),
        source: Box::new(source),
    }
}

/// An error with its causes, for logs.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
