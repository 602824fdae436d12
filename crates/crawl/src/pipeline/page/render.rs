//! A rendered page taken in with its raw answer (`--render`): the two
//! readings compared, the links found only in the rendered page recorded
//! after the raw ones, the render and its requests written.

use std::collections::HashSet;

use botwarden_fetch::PageResponse;
use botwarden_robots::TokenChain;
use botwarden_store::{Batch, LinkKind, RenderRecord, RenderRequestRecord, normalize};

use super::{Admission, Follow, Links};
use crate::html::{self, HtmlFacts, LinkElement};
use crate::pipeline::now_text;
use crate::render::{PageView, RenderFacts, RenderedPage, link_targets};

/// A page's render, while the page is taken in.
pub(super) struct Render<'a> {
    rendered: &'a RenderedPage,
    page: &'a PageResponse,
    /// The rendered page as read, if the render gave one that could be.
    pub(super) facts: Option<HtmlFacts>,
    raw: PageView,
    view: PageView,
    raw_targets: HashSet<String>,
    /// Where the links found only in the rendered page start.
    links_from: Option<u32>,
    only: u32,
    only_first: Option<String>,
}

impl<'a> Render<'a> {
    /// Reads the rendered page beside the raw one (`facts`).
    pub(super) fn new(
        rendered: &'a RenderedPage,
        facts: &HtmlFacts,
        page: &'a PageResponse,
        chain: &TokenChain,
    ) -> Render<'a> {
        let read = rendered
            .html
            .as_deref()
            .and_then(|h| html::extract(h.as_bytes(), Some("utf-8")).ok());
        let view = read
            .as_ref()
            .map(|f| PageView::of(f, &page.url, chain))
            .unwrap_or_default();
        Render {
            rendered,
            page,
            raw: PageView::of(facts, &page.url, chain),
            view,
            raw_targets: link_targets(facts, &page.url),
            facts: read,
            links_from: None,
            only: 0,
            only_first: None,
        }
    }

    /// Records the links found only in the rendered page (a target no raw
    /// link has), then a canonical, hreflang targets and a script's
    /// redirect that only the rendered page names, after the raw links.
    pub(super) fn take_links<A: Admission>(
        &mut self,
        links: &mut Links<'_, A>,
        follow: &Follow<'_>,
    ) {
        let Some(facts) = self.facts.as_ref() else {
            return;
        };
        self.links_from = Some(links.position);
        links.rendered = true;
        let base_url = facts.base_url(&self.page.url);
        let mut seen = HashSet::new();
        for l in &facts.links {
            let Ok(target) = normalize(&base_url, &l.href) else {
                continue;
            };
            let target = target.to_string();
            if self.raw_targets.contains(&target) || !seen.insert(target.clone()) {
                continue;
            }
            self.only += 1;
            self.only_first.get_or_insert_with(|| target.clone());
            let kind = match l.element {
                LinkElement::A => LinkKind::A,
                LinkElement::Area => LinkKind::Area,
                LinkElement::Frame => LinkKind::Iframe,
            };
            let words = l.rel.words();
            let how = follow.of(&words);
            let anchor = (!l.anchor.is_empty()).then(|| l.anchor.clone());
            let rel = (!words.is_empty()).then_some(words);
            links.link(&base_url, &l.href, kind, anchor, rel, how);
        }
        self.take_head_links(links, follow);
        links.rendered = false;
    }

    /// The canonical and hreflang targets only the rendered page names,
    /// and where a script sent the page.
    fn take_head_links<A: Admission>(&self, links: &mut Links<'_, A>, follow: &Follow<'_>) {
        let base = &self.page.url;
        if let Some(c) = &self.view.canonical
            && self.raw.canonical.as_ref() != Some(c)
        {
            links.link(base, c, LinkKind::Canonical, None, None, follow.of(""));
        }
        for [lang, href] in &self.view.hreflang {
            if !self.raw.hreflang.iter().any(|[_, h]| h == href) {
                let lang = Some(lang.clone());
                links.link(base, href, LinkKind::Hreflang, lang, None, follow.of(""));
            }
        }
        if let Some(to) = &self.rendered.final_url {
            // A script's redirect is followed as a redirect is: at the
            // page's depth, whatever the page's nofollow.
            links.link(base, to, LinkKind::Redirect, None, None, Ok(links.q.depth));
        }
    }

    /// Writes the render and its requests.
    pub(super) fn record(self, id: u64, batch: &mut Batch) {
        let r = self.rendered;
        let count = |o: crate::render::RequestOutcome| {
            let n = r.requests.iter().filter(|q| q.outcome == o).count();
            u32::try_from(n).unwrap_or(u32::MAX)
        };
        let facts = self.facts.is_some().then_some(RenderFacts {
            raw: self.raw,
            rendered: self.view,
            rendered_only_links: self.only,
            rendered_only_first: self.only_first,
        });
        batch.renders.push(RenderRecord {
            url_id: id,
            rendered_at: now_text(),
            outcome: r.outcome,
            error: r.error.clone(),
            final_url: r.final_url.clone(),
            elapsed_ms: r.elapsed.as_secs_f64() * 1000.0,
            requests: u32::try_from(r.requests.len()).unwrap_or(u32::MAX),
            blocked: count(crate::render::RequestOutcome::Blocked),
            failed: count(crate::render::RequestOutcome::Failed)
                + u32::try_from(
                    r.requests
                        .iter()
                        .filter(|q| q.status.is_some_and(|s| s >= 400))
                        .count(),
                )
                .unwrap_or(u32::MAX),
            links_from: self.links_from,
            facts: facts.and_then(|f| serde_json::to_string(&f).ok()),
        });
        for (i, q) in r.requests.iter().enumerate() {
            batch.render_requests.push(RenderRequestRecord {
                url_id: id,
                position: u32::try_from(i).unwrap_or(u32::MAX),
                url: q.url.clone(),
                kind: q.kind.clone(),
                outcome: q.outcome.as_str().to_owned(),
                status: q.status,
                detail: q.detail.clone(),
            });
        }
    }
}
