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
    /// No token, or one the API server does not authenticate (served with authentication).
    #[error(
        "sign in with a Kubernetes bearer token (kubectl create token NAME, or your kubeconfig's token)"
    )]
    Unauthenticated,
    /// The user may not read Packages in the namespace.
    #[error(
        "{user} may not get packages.kubepkg.dev in namespace {namespace:?}; ask for a Role that allows it"
    )]
    Forbidden { user: String, namespace: String },
    /// Served to many users: a plan reads the Package's values, which may come from Secrets,
    /// so it is shown only to a user who may read them.
    #[error(
        "{user} may not get secrets in namespace {namespace:?}, and a plan shows values that may come from them; ask for a Role that allows it, or run kubepkg plan with your own kubeconfig"
    )]
    SecretsForbidden { user: String, namespace: String },
    /// A TokenReview or SubjectAccessReview could not be made.
    #[error("the API server did not answer a {what}: {message}")]
    Review { what: &'static str, message: String },
    /// The plan view of a package with no `Package` object (applied with the CLI).
    #[error(
        "no Package object {namespace}/{name}: the plan view plans a Package object's spec; for a package applied with the CLI run kubepkg plan --cluster"
    )]
    NoPackageObject { namespace: String, name: String },
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
            DashboardError::OutOfScope { .. }
            | DashboardError::Forbidden { .. }
            | DashboardError::SecretsForbidden { .. } => 403,
            DashboardError::Unauthenticated => 401,
            DashboardError::Review { .. } => 502,
            DashboardError::NotFound { .. } | DashboardError::NoPackageObject { .. } => 404,
            DashboardError::Engine(kubepkg_engine::EngineError::NotInstalled { .. })
            | DashboardError::Engine(kubepkg_engine::EngineError::Refused(_)) => 404,
            DashboardError::Engine(_) | DashboardError::Bind { .. } => 502,
        }
    }
}
