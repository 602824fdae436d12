//! The crawl at a glance, for the reports: pages by status, URLs by
//! depth, the most linked pages and the link score's best.

use std::collections::BTreeMap;

use serde::Serialize;

use super::graph::{LinkGraph, Node, ScoreRun};

/// Pages listed in [`SiteOverview::most_linked`] and
/// [`SiteOverview::top_scores`].
pub const TOP_PAGES: usize = 20;

/// The crawl at a glance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteOverview {
    /// Fetched URLs by answer: a status (`200`, `404`), or `no answer`.
    pub statuses: Vec<Count>,
    /// URLs not fetched, by reason (`robots`, `scope`, …).
    pub not_fetched: Vec<Count>,
    /// URLs by depth (clicks from the start URL), every depth from 0 to
    /// the deepest.
    pub depths: Vec<DepthCount>,
    /// The URLs the most links of the site's pages lead to, most first
    /// (ties in the order of discovery); at most [`TOP_PAGES`].
    pub most_linked: Vec<PageRank>,
    /// The HTML pages of highest link score, highest first; at most
    /// [`TOP_PAGES`].
    pub top_scores: Vec<PageRank>,
    /// How the link score was worked out.
    pub link_score: ScoreRun,
}

/// A count under a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    /// What is counted.
    pub name: String,
    /// How many.
    pub count: u64,
}

/// URLs at one depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DepthCount {
    /// Clicks from the start URL.
    pub depth: u32,
    /// URLs met at this depth.
    pub urls: u64,
    /// Of which fetched.
    pub fetched: u64,
}

/// A page among the most linked or best scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageRank {
    /// The URL.
    pub url: String,
    /// Its status, if fetched and answered.
    pub status: Option<u16>,
    /// Its depth.
    pub depth: u32,
    /// Links of the site's pages that lead here.
    pub in_links: u64,
    /// Its link score, for an HTML page.
    pub score: Option<f64>,
}

impl PageRank {
    fn of(n: &Node) -> PageRank {
        PageRank {
            url: n.url.clone(),
            status: n.status,
            depth: n.depth,
            in_links: n.in_links,
            score: n.score,
        }
    }
}

impl SiteOverview {
    /// The overview of the crawl whose link graph is `graph`.
    #[must_use]
    pub fn new(graph: &LinkGraph) -> SiteOverview {
        let mut statuses: BTreeMap<Option<u16>, u64> = BTreeMap::new();
        let mut reasons: BTreeMap<&str, u64> = BTreeMap::new();
        let mut depths: Vec<DepthCount> = Vec::new();
        for n in &graph.nodes {
            let d = n.depth as usize;
            if depths.len() <= d {
                depths.extend((depths.len()..=d).map(|depth| DepthCount {
                    depth: u32::try_from(depth).unwrap_or(u32::MAX),
                    urls: 0,
                    fetched: 0,
                }));
            }
            depths[d].urls += 1;
            match n.state.as_str() {
                "fetched" => {
                    depths[d].fetched += 1;
                    *statuses.entry(n.status).or_default() += 1;
                }
                "skipped" => {
                    *reasons
                        .entry(n.skip_reason.as_deref().unwrap_or("unknown"))
                        .or_default() += 1;
                }
                _ => *reasons.entry("queued").or_default() += 1,
            }
        }
        let mut by_links: Vec<&Node> = graph.nodes.iter().filter(|n| n.in_links > 0).collect();
        // Stable: ties keep the order of discovery.
        by_links.sort_by_key(|n| std::cmp::Reverse(n.in_links));
        let mut by_score: Vec<&Node> = graph.nodes.iter().filter(|n| n.score.is_some()).collect();
        by_score.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
        let mut statuses: Vec<Count> = statuses
            .into_iter()
            .map(|(s, count)| Count {
                name: s.map_or_else(|| "no answer".to_owned(), |s| s.to_string()),
                count,
            })
            .collect();
        // `no answer` (None sorts first) after the statuses.
        if statuses.first().is_some_and(|c| c.name == "no answer") {
            statuses.rotate_left(1);
        }
        SiteOverview {
            statuses,
            not_fetched: reasons
                .into_iter()
                .map(|(name, count)| Count {
                    name: name.to_owned(),
                    count,
                })
                .collect(),
            depths,
            most_linked: by_links
                .into_iter()
                .take(TOP_PAGES)
                .map(PageRank::of)
                .collect(),
            top_scores: by_score
                .into_iter()
                .take(TOP_PAGES)
                .map(PageRank::of)
                .collect(),
            link_score: graph.run,
        }
    }
}
