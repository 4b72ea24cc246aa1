//! An API server outage as a client sees it: a TCP relay on a loopback port in front of a
//! control plane's API server that can be taken down — every connection through it dropped,
//! the port closed, so new connections are refused as by a stopped server — and brought back
//! on the same port. Its kubeconfig ([`Relay::kubeconfig_text`]) is the plane's admin one
//! pointed at the relay (TLS passes through untouched; the server's certificate names
//! 127.0.0.1).
//!
//! Unlike [`crate::fault`] (random faults at a rate), this is one switch: up or down.

use std::path::PathBuf;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::error::Error;
use crate::plane::ControlPlane;

/// A running relay; stops (and drops every connection) when dropped.
pub struct Relay {
    port: u16,
    kubeconfig: String,
    up: watch::Sender<bool>,
}

impl Relay {
    /// Starts a relay to `plane`'s API server, up.
    pub async fn start(plane: &ControlPlane) -> Result<Relay, Error> {
        let listener = bind(0).await?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let (kubeconfig, upstream) = plane.kubeconfig_via(port)?;
        // JSON is YAML: kubeconfig readers take it.
        let kubeconfig =
            serde_json::to_string_pretty(&kubeconfig).map_err(|e| Error::Kubeconfig {
                path: plane.kubeconfig().to_path_buf(),
                message: e.to_string(),
            })?;
        let (up, state) = watch::channel(true);
        tokio::spawn(serve(listener, port, upstream, state));
        Ok(Relay {
            port,
            kubeconfig,
            up,
        })
    }

    /// The plane's admin kubeconfig with the relay as its server (credentials inline).
    pub fn kubeconfig_text(&self) -> &str {
        &self.kubeconfig
    }

    /// The relay's `https://127.0.0.1:PORT`.
    pub fn server(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// Takes the API server "down" (`false`) or brings it back (`true`).
    pub fn set_up(&self, up: bool) {
        let _ = self.up.send(up);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        // Closing the channel ends the relay's task and every connection.
        let (closed, _) = watch::channel(false);
        let _ = std::mem::replace(&mut self.up, closed);
    }
}

async fn bind(port: u16) -> Result<TcpListener, Error> {
    // The port may linger a moment after the listener of a "down" relay is closed.
    let mut tries = 0;
    loop {
        match TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => return Ok(l),
            Err(source) if tries >= 50 => {
                return Err(Error::Io {
                    what: "binding the relay",
                    path: PathBuf::from(format!("127.0.0.1:{port}")),
                    source,
                });
            }
            Err(_) => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Relays while up; while down, no listener exists on `port`.
async fn serve(
    mut listener: TcpListener,
    port: u16,
    upstream: String,
    mut state: watch::Receiver<bool>,
) {
    loop {
        loop {
            tokio::select! {
                conn = listener.accept() => {
                    if let Ok((client, _)) = conn {
                        tokio::spawn(relay(client, upstream.clone(), state.clone()));
                    }
                }
                changed = state.changed() => {
                    if changed.is_err() || !*state.borrow() {
                        break;
                    }
                }
            }
        }
        drop(listener);
        // Down: wait to be brought back (or for the relay to be dropped).
        loop {
            if state.changed().await.is_err() {
                return;
            }
            if *state.borrow() {
                break;
            }
        }
        listener = match bind(port).await {
            Ok(l) => l,
            Err(_) => return,
        };
    }
}

/// One connection, relayed until either side ends or the relay goes down.
async fn relay(mut client: TcpStream, upstream: String, mut state: watch::Receiver<bool>) {
    let Ok(mut server) = TcpStream::connect(&upstream).await else {
        return;
    };
    let down = async {
        loop {
            if state.changed().await.is_err() || !*state.borrow() {
                return;
            }
        }
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
        () = down => {
            // Dropped as a stopped server drops them: reset.
            #[allow(deprecated)]
            let _ = client.set_linger(Some(Duration::ZERO));
        }
    }
}
