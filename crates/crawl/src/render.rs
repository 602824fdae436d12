//! Rendering pages in a browser (`crawl --render`, `docs/render.md`): the
//! seam between the crawl and a browser, and what is kept of a render.
//!
//! A [`Renderer`] (`botwarden-render` drives Chromium) is given each HTML
//! page the crawl fetched, with the raw answer ([`RenderJob`]): the browser
//! is answered the page from it, never by a second request. Every other
//! request the browser makes goes through the [`ResourceGate`] to the
//! crawl's scheduler, which judges it by the crawl's robots.txt reading
//! and token chain, waits for its host's turn under the same throttle as
//! the pages, fetches it with the crawl's fetcher (its `User-Agent`, its
//! Web Bot Auth signature, its address guard) and answers the browser, or
//! refuses it. Answers are kept for the rest of the crawl (up to a byte
//! budget) as Google's renderer keeps them: a script every page loads is
//! asked once.
//!
//! The page is then read twice by the same reader ([`crate::extract_html`]):
//! raw and rendered ([`PageView`]). What the render adds is taken in with
//! the page: the robots directives of both (the union, as
//! draft-illyes-repext asks of a renderer), and the links found only in
//! the rendered page, which are crawled and numbered after the raw ones
//! (`renders.links_from`).

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use botwarden_robots::TokenChain;
use botwarden_store::{RenderOutcome, normalize};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use url::Url;

use crate::directives::PageDirectives;
use crate::html::HtmlFacts;

/// A page to render: its URL and the raw answer the browser is given.
#[derive(Debug, Clone)]
pub struct RenderJob {
    /// The page's URL.
    pub url: Url,
    /// The raw answer's status.
    pub status: u16,
    /// The raw answer's headers that describe the body (`Content-Type`).
    pub headers: Vec<(String, String)>,
    /// The raw answer's body, decoded.
    pub body: Arc<Vec<u8>>,
}

/// How a request of the browser was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestOutcome {
    /// The page itself, answered from the crawl's raw answer.
    Page,
    /// Fetched for the browser.
    Fetched,
    /// Answered from an earlier answer of the crawl.
    Cached,
    /// Refused: robots.txt disallows it for the crawl's token chain.
    Blocked,
    /// Refused or failed: no answer, a refused address, the crawl's own
    /// settings.
    Failed,
}

impl RequestOutcome {
    /// As the store writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            RequestOutcome::Page => "page",
            RequestOutcome::Fetched => "fetched",
            RequestOutcome::Cached => "cached",
            RequestOutcome::Blocked => "blocked",
            RequestOutcome::Failed => "failed",
        }
    }
}

/// One request the browser made for a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserRequest {
    /// The URL asked.
    pub url: String,
    /// What for, as the browser says (`Script`, `Stylesheet`, `XHR`, …).
    pub kind: String,
    /// How it was answered.
    pub outcome: RequestOutcome,
    /// The status answered.
    pub status: Option<u16>,
    /// The rule that blocked it, or why it failed.
    pub detail: Option<String>,
}

/// What a browser made of a page.
#[derive(Debug, Clone)]
pub struct RenderedPage {
    /// How the render ended.
    pub outcome: RenderOutcome,
    /// Why it failed or timed out.
    pub error: Option<String>,
    /// The document as rendered (its serialised DOM), if one was read.
    pub html: Option<String>,
    /// The page's address after rendering, when a script moved it.
    pub final_url: Option<String>,
    /// The requests it made, in order.
    pub requests: Vec<BrowserRequest>,
    /// From opening the page to reading it.
    pub elapsed: Duration,
}

/// The future of a render.
pub type RenderFuture = Pin<Box<dyn Future<Output = RenderedPage> + Send + 'static>>;

/// A browser that renders pages (module docs).
pub trait Renderer: Send + Sync + 'static {
    /// Pages rendered at once at most (the browser's tabs).
    fn tabs(&self) -> usize;

    /// Renders `job`, every request but the page's own asked of `gate`.
    fn render(self: Arc<Self>, job: RenderJob, gate: ResourceGate) -> RenderFuture;
}

/// How a crawl renders.
#[derive(Clone)]
pub struct RenderSetup {
    /// The browser.
    pub renderer: Arc<dyn Renderer>,
    /// The most of one resource's body fetched for the browser.
    pub max_bytes: usize,
    /// The most of the answers kept for the rest of the crawl, in bytes.
    pub cache_bytes: usize,
}

impl RenderSetup {
    /// Renders with `renderer`: resources of at most 10 MiB, 256 MiB of
    /// them kept.
    #[must_use]
    pub fn new(renderer: Arc<dyn Renderer>) -> RenderSetup {
        RenderSetup {
            renderer,
            max_bytes: 10 << 20,
            cache_bytes: 256 << 20,
        }
    }
}

impl std::fmt::Debug for RenderSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderSetup")
            .field("tabs", &self.renderer.tabs())
            .field("max_bytes", &self.max_bytes)
            .field("cache_bytes", &self.cache_bytes)
            .finish()
    }
}

/// What the crawl answers a request of the browser.
#[derive(Debug, Clone)]
pub enum ResourceAnswer {
    /// An answer to give the browser.
    Answer {
        /// Its status.
        status: u16,
        /// Its headers (without those of the wire).
        headers: Arc<Vec<(String, String)>>,
        /// Its decoded body.
        body: Arc<Vec<u8>>,
        /// Whether it was kept from an earlier request.
        cached: bool,
    },
    /// Disallowed by robots.txt: the rule, as written, and its line.
    Blocked {
        /// The rule.
        rule: String,
    },
    /// Not fetched, or no answer came: why.
    Failed {
        /// Why.
        why: String,
    },
}

/// A request of the browser, on its way to the crawl's scheduler.
pub(crate) struct ResourceAsk {
    pub(crate) url: Url,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) reply: oneshot::Sender<ResourceAnswer>,
}

/// Where a renderer asks for the resources of the page it renders: the
/// crawl's scheduler (module docs). Cheap to clone.
#[derive(Clone)]
pub struct ResourceGate {
    tx: mpsc::UnboundedSender<ResourceAsk>,
}

impl ResourceGate {
    /// A gate and the receiving end of its requests.
    pub(crate) fn channel() -> (ResourceGate, mpsc::UnboundedReceiver<ResourceAsk>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (ResourceGate { tx }, rx)
    }

    /// Asks for `url` with the browser's `headers`.
    pub async fn ask(&self, url: Url, headers: Vec<(String, String)>) -> ResourceAnswer {
        let (reply, answer) = oneshot::channel();
        let ask = ResourceAsk {
            url,
            headers,
            reply,
        };
        if self.tx.send(ask).is_err() {
            return ResourceAnswer::Failed {
                why: "the crawl has ended".into(),
            };
        }
        answer.await.unwrap_or_else(|_| ResourceAnswer::Failed {
            why: "the crawl has ended".into(),
        })
    }
}

/// A page as one reading of it shows it: raw (as fetched) or rendered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageView {
    /// The first `<title>`'s text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The first meta description, white space collapsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The robots meta tags for the crawl's token chain, `name: content`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub robots: Vec<String>,
    /// Whether they say noindex (now).
    pub noindex: bool,
    /// Whether they say nofollow.
    pub nofollow: bool,
    /// The first canonical, resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    /// hreflang alternates, `[language, URL resolved]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hreflang: Vec<[String; 2]>,
    /// The first `<h1>`'s text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h1: Option<String>,
    /// Words of visible text.
    pub words: u32,
    /// The SimHash of the visible text, in hex (`None`: under ten words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_hash: Option<String>,
    /// Distinct targets of the page's `a`, `area` and frame links.
    pub links: u32,
}

/// The two readings of a rendered page, as `renders.facts` keeps them.
#[derive(Debug, Clone, Serialize)]
pub struct RenderFacts {
    /// As fetched.
    pub raw: PageView,
    /// As rendered.
    pub rendered: PageView,
    /// Links found only in the rendered page (distinct targets).
    pub rendered_only_links: u32,
    /// The first of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rendered_only_first: Option<String>,
}

impl PageView {
    /// The view of `facts`, a page at `base` read for `chain`.
    #[must_use]
    pub fn of(facts: &HtmlFacts, base: &Url, chain: &TokenChain) -> PageView {
        let base_url = facts.base_url(base);
        let mut directives = PageDirectives::new();
        let mut robots = Vec::new();
        for m in &facts.metas {
            let name = m.name.trim();
            let read = name.eq_ignore_ascii_case("robots")
                || chain.tokens().iter().any(|t| t.eq_ignore_ascii_case(name));
            if read {
                directives.add_meta(name, &m.content, chain.tokens());
                robots.push(format!("{name}: {}", m.content.trim()));
            }
        }
        let description = facts
            .metas
            .iter()
            .find(|m| m.name.trim().eq_ignore_ascii_case("description"))
            .map(|m| m.content.split_whitespace().collect::<Vec<_>>().join(" "));
        let resolve = |href: &str| normalize(&base_url, href).ok().map(|u| u.to_string());
        PageView {
            title: facts.title.clone(),
            description,
            robots,
            noindex: directives.noindex_at(SystemTime::now()).is_some(),
            nofollow: directives.nofollow().is_some(),
            canonical: facts.canonicals.first().and_then(|c| resolve(c)),
            hreflang: facts
                .alternates
                .iter()
                .filter_map(|a| resolve(&a.href).map(|u| [a.hreflang.clone(), u]))
                .collect(),
            h1: facts.h1.clone(),
            words: facts.quality.words,
            text_hash: facts.simhash.map(|h| format!("{h:016x}")),
            links: u32::try_from(link_targets(facts, base).len()).unwrap_or(u32::MAX),
        }
    }
}

/// The distinct targets of a page's `a`, `area` and frame links,
/// resolved and in normal form (links that resolve to nothing left out).
pub(crate) fn link_targets(facts: &HtmlFacts, base: &Url) -> HashSet<String> {
    let base_url = facts.base_url(base);
    facts
        .links
        .iter()
        .filter_map(|l| normalize(&base_url, &l.href).ok())
        .map(|u| u.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::extract;

    fn chain() -> TokenChain {
        TokenChain::new(["botwarden"])
    }

    #[test]
    fn a_view_reads_the_directives_for_the_chain_and_resolves_urls() {
        let page = br#"<html><head><title>T</title>
            <meta name="description" content="  a   b ">
            <meta name="robots" content="noindex">
            <meta name="otherbot" content="nofollow">
            <link rel="canonical" href="/c">
            <link rel="alternate" hreflang="de" href="/de/">
            </head><body><h1>H</h1><a href="/x">x</a><a href="/x#f">x</a><a href="y">y</a></body></html>"#;
        let facts = extract(page, None).expect("facts");
        let base = Url::parse("https://example.com/a/b").expect("url");
        let view = PageView::of(&facts, &base, &chain());
        assert_eq!(view.title.as_deref(), Some("T"));
        assert_eq!(view.description.as_deref(), Some("a b"));
        assert_eq!(view.robots, ["robots: noindex"]);
        assert!(view.noindex);
        assert!(!view.nofollow, "otherbot's meta is not the chain's");
        assert_eq!(view.canonical.as_deref(), Some("https://example.com/c"));
        assert_eq!(
            view.hreflang,
            [["de".to_owned(), "https://example.com/de/".to_owned()]]
        );
        assert_eq!(view.h1.as_deref(), Some("H"));
        assert_eq!(view.links, 2, "/x twice (a fragment is the same target), y");
    }
}
