//! A request held whole, as read from text: a raw request (its request
//! line, then its header fields) or fields given one by one. What `bots
//! verify`, `bots check-agent` and the service's page read a signed
//! request from.

use super::base::RequestParts;

/// A request held whole: method, authority, target and header fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedRequest {
    method: String,
    target: String,
    authority: String,
    headers: Vec<(String, String)>,
}

/// Splits `Name: value`; `what` names the input in errors.
///
/// # Errors
///
/// A sentence naming `what`, when the line is not a header field.
pub fn header_field(line: &str, what: &str) -> Result<(String, String), String> {
    let Some((name, value)) = line.split_once(':') else {
        return Err(format!(
            "{what}: `{line}` is not a header field (`Name: value`)"
        ));
    };
    let name = name.trim();
    if name.is_empty()
        || name
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
    {
        return Err(format!("{what}: `{name}` is not a field name"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

impl OwnedRequest {
    /// From header fields and the request's method and target; the
    /// authority is `authority`, else the target's (absolute form), else
    /// the `Host` field. `what` names the input in errors.
    ///
    /// # Errors
    ///
    /// A sentence naming `what`, when there is no authority.
    pub fn from_fields(
        method: &str,
        target: &str,
        authority: Option<&str>,
        headers: Vec<(String, String)>,
        what: &str,
    ) -> Result<OwnedRequest, String> {
        // An absolute-form target carries the authority.
        let (target, from_target) = match url::Url::parse(target) {
            Ok(u) if u.host_str().is_some() => {
                let mut t = u.path().to_owned();
                if let Some(q) = u.query() {
                    t.push('?');
                    t.push_str(q);
                }
                let host = u.host_str().unwrap_or_default();
                let a = match u.port() {
                    Some(p) => format!("{host}:{p}"),
                    None => host.to_owned(),
                };
                (t, Some(a))
            }
            _ => (target.to_owned(), None),
        };
        let host = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("host"))
            .map(|(_, v)| v.clone());
        let Some(authority) = authority.map(str::to_owned).or(from_target).or(host) else {
            return Err(format!("{what}: no authority: give a Host field"));
        };
        Ok(OwnedRequest {
            method: method.to_owned(),
            target,
            authority,
            headers,
        })
    }

    /// From a raw request: the request line, then field lines up to a
    /// blank line (a body after it is ignored). `what` names the input in
    /// errors, with the line number.
    ///
    /// # Errors
    ///
    /// A sentence naming `what` and the line: no request line, a line that
    /// is not a field, no authority.
    pub fn from_raw(
        text: &str,
        authority: Option<&str>,
        what: &str,
    ) -> Result<OwnedRequest, String> {
        let mut lines = text.lines().enumerate();
        let Some((_, first)) = lines.next() else {
            return Err(format!(
                "{what}: empty; a request starts with its request line"
            ));
        };
        let first = first.trim_end_matches('\r');
        let mut parts = first.split_whitespace();
        let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
            return Err(format!(
                "{what}:1: `{first}` is not a request line (`GET /path HTTP/1.1`)"
            ));
        };
        let mut headers = Vec::new();
        for (i, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.is_empty() {
                break;
            }
            headers.push(header_field(line, &format!("{what}:{}", i + 1))?);
        }
        OwnedRequest::from_fields(method, target, authority, headers, what)
    }

    /// The request as a signature sees it.
    #[must_use]
    pub fn parts(&self) -> RequestParts<'_> {
        let mut r = RequestParts::new(&self.method, &self.authority, &self.target);
        for (n, v) in &self.headers {
            r.push_header(n, v);
        }
        r
    }

    /// The value of the field `name` (the first line of it).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_requests_are_read_with_their_places_named() {
        let r = OwnedRequest::from_raw(
            "GET /a?b HTTP/1.1\r\nHost: site.example\r\nUser-Agent: X/1\r\n\r\nbody",
            None,
            "req.txt",
        )
        .unwrap();
        assert_eq!(r.parts().authority(), "site.example");
        assert_eq!(r.parts().target(), "/a?b");
        assert_eq!(r.header("user-agent"), Some("X/1"));
        let abs =
            OwnedRequest::from_raw("GET https://h.example:8443/p HTTP/1.1\n", None, "r").unwrap();
        assert_eq!(abs.parts().authority(), "h.example:8443");
        assert_eq!(
            OwnedRequest::from_raw("GET / HTTP/1.1\nno colon\n", None, "r").unwrap_err(),
            "r:2: `no colon` is not a header field (`Name: value`)"
        );
        assert_eq!(
            OwnedRequest::from_raw("GET\n", None, "r").unwrap_err(),
            "r:1: `GET` is not a request line (`GET /path HTTP/1.1`)"
        );
        assert!(
            OwnedRequest::from_raw("GET / HTTP/1.1\n", None, "r")
                .unwrap_err()
                .contains("no authority")
        );
    }
}
