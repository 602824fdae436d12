//! Permalinks of the web checker: a file in the query as the base64url
//! (no padding) of its raw DEFLATE stream.

use std::io::{Read as _, Write as _};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;

use crate::limits::MAX_BODY;

/// The longest `r` value made into a link (60 KiB): the HTTP server
/// (hyper) refuses request targets of 64 KiB or more with `414`, and
/// proxies often take less.
pub(crate) const MAX_PERMALINK: usize = 60 * 1024;

/// The `r` value of a file, or `None` when it would be longer than
/// [`MAX_PERMALINK`].
pub(crate) fn encode(body: &[u8]) -> Option<String> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(body).ok()?;
    let deflated = encoder.finish().ok()?;
    if deflated.len().div_ceil(3) * 4 > MAX_PERMALINK {
        return None;
    }
    Some(URL_SAFE_NO_PAD.encode(deflated))
}

/// The file an `r` value holds; an error says what is wrong with it. At
/// most [`MAX_BODY`] bytes are inflated.
pub(crate) fn decode(r: &str) -> Result<Vec<u8>, String> {
    let deflated = URL_SAFE_NO_PAD
        .decode(r.trim().trim_end_matches('='))
        .map_err(|e| format!("the link's r parameter is not base64url: {e}"))?;
    let mut body = Vec::new();
    DeflateDecoder::new(deflated.as_slice())
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| format!("the link's r parameter is not a DEFLATE stream: {e}"))?;
    if body.len() > MAX_BODY {
        return Err(format!(
            "the link's file is over {MAX_BODY} bytes (10 MiB), more than botwarden reads"
        ));
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bad_links() {
        let body = b"User-agent: *\nDisallow: /private\n\xff\n".to_vec();
        let r = encode(&body).expect("small");
        assert!(
            r.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(decode(&r), Ok(body));
        assert!(decode("***").unwrap_err().contains("not base64url"));
        assert!(decode("AAAA").unwrap_err().contains("not a DEFLATE stream"));
        // A bomb: 11 MiB of zeros deflate to a few KiB, and are refused.
        let bomb = encode(&vec![0u8; MAX_BODY + 1024 * 1024]).expect("compresses");
        assert!(decode(&bomb).unwrap_err().contains("over"));
    }
}
