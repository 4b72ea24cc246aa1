//! One way for the test kit's servers to answer HTTP: a hyper HTTP/1 service on a listener of
//! their own, on a thread of its own (so a synchronous test can hold it), over TLS when given an
//! acceptor, stopped and joined when the [`Served`] handle is dropped. The chart repository
//! ([`crate::chart_repo`]) and the Git server ([`crate::git_server`]) answer through it.

use std::future::Future;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};

/// A running server; dropping it stops accepting and waits for its thread.
#[derive(Debug)]
pub struct Served {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves `listener` (bound and non-blocking) with `answer` for every request, over TLS when
/// `tls` is given (connections whose handshake fails are dropped).
pub fn serve<A, F>(
    listener: std::net::TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    answer: A,
) -> Served
where
    A: Fn(hyper::Request<Incoming>) -> F + Send + Sync + 'static,
    F: Future<Output = hyper::Response<Full<Bytes>>> + Send + 'static,
{
    let answer = Arc::new(answer);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                return;
            };
            tokio::pin!(stopped);
            loop {
                let accepted = tokio::select! {
                    _ = &mut stopped => break,
                    a = listener.accept() => a,
                };
                let Ok((tcp, _)) = accepted else { continue };
                let (answer, tls) = (answer.clone(), tls.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let answer = answer.clone();
                        async move { Ok::<_, std::convert::Infallible>(answer(req).await) }
                    });
                    let http = hyper::server::conn::http1::Builder::new();
                    let _ = match tls {
                        Some(acceptor) => match acceptor.accept(tcp).await {
                            Ok(tls) => {
                                http.serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                                    .await
                            }
                            Err(_) => Ok(()),
                        },
                        None => {
                            http.serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                                .await
                        }
                    };
                });
            }
        });
    });
    Served {
        stop: Some(stop),
        thread: Some(thread),
    }
}

/// The `Authorization` header value of HTTP basic auth for `user` and `password`.
pub fn basic_auth(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}
