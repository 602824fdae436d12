//! `structure/body-in-head`: an element of the body inside `<head>`,
//! which ends the head early.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<head>` holds something that belongs in the
    /// body before the head's written end (`</head>` or `<body>`): an
    /// element other than `<title>`, `<base>`, `<link>`, `<meta>`,
    /// `<style>`, `<script>`, `<noscript>` and `<template>` (an `<img>`, a
    /// `<div>`, an `<iframe>`, an unknown element), or text other than
    /// white space (a stray character, an unescaped `&nbsp;`). The head
    /// is read as a parser that runs scripts reads it, as Google's
    /// renderer does: what a `<noscript>` holds is text to it, and what a
    /// `<template>` holds is not the document's, so neither counts (a
    /// parser without scripts, which botwarden's links are read with,
    /// ends the head at a `<noscript>`'s `<img>`; search engines do not). A
    /// page that writes no `</head>` or `<body>` is not reported: its head
    /// ends where its body starts, as meant. The finding names the
    /// element and its line, and the head elements after it (`<title>`,
    /// `<base>`, `<link>`, `<meta>`, at most ten, with their lines).
    ///
    /// ## Why it matters
    /// An HTML parser ends the head at the first thing that belongs in the
    /// body: everything after it is body. Google documents that it then
    /// ignores the head elements that follow, among them
    /// `<link rel="canonical">`, `hreflang` alternates and robots
    /// `<meta>` tags, so a `noindex` or a canonical written after such an
    /// element has no effect.
    ///
    /// ## Fix
    /// Move the element (often a tracking pixel, a consent banner or a
    /// widget's markup inserted by a plugin) into the body, or at least
    /// below every `<link>` and `<meta>` of the head.
    "structure/body-in-head", Warning, "elements of the body inside <head>, which end it early"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url,
                CASE WHEN p.head_break = 'text' THEN 'text'
                     ELSE '<' || p.head_break || '>' END
                || ' at line ' || p.head_break_line || ' ends <head> early; ' ||
                CASE WHEN coalesce(p.head_ignored_count, 0) = 0
                     THEN 'no head element follows it'
                     ELSE p.head_ignored_count || ' head element(s) after it are ignored' END,
                p.head_ignored
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.head_break IS NOT NULL
         ORDER BY u.id"
    ))
}
