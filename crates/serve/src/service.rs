//! The service: its state loaded from the configuration, its routes, and
//! the server loop that serves them.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::HeaderName;
use botwarden_fetch::Fetcher;
use botwarden_verify::{
    Classifier, DEFAULT_EXTRAS_NAME, DEFAULT_REGISTRY_NAME, DnsConfig, FeedStore, Registry,
    RegistryBuilder, Severity, Verifier, VerifierConfig,
};
use tokio::net::TcpListener;

use crate::config::Config;
use crate::error::Error;
use crate::proxy::Proxies;
use crate::state::{Inner, Parts, Shared};
use crate::webbotauth::WebBotAuth;
use crate::{router, server};

/// The running service: its state and routes. Build with [`Service::new`],
/// then [`Service::run`] on a bound listener (or mount
/// [`Service::router`] in an application of your own, served with
/// `into_make_service_with_connect_info::<SocketAddr>()`).
#[derive(Clone)]
pub struct Service {
    inner: Shared,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Service {
    /// Loads the registry (the default one unless told not to, the
    /// configured files, the stored published ranges) and sets up the
    /// classifier, the verifier and the fetcher. Registry warnings
    /// (outside the default registry) and unreadable stored feeds are
    /// logged as warnings.
    ///
    /// # Errors
    ///
    /// A configuration value out of range, an unreadable registry file, a
    /// registry with errors, a verifier or fetcher that cannot be set up.
    pub fn new(config: Config) -> Result<Service, Error> {
        config.check().map_err(|message| Error::Config {
            path: "options".to_owned(),
            message,
        })?;
        let registry = Arc::new(load_registry(&config)?);
        let classifier = Classifier::for_registry(&registry)?.with_cache(100_000);
        let verifier = Verifier::new(Arc::clone(&registry), verifier_config(&config))?;
        let mut fetcher = Fetcher::builder().allow_private(config.allow_private);
        for path in &config.ca_cert {
            let pem = std::fs::read(path).map_err(|e| Error::Config {
                path: path.display().to_string(),
                message: format!("ca_cert: cannot read it: {e}"),
            })?;
            fetcher = fetcher.trust_pem(path.display().to_string(), pem);
        }
        let fetcher = fetcher.build()?;
        let webbotauth = WebBotAuth::new(&config.web_bot_auth, &verifier, fetcher.clone())?;
        let client_header =
            HeaderName::try_from(config.client_header.as_str()).map_err(|_| Error::Config {
                path: "options".to_owned(),
                message: format!("'{}' is not a header name", config.client_header),
            })?;
        let proxies = Proxies::new(&config.trusted_proxies, client_header);
        let parts = Parts {
            registry,
            classifier,
            verifier,
            fetcher,
            webbotauth,
            proxies,
        };
        Ok(Service {
            inner: Arc::new(Inner::new(config, parts)),
        })
    }

    /// The configuration in force.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Every route: the API, `/verify`, `/healthz`, `/metrics`, the web
    /// checker. Needs the peer's address (`ConnectInfo<SocketAddr>`).
    pub fn router(&self) -> Router {
        router::router(&self.inner)
    }

    /// Serves on `listener` until `shutdown` completes, then stops taking
    /// connections and waits for the requests in flight.
    ///
    /// Each connection is served by hyper (HTTP/1.1, and HTTP/2 with prior
    /// knowledge) with `header_timeout` on reading a request's headers: a
    /// client that sends them slowly, or stops, has its connection closed.
    /// `GET /verify` is answered here directly, the rest through
    /// [`Service::router`]: the same answers, counts and timeouts.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the listener has no address.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let addr = listener.local_addr().map_err(|source| Error::Io {
            what: "serve on",
            addr: "the listener".to_owned(),
            source,
        })?;
        tracing::info!(%addr, enforce = self.inner.config.enforce, "listening");
        let app = self.router();
        server::serve(self.inner, app, listener, shutdown).await;
        tracing::info!("stopped");
        Ok(())
    }
}

/// The verifier's settings: DNS (its nameserver and timeout) unless
/// `no_dns`, the verdict cache's size, the shared cache.
fn verifier_config(config: &Config) -> VerifierConfig {
    let mut verifier_config = if config.no_dns {
        VerifierConfig::offline()
    } else {
        let mut dns = match config.nameserver {
            Some(addr) => DnsConfig::with_nameserver(addr),
            None => DnsConfig::default(),
        };
        dns.timeout = Duration::from_secs_f64(config.dns_timeout);
        VerifierConfig::with_dns(dns)
    };
    verifier_config.cache_capacity = config.cache_capacity;
    verifier_config.shared.clone_from(&config.shared);
    verifier_config
}

/// Reads the registry the way the command does: the default registry
/// unless told not to, the files in order, the stored ranges over the
/// compiled-in snapshot.
fn load_registry(config: &Config) -> Result<Registry, Error> {
    let mut builder = if config.no_default_registry {
        RegistryBuilder::new()
    } else {
        RegistryBuilder::with_defaults()
    };
    for path in &config.registry {
        let bytes = std::fs::read(path).map_err(|source| Error::RegistryFile {
            path: path.display().to_string(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| Error::Registry {
            problems: vec![format!(
                "{}: not UTF-8 (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )],
        })?;
        builder.add_file(&path.display().to_string(), &text);
    }
    let store = match &config.ranges_dir {
        Some(dir) => Some(FeedStore::new(dir)),
        None => FeedStore::default_location(),
    };
    if let Some(store) = store {
        for skipped in store.read_into(builder.ranges_mut())? {
            tracing::warn!("skipped {skipped}");
        }
    }
    let (registry, problems) = builder.build();
    for p in problems.iter().filter(|p| {
        p.severity == Severity::Warning
            && !matches!(&*p.file, DEFAULT_REGISTRY_NAME | DEFAULT_EXTRAS_NAME)
    }) {
        tracing::warn!("{p}");
    }
    registry.ok_or_else(|| Error::Registry {
        problems: problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .map(ToString::to_string)
            .collect(),
    })
}
