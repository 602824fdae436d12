//! The `Signature-Input`, `Signature` and `Signature-Agent` fields, read as
//! structured fields (RFC 9651) with the `sfv` crate.

use serde::Serialize;
use sfv::visitor::{DictionaryVisitor, EntryVisitor, Ignored};
use sfv::{BareItem, Dictionary, FieldType as _, Item, KeyRef, ListEntry, Parser};

use super::failure::SignatureFailure;
use super::keys::WELL_KNOWN_DIRECTORY;

/// One covered component of a signature (RFC 9421 §2): a derived component
/// (`@authority`) or a header field, with the parameters botwarden
/// supports (`key`, `sf`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Component {
    /// The name, lower case (`@authority`, `signature-agent`).
    pub(crate) name: String,
    /// `key`: the dictionary member of the field.
    pub(crate) key: Option<String>,
    /// `sf`: the field re-serialized as a structured field.
    pub(crate) sf: bool,
    /// `req`: the component of the request a response answers (only in a
    /// response's signature: a signed key directory).
    pub(crate) req: bool,
    /// The component identifier as it goes in the signature base
    /// (`"signature-agent";key="agent2"`).
    pub(crate) identifier: String,
}

/// One member of `Signature-Input`: a signature's label, covered
/// components and parameters.
#[derive(Debug, Clone)]
pub(crate) struct SignatureInput {
    pub(crate) label: String,
    pub(crate) components: Vec<Component>,
    pub(crate) created: Option<i64>,
    pub(crate) expires: Option<i64>,
    pub(crate) keyid: Option<String>,
    pub(crate) alg: Option<String>,
    pub(crate) nonce: Option<String>,
    pub(crate) tag: Option<String>,
    /// The `@signature-params` value: the member re-serialized.
    pub(crate) params_line: String,
}

fn malformed(field: &'static str, reason: impl Into<String>) -> SignatureFailure {
    SignatureFailure::Malformed {
        field,
        reason: reason.into(),
    }
}

/// Collects a dictionary's keys in order, duplicates kept (RFC 9651 keeps
/// only the last value of a key; a signature field that names a label
/// twice is ambiguous, and refused rather than read as its last member).
#[derive(Default)]
struct Keys<'de> {
    keys: Vec<&'de str>,
}

impl<'de> DictionaryVisitor<'de> for &mut Keys<'de> {
    type Out = ();
    type Error = std::convert::Infallible;

    fn entry(&mut self, key: &'de KeyRef) -> Result<impl EntryVisitor<'de>, Self::Error> {
        self.keys.push(key.as_str());
        Ok(Ignored)
    }

    fn finish(self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// The first key that appears more than once in the dictionary `value`
/// (`None` when every key is unique, or when `value` is not a dictionary:
/// the caller's own parse says why).
pub(crate) fn duplicate_key(value: &str) -> Option<String> {
    let mut keys = Keys::default();
    Parser::new(value)
        .parse_dictionary_with_visitor(&mut keys)
        .ok()?;
    let mut seen = std::collections::HashSet::with_capacity(keys.keys.len());
    keys.keys
        .into_iter()
        .find(|k| !seen.insert(*k))
        .map(str::to_owned)
}

/// How many members a dictionary that parsed has on the wire: its
/// top-level commas plus one. Inner lists separate items with spaces, and
/// byte sequences, tokens and parameters hold no comma, so outside strings
/// every comma separates members.
fn wire_members(value: &str) -> usize {
    let mut members = 1;
    let mut in_string = false;
    let mut escaped = false;
    for b in value.bytes() {
        match (in_string, b) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (_, b'"') => in_string = !in_string,
            (false, b',') => members += 1,
            _ => {}
        }
    }
    members
}

/// Parses the dictionary field `field`, refusing a key given twice. (A
/// duplicate shows as fewer members parsed than on the wire, a byte scan;
/// only then is the field read again to name the key.)
fn dictionary(field: &'static str, value: &str) -> Result<Dictionary, SignatureFailure> {
    let dict: Dictionary = Parser::new(value)
        .parse()
        .map_err(|e| malformed(field, format!("not a structured dictionary: {e}")))?;
    if dict.is_empty() || wire_members(value) == dict.len() {
        return Ok(dict);
    }
    if let Some(key) = duplicate_key(value) {
        return Err(malformed(
            field,
            format!("member {key} is given more than once, so which one is meant is ambiguous"),
        ));
    }
    Ok(dict)
}

/// Reads every member of `Signature-Input` (the field lines joined).
pub(crate) fn parse_signature_input(value: &str) -> Result<Vec<SignatureInput>, SignatureFailure> {
    const F: &str = "Signature-Input";
    let dict = dictionary(F, value)?;
    let mut out = Vec::with_capacity(dict.len());
    for (label, entry) in &dict {
        let label = label.as_str();
        let ListEntry::InnerList(inner) = entry else {
            return Err(malformed(
                F,
                format!("member {label} is not an inner list of components"),
            ));
        };
        let mut components = Vec::with_capacity(inner.items.len());
        for (i, item) in inner.items.iter().enumerate() {
            let Some(name) = item.bare_item.as_string() else {
                return Err(malformed(
                    F,
                    format!("member {label}: component {i} is not a string"),
                ));
            };
            let name = name.as_str();
            if name.bytes().any(|b| b.is_ascii_uppercase()) {
                return Err(malformed(
                    F,
                    format!("member {label}: component `{name}` is not lower case"),
                ));
            }
            let mut key = None;
            let mut sf = false;
            let mut req = false;
            for (p, v) in &item.params {
                match (p.as_str(), v) {
                    ("key", BareItem::String(s)) => key = Some(s.as_str().to_owned()),
                    ("sf", BareItem::Boolean(b)) => sf = *b,
                    ("req", BareItem::Boolean(b)) => req = *b,
                    (p, _) => {
                        return Err(SignatureFailure::UnsupportedComponent {
                            component: format!("{name};{p}"),
                        });
                    }
                }
            }
            components.push(Component {
                name: name.to_owned(),
                key,
                sf,
                req,
                identifier: item.serialize(),
            });
        }
        let int = |name: &str| -> Result<Option<i64>, SignatureFailure> {
            match inner.params.get(name) {
                None => Ok(None),
                Some(BareItem::Integer(n)) => Ok(Some(i64::from(*n))),
                Some(_) => Err(malformed(
                    F,
                    format!("member {label}: `{name}` is not an integer"),
                )),
            }
        };
        let string = |name: &str| -> Result<Option<String>, SignatureFailure> {
            match inner.params.get(name) {
                None => Ok(None),
                Some(BareItem::String(s)) => Ok(Some(s.as_str().to_owned())),
                Some(_) => Err(malformed(
                    F,
                    format!("member {label}: `{name}` is not a string"),
                )),
            }
        };
        let params_line = vec![ListEntry::InnerList(inner.clone())]
            .serialize()
            .unwrap_or_default();
        out.push(SignatureInput {
            label: label.to_owned(),
            components,
            created: int("created")?,
            expires: int("expires")?,
            keyid: string("keyid")?,
            alg: string("alg")?,
            nonce: string("nonce")?,
            tag: string("tag")?,
            params_line,
        });
    }
    Ok(out)
}

/// The signature of `label` in `Signature` (the field lines joined).
pub(crate) fn signature_bytes(value: &str, label: &str) -> Result<Vec<u8>, SignatureFailure> {
    const F: &str = "Signature";
    let dict = dictionary(F, value)?;
    match dict.get(label) {
        None => Err(SignatureFailure::NoSignature {
            label: label.to_owned(),
        }),
        Some(ListEntry::Item(Item {
            bare_item: BareItem::ByteSequence(b),
            ..
        })) => Ok(b.clone()),
        Some(_) => Err(malformed(
            F,
            format!("member {label} is not a byte sequence"),
        )),
    }
}

/// How a `Signature-Agent` value was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentReading {
    /// A dictionary member (the working-group draft): `sig1="https://…"`.
    Dictionary,
    /// A bare sf-string, as deployed agents send: `"https://chatgpt.com"`.
    String,
    /// An unquoted URL (not a structured field string; read as a token).
    Unquoted,
}

impl AgentReading {
    /// `dictionary`, `string` or `unquoted`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AgentReading::Dictionary => "dictionary",
            AgentReading::String => "string",
            AgentReading::Unquoted => "unquoted",
        }
    }
}

/// What a `Signature-Agent` URL points at (its `type` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// A key directory (the default): an origin's well-known directory, or
    /// a directory's own URL.
    Directory,
    /// A JWK Set document (`type=jwks_uri`).
    JwksUri,
    /// A signature agent card (`type=cimd`), which holds or points at the
    /// keys.
    Card,
}

impl AgentKind {
    /// `directory`, `jwks_uri` or `cimd`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Directory => "directory",
            AgentKind::JwksUri => "jwks_uri",
            AgentKind::Card => "cimd",
        }
    }
}

/// The signature agent of a signature: where its keys are, and how the
/// `Signature-Agent` field was read to find out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Agent {
    /// The dictionary member used, for the dictionary reading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The URL as sent.
    pub uri: String,
    /// What it points at.
    pub kind: AgentKind,
    /// How the field was read.
    pub reading: AgentReading,
    /// The URL to fetch the keys from: the URL sent, or the well-known
    /// directory of a bare origin.
    pub keys_url: String,
    /// Whether a bare origin was mapped to its well-known directory.
    pub well_known: bool,
    /// Why the member is ignored, when it is: the protocol draft has a
    /// verifier ignore a member of an unknown `type`, and a directory
    /// member that is not an origin (it has a path, query or fragment).
    /// Its keys are not fetched; the signature is then checked as if no
    /// agent were named (a registry key with its `keyid`, else unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

/// Reads `Signature-Agent` for the signature `label`, whose
/// `signature-agent` component names the member `key` (if it has `;key`).
pub(crate) fn parse_agent(
    value: &str,
    label: &str,
    key: Option<&str>,
) -> Result<Agent, SignatureFailure> {
    const F: &str = "Signature-Agent";
    if let Ok(dict) = Parser::new(value).parse::<Dictionary>() {
        if let Some(twice) = (wire_members(value) != dict.len())
            .then(|| duplicate_key(value))
            .flatten()
        {
            return Err(malformed(
                F,
                format!(
                    "member {twice} is given more than once, so which agent is meant is ambiguous"
                ),
            ));
        }
        let (member, entry) = match key {
            Some(k) => dict.iter().find(|(m, _)| m.as_str() == k).ok_or_else(|| {
                malformed(F, format!("no member `{k}`, which signature {label} names"))
            })?,
            None => match dict.iter().find(|(m, _)| m.as_str() == label) {
                Some(found) => found,
                None if dict.len() == 1 => dict
                    .iter()
                    .next()
                    .ok_or_else(|| malformed(F, "empty dictionary"))?,
                None => {
                    return Err(malformed(
                        F,
                        format!(
                            "{} members and none named {label}; the signature must name one (`;key`)",
                            dict.len()
                        ),
                    ));
                }
            },
        };
        let ListEntry::Item(item) = entry else {
            return Err(malformed(
                F,
                format!("member {} is not a string", member.as_str()),
            ));
        };
        let Some(uri) = item.bare_item.as_string() else {
            return Err(malformed(
                F,
                format!("member {} is not a string", member.as_str()),
            ));
        };
        let kind = match item.params.get("type") {
            None => Ok(AgentKind::Directory),
            Some(v) => {
                let t = v
                    .as_token()
                    .map(|t| t.as_str().to_owned())
                    .or_else(|| v.as_string().map(|s| s.as_str().to_owned()));
                match t.as_deref() {
                    Some("directory") => Ok(AgentKind::Directory),
                    Some("jwks_uri") => Ok(AgentKind::JwksUri),
                    Some("cimd") => Ok(AgentKind::Card),
                    // The protocol draft: a verifier that does not support
                    // a `type` value MUST ignore that member.
                    Some(other) => Err(format!(
                        "its type `{other}` is not one of directory, jwks_uri, cimd"
                    )),
                    None => Err("its type is not a token".to_owned()),
                }
            }
        };
        let (kind, ignored) = match kind {
            Ok(kind) => (kind, None),
            Err(why) => (AgentKind::Directory, Some(why)),
        };
        let mut found = agent(
            uri.as_str(),
            kind,
            AgentReading::Dictionary,
            Some(member.as_str()),
        )?;
        if ignored.is_some() {
            found.ignored = ignored;
            found.keys_url = found.uri.clone();
            found.well_known = false;
        }
        return Ok(found);
    }
    match Parser::new(value).parse::<Item>() {
        Ok(item) => {
            if let Some(s) = item.bare_item.as_string() {
                agent(s.as_str(), AgentKind::Directory, AgentReading::String, None)
            } else if let Some(t) = item.bare_item.as_token() {
                agent(
                    t.as_str(),
                    AgentKind::Directory,
                    AgentReading::Unquoted,
                    None,
                )
            } else {
                Err(malformed(F, "neither a dictionary nor a string"))
            }
        }
        Err(e) => Err(malformed(
            F,
            format!("neither a dictionary nor a string: {e}"),
        )),
    }
}

fn agent(
    uri: &str,
    kind: AgentKind,
    reading: AgentReading,
    member: Option<&str>,
) -> Result<Agent, SignatureFailure> {
    let parsed = url::Url::parse(uri)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .ok_or_else(|| malformed("Signature-Agent", format!("`{uri}` is not an http(s) URL")))?;
    let directory = kind == AgentKind::Directory;
    let bare = directory && is_bare_origin(&parsed);
    // A directory member is an origin (protocol draft -01, -02): one with
    // a path, query or fragment MUST be ignored, not fetched as the
    // directory. The origin's own well-known URL says the same as the
    // origin (and is the form the working group's -01 asks for), so it
    // is read as it.
    let well_known_url = directory
        && parsed.path() == WELL_KNOWN_DIRECTORY
        && parsed.query().is_none()
        && parsed.fragment().is_none();
    let ignored = (directory && !bare && !well_known_url).then(|| {
        "a directory agent is an origin, and this URL has a path, query or fragment (the \
         draft has such a member ignored; `type=jwks_uri` names a key set by its URL)"
            .to_owned()
    });
    let keys_url = if bare {
        well_known(&parsed)
    } else {
        uri.to_owned()
    };
    Ok(Agent {
        member: member.map(str::to_owned),
        uri: uri.to_owned(),
        kind,
        reading,
        keys_url,
        well_known: bare,
        ignored,
    })
}

fn is_bare_origin(u: &url::Url) -> bool {
    (u.path().is_empty() || u.path() == "/") && u.query().is_none() && u.fragment().is_none()
}

fn well_known(u: &url::Url) -> String {
    let mut u = u.clone();
    u.set_path(WELL_KNOWN_DIRECTORY);
    u.to_string()
}

/// The URL of the keys of a signature agent given as `agent` (in a
/// registry entry): a bare origin's well-known key directory, or the
/// directory URL itself; `None` if it is not an http(s) URL or has a query
/// or fragment.
#[must_use]
pub fn keys_url(agent: &str) -> Option<String> {
    let u = url::Url::parse(agent).ok()?;
    if !matches!(u.scheme(), "http" | "https") || u.host().is_none() {
        return None;
    }
    if u.query().is_some() || u.fragment().is_some() {
        return None;
    }
    Some(if is_bare_origin(&u) {
        well_known(&u)
    } else {
        agent.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_on_the_wire_show_duplicates() {
        for (value, duplicate) in [
            (r#"a=1, b=2"#, None),
            (r#"a="x, y", b=("p" "q");k="1,2""#, None),
            (r#"a="say \"hi, there\"", b=2"#, None),
            (r#"a=:AAAA:, b=?1;p=tok"#, None),
            (r#"a=1, a=2"#, Some("a")),
            (r#"a="x,", b=1, a=("z")"#, Some("a")),
        ] {
            let dict: Dictionary = Parser::new(value).parse().unwrap();
            assert_eq!(
                wire_members(value) != dict.len(),
                duplicate.is_some(),
                "{value}"
            );
            assert_eq!(duplicate_key(value).as_deref(), duplicate, "{value}");
        }
    }
}
