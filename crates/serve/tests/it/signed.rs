//! The service with the operator's Web Bot Auth directory and key. The
//! crawler's tests mount this file too (`#[path]`), for a signed crawl that
//! a site checks through this service's `/verify`.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;

use botwarden_serve::{Config, Service};
use botwarden_verify::{AgentForm, Signer};
use tokio::sync::oneshot;

/// The service on `listener`, with the operator's directory and key (the
/// key signs the directory response) and a registry whose `LoopBot` signs
/// with the directory at the service's own address.
pub(crate) struct Signed {
    pub(crate) addr: SocketAddr,
    pub(crate) signer: Signer,
    _stop: oneshot::Sender<()>,
}

/// Starts a [`Signed`] service whose files are in `dir` (which must
/// outlive it), its configuration changed by `change`.
pub(crate) async fn start_signed(dir: &Path, change: impl FnOnce(&mut Config)) -> Signed {
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("bound");
    let key = Signer::generate().expect("key");
    let directory = dir.join("http-message-signatures-directory");
    std::fs::write(&directory, key.directory_json()).expect("directory");
    let private = dir.join("private-key.jwk");
    std::fs::write(&private, key.private_jwk()).expect("key");
    let registry = dir.join("registry.yaml");
    std::fs::write(
        &registry,
        format!("bots:\n  - name: LoopBot\n    signature_agents: [\"http://{addr}\"]\n"),
    )
    .expect("registry");
    let mut config = Config::default();
    config.no_default_registry = true;
    config.registry = vec![registry];
    config.ranges_dir = Some(dir.join("ranges"));
    config.no_dns = true;
    config.allow_private = true;
    config.web_bot_auth.directory = Some(directory);
    config.web_bot_auth.signing_key = Some(private);
    change(&mut config);
    let service = Service::new(config).expect("the service starts");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = service
            .run(listener, async {
                let _ = stopped.await;
            })
            .await;
    });
    let signer = Signer::from_jwk(&key.private_jwk(), "key")
        .expect("jwk")
        .agent(&format!("http://{addr}"), AgentForm::Dictionary)
        .expect("agent");
    Signed {
        addr,
        signer,
        _stop: stop,
    }
}
