//! What a store's computed values were computed with: the meta table
//! names the body hash ([`BodyHash`]) and the reading of the text behind
//! the SimHash fingerprints ([`TextReading`]), so that a resumed crawl, a
//! merge and the audit never mix values of two kinds.

/// How a store's `content_hash` is computed: its meta `content_hash`
/// names it; stores written before it was named hold FNV-1a. A new crawl
/// writes [`BodyHash::NEW`]; a resumed one keeps its store's, so that one
/// store never holds hashes of two kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyHash {
    /// 64-bit XXH3 with the default secret and seed 0 (`xxh3-64`): a
    /// published, frozen algorithm, read at memory speed. The hash finds
    /// pages of one site with equal bodies; it guards against chance, and
    /// a site that made two of its pages collide on purpose would fool
    /// only its own audit.
    Xxh3,
    /// The first 64 bits of SHA-256 (`sha256-64`).
    Sha256,
    /// 64-bit FNV-1a (`fnv1a-64`).
    Fnv1a,
}

impl BodyHash {
    /// The store's meta key that names the hash.
    pub const META: &'static str = "content_hash";

    /// What a new crawl writes: SHA-256 took about a tenth of the
    /// fetching threads' time on the benchmark site's 20 KB pages.
    pub const NEW: BodyHash = BodyHash::Xxh3;

    /// The hash's name in the store.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BodyHash::Xxh3 => "xxh3-64",
            BodyHash::Sha256 => "sha256-64",
            BodyHash::Fnv1a => "fnv1a-64",
        }
    }

    /// The kind a store holds (`None`: written before the kind was named).
    #[must_use]
    pub fn of_store(value: Option<&str>) -> BodyHash {
        match value {
            Some("xxh3-64") => BodyHash::Xxh3,
            Some("sha256-64") => BodyHash::Sha256,
            _ => BodyHash::Fnv1a,
        }
    }
}

/// How the SimHash reads a page's visible text. A store names the reading
/// its fingerprints were made with (meta [`TextReading::META`]): a resumed
/// crawl keeps its store's, so that no store holds fingerprints of two
/// readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextReading {
    /// `botwarden-crawl`'s `scan_text`: the text between the markup, read from the page's
    /// bytes beside the HTML parser (`markup-scan`).
    Scan,
    /// The HTML parser's text chunks of the data type (stores written
    /// before the reading was named).
    Parser,
}

impl TextReading {
    /// The store's meta key that names the reading.
    pub const META: &'static str = "simhash_text";

    /// The reading's name in the store.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TextReading::Scan => "markup-scan",
            TextReading::Parser => "parser-text",
        }
    }

    /// The reading a store's fingerprints were made with (`None`: written
    /// before the reading was named).
    #[must_use]
    pub fn of_store(value: Option<&str>) -> TextReading {
        match value {
            Some("markup-scan") => TextReading::Scan,
            _ => TextReading::Parser,
        }
    }
}
