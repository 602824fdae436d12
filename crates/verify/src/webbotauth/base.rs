//! The request as a signature sees it, and the signature base
//! (RFC 9421 §2.5).

use std::fmt::Write as _;

use sfv::{Dictionary, FieldType as _, List, ListEntry, Parser};

use super::failure::SignatureFailure;
use super::fields::Component;

/// The parts of an HTTP request that signatures cover: method, scheme,
/// authority, target (path and query) and header fields. It borrows them,
/// so every front end (the command line, a server, a log reader) builds one
/// from what it has.
///
/// ```
/// use botwarden_verify::RequestParts;
///
/// let req = RequestParts::new("GET", "example.com", "/path?q=1")
///     .header("Signature-Agent", "\"https://signer.example\"");
/// assert_eq!(req.header_value("signature-agent").as_deref(), Some("\"https://signer.example\""));
/// ```
#[derive(Debug, Clone)]
pub struct RequestParts<'a> {
    method: &'a str,
    scheme: &'a str,
    authority: &'a str,
    target: &'a str,
    headers: Vec<(&'a str, &'a str)>,
}

impl<'a> RequestParts<'a> {
    /// A request with `method`, `authority` (host and port, as in `Host`)
    /// and `target` (path and query, as in the request line), over https.
    #[must_use]
    pub fn new(method: &'a str, authority: &'a str, target: &'a str) -> RequestParts<'a> {
        RequestParts {
            method,
            scheme: "https",
            authority,
            target,
            headers: Vec::new(),
        }
    }

    /// The scheme (`https` unless set).
    #[must_use]
    pub fn scheme(mut self, scheme: &'a str) -> RequestParts<'a> {
        self.scheme = scheme;
        self
    }

    /// Adds a header field line (a name may repeat).
    #[must_use]
    pub fn header(mut self, name: &'a str, value: &'a str) -> RequestParts<'a> {
        self.headers.push((name, value));
        self
    }

    /// Adds a header field line (a name may repeat).
    pub fn push_header(&mut self, name: &'a str, value: &'a str) {
        self.headers.push((name, value));
    }

    /// The method.
    #[must_use]
    pub fn method(&self) -> &str {
        self.method
    }

    /// The authority.
    #[must_use]
    pub fn authority(&self) -> &str {
        self.authority
    }

    /// The target (path and query).
    #[must_use]
    pub fn target(&self) -> &str {
        self.target
    }

    /// The header field lines, in order.
    #[must_use]
    pub fn headers(&self) -> &[(&'a str, &'a str)] {
        &self.headers
    }

    /// The value of a field (name without ASCII case), its lines' values
    /// trimmed and joined with `, ` (RFC 9421 §2.1); `None` if absent.
    #[must_use]
    pub fn header_value(&self, name: &str) -> Option<String> {
        let mut out: Option<String> = None;
        for (n, v) in &self.headers {
            if n.eq_ignore_ascii_case(name) {
                let v = v.trim_matches([' ', '\t']);
                match &mut out {
                    None => out = Some(v.to_owned()),
                    Some(s) => {
                        s.push_str(", ");
                        s.push_str(v);
                    }
                }
            }
        }
        out
    }

    fn path(&self) -> &str {
        let p = self.target.split(['?', '#']).next().unwrap_or("");
        if p.is_empty() { "/" } else { p }
    }

    fn query(&self) -> &str {
        let no_fragment = self.target.split('#').next().unwrap_or("");
        no_fragment.find('?').map_or("?", |i| &no_fragment[i..])
    }

    /// The authority as RFC 9421 §2.2.3 covers it: lower case, without the
    /// scheme's default port.
    fn normalized_authority(&self) -> String {
        let a = self.authority.to_ascii_lowercase();
        let default = match self.scheme.to_ascii_lowercase().as_str() {
            "https" => ":443",
            "http" => ":80",
            _ => "",
        };
        match a.strip_suffix(default) {
            Some(stripped) if !default.is_empty() => stripped.to_owned(),
            _ => a,
        }
    }

    /// The value of a covered component.
    pub(crate) fn component_value(&self, c: &Component) -> Result<String, SignatureFailure> {
        let absent = || SignatureFailure::ComponentAbsent {
            component: c.identifier.clone(),
        };
        if c.req {
            // A request's own signature has no request to refer to.
            return Err(SignatureFailure::UnsupportedComponent {
                component: c.identifier.clone(),
            });
        }
        if c.name.starts_with('@') {
            if c.key.is_some() || c.sf {
                return Err(SignatureFailure::UnsupportedComponent {
                    component: c.identifier.clone(),
                });
            }
            return Ok(match c.name.as_str() {
                "@method" => self.method.to_owned(),
                "@authority" => self.normalized_authority(),
                "@scheme" => self.scheme.to_ascii_lowercase(),
                "@target-uri" => format!(
                    "{}://{}{}",
                    self.scheme.to_ascii_lowercase(),
                    self.normalized_authority(),
                    self.target
                ),
                "@request-target" => self.target.to_owned(),
                "@path" => self.path().to_owned(),
                "@query" => self.query().to_owned(),
                _ => {
                    return Err(SignatureFailure::UnsupportedComponent {
                        component: c.identifier.clone(),
                    });
                }
            });
        }
        let raw = self.header_value(&c.name).ok_or_else(absent)?;
        if let Some(key) = &c.key {
            let dict: Dictionary =
                Parser::new(&raw)
                    .parse()
                    .map_err(|e| SignatureFailure::Malformed {
                        field: "covered field",
                        reason: format!("{} is not a structured dictionary: {e}", c.name),
                    })?;
            let entry = dict
                .iter()
                .find(|(k, _)| k.as_str() == key)
                .map(|(_, v)| v.clone())
                .ok_or_else(absent)?;
            return Ok(vec![entry].serialize().unwrap_or_default());
        }
        if c.sf {
            return reserialize(&raw).ok_or_else(|| SignatureFailure::Malformed {
                field: "covered field",
                reason: format!("{} is not a structured field", c.name),
            });
        }
        Ok(raw)
    }
}

/// A structured field re-serialized: as a dictionary, else a list.
fn reserialize(raw: &str) -> Option<String> {
    if let Ok(d) = Parser::new(raw).parse::<Dictionary>() {
        return d.serialize();
    }
    Parser::new(raw)
        .parse::<List>()
        .ok()
        .and_then(|l: Vec<ListEntry>| l.serialize())
}

/// The signature base of a signature covering `components` with the
/// `@signature-params` value `params_line`.
pub(crate) fn signature_base(
    req: &RequestParts<'_>,
    components: &[Component],
    params_line: &str,
) -> Result<String, SignatureFailure> {
    let mut base = String::with_capacity(256);
    for c in components {
        let value = req.component_value(c)?;
        let _ = writeln!(base, "{}: {value}", c.identifier);
    }
    let _ = write!(base, "\"@signature-params\": {params_line}");
    Ok(base)
}

/// The signature base of a response's signature (RFC 9421 §2.5): fields
/// from the response's `headers`, `@status`, and the components marked
/// `req` from the request it answers.
pub(crate) fn response_base(
    request: &RequestParts<'_>,
    status: u16,
    headers: &[(&str, &str)],
    components: &[Component],
    params_line: &str,
) -> Result<String, SignatureFailure> {
    let mut response = RequestParts::new("", "", "");
    for (n, v) in headers {
        response.push_header(n, v);
    }
    let mut base = String::with_capacity(256);
    for c in components {
        let value = if c.req {
            let mut plain = c.clone();
            plain.req = false;
            request.component_value(&plain)?
        } else if c.name == "@status" {
            status.to_string()
        } else if c.name.starts_with('@') {
            // Request components of a response must be marked `req`.
            return Err(SignatureFailure::UnsupportedComponent {
                component: c.identifier.clone(),
            });
        } else {
            response.component_value(c)?
        };
        let _ = writeln!(base, "{}: {value}", c.identifier);
    }
    let _ = write!(base, "\"@signature-params\": {params_line}");
    Ok(base)
}
