//! Log formats: presets, Apache `LogFormat` and nginx `log_format` strings, JSON lines.
//! (Stand-in until the real parser lands.)
#![allow(missing_docs)]
use crate::record::Record;

#[derive(Debug, Clone)]
pub struct LogFormat {
    name: String,
}
#[derive(Debug)]
pub struct FormatError(pub String);
impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for FormatError {}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Blank,
    Mismatch,
    BadAddress,
}
impl Reason {
    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::Blank => "blank",
            Reason::Mismatch => "mismatch",
            Reason::BadAddress => "bad-address",
        }
    }
}
#[derive(Debug)]
pub struct ParseError {
    pub reason: Reason,
    pub column: u32,
}
impl ParseError {
    pub fn skipped(&self) -> bool {
        self.reason == Reason::Blank
    }
}
impl LogFormat {
    pub fn from_spec(spec: &str) -> Result<LogFormat, FormatError> {
        Ok(LogFormat {
            name: spec.to_owned(),
        })
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn detect(_s: &[&str]) -> Option<LogFormat> {
        Some(LogFormat {
            name: "combined".into(),
        })
    }
    pub fn parse<'a>(&self, line: &'a str) -> Result<Record<'a>, ParseError> {
        let e = |reason| ParseError { reason, column: 1 };
        if line.trim().is_empty() {
            return Err(e(Reason::Blank));
        }
        let (ip, rest) = line.split_once(' ').ok_or(e(Reason::Mismatch))?;
        let remote = ip.parse().map_err(|_| e(Reason::BadAddress))?;
        let q: Vec<&str> = rest.split('"').collect();
        if q.len() < 7 {
            return Err(e(Reason::Mismatch));
        }
        let mut req = q[1].split(' ');
        let mut sb = q[2].split_whitespace();
        Ok(Record {
            remote,
            forwarded_for: None,
            time: None,
            method: req.next(),
            path: req.next(),
            protocol: req.next(),
            status: sb.next().and_then(|s| s.parse().ok()),
            bytes: sb.next().and_then(|s| s.parse().ok()).unwrap_or(0),
            referer: Some(q[3]),
            user_agent: Some(q[5]),
            vhost: None,
        })
    }
}
