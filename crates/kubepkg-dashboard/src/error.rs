//! The dashboard's errors. A request's error becomes a page that says what was asked and what
//! to do ([`DashboardError::status`] chooses the HTTP status); none ends the server.

use std::net::SocketAddr;

/// What went wrong serving the dashboard or one of its pages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DashboardError {
    /// The address cannot be listened on.
    #[error(
        "cannot listen on {address}: {source}; choose another --port (0 picks a free one) or --address"
    )]
    Bind {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// A path or query parameter that does not read.
    #[error("{what} {value:?}: {expected}")]
    BadRequest {
        what: &'static str,
        value: String,
        expected: &'static str,
    },
    /// A namespace outside the dashboard's scope.
    #[error(
        "namespace {namespace:?} is not shown by this dashboard (it shows {shown}); start it with -n {namespace} or -A"
    )]
    OutOfScope { namespace: String, shown: String },
    /// No such page.
    #[error("no page at {path}; start from the package list at /")]
    NotFound { path: String },
    /// The cluster refused or failed a read.
    #[error(transparent)]
    Engine(#[from] kubepkg_engine::EngineError),
}

impl DashboardError {
    /// The HTTP status of the page that reports it.
    pub fn status(&self) -> u16 {
        match self {
            DashboardError::BadRequest { .. } => 400,
            DashboardError::OutOfScope { .. } => 403,
            DashboardError::NotFound { .. } => 404,
            DashboardError::Engine(kubepkg_engine::EngineError::NotInstalled { .. })
            | DashboardError::Engine(kubepkg_engine::EngineError::Refused(_)) => 404,
            DashboardError::Engine(_) | DashboardError::Bind { .. } => 502,
        }
    }
}
