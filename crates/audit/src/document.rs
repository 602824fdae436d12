//! The whole audit as the CLI gives it: the report, the crawl at a glance
//! and, asked for, the comparison with an earlier crawl.

use std::fmt;

use botwarden_store::Store;
use serde::Serialize;

use super::compare::Comparison;
use super::graph::LinkGraph;
use super::site::SiteOverview;
use super::{Audit, AuditReport};
use crate::error::Error;

/// The audit of a crawl with its overview, and its comparison with an
/// earlier crawl if asked. Serializes as the report's JSON with `site`
/// and `compare` added (`docs/audit.md`); `Display` is the report's text
/// followed by the comparison's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditDocument {
    /// The findings.
    #[serde(flatten)]
    pub report: AuditReport,
    /// The crawl at a glance.
    pub site: SiteOverview,
    /// What changed since the earlier crawl.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<Comparison>,
}

impl AuditDocument {
    /// Audits the crawl in `store` with `audit`, reads its link graph, and
    /// compares it with the crawl in `earlier` if given (audited alike).
    ///
    /// # Errors
    /// [`Error::Store`] if SQLite fails on either store.
    pub fn build(
        audit: &Audit,
        store: &Store,
        earlier: Option<&Store>,
    ) -> Result<AuditDocument, Error> {
        let report = audit.run(store)?;
        let graph = LinkGraph::load(store)?;
        let compare = match earlier {
            Some(e) => Some(Comparison::new(&report, &audit.run(e)?)),
            None => None,
        };
        Ok(AuditDocument {
            report,
            site: SiteOverview::new(&graph),
            compare,
        })
    }
}

impl fmt::Display for AuditDocument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.report)?;
        if let Some(c) = &self.compare {
            write!(f, "\n{c}")?;
        }
        Ok(())
    }
}
