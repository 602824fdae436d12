//! Where Redis and NATS are, and what it takes to reach them: the URL
//! lists, the credentials (in the URL, or given apart from it, read from a
//! file or the environment by the caller) and TLS (`rediss://`, `tls://`,
//! a private CA).
//!
//! A password or token never shows: [`RedisTarget`] and [`NatsTarget`]
//! display (and debug-print) their URLs with `***` in its place, and every
//! error of this crate names a server that way.

use std::fmt;
use std::path::{Path, PathBuf};

use redis::IntoConnectionInfo as _;

use crate::Error;

/// A password, token or key: never displayed or debug-printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret given as text.
    #[must_use]
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// Reads a secret from a file: its text, without the line breaks at
    /// its end.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Invalid`] when
    /// it is empty or not UTF-8; both name the file, never its content.
    pub fn from_file(path: &Path) -> Result<Secret, Error> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            operation: "read the secret".into(),
            source,
        })?;
        let invalid = |message: &str| Error::Invalid {
            what: path.display().to_string(),
            message: message.to_owned(),
        };
        let text = String::from_utf8(bytes).map_err(|_| invalid("not UTF-8 text"))?;
        let secret = text.trim_end_matches(['\n', '\r']);
        if secret.is_empty() {
            return Err(invalid("empty: no secret in it"));
        }
        Ok(Secret(secret.to_owned()))
    }

    /// The secret itself, to hand to a client.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// `text` with the secrets of a URL written `***`: the password of its
/// user information (`redis://user:***@host`), the whole user information
/// when `user_is_secret` and it has no password (a NATS token,
/// `nats://***@host`), and the values of `pass=` and `password=` in its
/// query. Works on text that is not a valid URL too.
#[must_use]
pub fn redact_url(text: &str, user_is_secret: bool) -> String {
    let (scheme, rest) = match text.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, text),
    };
    let mut out = String::with_capacity(text.len());
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push_str("://");
    }
    // The last `@` ends the user information: a password with a raw `/`
    // or `@` in it is hidden whole.
    let rest = match rest.rsplit_once('@') {
        Some((userinfo, after)) => {
            match userinfo.split_once(':') {
                Some((user, _)) => {
                    out.push_str(user);
                    out.push_str(":***");
                }
                None if user_is_secret => out.push_str("***"),
                None => out.push_str(userinfo),
            }
            out.push('@');
            after
        }
        None => rest,
    };
    match rest.split_once('?') {
        Some((before, query)) => {
            out.push_str(before);
            out.push('?');
            for (i, pair) in query.split('&').enumerate() {
                if i > 0 {
                    out.push('&');
                }
                match pair.split_once('=') {
                    Some((key, _)) if matches!(key, "pass" | "password" | "token") => {
                        out.push_str(key);
                        out.push_str("=***");
                    }
                    _ => out.push_str(pair),
                }
            }
        }
        None => out.push_str(rest),
    }
    out
}

/// `text` (a URL list that did not parse) with everything between its
/// first `://` and its last `@` written `***`: whatever the mistake, no
/// part of a password shows.
fn redact_loose(text: &str) -> String {
    match text.rsplit_once('@') {
        Some((before, after)) => {
            let scheme = before.split_once("://").map_or("", |(s, _)| s);
            let sep = if scheme.is_empty() { "" } else { "://" };
            format!("{scheme}{sep}***@{after}")
        }
        None => text.to_owned(),
    }
}

/// Where Redis is, as one URL list names it, with the credentials and TLS
/// settings to reach it.
///
/// - `redis://host:port/` (or `rediss://` for TLS, or `unix://`): one
///   standalone server (Redis or Valkey);
/// - several URLs separated by commas: the seed nodes of a Redis Cluster;
/// - `redis+cluster://host:port/` (or `rediss+cluster://`): a cluster
///   known by one seed node.
///
/// A user name and password may be in the URL (`redis://:PASSWORD@host/`,
/// `redis://USER:PASSWORD@host/`) or given apart
/// ([`RedisTarget::with_password`], which wins over the URL's): the URL
/// shows in the process list, a file or the environment does not.
/// Displayed, the target is its URLs with the password written `***`.
#[derive(Clone)]
pub struct RedisTarget {
    nodes: Vec<redis::ConnectionInfo>,
    /// The URLs as given, their secrets written `***`.
    shown: Vec<String>,
    cluster: bool,
    tls: Option<redis::TlsCertificates>,
}

/// A client for a [`RedisTarget`]: a standalone server's, or a cluster
/// client's builder (timeouts are the caller's).
#[allow(
    clippy::large_enum_variant,
    reason = "made once a connection and used at once"
)]
pub(crate) enum RedisClient {
    Single(redis::Client),
    Cluster(redis::cluster::ClusterClientBuilder),
}

impl RedisTarget {
    /// Reads a URL list (see [`RedisTarget`]).
    ///
    /// # Errors
    /// [`Error::RedisUrl`] for an empty list or entry, or a URL the client
    /// does not take, naming it (its password hidden).
    pub fn parse(text: &str) -> Result<RedisTarget, Error> {
        let bad = |entry: usize, reason: String| Error::RedisUrl {
            url: redact_loose(text.trim()),
            reason: if text.contains(',') {
                format!("entry {entry} of the list: {reason}")
            } else {
                reason
            },
        };
        let mut nodes = Vec::new();
        let mut shown = Vec::new();
        let mut cluster = false;
        for (i, part) in text.split(',').enumerate() {
            let part = part.trim();
            if part.is_empty() {
                return Err(Error::RedisUrl {
                    url: redact_loose(text),
                    reason: format!("entry {} of the list is empty", i + 1),
                });
            }
            let url = match part.split_once("+cluster://") {
                Some((scheme, rest)) if scheme == "redis" || scheme == "rediss" => {
                    cluster = true;
                    format!("{scheme}://{rest}")
                }
                _ => part.to_owned(),
            };
            let info = url
                .as_str()
                .into_connection_info()
                .map_err(|e| bad(i + 1, e.to_string()))?;
            nodes.push(info);
            shown.push(redact_url(part, false));
        }
        Ok(RedisTarget {
            cluster: cluster || nodes.len() > 1,
            nodes,
            shown,
            tls: None,
        })
    }

    /// The user name to log in as (Redis 6 ACLs), in place of the URL's.
    #[must_use]
    pub fn with_username(mut self, username: &str) -> RedisTarget {
        for node in &mut self.nodes {
            let settings = node.redis_settings().clone().set_username(username);
            *node = node.clone().set_redis_settings(settings);
        }
        self
    }

    /// The password to log in with, in place of the URL's.
    #[must_use]
    pub fn with_password(mut self, password: &Secret) -> RedisTarget {
        for node in &mut self.nodes {
            let settings = node
                .redis_settings()
                .clone()
                .set_password(password.expose());
            *node = node.clone().set_redis_settings(settings);
        }
        self
    }

    /// Trusts the CA certificates of a PEM file for `rediss://` (a private
    /// CA), instead of the system's.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Invalid`] when
    /// it holds no PEM certificate, [`Error::RedisUrl`] when a URL of the
    /// list is not `rediss://` (TLS).
    pub fn with_ca_file(mut self, path: &Path) -> Result<RedisTarget, Error> {
        let pem = read_pem(path, "CERTIFICATE")?;
        if let Some(i) = self.nodes.iter().position(|n| !is_tls(n.addr())) {
            return Err(Error::RedisUrl {
                url: self.shown[i].clone(),
                reason: format!(
                    "a CA file ({}) is given, but the URL is not rediss:// (TLS)",
                    path.display()
                ),
            });
        }
        self.tls = Some(redis::TlsCertificates {
            client_tls: None,
            root_cert: Some(pem),
        });
        Ok(self)
    }

    /// Whether the target is a cluster.
    #[must_use]
    pub fn is_cluster(&self) -> bool {
        self.cluster
    }

    /// Whether a password is set (in the URL or given apart).
    #[must_use]
    pub fn has_password(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| n.redis_settings().password().is_some())
    }

    /// The URLs, comma-separated, their passwords hidden, as in messages
    /// (`cluster …` before a cluster's).
    #[must_use]
    pub fn describe(&self) -> String {
        self.to_string()
    }

    /// A client, not yet connected.
    pub(crate) fn client(&self) -> Result<RedisClient, Error> {
        let failed = |source| Error::Redis {
            url: self.describe(),
            operation: "open the client".into(),
            source,
        };
        if !self.cluster {
            let info = self.nodes[0].clone();
            let client = match &self.tls {
                Some(certs) => redis::Client::build_with_tls(info, certs.clone()),
                None => redis::Client::open(info),
            };
            return client.map(RedisClient::Single).map_err(failed);
        }
        let mut builder = redis::cluster::ClusterClient::builder(self.nodes.clone());
        let settings = self.nodes[0].redis_settings();
        if let Some(user) = settings.username() {
            builder = builder.username(user);
        }
        if let Some(password) = settings.password() {
            builder = builder.password(password);
        }
        if let Some(certs) = &self.tls {
            builder = builder.certs(certs.clone());
        }
        Ok(RedisClient::Cluster(builder))
    }

    /// An error of `operation` on this target, saying so plainly when
    /// Redis refused the credentials.
    pub(crate) fn error(&self, operation: &str, source: redis::RedisError) -> Error {
        let refused = source.kind() == redis::ErrorKind::AuthenticationFailed
            || matches!(source.code(), Some("WRONGPASS" | "NOAUTH"));
        let operation = if refused {
            let given = if self.has_password() {
                "the user name or password given is wrong"
            } else {
                "the server wants a password and none was given"
            };
            format!("{operation}: authentication failed ({given})")
        } else {
            operation.to_owned()
        };
        Error::Redis {
            url: self.describe(),
            operation,
            source,
        }
    }
}

impl fmt::Display for RedisTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.cluster {
            f.write_str("cluster ")?;
        }
        f.write_str(&self.shown.join(","))
    }
}

impl fmt::Debug for RedisTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTarget")
            .field("urls", &self.shown)
            .field("cluster", &self.cluster)
            .field("password", &self.has_password().then_some("***"))
            .field("ca", &self.tls.is_some())
            .finish()
    }
}

fn is_tls(addr: &redis::ConnectionAddr) -> bool {
    matches!(addr, redis::ConnectionAddr::TcpTls { .. })
}

/// A PEM file's bytes, checked to hold a `kind` block.
fn read_pem(path: &Path, kind: &str) -> Result<Vec<u8>, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        operation: "read".into(),
        source,
    })?;
    let marker = format!("-----BEGIN {kind}-----");
    if !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()) {
        return Err(Error::Invalid {
            what: path.display().to_string(),
            message: format!("no PEM {kind} in it"),
        });
    }
    Ok(bytes)
}

/// How a NATS client logs in.
#[derive(Clone, Default)]
enum NatsAuth {
    #[default]
    None,
    UserPassword {
        user: String,
        password: Secret,
    },
    Token(Secret),
    /// A `.creds` file's content (a user JWT and its NKey seed).
    Credentials(Secret),
    /// An NKey seed (`SU…`).
    NKey(Secret),
}

impl NatsAuth {
    fn describe(&self) -> &'static str {
        match self {
            NatsAuth::None => "none",
            NatsAuth::UserPassword { .. } => "user and password",
            NatsAuth::Token(_) => "token",
            NatsAuth::Credentials(_) => "credentials file",
            NatsAuth::NKey(_) => "nkey",
        }
    }
}

/// Where NATS is, as one URL list names it (`nats://host:4222`; several
/// comma-separated for a cluster; `tls://host:4222` to insist on TLS), with
/// the credentials and TLS settings to reach it.
///
/// Credentials may be in the URL, as the NATS tools take them:
/// `nats://USER:PASSWORD@host` or `nats://TOKEN@host`; or given apart (a
/// `.creds` file, an NKey seed, a user and password, a token), which win
/// over the URL's. The URLs handed to the client carry no credentials;
/// displayed, the target is its URLs with the secrets written `***`.
#[derive(Clone)]
pub struct NatsTarget {
    servers: Vec<String>,
    shown: String,
    auth: NatsAuth,
    ca: Option<PathBuf>,
    client_cert: Option<(PathBuf, PathBuf)>,
}

impl NatsTarget {
    /// Reads a URL list (see [`NatsTarget`]); an entry without a scheme is
    /// taken as `nats://`.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an empty list or entry, a URL that does not
    /// parse or whose scheme is not `nats`, `tls`, `ws` or `wss`, naming it
    /// (its secrets hidden).
    pub fn parse(text: &str) -> Result<NatsTarget, Error> {
        let bad = |entry: usize, message: String| Error::Invalid {
            what: format!("NATS URL {}", redact_loose(text.trim())),
            message: if text.contains(',') {
                format!("entry {entry} of the list: {message}")
            } else {
                message
            },
        };
        let mut servers = Vec::new();
        let mut shown = Vec::new();
        let mut auth = NatsAuth::None;
        for (i, part) in text.split(',').enumerate() {
            let part = part.trim();
            if part.is_empty() {
                return Err(Error::Invalid {
                    what: format!("NATS URL {}", redact_loose(text)),
                    message: format!("entry {} of the list is empty", i + 1),
                });
            }
            let n = i + 1;
            let full = if part.contains("://") {
                part.to_owned()
            } else {
                format!("nats://{part}")
            };
            let mut url = url::Url::parse(&full).map_err(|e| bad(n, format!("not a URL: {e}")))?;
            if !matches!(url.scheme(), "nats" | "tls" | "ws" | "wss") {
                return Err(bad(
                    n,
                    "the scheme is not nats://, tls://, ws:// or wss://".into(),
                ));
            }
            if url.host_str().is_none_or(str::is_empty) {
                return Err(bad(n, "no host".into()));
            }
            let user = decode(url.username());
            let password = url.password().map(decode);
            let found = match (user.is_empty(), password) {
                (_, Some(password)) => NatsAuth::UserPassword {
                    user,
                    password: Secret(password),
                },
                (false, None) => NatsAuth::Token(Secret(user)),
                (true, None) => NatsAuth::None,
            };
            if matches!(auth, NatsAuth::None) {
                auth = found;
            }
            // The client is handed no credentials in its URLs (it would
            // ignore them, and might log them).
            let _ = url.set_username("");
            let _ = url.set_password(None);
            servers.push(url.to_string());
            shown.push(redact_url(part, true));
        }
        Ok(NatsTarget {
            servers,
            shown: shown.join(","),
            auth,
            ca: None,
            client_cert: None,
        })
    }

    /// Logs in with a user name and password, in place of the URL's.
    #[must_use]
    pub fn with_user_password(mut self, user: &str, password: Secret) -> NatsTarget {
        self.auth = NatsAuth::UserPassword {
            user: user.to_owned(),
            password,
        };
        self
    }

    /// Logs in with a token, in place of the URL's.
    #[must_use]
    pub fn with_token(mut self, token: Secret) -> NatsTarget {
        self.auth = NatsAuth::Token(token);
        self
    }

    /// Logs in with a `.creds` file (a user JWT and its NKey seed, as
    /// `nsc` writes it), in place of the URL's credentials.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Invalid`] when
    /// it is not a credentials file; both name the file.
    pub fn with_credentials_file(mut self, path: &Path) -> Result<NatsTarget, Error> {
        let text = Secret::from_file(path)?;
        async_nats::ConnectOptions::with_credentials(text.expose()).map_err(|e| {
            Error::Invalid {
                what: path.display().to_string(),
                message: format!("not a NATS credentials file: {e}"),
            }
        })?;
        self.auth = NatsAuth::Credentials(text);
        Ok(self)
    }

    /// Logs in with an NKey: the file holds the user's seed (`SU…`).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Invalid`] when
    /// it holds no user seed; both name the file.
    pub fn with_nkey_file(mut self, path: &Path) -> Result<NatsTarget, Error> {
        let seed = Secret::from_file(path)?;
        let seed = Secret(seed.expose().trim().to_owned());
        if !seed.expose().starts_with("SU") {
            return Err(Error::Invalid {
                what: path.display().to_string(),
                message: "not an NKey user seed (it starts with SU)".into(),
            });
        }
        self.auth = NatsAuth::NKey(seed);
        Ok(self)
    }

    /// Trusts the CA certificates of a PEM file (a private CA) besides the
    /// system's, for TLS.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Invalid`] when
    /// it holds no PEM certificate.
    pub fn with_ca_file(mut self, path: &Path) -> Result<NatsTarget, Error> {
        read_pem(path, "CERTIFICATE")?;
        self.ca = Some(path.to_path_buf());
        Ok(self)
    }

    /// Presents a client certificate (PEM files of the certificate and
    /// its key) to a server that asks for one.
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be read, [`Error::Invalid`] when
    /// the certificate file holds no certificate or the key file no key.
    pub fn with_client_cert(mut self, cert: &Path, key: &Path) -> Result<NatsTarget, Error> {
        read_pem(cert, "CERTIFICATE")?;
        let key_text = Secret::from_file(key)?;
        if !key_text.expose().contains("PRIVATE KEY-----") {
            return Err(Error::Invalid {
                what: key.display().to_string(),
                message: "no PEM private key in it".into(),
            });
        }
        self.client_cert = Some((cert.to_path_buf(), key.to_path_buf()));
        Ok(self)
    }

    /// The URLs as given, their secrets hidden.
    #[must_use]
    pub fn describe(&self) -> &str {
        &self.shown
    }

    /// The URLs handed to the client (without credentials).
    pub(crate) fn servers(&self) -> &[String] {
        &self.servers
    }

    /// The client's options: name, credentials, TLS.
    pub(crate) fn options(&self) -> Result<async_nats::ConnectOptions, Error> {
        let mut options = async_nats::ConnectOptions::new().name("botwarden");
        options = match &self.auth {
            NatsAuth::None => options,
            NatsAuth::UserPassword { user, password } => {
                options.user_and_password(user.clone(), password.expose().to_owned())
            }
            NatsAuth::Token(token) => options.token(token.expose().to_owned()),
            NatsAuth::NKey(seed) => options.nkey(seed.expose().to_owned()),
            NatsAuth::Credentials(text) => {
                options
                    .credentials(text.expose())
                    .map_err(|e| Error::Invalid {
                        what: format!("NATS {}", self.shown),
                        message: format!("the credentials do not read: {e}"),
                    })?
            }
        };
        if let Some(ca) = &self.ca {
            options = options.add_root_certificates(ca.clone());
        }
        if let Some((cert, key)) = &self.client_cert {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
        if self.servers.iter().any(|s| s.starts_with("tls://")) {
            options = options.require_tls(true);
        }
        Ok(options)
    }
}

impl fmt::Display for NatsTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for NatsTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NatsTarget")
            .field("urls", &self.shown)
            .field("auth", &self.auth.describe())
            .field("ca", &self.ca)
            .field("client_cert", &self.client_cert.as_ref().map(|(c, _)| c))
            .finish()
    }
}

/// A URL's percent-encoded user information, decoded.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_show_without_their_secrets() {
        assert_eq!(
            redact_url("redis://:pw@127.0.0.1:6379/0", false),
            "redis://:***@127.0.0.1:6379/0"
        );
        assert_eq!(
            redact_url("redis://alice:p/w@d@host/", false),
            "redis://alice:***@host/"
        );
        assert_eq!(
            redact_url("redis://alice@host/", false),
            "redis://alice@host/"
        );
        assert_eq!(
            redact_url("nats://tok@host:4222", true),
            "nats://***@host:4222"
        );
        assert_eq!(
            redact_url("unix:///run/redis.sock?db=1&pass=pw", false),
            "unix:///run/redis.sock?db=1&pass=***"
        );
        assert_eq!(redact_url("redis://host/", false), "redis://host/");
    }

    #[test]
    fn url_lists_name_a_server_or_a_cluster() {
        let one = RedisTarget::parse("redis://127.0.0.1:6379/").expect("one");
        assert!(!one.is_cluster());
        assert_eq!(one.to_string(), "redis://127.0.0.1:6379/");
        let two = RedisTarget::parse("redis://a:1, redis://b:2").expect("two");
        assert!(two.is_cluster());
        assert_eq!(two.to_string(), "cluster redis://a:1,redis://b:2");
        let seed = RedisTarget::parse("redis+cluster://a:1/").expect("seed");
        assert!(seed.is_cluster());
        let e = RedisTarget::parse("redis://a:1,,redis://b:2").expect_err("an empty entry");
        assert_eq!(
            e.to_string(),
            "redis URL redis://a:1,,redis://b:2: entry 2 of the list is empty"
        );
        let e = RedisTarget::parse("http://a:1").expect_err("not redis");
        assert!(e.to_string().starts_with("redis URL http://a:1: "), "{e}");
    }

    #[test]
    fn a_redis_password_never_shows() {
        let t = RedisTarget::parse("redis://u:hunter2@127.0.0.1:1/").expect("parse");
        assert!(t.has_password());
        for shown in [t.to_string(), format!("{t:?}"), t.describe()] {
            assert!(!shown.contains("hunter2"), "{shown}");
        }
        let t = RedisTarget::parse("redis://127.0.0.1:1/")
            .expect("parse")
            .with_password(&Secret::new("hunter2"));
        assert!(t.has_password());
        assert!(!format!("{t} {t:?}").contains("hunter2"));
        for bad in [
            "redis://:hunter2@[::1",
            "redis://:hun,ter2@h:1/",
            "redis://:hunter2@h:x/",
        ] {
            let e = RedisTarget::parse(bad).expect_err("bad");
            assert!(!e.to_string().contains("hun"), "{e}");
        }
    }

    #[test]
    fn a_ca_file_needs_rediss() {
        let dir = std::env::temp_dir().join(format!("botwarden-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let ca = dir.join("ca.pem");
        std::fs::write(
            &ca,
            "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n",
        )
        .expect("write");
        let e = RedisTarget::parse("redis://h:1/")
            .expect("parse")
            .with_ca_file(&ca)
            .expect_err("not TLS");
        assert!(e.to_string().contains("not rediss://"), "{e}");
        assert!(
            RedisTarget::parse("rediss://h:1/")
                .expect("parse")
                .with_ca_file(&ca)
                .is_ok()
        );
        let missing = dir.join("missing.pem");
        let e = RedisTarget::parse("rediss://h:1/")
            .expect("parse")
            .with_ca_file(&missing)
            .expect_err("missing");
        assert!(e.to_string().contains("missing.pem"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn nats_credentials_in_the_url_are_taken_out_of_it() {
        let t = NatsTarget::parse("nats://alice:s%40cret@127.0.0.1:4222").expect("parse");
        assert_eq!(t.servers(), ["nats://127.0.0.1:4222"]);
        assert_eq!(t.to_string(), "nats://alice:***@127.0.0.1:4222");
        match &t.auth {
            NatsAuth::UserPassword { user, password } => {
                assert_eq!((user.as_str(), password.expose()), ("alice", "s@cret"));
            }
            _ => panic!("not a user and password"),
        }
        let t = NatsTarget::parse("tok3n@127.0.0.1:4222,nats://127.0.0.1:4223").expect("parse");
        assert!(matches!(&t.auth, NatsAuth::Token(s) if s.expose() == "tok3n"));
        assert_eq!(t.servers().len(), 2);
        assert!(!format!("{t} {t:?}").contains("tok3n"));
        let e = NatsTarget::parse("http://tok3n@h:1").expect_err("scheme");
        assert!(!e.to_string().contains("tok3n"), "{e}");
    }
}
