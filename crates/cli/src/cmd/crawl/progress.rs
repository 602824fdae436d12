//! A crawl by one worker in this process, with the progress line on a
//! terminal.

use std::time::{Duration, Instant};

use botwarden_crawl::{CrawlConfig, CrawlEnd, StopSignal, crawl};
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use url::Url;

use super::options::stop_on_signal;

/// Pages a second over the last few seconds.
struct Rate {
    samples: std::collections::VecDeque<(Instant, u64)>,
}

impl Rate {
    /// Seconds the rate is taken over.
    const SPAN: Duration = Duration::from_secs(10);

    fn new() -> Rate {
        Rate {
            samples: std::collections::VecDeque::new(),
        }
    }

    fn update(&mut self, fetched: u64) -> f64 {
        let now = Instant::now();
        self.samples.push_back((now, fetched));
        while self
            .samples
            .front()
            .is_some_and(|(at, _)| now.duration_since(*at) > Rate::SPAN)
        {
            self.samples.pop_front();
        }
        match self.samples.front() {
            Some((at, first)) if now.duration_since(*at) >= Duration::from_millis(500) => {
                (fetched - first) as f64 / now.duration_since(*at).as_secs_f64()
            }
            _ => 0.0,
        }
    }
}

/// A crawl by one worker in this process.
pub(super) struct Here<'a> {
    pub(super) start: &'a Url,
    pub(super) config: &'a CrawlConfig,
    pub(super) fetcher: &'a Fetcher,
    pub(super) resume: bool,
    pub(super) stop: &'a StopSignal,
    /// Standard error is a terminal: show the progress line.
    pub(super) terminal: bool,
}

impl Here<'_> {
    /// Crawls into `store` until done or stopped (Ctrl-C or SIGTERM raise
    /// the stop signal), with the progress line on a terminal.
    pub(super) async fn crawl(
        &self,
        store: Store,
    ) -> Result<(Store, CrawlEnd), botwarden_crawl::Error> {
        stop_on_signal(self.stop);
        let bar = self.terminal.then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let width = usize::from(terminal_width().unwrap_or(80).saturating_sub(3));
        let mut rate = Rate::new();
        let stop = self.stop;
        let crawled = crawl(
            self.start,
            self.config,
            self.fetcher,
            store,
            self.resume,
            stop,
            |p| {
                if let Some(bar) = &bar {
                    let per_second = rate.update(p.fetched);
                    bar.set_message(p.line(per_second, stop.is_stopped(), width));
                }
            },
        )
        .await;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        crawled
    }
}

/// The terminal's width in columns, from `COLUMNS` when set.
fn terminal_width() -> Option<u16> {
    std::env::var("COLUMNS").ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_of_the_last_seconds() {
        let mut rate = Rate::new();
        let long_ago = Instant::now() - Duration::from_secs(60);
        rate.samples.push_back((long_ago, 0));
        rate.samples
            .push_back((Instant::now() - Duration::from_secs(2), 1_000));
        let r = rate.update(1_100);
        // 100 pages in about 2 s, not 1,100 in 60 s.
        assert!(r > 30.0 && r < 60.0, "{r}");
    }
}
