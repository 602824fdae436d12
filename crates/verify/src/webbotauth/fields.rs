//! The `Signature-Input`, `Signature` and `Signature-Agent` fields, read as
//! structured fields (RFC 9651) with the `sfv` crate.

use serde::Serialize;
use sfv::{BareItem, Dictionary, FieldType as _, Item, ListEntry, Parser};

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

/// Reads every member of `Signature-Input` (the field lines joined).
pub(crate) fn parse_signature_input(value: &str) -> Result<Vec<SignatureInput>, SignatureFailure> {
    const F: &str = "Signature-Input";
    let dict: Dictionary = Parser::new(value)
        .parse()
        .map_err(|e| malformed(F, format!("not a structured dictionary: {e}")))?;
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
    let dict: Dictionary = Parser::new(value)
        .parse()
        .map_err(|e| malformed(F, format!("not a structured dictionary: {e}")))?;
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
            None => AgentKind::Directory,
            Some(v) => {
                let t = v
                    .as_token()
                    .map(|t| t.as_str().to_owned())
                    .or_else(|| v.as_string().map(|s| s.as_str().to_owned()))
                    .ok_or_else(|| {
                        malformed(
                            F,
                            format!("member {}: `type` is not a token", member.as_str()),
                        )
                    })?;
                match t.as_str() {
                    "directory" => AgentKind::Directory,
                    "jwks_uri" => AgentKind::JwksUri,
                    "cimd" => AgentKind::Card,
                    other => {
                        return Err(malformed(
                            F,
                            format!(
                                "member {}: type `{other}` is not one of directory, jwks_uri, cimd",
                                member.as_str()
                            ),
                        ));
                    }
                }
            }
        };
        return agent(
            uri.as_str(),
            kind,
            AgentReading::Dictionary,
            Some(member.as_str()),
        );
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
    let bare = kind == AgentKind::Directory && is_bare_origin(&parsed);
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
