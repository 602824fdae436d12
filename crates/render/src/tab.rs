//! One page in one tab: every request intercepted and answered by the
//! crawl, the network waited for, the document read.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use botwarden_crawl::{
    BrowserRequest, RenderJob, RenderOutcome, RenderedPage, RequestOutcome, ResourceAnswer,
    ResourceGate,
};
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EventRequestPaused, FailRequestParams, FulfillRequestParams, HeaderEntry,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use chromiumoxide::cdp::browser_protocol::page::{EventLoadEventFired, NavigateParams};
use futures_util::StreamExt as _;
use url::Url;

/// How one page is rendered.
pub(crate) struct TabConfig<'a> {
    pub(crate) budget: Duration,
    pub(crate) quiet: Duration,
    pub(crate) user_agent: &'a str,
}

/// How often the network is looked at while waiting for it to go quiet.
const TICK: Duration = Duration::from_millis(25);

/// The longest the document may take to be read once waiting is over.
const READ_LIMIT: Duration = Duration::from_secs(5);

/// What the tab's requests have done so far.
#[derive(Default)]
struct Traffic {
    requests: Vec<BrowserRequest>,
    /// Requests asked and not yet answered.
    pending: usize,
    /// When a request last started or ended.
    last: Option<Instant>,
    /// The main frame, once its document was asked for.
    main_frame: Option<String>,
    /// Where a script (or a refresh) sent the page.
    moved_to: Option<String>,
    /// Requests paused and not yet answered, by id.
    open: std::collections::HashSet<String>,
    /// Whether the render is over: a request paused now is failed at once.
    over: bool,
}

type Shared = Arc<Mutex<Traffic>>;

/// Renders `job` in `page` (a new tab), which is closed afterwards.
pub(crate) async fn render(
    page: Page,
    job: &RenderJob,
    gate: &ResourceGate,
    config: &TabConfig<'_>,
) -> RenderedPage {
    let started = Instant::now();
    let traffic: Shared = Arc::default();
    let (outcome, intercept) = drive(&page, job, gate, config, &traffic, started).await;
    let (outcome, error, read) = match outcome {
        Ok((outcome, error)) => match read_document(&page).await {
            Ok(read) => (outcome, error, Some(read)),
            Err(e) => (RenderOutcome::Failed, Some(e), None),
        },
        Err(e) => (RenderOutcome::Failed, Some(e), None),
    };
    // Requests still paused are failed before the tab is left: none may
    // go out by the browser's own network.
    abandon(&page, &traffic).await;
    if let Some(intercept) = intercept {
        intercept.abort();
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), page.close()).await;
    let mut t = lock(&traffic);
    RenderedPage {
        outcome,
        error,
        html: read,
        final_url: t.moved_to.take(),
        requests: std::mem::take(&mut t.requests),
        elapsed: started.elapsed(),
    }
}

/// Opens the page and waits for it; `Ok` with how waiting ended.
async fn drive(
    page: &Page,
    job: &RenderJob,
    gate: &ResourceGate,
    config: &TabConfig<'_>,
    traffic: &Shared,
    started: Instant,
) -> (
    Result<(RenderOutcome, Option<String>), String>,
    Option<tokio::task::JoinHandle<()>>,
) {
    let (paused, mut loaded) = match listen(page, config).await {
        Ok(l) => l,
        Err(e) => return (Err(e), None),
    };
    let intercepting = tokio::spawn(intercept(
        page.clone(),
        paused,
        Arc::new(job.clone()),
        gate.clone(),
        traffic.clone(),
    ));
    let deadline = started + config.budget;
    // The navigation's own answer is not waited for: a page that moves
    // itself before it has loaded may leave it unanswered. Its failure
    // is heard all the same.
    let navigator = page.clone();
    let target = job.url.to_string();
    let mut navigate = tokio::spawn(async move {
        match navigator.execute(NavigateParams::new(target)).await {
            Ok(r) => r.result.error_text,
            Err(e) => Some(e.to_string()),
        }
    });
    let waited = tokio::time::timeout_at(deadline.into(), async {
        loop {
            tokio::select! {
                _ = loaded.next() => return Ok(()),
                () = moved(traffic) => return Ok(()),
                opened = &mut navigate, if !navigate.is_finished() => {
                    if let Ok(Some(why)) = opened {
                        return Err(format!("the page could not be opened: {why}"));
                    }
                }
            }
        }
    })
    .await;
    navigate.abort();
    let result = match waited {
        Err(_) => Ok((RenderOutcome::TimedOut, Some(budget_text(config.budget)))),
        Ok(Err(why)) => Err(why),
        Ok(Ok(())) => Ok(settle(traffic, config.quiet, deadline).await),
    };
    (result, Some(intercepting))
}

/// The tab's events a render waits for, its `User-Agent` set.
async fn listen(
    page: &Page,
    config: &TabConfig<'_>,
) -> Result<
    (
        chromiumoxide::listeners::EventStream<EventRequestPaused>,
        chromiumoxide::listeners::EventStream<EventLoadEventFired>,
    ),
    String,
> {
    let cdp = |e: chromiumoxide::error::CdpError| e.to_string();
    page.set_user_agent(config.user_agent).await.map_err(cdp)?;
    let paused = page
        .event_listener::<EventRequestPaused>()
        .await
        .map_err(cdp)?;
    let loaded = page
        .event_listener::<EventLoadEventFired>()
        .await
        .map_err(cdp)?;
    Ok((paused, loaded))
}

/// Fails every request still paused, and any paused from now on.
async fn abandon(page: &Page, traffic: &Shared) {
    let open: Vec<String> = {
        let mut t = lock(traffic);
        t.over = true;
        t.open.drain().collect()
    };
    for id in open {
        let fail = FailRequestParams::new(id, ErrorReason::Aborted);
        let _ = tokio::time::timeout(Duration::from_secs(2), page.execute(fail)).await;
    }
}

/// Returns once the page has tried to move to another document.
async fn moved(traffic: &Shared) {
    loop {
        let gone = lock(traffic).moved_to.is_some();
        if gone {
            return;
        }
        tokio::time::sleep(TICK).await;
    }
}

/// Waits until no request has been in flight for `quiet`, or `deadline`.
async fn settle(
    traffic: &Shared,
    quiet: Duration,
    deadline: Instant,
) -> (RenderOutcome, Option<String>) {
    loop {
        let now = Instant::now();
        {
            let t = lock(traffic);
            let idle_since = t.last.unwrap_or(now);
            if t.pending == 0 && now.duration_since(idle_since) >= quiet {
                return (RenderOutcome::Rendered, None);
            }
        }
        if now >= deadline {
            let pending = lock(traffic).pending;
            return (
                RenderOutcome::TimedOut,
                Some(format!(
                    "the network was not idle after the page's budget ({pending} request(s) in flight)"
                )),
            );
        }
        tokio::time::sleep(TICK.min(deadline - now)).await;
    }
}

fn budget_text(budget: Duration) -> String {
    format!("the page did not load within {} s", budget.as_secs_f64())
}

/// Answers every request the tab makes, each in a task of its own
/// (aborted with this one: a request whose render is over is not asked
/// of the crawl).
async fn intercept(
    page: Page,
    mut paused: chromiumoxide::listeners::EventStream<EventRequestPaused>,
    job: Arc<RenderJob>,
    gate: ResourceGate,
    traffic: Shared,
) {
    let mut answering = tokio::task::JoinSet::new();
    loop {
        let event = tokio::select! {
            event = paused.next() => match event {
                Some(event) => event,
                None => break,
            },
            Some(_) = answering.join_next() => continue,
        };
        let Some(position) = take_request(&traffic, &event) else {
            let fail = FailRequestParams::new(event.request_id.clone(), ErrorReason::Aborted);
            let _ = page.execute(fail).await;
            continue;
        };
        let (page, job, gate, traffic) = (page.clone(), job.clone(), gate.clone(), traffic.clone());
        answering.spawn(async move {
            let (outcome, status, detail) = answer(&page, &event, &job, &gate, &traffic).await;
            let mut t = lock(&traffic);
            t.open.remove(event.request_id.as_ref());
            t.pending = t.pending.saturating_sub(1);
            t.last = Some(Instant::now());
            if let Some(r) = t.requests.get_mut(position) {
                r.outcome = outcome;
                r.status = status;
                r.detail = detail;
            }
        });
    }
}

/// Records a paused request; its place among the page's requests, or
/// `None` when the render is over (it is to be failed).
fn take_request(traffic: &Shared, event: &EventRequestPaused) -> Option<usize> {
    let mut t = lock(traffic);
    if t.over {
        return None;
    }
    t.open.insert(event.request_id.as_ref().to_owned());
    t.pending += 1;
    t.last = Some(Instant::now());
    t.requests.push(BrowserRequest {
        url: event.request.url.clone(),
        kind: event.resource_type.as_ref().to_owned(),
        outcome: RequestOutcome::Failed,
        status: None,
        detail: None,
    });
    Some(t.requests.len() - 1)
}

/// The tab's traffic, locked (a task that panicked holding it leaves it
/// as it was).
fn lock(traffic: &Shared) -> std::sync::MutexGuard<'_, Traffic> {
    traffic
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What is done with one request: the page itself from the raw answer,
/// a navigation of the page elsewhere recorded and stopped, anything
/// else asked of the crawl.
async fn answer(
    page: &Page,
    event: &EventRequestPaused,
    job: &RenderJob,
    gate: &ResourceGate,
    traffic: &Shared,
) -> (RequestOutcome, Option<u16>, Option<String>) {
    let id = event.request_id.clone();
    let url = &event.request.url;
    if event.resource_type == ResourceType::Document {
        let frame = event.frame_id.as_ref().to_owned();
        let first = {
            let mut t = lock(traffic);
            match &t.main_frame {
                None => {
                    t.main_frame = Some(frame);
                    Some(true)
                }
                Some(main) if *main == frame => {
                    t.moved_to.get_or_insert_with(|| url.clone());
                    Some(false)
                }
                Some(_) => None,
            }
        };
        match first {
            Some(true) => {
                let fulfil = fulfil(id, job.status, &job.headers, &job.body);
                let sent = page.execute(fulfil).await.map_err(|e| e.to_string());
                return (RequestOutcome::Page, Some(job.status), sent.err());
            }
            Some(false) => {
                let _ = page
                    .execute(FailRequestParams::new(id, ErrorReason::Aborted))
                    .await;
                return (
                    RequestOutcome::Failed,
                    None,
                    Some("the page moved itself here: recorded, not followed".into()),
                );
            }
            None => {}
        }
    }
    let Ok(parsed) = Url::parse(url) else {
        let _ = page
            .execute(FailRequestParams::new(id, ErrorReason::Failed))
            .await;
        return (RequestOutcome::Failed, None, Some("not a URL".into()));
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        let _ = page.execute(ContinueRequestParams::new(id)).await;
        return (
            RequestOutcome::Fetched,
            None,
            Some("not a network request".into()),
        );
    }
    if !matches!(event.request.method.as_str(), "GET" | "HEAD") {
        let _ = page
            .execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
            .await;
        let why = format!(
            "{} not sent: the crawl sends GET only",
            event.request.method
        );
        return (RequestOutcome::Failed, None, Some(why));
    }
    let headers = request_headers(event);
    match gate.ask(parsed, headers).await {
        ResourceAnswer::Answer {
            status,
            headers,
            body,
            cached,
        } => {
            let sent = page.execute(fulfil(id, status, &headers, &body)).await;
            let outcome = if cached {
                RequestOutcome::Cached
            } else {
                RequestOutcome::Fetched
            };
            (outcome, Some(status), sent.err().map(|e| e.to_string()))
        }
        ResourceAnswer::Blocked { rule } => {
            let _ = page
                .execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
                .await;
            (RequestOutcome::Blocked, None, Some(rule))
        }
        ResourceAnswer::Failed { why } => {
            let _ = page
                .execute(FailRequestParams::new(id, ErrorReason::Failed))
                .await;
            (RequestOutcome::Failed, None, Some(why))
        }
    }
}

/// The browser's headers of a request, as name and value.
fn request_headers(event: &EventRequestPaused) -> Vec<(String, String)> {
    event
        .request
        .headers
        .inner()
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// A request answered with `status`, `headers` and `body`.
fn fulfil(
    id: chromiumoxide::cdp::browser_protocol::fetch::RequestId,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> FulfillRequestParams {
    let mut params = FulfillRequestParams::new(id, i64::from(status));
    params.response_headers = Some(
        headers
            .iter()
            .map(|(name, value)| HeaderEntry::new(name.clone(), value.clone()))
            .collect(),
    );
    params.body = Some(
        base64::engine::general_purpose::STANDARD
            .encode(body)
            .into(),
    );
    params
}

/// Reads the rendered document (its serialised DOM).
async fn read_document(page: &Page) -> Result<String, String> {
    const READ: &str = "document.documentElement ? document.documentElement.outerHTML : ''";
    let read = tokio::time::timeout(READ_LIMIT, page.evaluate(READ))
        .await
        .map_err(|_| "the rendered page could not be read in time".to_owned())?
        .map_err(|e| format!("the rendered page could not be read: {e}"))?;
    read.into_value()
        .map_err(|e| format!("the rendered page could not be read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fulfilment_carries_the_status_headers_and_body_in_base64() {
        let headers = [("Content-Type".to_owned(), "text/html".to_owned())];
        let params = fulfil("r1".to_owned().into(), 404, &headers, b"<p>x");
        assert_eq!(params.response_code, 404);
        let sent = params.response_headers.expect("headers");
        assert_eq!(
            (sent[0].name.as_str(), sent[0].value.as_str()),
            ("Content-Type", "text/html")
        );
        let body: String = params.body.expect("body").into();
        assert_eq!(body, "PHA+eA==");
    }
}
