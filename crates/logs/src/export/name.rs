//! Bot names as single path components and map values.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Names a bot cannot keep as they are: the fixed directories of the ACAP
/// tree, the tree's marker file, and the values the maps give spoofed and
/// other addresses.
pub const RESERVED_NAMES: [&str; 6] = [
    "all-ok-bots",
    "other-bots",
    "suspect-bots",
    "spoofed",
    "other",
    super::acap::ACAP_MARKER,
];

/// The name of a bot's directory in the ACAP tree, and its value in the maps.
///
/// A registry name made only of `A-Z a-z 0-9 . _ -`, other than `.`, `..`
/// and the [`RESERVED_NAMES`], is used as it is (`Googlebot`,
/// `archive.org_bot`). Any other name is escaped: a space becomes `+`, and
/// every other byte outside that set becomes `~` and two uppercase hex
/// digits (`Sogou web spider` → `Sogou+web+spider`, `a/b` → `a~2Fb`); a
/// reserved name, `.` or `..` gets its first byte escaped (`other` →
/// `~6Fther`, `..` → `~2E.`), and the empty name becomes `~`.
///
/// The mapping is one-to-one: names used as they are never contain `+` or
/// `~`, and escaped names always do, so two bots never share a directory.
/// The result never contains `/`, whitespace or `,`, which lets the maps
/// join several bots with commas.
#[must_use]
pub fn bot_slug(name: &str) -> Cow<'_, str> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
    let special = name == "." || name == ".." || RESERVED_NAMES.contains(&name);
    if !name.is_empty() && !special && name.bytes().all(plain) {
        return Cow::Borrowed(name);
    }
    if name.is_empty() {
        return Cow::Borrowed("~");
    }
    let mut out = String::with_capacity(name.len() + 8);
    for (i, b) in name.bytes().enumerate() {
        if b == b' ' {
            out.push('+');
        } else if plain(b) && !(i == 0 && special) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "~{b:02X}");
        }
    }
    Cow::Owned(out)
}
