//! One module per command or subcommand.

pub(crate) mod audit;
pub(crate) mod bots;
pub(crate) mod crawl;
pub(crate) mod logs;
pub(crate) mod robots;
pub(crate) mod serve;

/// An error and its causes, as `botwarden` prints them: the messages of the
/// chain joined by `: ` (the libraries keep a system error's text out of
/// their own message and give it as the source).
pub(crate) fn with_causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

/// Returns on Ctrl-C or SIGTERM: what every long-running command stops on.
pub(crate) async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
