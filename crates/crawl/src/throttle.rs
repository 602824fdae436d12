//! Politeness by error rate: the seed crawler's throttling rule as a pure
//! state machine.
//!
//! The rule: over the last [`ThrottleConfig::window`] requests to a site
//! (100), count the *indicators* of trouble — connection failures and
//! resets, timeouts, `403`, `429` and `500`–`599`. At
//! [`ThrottleConfig::high`] (10) or more, add
//! [`ThrottleConfig::slower`] (100 ms) to the delay between requests and,
//! periodically, lower the parallelism by [`ThrottleConfig::fewer`] (2,
//! never below 1). At [`ThrottleConfig::low`] (4) or fewer, take
//! [`ThrottleConfig::faster`] (50 ms) off the delay (never below the floor)
//! and, periodically, raise the parallelism by [`ThrottleConfig::more`] (1,
//! never above the maximum). Between the two, nothing changes.
//!
//! What the rule leaves open, and how botwarden reads it:
//! - **When the rule is applied.** Every [`ThrottleConfig::every`] (10)
//!   requests, over the last `window` requests (fewer at the start of a
//!   crawl: the first decision waits for `every` requests). Applying it
//!   after every single request would add 100 ms per request for as long
//!   as ten old errors stay in the window (+10 s after one burst);
//!   applying it once per window would leave a failing site 100 requests
//!   before the first step back.
//! - **"Periodically"** means at most once per `window` requests: the
//!   parallelism changes at the first decision that asks for a change and
//!   then not again until `window` more requests have been made, so that
//!   the window has seen the new parallelism before it is judged.
//! - **Bounds.** The delay stays within the floor (`--delay`, raised to the
//!   site's `Crawl-delay` by the caller) and [`ThrottleConfig::max_delay`];
//!   the parallelism within 1 and the configured maximum.
//!
//! Every change is an [`Adjustment`] the caller records with the time.

use std::collections::VecDeque;
use std::time::Duration;

pub use botwarden_fetch::Outcome;

/// The numbers of the rule. [`ThrottleConfig::default`] holds the seed's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleConfig {
    /// Requests the indicators are counted over.
    pub window: u32,
    /// The rule is applied once every this many requests.
    pub every: u32,
    /// At this many indicators or more, slow down.
    pub high: u32,
    /// At this many indicators or fewer, speed up.
    pub low: u32,
    /// Added to the delay when slowing down.
    pub slower: Duration,
    /// Taken off the delay when speeding up.
    pub faster: Duration,
    /// Parallel requests taken away when slowing down (periodically).
    pub fewer: u32,
    /// Parallel requests added when speeding up (periodically).
    pub more: u32,
    /// The delay never goes below this (the configured delay, or the
    /// site's `Crawl-delay` if that is longer).
    pub min_delay: Duration,
    /// The delay never goes above this.
    pub max_delay: Duration,
    /// The parallelism never goes above this (nor below 1).
    pub max_parallel: u32,
}

impl Default for ThrottleConfig {
    fn default() -> Self {
        ThrottleConfig {
            window: 100,
            every: 10,
            high: 10,
            low: 4,
            slower: Duration::from_millis(100),
            faster: Duration::from_millis(50),
            fewer: 2,
            more: 1,
            min_delay: Duration::ZERO,
            max_delay: Duration::from_secs(60),
            max_parallel: 4,
        }
    }
}

/// Which way the rule went at one decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `high` or more indicators: slower.
    Slower,
    /// `low` or fewer: faster.
    Faster,
}

/// A change the rule made, for the caller to record with the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adjustment {
    /// Requests recorded so far, this one included.
    pub request: u64,
    /// Indicators among the last `requests_in_window`.
    pub indicators: u32,
    /// Requests the indicators were counted over (the window, or fewer at
    /// the start).
    pub requests_in_window: u32,
    /// Which way.
    pub direction: Direction,
    /// The delay before and after.
    pub delay: (Duration, Duration),
    /// The parallelism before and after.
    pub parallel: (u32, u32),
}

/// The throttle of one site.
#[derive(Debug, Clone)]
pub struct Throttle {
    config: ThrottleConfig,
    /// The last `window` outcomes, `true` for an indicator.
    recent: VecDeque<bool>,
    indicators: u32,
    requests: u64,
    delay: Duration,
    parallel: u32,
    /// The request count at the last change of parallelism.
    parallel_changed_at: Option<u64>,
}

impl Throttle {
    /// A throttle starting at `delay` (raised to the floor, capped) and
    /// `parallel` requests at once (within 1 and the maximum).
    #[must_use]
    pub fn new(config: ThrottleConfig, delay: Duration, parallel: u32) -> Self {
        let config = ThrottleConfig {
            window: config.window.max(1),
            every: config.every.max(1),
            max_parallel: config.max_parallel.max(1),
            max_delay: config.max_delay.max(config.min_delay),
            ..config
        };
        let delay = delay.clamp(config.min_delay, config.max_delay);
        let parallel = parallel.clamp(1, config.max_parallel);
        Throttle {
            recent: VecDeque::with_capacity(config.window as usize),
            config,
            indicators: 0,
            requests: 0,
            delay,
            parallel,
            parallel_changed_at: None,
        }
    }

    /// The delay to keep between two requests to the site now.
    #[must_use]
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// How many requests may be in flight to the site now.
    #[must_use]
    pub fn parallel(&self) -> u32 {
        self.parallel
    }

    /// Requests recorded so far.
    #[must_use]
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Indicators among the requests in the window now.
    #[must_use]
    pub fn indicators(&self) -> u32 {
        self.indicators
    }

    /// The numbers the throttle runs by (after bounds were applied).
    #[must_use]
    pub fn config(&self) -> &ThrottleConfig {
        &self.config
    }

    /// Raises the floor of the delay (a `Crawl-delay` learnt during the
    /// crawl); the delay follows if it was below.
    pub fn raise_floor(&mut self, floor: Duration) {
        if floor > self.config.min_delay {
            self.config.min_delay = floor;
            self.config.max_delay = self.config.max_delay.max(floor);
            self.delay = self.delay.max(floor);
        }
    }

    /// Records how a request ended; applies the rule when it is due and
    /// returns the change it made, if any.
    pub fn record(&mut self, outcome: Outcome) -> Option<Adjustment> {
        let indicator = outcome.is_indicator();
        if self.recent.len() == self.config.window as usize && self.recent.pop_front() == Some(true)
        {
            self.indicators -= 1;
        }
        self.recent.push_back(indicator);
        self.indicators += u32::from(indicator);
        self.requests += 1;
        if !self.requests.is_multiple_of(u64::from(self.config.every)) {
            return None;
        }
        let direction = if self.indicators >= self.config.high {
            Direction::Slower
        } else if self.indicators <= self.config.low {
            Direction::Faster
        } else {
            return None;
        };
        let c = &self.config;
        let (delay, parallel) = (self.delay, self.parallel);
        let periodic = self
            .parallel_changed_at
            .is_none_or(|at| self.requests - at >= u64::from(c.window));
        let (new_delay, new_parallel) = match direction {
            Direction::Slower => (
                (delay + c.slower).min(c.max_delay),
                if periodic {
                    parallel.saturating_sub(c.fewer).max(1)
                } else {
                    parallel
                },
            ),
            Direction::Faster => (
                delay.saturating_sub(c.faster).max(c.min_delay),
                if periodic {
                    parallel.saturating_add(c.more).min(c.max_parallel)
                } else {
                    parallel
                },
            ),
        };
        if new_parallel != parallel {
            self.parallel_changed_at = Some(self.requests);
        }
        if (new_delay, new_parallel) == (delay, parallel) {
            return None;
        }
        self.delay = new_delay;
        self.parallel = new_parallel;
        Some(Adjustment {
            request: self.requests,
            indicators: self.indicators,
            requests_in_window: self.recent.len() as u32,
            direction,
            delay: (delay, new_delay),
            parallel: (parallel, new_parallel),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: Outcome = Outcome::Status(200);
    const ERR: Outcome = Outcome::Status(503);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn config(max_parallel: u32) -> ThrottleConfig {
        ThrottleConfig {
            max_parallel,
            ..ThrottleConfig::default()
        }
    }

    /// Records `n` outcomes, `bad` of each ten indicators (spread at the
    /// start of each ten), and returns the adjustments.
    fn run(t: &mut Throttle, n: usize, bad_per_ten: usize) -> Vec<Adjustment> {
        (0..n)
            .filter_map(|i| t.record(if i % 10 < bad_per_ten { ERR } else { OK }))
            .collect()
    }

    #[test]
    fn indicators_are_the_seeds() {
        for s in [403, 429, 500, 502, 503, 599] {
            assert!(Outcome::Status(s).is_indicator(), "{s}");
        }
        for s in [200, 204, 301, 304, 400, 401, 404, 410, 451, 600] {
            assert!(!Outcome::Status(s).is_indicator(), "{s}");
        }
        assert!(Outcome::ConnectionFailed.is_indicator());
        assert!(Outcome::TimedOut.is_indicator());
    }

    #[test]
    fn ten_indicators_in_a_hundred_slow_down_step_by_step() {
        let mut t = Throttle::new(config(8), ms(0), 8);
        // One error in every ten requests: the window reaches 10 indicators
        // at request 100, and stays there.
        let steps = run(&mut t, 100, 1);
        assert_eq!(steps.len(), 1, "{steps:?}");
        let s = steps[0];
        assert_eq!(s.request, 100);
        assert_eq!((s.indicators, s.requests_in_window), (10, 100));
        assert_eq!(s.direction, Direction::Slower);
        assert_eq!(s.delay, (ms(0), ms(100)));
        assert_eq!(s.parallel, (8, 6));
        // Every ten requests after: 100 ms more; parallelism again only
        // after a whole window.
        let steps = run(&mut t, 100, 1);
        let delays: Vec<u64> = steps.iter().map(|s| s.delay.1.as_millis() as u64).collect();
        assert_eq!(delays, [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]);
        let parallel: Vec<u32> = steps.iter().map(|s| s.parallel.1).collect();
        assert_eq!(parallel, [6, 6, 6, 6, 6, 6, 6, 6, 6, 4]);
        assert_eq!((t.delay(), t.parallel()), (ms(1100), 4));
    }

    #[test]
    fn parallelism_never_goes_below_one_nor_delay_above_its_cap() {
        let cfg = ThrottleConfig {
            max_delay: ms(350),
            ..config(3)
        };
        let mut t = Throttle::new(cfg, ms(0), 3);
        run(&mut t, 1000, 10);
        assert_eq!((t.delay(), t.parallel()), (ms(350), 1));
        // At the bounds, nothing changes and nothing is reported.
        assert!(run(&mut t, 100, 10).is_empty());
    }

    #[test]
    fn four_or_fewer_speed_up_to_the_floor_and_the_maximum() {
        let cfg = ThrottleConfig {
            min_delay: ms(120),
            ..config(4)
        };
        let mut t = Throttle::new(cfg, ms(400), 1);
        let steps = run(&mut t, 50, 0);
        // Every ten requests: 50 ms less; parallelism +1 at the first, then
        // not within the window.
        let got: Vec<(u64, u64, u32)> = steps
            .iter()
            .map(|s| (s.request, s.delay.1.as_millis() as u64, s.parallel.1))
            .collect();
        assert_eq!(
            got,
            [
                (10, 350, 2),
                (20, 300, 2),
                (30, 250, 2),
                (40, 200, 2),
                (50, 150, 2)
            ]
        );
        run(&mut t, 400, 0);
        assert_eq!((t.delay(), t.parallel()), (ms(120), 4));
    }

    #[test]
    fn between_five_and_nine_nothing_changes() {
        let mut t = Throttle::new(config(4), ms(500), 2);
        // Skip the start, where few requests have few indicators.
        let mut steps = Vec::new();
        for i in 0..300 {
            // 7 indicators in every hundred.
            let bad = i % 100 < 7;
            steps.extend(t.record(if bad { Outcome::TimedOut } else { OK }));
        }
        let late: Vec<_> = steps.iter().filter(|s| s.request > 100).collect();
        assert!(late.is_empty(), "{late:?}");
        assert!((5..=9).contains(&t.indicators()));
    }

    #[test]
    fn recovery_after_a_burst_waits_for_the_window_to_forget_it() {
        let mut t = Throttle::new(config(4), ms(0), 4);
        // A burst of 20 errors, then health.
        for _ in 0..20 {
            t.record(Outcome::ConnectionFailed);
        }
        assert_eq!((t.delay(), t.parallel()), (ms(200), 2));
        let steps = run(&mut t, 200, 0);
        // The burst stays in the window until request 120: slower at 30 …
        // 110 (the error count is 20, then 10 at 110), faster from 120 on,
        // when the window holds none of it.
        let slower = steps
            .iter()
            .filter(|s| s.direction == Direction::Slower)
            .count();
        assert_eq!(slower, 9);
        let first_faster = steps
            .iter()
            .find(|s| s.direction == Direction::Faster)
            .expect("speeds up");
        assert_eq!(first_faster.request, 120);
        assert_eq!(first_faster.indicators, 0);
    }

    #[test]
    fn a_crawl_delay_raises_the_floor() {
        let mut t = Throttle::new(config(2), ms(0), 2);
        t.raise_floor(ms(2000));
        assert_eq!(t.delay(), ms(2000));
        run(&mut t, 100, 0);
        assert_eq!(t.delay(), ms(2000));
        // A lower floor later changes nothing.
        t.raise_floor(ms(10));
        assert_eq!(t.config().min_delay, ms(2000));
    }

    #[test]
    fn degenerate_settings_are_bounded() {
        let cfg = ThrottleConfig {
            window: 0,
            every: 0,
            max_parallel: 0,
            min_delay: ms(50),
            max_delay: ms(10),
            ..ThrottleConfig::default()
        };
        let mut t = Throttle::new(cfg, ms(0), 0);
        assert_eq!((t.delay(), t.parallel()), (ms(50), 1));
        for _ in 0..10 {
            t.record(ERR);
        }
        assert_eq!(t.config().window, 1);
        assert_eq!(t.delay(), ms(50));
    }
}
