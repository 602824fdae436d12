//! An answered page taken in: its record, its directives, and the URLs it
//! leads to (links, redirects, refreshes, canonicals, hreflang), each
//! recorded as a link and admitted.

use std::time::SystemTime;

use botwarden_fetch::{PageResponse, link_header_canonicals};
use botwarden_robots::{TokenChain, prefs};
use botwarden_store::{
    Batch, LinkKind, LinkRecord, NewUrl, PageRecord, Skip, UrlState, UsageRecord, normalize,
    normalize_text,
};
use url::Url;

use super::{Reading, now_text, origin_key};
use crate::crawler::CrawlConfig;
use crate::directives::PageDirectives;
use crate::frontier::{Admitted, Frontier, Queued};
use crate::html::{self, HtmlFacts, LinkElement};
use crate::render::RenderedPage;

mod render;

use render::Render;

/// Where the URLs a page leads to are admitted: the crawl's [`Frontier`],
/// or a worker's local one whose new URLs go to its coordinator.
pub(crate) trait Admission {
    /// The id of a URL (in normal form) met before, when admitting it
    /// again changes nothing (`followed`: through a link that is
    /// followed); `None` when it must be admitted.
    fn known_id(&self, url: &str, followed: bool) -> Option<u64>;
    /// A followed URL at `depth`.
    fn admit(&mut self, url: &Url, depth: u32) -> Admitted;
    /// A URL met through nofollow.
    fn admit_unfollowed(&mut self, url: &Url, depth: u32, skip: Skip) -> Admitted;
}

impl Admission for Frontier {
    fn known_id(&self, url: &str, followed: bool) -> Option<u64> {
        Frontier::known_id(self, url, followed)
    }

    fn admit(&mut self, url: &Url, depth: u32) -> Admitted {
        Frontier::admit(self, url, depth)
    }

    fn admit_unfollowed(&mut self, url: &Url, depth: u32, skip: Skip) -> Admitted {
        Frontier::admit_unfollowed(self, url, depth, skip)
    }
}

/// What the store keeps of an answer before its body is read: status or
/// error, timings, sizes, type, charset, hash and headers.
fn page_record(q: &Queued, page: &PageResponse, reading: &Reading) -> PageRecord {
    PageRecord {
        url_id: q.id,
        fetched_at: now_text(),
        status: page.status,
        error: page.error.as_ref().map(ToString::to_string),
        elapsed_ms: page.elapsed.as_secs_f64() * 1e3,
        ttfb_ms: page.ttfb.map(|t| t.as_secs_f64() * 1e3),
        bytes: page.body.len() as u64,
        truncated: page.truncated,
        content_type: page.media_type.clone(),
        charset: page.charset.clone(),
        content_hash: reading.hash.map(|h| format!("{h:016x}")),
        x_robots_tag: (!page.x_robots_tag.is_empty()).then(|| page.x_robots_tag.join(" | ")),
        robots_tag: (!page.robots_tag.is_empty()).then(|| page.robots_tag.join(" | ")),
        body_read: page.body_read,
        content_length: page.content_length,
        http_version: page.http_version.map(str::to_owned),
        dns_ms: page.dns.map(|t| t.as_secs_f64() * 1e3),
        connect_ms: page.connect.map(|t| t.as_secs_f64() * 1e3),
        download_ms: page.download.map(|t| t.as_secs_f64() * 1e3),
        header_charset: page.charset.clone(),
        simhash: reading.not_found_simhash,
        ..PageRecord::default()
    }
}

/// Records an answered page: its record, its links (admitted), its
/// directives.
pub(crate) fn take_page<A: Admission>(
    fetched: Fetched<'_>,
    frontier: &mut A,
    batch: &mut Batch,
    chain: &TokenChain,
    config: &CrawlConfig,
) {
    let Fetched {
        q,
        page,
        reading,
        rendered,
    } = fetched;
    let base = page.url.clone();
    let mut record = page_record(q, page, &reading);
    let chain = page_chain(page, chain, config);
    let mut directives = PageDirectives::new();
    for value in &page.x_robots_tag {
        directives.add_header(value, chain.tokens());
    }
    for value in &page.robots_tag {
        // A value that is no RFC 9651 List is ignored; it stays in the
        // page's record, and the audit names it.
        let _ = directives.add_robots_tag(value, chain.tokens());
    }
    header_usage(q.id, page, batch);
    let mut links = Links::new(q, frontier, batch);
    if page.is_redirect() {
        if let Some(loc) = page.location.as_deref() {
            if let Ok(t) = normalize(&base, loc) {
                record.location = Some(t.to_string());
            }
            links.link(&base, loc, LinkKind::Redirect, None, None, Ok(q.depth));
        }
    } else if let Some(read) = reading.html {
        match read {
            // The page was fetched but not read: say so with the page.
            Err(e) => record.error = Some(e.to_string()),
            Ok(facts) => {
                let mut render = rendered.map(|r| Render::new(r, &facts, page, chain));
                let mut taken = Taken {
                    record: &mut record,
                    directives: &mut directives,
                };
                take_html(
                    &mut links,
                    &mut taken,
                    facts,
                    page,
                    chain,
                    config,
                    render.as_mut(),
                );
                if let Some(render) = render {
                    render.record(q.id, links.batch);
                }
            }
        }
    } else if let Some(content) = page.refresh.as_deref()
        && let Some(target) = html::refresh_target(content)
    {
        let instant = take_refresh(&mut record, &base, content, target);
        let depth = if instant { q.depth } else { q.depth + 1 };
        links.link(&base, target, LinkKind::Refresh, None, None, Ok(depth));
    }
    let now = SystemTime::now();
    record.noindex = directives.noindex_at(now).map(|d| d.origin.to_string());
    record.nofollow = directives.nofollow().map(|d| d.origin.to_string());
    batch.pages.push(record);
    batch.states.push((q.id, UrlState::Fetched, None));
}

/// What the response's `Content-Usage` and `Content-Signal` headers let
/// the page be used for, if it has any.
fn header_usage(id: u64, page: &PageResponse, batch: &mut Batch) {
    if page.content_usage.is_empty() && page.content_signal.is_empty() {
        return;
    }
    let preferences = prefs::of_headers(
        page.content_usage.iter().map(String::as_str),
        page.content_signal.iter().map(String::as_str),
    );
    let text: Vec<String> = page
        .content_usage
        .iter()
        .map(|v| format!("Content-Usage: {v}"))
        .chain(
            page.content_signal
                .iter()
                .map(|v| format!("Content-Signal: {v}")),
        )
        .collect();
    batch.usage.push(UsageRecord {
        url_id: id,
        header: Some(prefs::code(preferences)),
        header_text: Some(text.join(" | ")),
        ..UsageRecord::default()
    });
}

/// The token chain a page is read for: a page of the simulated site is
/// read for the simulated chain's meta names and X-Robots-Tag prefixes
/// (`<meta name="googlebot">`).
fn page_chain<'a>(
    page: &PageResponse,
    chain: &'a TokenChain,
    config: &'a CrawlConfig,
) -> &'a TokenChain {
    config
        .simulation
        .as_ref()
        .filter(|s| s.site().origin() == origin_key(&page.url))
        .and_then(|s| s.tokens.as_ref())
        .unwrap_or(chain)
}

/// An answered page, as the pipeline gives it: its URL, its answer, what
/// was read of it, and its render (`--render`).
pub(crate) struct Fetched<'a> {
    pub(crate) q: &'a Queued,
    pub(crate) page: &'a PageResponse,
    pub(crate) reading: Reading,
    pub(crate) rendered: Option<&'a RenderedPage>,
}

/// What an HTML page's reading fills in: its record and its directives.
struct Taken<'a> {
    record: &'a mut PageRecord,
    directives: &'a mut PageDirectives,
}

/// Takes in what was read of an HTML page: its meta directives, its facts,
/// then the URLs it leads to, in the order their links are numbered
/// (refresh, links, canonicals, hreflang).
fn take_html<A: Admission>(
    links: &mut Links<'_, A>,
    taken: &mut Taken<'_>,
    mut facts: HtmlFacts,
    page: &PageResponse,
    chain: &TokenChain,
    config: &CrawlConfig,
    render: Option<&mut Render<'_>>,
) {
    let base = &page.url;
    // A rendered page's directives count with the raw page's: the
    // union of both (draft-illyes-repext, of renderers).
    let rendered_metas = render
        .as_ref()
        .and_then(|r| r.facts.as_ref())
        .map(|f| &f.metas);
    for m in facts
        .metas
        .iter()
        .chain(rendered_metas.into_iter().flatten())
    {
        taken
            .directives
            .add_meta(&m.name, &m.content, chain.tokens());
    }
    taken.record.title = facts.title.clone();
    taken.record.charset = Some(facts.encoding.to_owned());
    record_facts(taken.record, &facts, page, base);
    let follow = Follow {
        next: links.q.depth + 1,
        all: config.follow_nofollow,
        page_nofollow: taken
            .directives
            .nofollow()
            .map(|d| format!("nofollow in {} on {}", d.origin, base)),
        base,
    };
    let base_url = facts.base_url(base);
    // The refresh first: one made at once is a redirect, whose target is
    // met at the page's depth before a link of the page can reach it one
    // click further.
    let refresh = match facts.refresh.as_deref() {
        Some(r) => Some((&base_url, r)),
        None => page.refresh.as_deref().map(|r| (base, r)),
    };
    if let Some((against, content)) = refresh
        && let Some(target) = html::refresh_target(content)
    {
        // A refresh made at once is a redirect: followed whatever the
        // page's nofollow, at the page's depth.
        let instant = take_refresh(taken.record, against, content, target);
        let how = if instant {
            Ok(links.q.depth)
        } else {
            follow.of("")
        };
        links.link(against, target, LinkKind::Refresh, None, None, how);
    }
    for l in std::mem::take(&mut facts.links) {
        if l.element != LinkElement::Frame
            && facts.quality.fragment_links.len() < crate::quality::MAX_FRAGMENT_LINKS
            && let Some(f) = crate::quality::fragment_link(links.position, &l.href)
        {
            facts.quality.fragment_links.push(f);
        }
        let words = l.rel.words();
        let kind = match l.element {
            LinkElement::A => LinkKind::A,
            LinkElement::Area => LinkKind::Area,
            LinkElement::Frame => LinkKind::Iframe,
        };
        let how = follow.of(&words);
        let anchor = (!l.anchor.is_empty()).then_some(l.anchor);
        let rel = (!words.is_empty()).then_some(words);
        links.link(&base_url, &l.href, kind, anchor, rel, how);
    }
    record_quality(taken.record, &facts, page);
    if config.resources {
        let used = std::mem::take(&mut facts.resources);
        crate::resources::record_used(links.q.id, &base_url, used, &mut links.batch.page_resources);
    }
    take_canonicals(links, taken.record, &facts, page, &base_url, &follow);
    for a in &facts.alternates {
        let hreflang = Some(a.hreflang.clone());
        links.link(
            &base_url,
            &a.href,
            LinkKind::Hreflang,
            hreflang,
            None,
            follow.of(""),
        );
    }
    if let Some(render) = render {
        render.take_links(links, &follow);
    }
}

/// Records an HTML page's canonicals (its own, then its `Link` header's):
/// the first as the page's canonical, each as a link.
fn take_canonicals<A: Admission>(
    links: &mut Links<'_, A>,
    record: &mut PageRecord,
    facts: &HtmlFacts,
    page: &PageResponse,
    base_url: &Url,
    follow: &Follow<'_>,
) {
    // An HTML canonical is relative to the document's base URL, a `Link`
    // header's to the page's.
    let canonicals: Vec<(&Url, String)> = facts
        .canonicals
        .iter()
        .map(|c| (base_url, c.clone()))
        .chain(
            link_header_canonicals(&page.link)
                .into_iter()
                .map(|c| (&page.url, c)),
        )
        .collect();
    if let Some((against, c)) = canonicals.first()
        && let Ok(t) = normalize(against, c)
    {
        record.canonical = Some(t.to_string());
    }
    for (against, c) in &canonicals {
        links.link(against, c, LinkKind::Canonical, None, None, follow.of(""));
    }
}

/// Whether the URLs an HTML page leads to are followed, and at what depth.
struct Follow<'a> {
    /// The depth of the URLs it leads to.
    next: u32,
    /// Whether nofollow is followed all the same.
    all: bool,
    /// Why the whole page is nofollow, if it is.
    page_nofollow: Option<String>,
    /// The page's URL.
    base: &'a Url,
}

impl Follow<'_> {
    /// The depth a link with these `rel` words is followed at, or why it
    /// is not followed.
    fn of(&self, rel_words: &str) -> Result<u32, String> {
        if self.all {
            return Ok(self.next);
        }
        if let Some(why) = &self.page_nofollow {
            return Err(why.clone());
        }
        if !rel_words.is_empty() {
            return Err(format!("rel=\"{rel_words}\" on {}", self.base));
        }
        Ok(self.next)
    }
}

/// The links of one page as they are recorded: numbered in the order they
/// are met, their targets admitted.
struct Links<'a, A> {
    q: &'a Queued,
    frontier: &'a mut A,
    batch: &'a mut Batch,
    position: u32,
    /// Each link's normal form, written into one buffer: most links lead
    /// to URLs met before, and need no more than their text.
    text: String,
    /// Whether the links recorded now are found only in the rendered
    /// page: a URL first met through one was found by `render`.
    rendered: bool,
}

impl<'a, A: Admission> Links<'a, A> {
    /// No link yet, of the page `q`.
    fn new(q: &'a Queued, frontier: &'a mut A, batch: &'a mut Batch) -> Self {
        Links {
            q,
            frontier,
            batch,
            position: 0,
            text: String::new(),
            rendered: false,
        }
    }

    /// Records one link (`href` as written, resolved against `against`)
    /// and admits its target: at the depth `follow` gives, or unfollowed
    /// with its reason.
    fn link(
        &mut self,
        against: &Url,
        href: &str,
        kind: LinkKind,
        anchor: Option<String>,
        rel: Option<String>,
        follow: Result<u32, String>,
    ) {
        let q = self.q;
        let pos = self.position;
        self.position += 1;
        // An empty `href` leads back to the page itself: kept as written,
        // not as a link to the page, so that it can be reported.
        let normalized = !href.is_empty() && normalize_text(against, href, &mut self.text).is_ok();
        // A link of the page's body that leads to the page itself (`#top`,
        // its own URL, an empty `href`) is no link of the site's graph.
        let same_page =
            kind.is_site_link() && (href.is_empty() || (normalized && self.text == q.url));
        let mut record = LinkRecord {
            source: q.id,
            target: None,
            target_text: None,
            kind,
            anchor,
            rel,
            followed: follow.is_ok(),
            position: pos,
            same_page,
        };
        let known = normalized
            .then(|| self.frontier.known_id(&self.text, follow.is_ok()))
            .flatten();
        if let Some(id) = known {
            record.target = Some(id);
            self.batch.links.push(record);
            return;
        }
        // A URL met for the first time: resolved again, as a `Url`, for
        // the frontier's checks (cheaper than parsing the whole text).
        let Some(target) = normalized.then(|| normalize(against, href).ok()).flatten() else {
            record.target_text = Some(href.chars().take(2048).collect());
            record.followed = false;
            self.batch.links.push(record);
            return;
        };
        // A redirect's target is met at the depth it is admitted at.
        let depth = follow.as_ref().map_or(q.depth + 1, |d| *d);
        let admitted = match follow {
            Ok(depth) => self.frontier.admit(&target, depth),
            Err(why) => self.frontier.admit_unfollowed(
                &target,
                q.depth + 1,
                Skip {
                    reason: "nofollow",
                    detail: why,
                },
            ),
        };
        let by = if self.rendered {
            "render"
        } else {
            found_by(kind)
        };
        record_new(self.batch, &target, depth, by, &admitted);
        record.target = Some(admitted.id());
        self.batch.links.push(record);
    }
}

/// Records a refresh that names a URL (`content` as written, `target`
/// its URL): its target, its delay, and for one made at once
/// ([`html::INSTANT_REFRESH`]) its target resolved as the page's
/// `location`, as a redirect's. Returns whether it is made at once.
fn take_refresh(record: &mut PageRecord, against: &Url, content: &str, target: &str) -> bool {
    record.refresh = Some(target.to_owned());
    record.refresh_delay = html::refresh_delay(content);
    let instant = record
        .refresh_delay
        .is_some_and(|d| d <= html::INSTANT_REFRESH);
    if instant && let Ok(t) = normalize(against, target) {
        record.location = Some(t.to_string());
    }
    instant
}

/// The page facts of an HTML page (`pages.quality`), once its links are
/// numbered: with the fragments they name, and an HTTPS page's security
/// headers.
fn record_quality(record: &mut PageRecord, facts: &HtmlFacts, page: &PageResponse) {
    let mut quality = facts.quality.clone();
    if page.url.scheme() == "https" {
        quality.security = Some(page.security);
    }
    record.quality = serde_json::to_string(&quality).ok();
}

/// What the audit reads of an HTML page, beside its links and directives.
fn record_facts(record: &mut PageRecord, facts: &HtmlFacts, page: &PageResponse, base: &Url) {
    let descriptions: Vec<&html::Meta> = facts
        .metas
        .iter()
        .filter(|m| m.name.trim().eq_ignore_ascii_case("description"))
        .collect();
    record.description_count = Some(u32::try_from(descriptions.len()).unwrap_or(u32::MAX));
    record.description = descriptions
        .first()
        .map(|m| m.content.split_whitespace().collect::<Vec<_>>().join(" "));
    record.h1 = facts.h1.clone();
    record.h1_count = Some(facts.h1_count);
    record.canonical_count = Some(u32::try_from(facts.canonicals.len()).unwrap_or(u32::MAX));
    record.canonical_written = facts.canonicals.first().cloned();
    record.canonical_outside_head = Some(facts.canonicals_outside_head);
    record.canonical_header = link_header_canonicals(&page.link)
        .first()
        .and_then(|c| normalize(base, c).ok())
        .map(|u| u.to_string());
    record.base_href = facts.base.clone();
    record.base_count = Some(facts.base_count);
    record.meta_charset = facts.meta_charset.clone();
    record.bom = encoding_rs::Encoding::for_bom(&page.body).map(|(e, _)| e.name().to_owned());
    record.simhash = facts.simhash;
    let robots: Vec<String> = facts
        .metas
        .iter()
        .filter(|m| {
            let n = m.name.trim();
            n.eq_ignore_ascii_case("robots") || n.eq_ignore_ascii_case("botwarden")
        })
        .map(|m| format!("{}: {}", m.name.trim(), m.content.trim()))
        .collect();
    record.robots_meta = (!robots.is_empty()).then(|| robots.join(" | "));
    // Set on every HTML page read: a store of schema 5 read it.
    record.head_ignored_count = Some(facts.head_ignored_count);
    if let Some(b) = &facts.head_break {
        record.head_break = Some(b.element.clone());
        record.head_break_line = Some(b.line);
        record.head_ignored = (!facts.head_ignored.is_empty()).then(|| {
            let lines: Vec<String> = facts
                .head_ignored
                .iter()
                .map(|p| format!("{} (line {})", p.what, p.line))
                .collect();
            lines.join("\n")
        });
    }
    if base.scheme() == "https" {
        record.mixed_active = Some(facts.insecure_active);
        record.mixed_passive = Some(facts.insecure_passive);
        record.mixed_examples = (!facts.insecure.is_empty()).then(|| {
            let lines: Vec<String> = facts
                .insecure
                .iter()
                .map(|i| format!("{} {} (line {})", i.element, i.url, i.line))
                .collect();
            lines.join("\n")
        });
    }
}

/// What a URL met through a link of this kind was found by.
fn found_by(kind: LinkKind) -> &'static str {
    match kind {
        LinkKind::Redirect => "redirect",
        LinkKind::Canonical => "canonical",
        LinkKind::Hreflang => "hreflang",
        LinkKind::Refresh => "refresh",
        LinkKind::A | LinkKind::Area | LinkKind::Iframe | LinkKind::Sitemap => "link",
    }
}

/// Records a URL met for the first time (or promoted) in the batch.
pub(crate) fn record_new(
    batch: &mut Batch,
    url: &Url,
    depth: u32,
    found_by: &'static str,
    a: &Admitted,
) {
    match a {
        Admitted::Queued(id) => batch.new_urls.push(NewUrl {
            id: *id,
            url: url.to_string(),
            depth,
            found_by,
            state: UrlState::Queued,
            skip: None,
        }),
        Admitted::Skipped(id, skip) => batch.new_urls.push(NewUrl {
            id: *id,
            url: url.to_string(),
            depth,
            found_by,
            state: UrlState::Skipped,
            skip: Some(skip.clone()),
        }),
        Admitted::Promoted(id) => batch.states.push((*id, UrlState::Queued, None)),
        Admitted::Known(_) => {}
    }
}
