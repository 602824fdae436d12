//! Rendering for the crawl of botwarden (`crawl --render`, `docs/render.md`).
//!
//! [`Chromium`] is a [`botwarden_crawl::Renderer`]: it starts headless
//! Chromium (Debian's `chromium`, or the binary given), supervises it (a
//! browser that dies is started again, and the page it was rendering is
//! rendered once more), and renders each page in a tab of its own, at
//! most [`ChromiumConfig::tabs`] at a time, through the DevTools protocol
//! (the `chromiumoxide` crate).
//!
//! Every request of a tab is intercepted (`Fetch.requestPaused`) and
//! answered by the crawl, never by the browser's own network: the page
//! itself from the crawl's raw answer, every other resource through the
//! crawl's [`botwarden_crawl::ResourceGate`] (robots.txt, throttle,
//! fetcher, signature). A request refused by robots.txt fails in the
//! browser as a blocked one; a request other than `GET` or `HEAD` is not
//! sent (a crawler does not post); a navigation of the page to another
//! document (a script's redirect, a refresh) is recorded and not
//! followed in the tab (the crawl queues its target).
//!
//! A page is read when its `load` event has fired and no request has been
//! in flight for [`ChromiumConfig::quiet`] (the network is idle), or when
//! [`ChromiumConfig::budget`] runs out (then it is read as it is, and the
//! render is `timeout`).

mod chromium;
mod tab;

pub use chromium::{Chromium, ChromiumConfig, Error, default_binary};
