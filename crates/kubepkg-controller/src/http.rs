//! The controller's HTTP endpoints: `/metrics` (Prometheus text format), `/healthz` (the
//! process runs) and `/readyz` (it has started: watching, or standing by for the leader
//! Lease), as controller-runtime serves them.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use crate::ControllerError;
use crate::metrics::Metrics;

/// Whether `/readyz` answers 200.
#[derive(Debug, Clone, Default)]
pub struct Health {
    ready: Arc<AtomicBool>,
}

impl Health {
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }
}

/// Binds `address` and serves the endpoints in the background.
pub async fn serve(
    address: SocketAddr,
    what: &'static str,
    metrics: Arc<Metrics>,
    health: Health,
) -> Result<SocketAddr, ControllerError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| ControllerError::Bind {
            what,
            address,
            source,
        })?;
    let bound = listener.local_addr().unwrap_or(address);
    tracing::info!(%bound, "serving {what}");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let metrics = metrics.clone();
            let health = health.clone();
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                        let answer = answer(req.uri().path(), &metrics, &health);
                        async move { Ok::<_, std::convert::Infallible>(answer) }
                    });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(bound)
}

fn answer(path: &str, metrics: &Metrics, health: &Health) -> Response<Full<Bytes>> {
    let (status, content_type, body) = match path {
        "/metrics" => (
            StatusCode::OK,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
            metrics.encode(),
        ),
        "/healthz" => (StatusCode::OK, "text/plain", "ok".to_string()),
        "/readyz" if health.ready.load(Ordering::SeqCst) => {
            (StatusCode::OK, "text/plain", "ok".to_string())
        }
        "/readyz" => (
            StatusCode::SERVICE_UNAVAILABLE,
            "text/plain",
            "not started".to_string(),
        ),
        _ => (StatusCode::NOT_FOUND, "text/plain", "not found".to_string()),
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(v) = hyper::header::HeaderValue::from_str(content_type) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, v);
    }
    response
}
