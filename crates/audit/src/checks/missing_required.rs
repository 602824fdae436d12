//! `structured-data/missing-required`: JSON-LD items that lack what
//! their rich result requires.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with a JSON-LD item of a type whose rich result
    /// Google documents required properties for, lacking one of them: a
    /// `Product` without a `name` or without any of `offers`, `review`
    /// and `aggregateRating`; a `BreadcrumbList` whose `ListItem` lacks a
    /// `position`, a `name` or (but for the last) an `item`; a `FAQPage`
    /// whose question lacks a `name` or an accepted answer with a `text`;
    /// a `Recipe` without `name` or `image`; an `Event` without `name`,
    /// `startDate` or `location`; a `JobPosting` without `title`,
    /// `description`, `datePosted`, `hiringOrganization`, or `jobLocation`
    /// when it is not remote work. The message counts the items and names
    /// the first (`block 1: Product lacks offers, review or
    /// aggregateRating`).
    ///
    /// Items are a block's top-level objects and the members of their
    /// `@graph`; a type nested as another item's property (a `Product`
    /// under a review's `itemReviewed`) is judged as that item's part, not
    /// as an item. `Article` and `Organization` require nothing. A value
    /// of `null`, `""`, `[]` or `{}` is no value. Blocks that are not JSON
    /// are `structured-data/invalid-json-ld`'s; microdata and RDFa items
    /// are counted by the crawler but not judged.
    ///
    /// ## Why it matters
    /// An item without its required properties earns no rich result: the
    /// markup is there, and does nothing.
    ///
    /// ## Fix
    /// Add the properties (the Rich Results Test names them), or remove a
    /// type the page does not need.
    "structured-data/missing-required", Warning, "JSON-LD items that lack properties their rich result requires"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let n = q("$.jsonld_missing");
    findings(
        cx,
        &format!("{n} > 0"),
        &format!(
            "{n} || ' JSON-LD item(s) without the properties their rich result requires; the first: ' || {}",
            q("$.jsonld_missing_first")
        ),
        "NULL",
    )
}
