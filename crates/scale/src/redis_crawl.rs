//! The crawl shared by many workers on Redis: frontier, seen-set and per-host politeness.
