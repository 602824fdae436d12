//! Web Bot Auth in the service: signed requests verified (`GET /verify`,
//! `POST /api/v1/verify`) with the signature agents' key directories
//! fetched and cached, and the operator's own key directory served at
//! `/.well-known/http-message-signatures-directory`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use botwarden_fetch::{AllowedAgents, Fetcher, KeyDirConfig, KeyDirStats, KeyDirectories};
use botwarden_verify::{
    DIRECTORY_MEDIA_TYPE, KeyRing, KeySet, RequestParts, SignatureCheck, SignatureVerifier, Signer,
};
use serde::Deserialize;

use crate::error::Error;
use crate::fetch_rate::FetchRate;

/// The `[web_bot_auth]` table of the configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct WebBotAuthConfig {
    /// The operator's own key directory (a JWK Set file, as `botwarden bots
    /// keygen` writes), served at
    /// `/.well-known/http-message-signatures-directory` with its media type.
    /// Default none (that path is `404`).
    pub directory: Option<PathBuf>,
    /// The private key (JWK or PKCS#8 PEM) that signs the directory
    /// response (tag `http-message-signatures-directory`); its public key
    /// must be in the directory. Default none: served unsigned.
    pub signing_key: Option<PathBuf>,
    /// Seconds the served directory may be cached (`Cache-Control:
    /// max-age`), and how long its signature is valid. Default 3,600.
    pub max_age: u64,
    /// Fetch no key directory: signed requests are checked with the
    /// registry's `signature_keys` only (others are `unknown`). Default
    /// false.
    pub no_fetch: bool,
    /// Signature agents whose well-known key directories may be fetched,
    /// as origins (`https://crawler.example`), besides the registry's
    /// (every bot's `signature_agents`). The directory of any other agent
    /// a request names is never fetched: its signature decides nothing.
    /// Default none.
    pub agents: Vec<String>,
    /// Key directory fetches one client address (an IPv6 client by its
    /// `/64`) may cause a minute (a token bucket of as many, refilled
    /// over the minute); past it the signature decides nothing. Directories
    /// answered from the cache cost nothing. Default 10.
    pub fetches_per_minute: u32,
}

impl Default for WebBotAuthConfig {
    fn default() -> WebBotAuthConfig {
        WebBotAuthConfig {
            directory: None,
            signing_key: None,
            max_age: 3600,
            no_fetch: false,
            agents: Vec::new(),
            fetches_per_minute: 10,
        }
    }
}

/// The operator's directory, as served.
struct OwnDirectory {
    body: String,
    /// The body's `Content-Digest` (SHA-256), sent with or without a
    /// signature.
    digest: String,
    signer: Option<Signer>,
    max_age: u64,
}

/// What the service keeps for Web Bot Auth.
pub(crate) struct WebBotAuth {
    signatures: SignatureVerifier,
    directories: Option<KeyDirectories>,
    /// The directories that may be fetched: `web_bot_auth.agents` and the
    /// registry's signature agents.
    allowed: AllowedAgents,
    /// Fetches per client address.
    rate: FetchRate,
    registry_keys: KeyRing,
    own: Option<OwnDirectory>,
}

fn config_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Config {
        path: path.display().to_string(),
        message: message.into(),
    }
}

impl WebBotAuth {
    /// Reads the operator's directory and key, if configured; directories
    /// are fetched with `fetcher` unless `no_fetch`.
    pub(crate) fn new(
        config: &WebBotAuthConfig,
        verifier: &botwarden_verify::Verifier,
        fetcher: Fetcher,
    ) -> Result<WebBotAuth, Error> {
        let registry = verifier.registry();
        let allowed = allowed_agents(config, verifier).map_err(|message| Error::Config {
            path: "options".to_owned(),
            message,
        })?;
        let own = match &config.directory {
            None => {
                if let Some(key) = &config.signing_key {
                    return Err(config_error(
                        key,
                        "web_bot_auth.signing_key signs the served directory: \
                         set web_bot_auth.directory too",
                    ));
                }
                None
            }
            Some(path) => {
                let body = std::fs::read_to_string(path)
                    .map_err(|e| config_error(path, format!("cannot read: {e}")))?;
                let keys =
                    KeySet::from_directory(body.as_bytes(), None, &path.display().to_string())
                        .map_err(|e| config_error(path, e.to_string()))?;
                if keys.keys().is_empty() {
                    return Err(config_error(path, "the directory holds no usable key"));
                }
                let signer = match &config.signing_key {
                    None => None,
                    Some(key) => {
                        let text = std::fs::read_to_string(key)
                            .map_err(|e| config_error(key, format!("cannot read: {e}")))?;
                        let what = key.display().to_string();
                        let signer = if text.trim_start().starts_with("-----BEGIN") {
                            Signer::from_pkcs8_pem(&text, &what)
                        } else {
                            Signer::from_jwk(&text, &what)
                        }
                        .map_err(|e| config_error(key, e.to_string()))?
                        .validity(Duration::from_secs(config.max_age.max(60)));
                        if keys.get(signer.keyid()).is_none() {
                            return Err(config_error(
                                key,
                                format!(
                                    "its public key ({}) is not in the directory {}",
                                    signer.keyid(),
                                    path.display()
                                ),
                            ));
                        }
                        Some(signer)
                    }
                };
                Some(OwnDirectory {
                    digest: botwarden_verify::content_digest(body.as_bytes()),
                    body,
                    signer,
                    max_age: config.max_age,
                })
            }
        };
        Ok(WebBotAuth {
            signatures: SignatureVerifier::default(),
            directories: (!config.no_fetch)
                .then(|| KeyDirectories::new(fetcher, KeyDirConfig::default())),
            allowed,
            rate: FetchRate::new(config.fetches_per_minute),
            registry_keys: KeyRing::from_registry(registry),
            own,
        })
    }

    /// The key directories' counters (`None` with `no_fetch`).
    pub(crate) fn directory_stats(&self) -> Option<KeyDirStats> {
        self.directories.as_ref().map(KeyDirectories::stats)
    }

    /// How many directory URLs may be fetched, and the clients with a
    /// fetch bucket now.
    pub(crate) fn allowed_and_clients(&self) -> (usize, usize) {
        (self.allowed.len(), self.rate.clients())
    }

    /// The signature checks so far, by outcome.
    pub(crate) fn stats(&self) -> botwarden_verify::SignatureStats {
        self.signatures.stats()
    }

    /// Checks a request's signature at `now`, its agents' directories
    /// fetched (or from the cache) within `limit`: only allowed ones, and
    /// only as many as `client`'s rate allows.
    pub(crate) async fn check(
        &self,
        req: &RequestParts<'_>,
        client: IpAddr,
        limit: Duration,
        now: SystemTime,
    ) -> SignatureCheck {
        let ring = match &self.directories {
            None => self.registry_keys.clone(),
            Some(dirs) => {
                match tokio::time::timeout(
                    limit,
                    dirs.key_ring_allowed(
                        &self.signatures,
                        req,
                        &self.registry_keys,
                        &self.allowed,
                        || self.rate.take(client),
                    ),
                )
                .await
                {
                    Ok(ring) => ring,
                    Err(_) => {
                        let mut ring = self.registry_keys.clone();
                        for agent in self.signatures.agents(req).unwrap_or_default() {
                            ring.insert_unreachable(
                                &agent.keys_url,
                                "no answer within verify_timeout",
                            );
                        }
                        ring
                    }
                }
            }
        };
        self.signatures.check(req, &ring, now)
    }
}

/// The directories that may be fetched: each origin of
/// `web_bot_auth.agents` (its well-known directory) and each registered
/// signature agent's key URL; an error names the entry that is not an
/// origin.
pub(crate) fn allowed_agents(
    config: &WebBotAuthConfig,
    verifier: &botwarden_verify::Verifier,
) -> Result<AllowedAgents, String> {
    let mut allowed = allowed_origins(config)?;
    for url in verifier.signature_agent_urls() {
        // The registry checked its URLs when it was read.
        let _ = allowed.allow_directory(url);
    }
    Ok(allowed)
}

/// `web_bot_auth.agents`, checked.
pub(crate) fn allowed_origins(config: &WebBotAuthConfig) -> Result<AllowedAgents, String> {
    let mut allowed = AllowedAgents::new();
    for (i, origin) in config.agents.iter().enumerate() {
        allowed
            .allow_origin(origin)
            .map_err(|e| format!("web_bot_auth.agents[{i}]: {e}"))?;
    }
    if config.fetches_per_minute == 0 {
        return Err(
            "web_bot_auth.fetches_per_minute must be at least 1 (no_fetch fetches none)".to_owned(),
        );
    }
    Ok(allowed)
}

/// Whether a request carries signature fields (names built once: this
/// runs for every `GET /verify`).
pub(crate) fn is_signed(headers: &HeaderMap) -> bool {
    const SIGNATURE_INPUT: HeaderName = HeaderName::from_static("signature-input");
    const SIGNATURE: HeaderName = HeaderName::from_static("signature");
    headers.contains_key(SIGNATURE_INPUT) || headers.contains_key(SIGNATURE)
}

fn text<'h>(headers: &'h HeaderMap, names: &[&str]) -> Option<&'h str> {
    names
        .iter()
        .find_map(|n| headers.get(*n).and_then(|v| v.to_str().ok()))
}

/// The original request a proxy asks about, to check its signature: its
/// authority from `X-Forwarded-Host` (else `Host`), its target from
/// `X-Original-URI` (else `X-Forwarded-Uri`, else `/`), its method from
/// `X-Original-Method` (else `X-Forwarded-Method`, else `GET`), its scheme
/// from `X-Forwarded-Proto` (else `https`); the signature fields and the
/// others as the proxy passed them.
pub(crate) fn original_request(headers: &HeaderMap) -> RequestParts<'_> {
    let authority = text(headers, &["x-forwarded-host", "host"]).unwrap_or_default();
    let target = text(headers, &["x-original-uri", "x-forwarded-uri"]).unwrap_or("/");
    let method = text(headers, &["x-original-method", "x-forwarded-method"]).unwrap_or("GET");
    let scheme = text(headers, &["x-forwarded-proto"]).unwrap_or("https");
    let mut req = RequestParts::new(method, authority, target).scheme(scheme);
    for (name, value) in headers {
        if let Ok(v) = value.to_str() {
            req.push_header(name.as_str(), v);
        }
    }
    req
}

impl WebBotAuth {
    /// `GET /.well-known/http-message-signatures-directory`: the
    /// operator's key directory with its media type and `Cache-Control`,
    /// signed for the authority asked when a signing key is configured;
    /// `404` when none is configured.
    pub(crate) fn directory(&self, headers: &HeaderMap) -> Response {
        let Some(own) = &self.own else {
            return (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "no key directory is served here (web_bot_auth.directory)\n",
            )
                .into_response();
        };
        let mut response = (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(DIRECTORY_MEDIA_TYPE),
                ),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_str(&format!("max-age={}", own.max_age))
                        .unwrap_or_else(|_| HeaderValue::from_static("max-age=3600")),
                ),
                (
                    HeaderName::from_static("content-digest"),
                    HeaderValue::from_str(&own.digest)
                        .unwrap_or_else(|_| HeaderValue::from_static("")),
                ),
            ],
            own.body.clone(),
        )
            .into_response();
        if let Some(signer) = &own.signer {
            let host = text(headers, &["x-forwarded-host", "host"]).unwrap_or_default();
            let scheme = text(headers, &["x-forwarded-proto"]).unwrap_or("http");
            let url = format!(
                "{scheme}://{host}{}",
                botwarden_verify::WELL_KNOWN_DIRECTORY
            );
            match signer.sign_directory_response(&url, own.body.as_bytes(), SystemTime::now()) {
                Ok(h) => {
                    let h_map = response.headers_mut();
                    for (name, value) in h.fields() {
                        if let (Ok(n), Ok(v)) = (
                            HeaderName::from_bytes(name.as_bytes()),
                            HeaderValue::from_str(value),
                        ) {
                            h_map.insert(n, v);
                        }
                    }
                }
                Err(e) => {
                    // An authority that makes no URL: served unsigned, said.
                    tracing::warn!(%url, error = %e, "the key directory response is not signed");
                }
            }
        }
        response
    }
}
