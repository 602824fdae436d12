//! The scheduler's side of `--render` ([`crate::render`]): HTML pages
//! rendered beside the crawl, at most twice as many waiting as the
//! browser has tabs; the browser's requests judged by robots.txt, spaced
//! by their host's throttle, fetched by the crawl's fetcher and kept for
//! the rest of the crawl.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use botwarden_fetch::{Outcome, RetryAfter, SubresourceResponse};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{self, JoinSet};
use tokio::time::Instant;
use url::Url;

use super::{Host, Run};
use crate::frontier::Queued;
use crate::pipeline::{Answer, RobotsState, host_key, origin_key, record_lost, throttle_record};
use crate::render::{
    RenderJob, RenderSetup, RenderedPage, ResourceAnswer, ResourceAsk, ResourceGate,
};
use crate::throttle::Throttle;

/// A resource fetched for the browser: the answer, for every request that
/// waits for it.
type Fetched = (String, Result<SubresourceResponse, botwarden_fetch::Error>);

/// What `--render` keeps while the crawl runs.
pub(super) struct Rendering {
    setup: RenderSetup,
    gate: ResourceGate,
    asks: mpsc::UnboundedReceiver<ResourceAsk>,
    /// Renders under way, each with the page it renders.
    renders: JoinSet<(Box<Answer>, RenderedPage)>,
    pages: HashMap<task::Id, Queued>,
    /// Requests of the browser waiting for their robots.txt or their
    /// host's turn.
    waiting: VecDeque<ResourceAsk>,
    /// Resources being fetched, with the requests that wait for each.
    fetching: JoinSet<Fetched>,
    joined: HashMap<String, Vec<oneshot::Sender<ResourceAnswer>>>,
    cache: Cache,
}

/// What woke the scheduler, of rendering.
pub(super) enum RenderEvent {
    Ask(ResourceAsk),
    Fetched(Result<Fetched, task::JoinError>),
    Rendered(Result<(task::Id, (Box<Answer>, RenderedPage)), task::JoinError>),
}

impl Rendering {
    pub(super) fn new(setup: RenderSetup) -> Rendering {
        let (gate, asks) = ResourceGate::channel();
        Rendering {
            setup,
            gate,
            asks,
            renders: JoinSet::new(),
            pages: HashMap::new(),
            waiting: VecDeque::new(),
            fetching: JoinSet::new(),
            joined: HashMap::new(),
            cache: Cache::default(),
        }
    }

    /// Whether more pages waiting for the browser would only hold memory:
    /// twice as many as it has tabs are waiting or being rendered.
    pub(super) fn is_full(&self) -> bool {
        self.renders.len() >= 2 * self.setup.renderer.tabs().max(1)
    }

    /// Whether anything of rendering is under way (a request waiting is
    /// a render's, which is under way).
    pub(super) fn is_busy(&self) -> bool {
        !self.renders.is_empty() || !self.fetching.is_empty()
    }

    /// Whether an answered page goes to the browser: an HTML page read
    /// with success.
    pub(super) fn takes(answer: &Answer) -> bool {
        answer.is_renderable()
    }

    /// Renders the page of `answer`; it is taken in when the render ends.
    pub(super) fn start(&mut self, answer: Answer) {
        let job = answer.render_job();
        let q = answer.q.clone();
        let render = self.setup.renderer.clone().render(job, self.gate.clone());
        let answer = Box::new(answer);
        let handle = self.renders.spawn(async move { (answer, render.await) });
        self.pages.insert(handle.id(), q);
    }

    /// The next event of rendering; never, when nothing is under way.
    pub(super) async fn next(&mut self) -> RenderEvent {
        tokio::select! {
            Some(ask) = self.asks.recv() => RenderEvent::Ask(ask),
            Some(done) = self.fetching.join_next() => RenderEvent::Fetched(done),
            Some(done) = self.renders.join_next_with_id() => RenderEvent::Rendered(done),
        }
    }
}

impl RenderJob {
    /// A job for `url` with the raw answer's parts.
    pub(crate) fn of(url: Url, status: u16, headers: Vec<(String, String)>, body: Vec<u8>) -> Self {
        RenderJob {
            url,
            status,
            headers,
            body: Arc::new(body),
        }
    }
}

impl Run<'_> {
    /// Takes in what woke the loop, of rendering.
    pub(super) fn on_render_event(&mut self, event: RenderEvent) {
        match event {
            RenderEvent::Ask(ask) => self.on_ask(ask),
            RenderEvent::Fetched(Ok((key, result))) => self.on_fetched(&key, &result),
            // A fetch task that panicked: its requests get no answer and
            // fail in the browser (their senders are dropped with it).
            RenderEvent::Fetched(Err(_)) => {}
            RenderEvent::Rendered(Ok((id, (answer, rendered)))) => {
                if let Some(r) = self.rendering.as_mut() {
                    r.pages.remove(&id);
                }
                answer.take_rendered(
                    &rendered,
                    &mut self.frontier,
                    &mut self.batch,
                    &self.chain,
                    self.config,
                );
            }
            RenderEvent::Rendered(Err(e)) => {
                let q = self
                    .rendering
                    .as_mut()
                    .and_then(|r| r.pages.remove(&e.id()));
                if let Some(q) = q {
                    let why = crate::pipeline::task_failure(e);
                    record_lost(&mut self.batch, &q, &format!("the render failed: {why}"));
                }
            }
        }
    }

    /// A request of the browser: answered from what the crawl keeps, or
    /// joined to the same request under way, or put in line.
    fn on_ask(&mut self, ask: ResourceAsk) {
        let Some(r) = self.rendering.as_mut() else {
            return;
        };
        let key = ask.url.as_str().to_owned();
        if let Some(answer) = r.cache.get(&key) {
            let _ = ask.reply.send(answer);
        } else if let Some(waiters) = r.joined.get_mut(&key) {
            waiters.push(ask.reply);
        } else {
            r.waiting.push_back(ask);
        }
    }

    /// Starts every request of the browser that may start now: judged by
    /// its origin's robots.txt (read first if need be), then fetched when
    /// its host's throttle allows. Returns when the loop is to wake.
    pub(super) fn schedule_resources(&mut self, now: Instant) -> Option<Instant> {
        let mut wake = None;
        let mut waiting = std::mem::take(&mut self.rendering.as_mut()?.waiting);
        let mut kept = VecDeque::new();
        while let Some(ask) = waiting.pop_front() {
            // A render that ended (its time ran out) asks no more.
            if ask.reply.is_closed() {
                continue;
            }
            match self.resource_turn(&ask.url, now) {
                Turn::Wait(at) => {
                    if let Some(at) = at {
                        wake = Some(wake.map_or(at, |w: Instant| w.min(at)));
                    }
                    kept.push_back(ask);
                }
                Turn::Refuse(answer) => {
                    let _ = ask.reply.send(answer);
                }
                Turn::Go => self.fetch_resource(ask),
            }
        }
        if let Some(r) = self.rendering.as_mut() {
            kept.extend(r.waiting.drain(..));
            r.waiting = kept;
        }
        wake
    }

    /// Whether a resource may be fetched now (its host's turn taken), is
    /// refused, or waits (until a moment, or an event).
    fn resource_turn(&mut self, url: &Url, now: Instant) -> Turn {
        let origin = origin_key(url);
        if let Some(attempts) = super::robots_due(self.robots.get(&origin), self.config, now) {
            self.ask_robots(&origin, url, attempts);
        }
        match self.robots.get(&origin) {
            None | Some(RobotsState::Fetching) => return Turn::Wait(None),
            Some(RobotsState::Waiting { retry, .. }) => return Turn::Wait(Some(*retry)),
            Some(RobotsState::Failed { why }) => {
                return Turn::Refuse(ResourceAnswer::Blocked {
                    rule: format!("robots.txt could not be read: {why}"),
                });
            }
            Some(RobotsState::Held { why }) => {
                return Turn::Refuse(ResourceAnswer::Failed { why: why.clone() });
            }
            Some(state @ RobotsState::Ready { .. }) => {
                if let Some(rule) = state.blocks(url) {
                    return Turn::Refuse(ResourceAnswer::Blocked { rule });
                }
            }
        }
        let throttle = self.config.throttle;
        let host = self.hosts.entry(host_key(url)).or_insert_with(|| Host {
            throttle: Throttle::new(throttle, throttle.min_delay, throttle.max_parallel),
            in_flight: 0,
            next_start: now,
            paused_until: now,
        });
        if let Some(d) = self
            .robots
            .get(&origin)
            .and_then(|s| s.crawl_delay(self.config))
        {
            host.throttle.raise_floor(d);
        }
        let gate = host.next_start.max(host.paused_until);
        if host.in_flight >= host.throttle.parallel() {
            return Turn::Wait(None);
        }
        if gate > now {
            return Turn::Wait(Some(gate));
        }
        host.in_flight += 1;
        host.next_start = now + host.throttle.delay();
        Turn::Go
    }

    /// Fetches a resource for the browser, in a task of its own.
    fn fetch_resource(&mut self, ask: ResourceAsk) {
        let Some(r) = self.rendering.as_mut() else {
            return;
        };
        let key = ask.url.as_str().to_owned();
        r.joined.insert(key.clone(), vec![ask.reply]);
        let fetcher = self.fetcher.clone();
        let max = r.setup.max_bytes;
        let (url, headers) = (ask.url, ask.headers);
        r.fetching.spawn(async move {
            let result = fetcher.fetch_subresource(url, &headers, max).await;
            (key, result)
        });
    }

    /// A resource fetched: counted against its host, kept, answered to
    /// every request that waited for it.
    fn on_fetched(
        &mut self,
        key: &str,
        result: &Result<SubresourceResponse, botwarden_fetch::Error>,
    ) {
        let answer = match result {
            Ok(got) => {
                self.resource_answered(got);
                resource_answer(got)
            }
            Err(e) => {
                self.release_host(key);
                ResourceAnswer::Failed { why: e.to_string() }
            }
        };
        let Some(r) = self.rendering.as_mut() else {
            return;
        };
        if let Ok(got) = result
            && is_kept(got)
        {
            r.cache.put(key, &answer, r.setup.cache_bytes);
        }
        // The first request caused the fetch; those that joined it are
        // answered as from what the crawl keeps.
        for (i, waiter) in r
            .joined
            .remove(key)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let mut answer = answer.clone();
            if let ResourceAnswer::Answer { cached, .. } = &mut answer {
                *cached = i > 0;
            }
            let _ = waiter.send(answer);
        }
    }

    /// Counts an answered resource against its host: a slot freed, the
    /// outcome told to the throttle, a `429`/`503`'s pause.
    fn resource_answered(&mut self, got: &SubresourceResponse) {
        let key = host_key(&got.url);
        let Some(host) = self.hosts.get_mut(&key) else {
            return;
        };
        host.in_flight = host.in_flight.saturating_sub(1);
        let outcome = got.outcome();
        if let Some(a) = host.throttle.record(outcome) {
            let name = got.url.host_str().unwrap_or_default();
            self.batch.throttle.push(throttle_record(name, &a));
        }
        if matches!(outcome, Outcome::Status(429 | 503)) {
            // As a page's: its Retry-After, else 5 s, at most max_pause.
            let asked = got
                .headers
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case("retry-after"))
                .and_then(|(_, v)| RetryAfter::parse(v, std::time::SystemTime::now()).delay);
            let pause = asked
                .unwrap_or(std::time::Duration::from_secs(5))
                .min(self.config.max_pause);
            host.paused_until = host.paused_until.max(Instant::now() + pause);
        }
    }

    /// Frees the slot of a resource whose request could not be sent.
    fn release_host(&mut self, key: &str) {
        let Some(host) = Url::parse(key)
            .ok()
            .and_then(|u| self.hosts.get_mut(&host_key(&u)))
        else {
            return;
        };
        host.in_flight = host.in_flight.saturating_sub(1);
    }
}

/// Whether a resource may be fetched now.
enum Turn {
    Go,
    Refuse(ResourceAnswer),
    Wait(Option<Instant>),
}

/// What the browser is answered for a fetched resource.
fn resource_answer(got: &SubresourceResponse) -> ResourceAnswer {
    match (got.status, &got.error) {
        (Some(status), None) => ResourceAnswer::Answer {
            status,
            headers: Arc::new(got.headers.clone()),
            body: Arc::new(got.body.clone()),
            cached: false,
        },
        (_, Some(e)) => ResourceAnswer::Failed { why: e.to_string() },
        (None, None) => ResourceAnswer::Failed {
            why: "no answer".into(),
        },
    }
}

/// Whether an answer is kept for later requests: a whole answer that is
/// not a server's trouble (`429`, `5xx`).
fn is_kept(got: &SubresourceResponse) -> bool {
    got.error.is_none()
        && !got.truncated
        && got
            .status
            .is_some_and(|s| s != 429 && !(500..600).contains(&s))
}

/// Answers kept for the rest of the crawl, until their bodies reach the
/// budget (what comes after is fetched each time).
#[derive(Default)]
struct Cache {
    answers: HashMap<String, ResourceAnswer>,
    bytes: usize,
}

impl Cache {
    fn get(&self, key: &str) -> Option<ResourceAnswer> {
        let mut answer = self.answers.get(key)?.clone();
        if let ResourceAnswer::Answer { cached, .. } = &mut answer {
            *cached = true;
        }
        Some(answer)
    }

    fn put(&mut self, key: &str, answer: &ResourceAnswer, budget: usize) {
        let ResourceAnswer::Answer { body, .. } = answer else {
            return;
        };
        let size = body.len() + key.len();
        if self.bytes + size > budget {
            return;
        }
        self.bytes += size;
        self.answers.insert(key.to_owned(), answer.clone());
    }
}
