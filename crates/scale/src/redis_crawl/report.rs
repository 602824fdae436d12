//! How a shared crawl's state reads for people: `crawl status`'s tables,
//! an outage while a worker waits, what `crawl reseed` put back.

use std::fmt;

use super::{CrawlStatus, HostStatus, Outage, Reseeded, WorkerStatus};

impl fmt::Display for Outage {
    /// `Redis NODE unreachable for N s (OPERATION: ERROR)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Redis {} unreachable for {} s ({}: {})",
            self.node,
            self.waited.as_secs(),
            self.operation,
            self.error
        )
    }
}

impl fmt::Display for Reseeded {
    /// `N URL(s) known on N host(s), N queued`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} URL(s) known on {} host(s), {} queued",
            self.known, self.hosts, self.queued
        )
    }
}

impl HostStatus {
    /// The header of the hosts' table, aligned as [`HostStatus`]'s rows.
    const HEADER: [&'static dyn fmt::Display; 14] = [
        &"host",
        &"queued",
        &"leased",
        &"in flight",
        &"done",
        &"errors",
        &"skipped",
        &"retries",
        &"requeued",
        &"delay ms",
        &"floor ms",
        &"parallel",
        &"window",
        &"paused ms",
    ];
}

impl fmt::Display for HostStatus {
    /// The host's row of `crawl status`'s table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        row(
            f,
            &[
                &self.host,
                &self.queued,
                &self.leased,
                &self.in_flight,
                &self.done,
                &self.errors,
                &self.skipped,
                &self.retries,
                &self.requeued,
                &self.delay_ms,
                &self.floor_ms,
                &self.parallel,
                &format!("{}/{}", self.window_errors, self.window),
                &self.paused_ms,
            ],
            &HOST_WIDTHS,
        )
    }
}

/// The widths of the hosts' table's columns.
const HOST_WIDTHS: [usize; 14] = [32, 8, 7, 9, 8, 7, 8, 8, 9, 9, 9, 8, 9, 9];

/// The widths of the workers' table's columns.
const WORKER_WIDTHS: [usize; 8] = [32, 8, 7, 8, 9, 7, 8, 11];

/// A row of a table: the first cell left-aligned in its width, the
/// others right-aligned in theirs, one space apart.
fn row(f: &mut fmt::Formatter<'_>, cells: &[&dyn fmt::Display], widths: &[usize]) -> fmt::Result {
    for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
        if i == 0 {
            write!(f, "{cell:<width$}")?;
        } else {
            write!(f, " {cell:>width$}")?;
        }
    }
    Ok(())
}

impl WorkerStatus {
    /// The header of the workers' table, aligned as [`WorkerStatus`]'s
    /// rows.
    const HEADER: [&'static dyn fmt::Display; 8] = [
        &"worker",
        &"fetched",
        &"errors",
        &"skipped",
        &"in flight",
        &"leased",
        &"state",
        &"reported",
    ];

    /// `ended`, `dead` or `running`.
    #[must_use]
    pub fn state(&self) -> &'static str {
        if self.ended {
            "ended"
        } else if self.dead {
            "dead"
        } else {
            "running"
        }
    }
}

impl fmt::Display for WorkerStatus {
    /// The worker's row of `crawl status`'s table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        row(
            f,
            &[
                &self.name,
                &self.fetched,
                &self.errors,
                &self.skipped,
                &self.in_flight,
                &self.leased,
                &self.state(),
                &format!("{} s ago", self.silent_ms / 1000),
            ],
            &WORKER_WIDTHS,
        )
    }
}

impl CrawlStatus {
    /// Whether Redis holds nothing of the crawl: never started, cleared,
    /// or all of it lost with its node (its record and its hosts share
    /// one slot when the crawl is named after its one host). Not a crawl
    /// that is fine.
    #[must_use]
    pub fn is_absent(&self) -> bool {
        self.seed.is_none() && self.unread.is_empty() && self.lost.is_empty()
    }

    /// Whether every part was read, nothing was lost, and the crawl is
    /// there.
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.lost.is_empty() && self.unread.is_empty() && !self.is_absent()
    }
}

impl fmt::Display for CrawlStatus {
    /// `crawl NAME: SEED`, then a row per host and a row per worker under
    /// their headers. What was lost or not read is left to the caller
    /// ([`CrawlStatus::lost`], [`CrawlStatus::unread`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seed = self.seed.as_deref().unwrap_or(if self.unread.is_empty() {
            "no such crawl"
        } else {
            "its record could not be read"
        });
        writeln!(f, "crawl {}: {seed}", self.crawl)?;
        row(f, &HostStatus::HEADER, &HOST_WIDTHS)?;
        writeln!(f)?;
        for h in &self.hosts {
            writeln!(f, "{h}")?;
        }
        row(f, &WorkerStatus::HEADER, &WORKER_WIDTHS)?;
        writeln!(f)?;
        for w in &self.workers {
            writeln!(f, "{w}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::time::Duration;

    use super::*;

    /// `crawl status`'s text as the command wrote it by hand.
    fn by_hand(s: &CrawlStatus) -> String {
        let mut out = String::new();
        let seed = s.seed.as_deref().unwrap_or(if s.unread.is_empty() {
            "no such crawl"
        } else {
            "its record could not be read"
        });
        writeln!(out, "crawl {}: {seed}", s.crawl).unwrap();
        writeln!(
            out,
            "{:<32} {:>8} {:>7} {:>9} {:>8} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9}",
            "host",
            "queued",
            "leased",
            "in flight",
            "done",
            "errors",
            "skipped",
            "retries",
            "requeued",
            "delay ms",
            "floor ms",
            "parallel",
            "window",
            "paused ms"
        )
        .unwrap();
        for h in &s.hosts {
            writeln!(
                out,
                "{:<32} {:>8} {:>7} {:>9} {:>8} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9}",
                h.host,
                h.queued,
                h.leased,
                h.in_flight,
                h.done,
                h.errors,
                h.skipped,
                h.retries,
                h.requeued,
                h.delay_ms,
                h.floor_ms,
                h.parallel,
                format!("{}/{}", h.window_errors, h.window),
                h.paused_ms
            )
            .unwrap();
        }
        writeln!(
            out,
            "{:<32} {:>8} {:>7} {:>8} {:>9} {:>7} {:>8} {:>11}",
            "worker", "fetched", "errors", "skipped", "in flight", "leased", "state", "reported"
        )
        .unwrap();
        for w in &s.workers {
            let state = if w.ended {
                "ended"
            } else if w.dead {
                "dead"
            } else {
                "running"
            };
            writeln!(
                out,
                "{:<32} {:>8} {:>7} {:>8} {:>9} {:>7} {:>8} {:>11}",
                w.name,
                w.fetched,
                w.errors,
                w.skipped,
                w.in_flight,
                w.leased,
                state,
                format!("{} s ago", w.silent_ms / 1000)
            )
            .unwrap();
        }
        out
    }

    fn status() -> CrawlStatus {
        let host = |name: &str, n: u64| HostStatus {
            host: name.into(),
            queued: n,
            leased: n / 2,
            seen_queued: n * 3,
            done: n * 1_000_003,
            errors: n % 7,
            skipped: n + 1,
            retries: 2,
            requeued: 1,
            in_flight: 3,
            delay_ms: 250 * n,
            floor_ms: 1_000,
            parallel: 4,
            window: 100,
            window_errors: n % 11,
            paused_ms: 0,
        };
        let worker = |name: &str, ended: bool, dead: bool| WorkerStatus {
            name: name.into(),
            fetched: 123_456,
            errors: 7,
            skipped: 9,
            in_flight: 2,
            leased: 5,
            ended,
            dead,
            reported_ms: 1_700_000_000_000,
            silent_ms: 12_345,
        };
        CrawlStatus {
            crawl: "docs.example:8080".into(),
            seed: Some("https://docs.example:8080/".into()),
            hosts: vec![
                host("docs.example:8080", 17),
                host(
                    "a-host-name-longer-than-thirty-two-columns.example",
                    123_456_789,
                ),
            ],
            workers: vec![
                worker("w-1", true, false),
                worker("w-2", false, true),
                worker("a-worker-name-longer-than-thirty-two-columns", false, false),
            ],
            lost: Vec::new(),
            unread: Vec::new(),
        }
    }

    #[test]
    fn the_status_reads_as_the_command_wrote_it() {
        let s = status();
        assert_eq!(s.to_string(), by_hand(&s));
        assert!(s.is_whole() && !s.is_absent());
        let none = CrawlStatus {
            crawl: "gone".into(),
            ..CrawlStatus::default()
        };
        assert_eq!(none.to_string(), by_hand(&none));
        assert!(none.to_string().starts_with("crawl gone: no such crawl\n"));
        assert!(none.is_absent() && !none.is_whole());
        let unread = CrawlStatus {
            unread: vec!["its record: timed out".into()],
            ..none
        };
        assert_eq!(unread.to_string(), by_hand(&unread));
        assert!(!unread.is_absent() && !unread.is_whole());
    }

    #[test]
    fn an_outage_and_a_reseed_read_as_one_line() {
        let outage = Outage {
            crawl: "site".into(),
            node: "127.0.0.1:6379".into(),
            operation: "claim".into(),
            waited: Duration::from_millis(15_900),
            error: "connection refused".into(),
        };
        assert_eq!(
            outage.to_string(),
            "Redis 127.0.0.1:6379 unreachable for 15 s (claim: connection refused)"
        );
        let reseeded = Reseeded {
            hosts: 2,
            known: 40,
            queued: 7,
        };
        assert_eq!(
            reseeded.to_string(),
            "40 URL(s) known on 2 host(s), 7 queued"
        );
    }
}
