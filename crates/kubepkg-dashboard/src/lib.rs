//! kubepkg-dashboard: kubepkg's web dashboard, read-only. One concern: serve pages about the
//! packages of a cluster from the same read functions the CLI's `list --packages`, `status`,
//! `history`, `values --explain` and `plan` use (`kubepkg_engine::ops`, `store`, `compare`),
//! with the permissions of the client it is given (`kubepkg dashboard` gives the user's
//! kubeconfig, context and namespace, as `kubectl` would act).
//!
//! Views (`views`): the packages of the namespaces shown, with counts by state, filter and
//! sort as query parameters (so the table works without JavaScript); one package as a graph of
//! its components in `dependsOn` order, each with its live state and gates, the revision's
//! conditions and Events; its history, the diff between two revisions (the plan's diff,
//! Secrets masked as `plan` masks them) and failed revisions' kept diagnosis and hook verdicts;
//! each component's values with where each came from; the plan of a `Package` object's
//! current spec (the plan the controller would run, for a spec not applied yet: suspended,
//! waiting on requirements), made by the [`Planner`] the serving program gives.
//!
//! Live updates (`live`): a Kubernetes watch (kube-rs's metadata watcher: names and
//! versions only, never a Secret's data) on the objects a package's state is made of; each
//! change recomputes the state shown and sends it as a server-sent event, which the small
//! embedded script (`assets/dashboard.js`) writes into the page. The page never polls.
//!
//! Two ways to serve it: [`Dashboard::new`] for one user on their machine (the reads use their
//! identity; requests must name an IP address or `localhost`, against DNS rebinding), and
//! [`Dashboard::for_users`] beside the controller (`auth`): each request authenticates with a
//! bearer token (TokenReview) and sees the namespaces its user may `get packages` in
//! (SubjectAccessReview).
//!
//! The stack: server-rendered HTML over hyper, which the workspace already builds (the
//! controller's `/metrics`); a handful of routes need no web framework, so axum would add
//! crates and nothing else. Every asset is in the binary (`include_str!`), nothing is fetched
//! from elsewhere (air-gapped clusters), and every response carries a strict
//! Content-Security-Policy (`script-src 'self'`, no inline script or style).
#![forbid(unsafe_code)]

mod auth;
mod error;
mod html;
mod http;
mod live;
mod query;
mod read;
mod state;
mod views;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

pub use auth::User;
pub use error::DashboardError;

/// A `Package` object whose plan the plan view asks for.
pub struct PlanFor {
    /// The cluster as the dashboard reads it (the user's identity, or the controller's).
    pub kube: kubepkg_kube::Cluster,
    pub namespace: String,
    pub name: String,
    /// The `Package` object as the API server holds it now.
    pub object: serde_json::Value,
}

/// Makes the plan of a `Package` object's current spec against its cluster, as `kubepkg plan
/// --cluster` prints it (plain text, Secret values masked), or says why it cannot. Given by the
/// program serving the dashboard, which fetches and loads sources as the controller does: the
/// dashboard itself loads no package.
pub type Planner = Arc<
    dyn Fn(PlanFor) -> futures::future::BoxFuture<'static, Result<String, String>> + Send + Sync,
>;

/// The namespaces a dashboard shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// One namespace (`-n`, else the context's).
    Namespace(String),
    /// Every namespace (`-A`).
    All,
}

impl Scope {
    /// Whether `namespace` is shown.
    pub fn shows(&self, namespace: &str) -> bool {
        match self {
            Scope::Namespace(n) => n == namespace,
            Scope::All => true,
        }
    }

    /// The one namespace shown, if only one.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Scope::Namespace(n) => Some(n),
            Scope::All => None,
        }
    }
}

/// A dashboard over a connected cluster.
#[derive(Clone)]
pub struct Dashboard {
    pub(crate) kube: kubepkg_kube::Cluster,
    pub(crate) scope: Scope,
    /// Whether each request must authenticate (`auth`).
    pub(crate) authenticated: bool,
    /// The user of the request being served (with `authenticated`).
    pub(crate) user: Option<Arc<User>>,
    /// The namespaces the user was found to read or not, in this request.
    pub(crate) readable: Arc<Mutex<BTreeMap<String, bool>>>,
    /// What makes the plan view's plans ([`Dashboard::with_planner`]; none: the view says so).
    pub(crate) planner: Option<Planner>,
}

impl Dashboard {
    /// The dashboard of `scope` as the identity of `kube` sees it (`kubepkg dashboard`: one
    /// user, on this machine).
    pub fn new(kube: kubepkg_kube::Cluster, scope: Scope) -> Dashboard {
        Dashboard {
            kube,
            scope,
            authenticated: false,
            user: None,
            readable: Arc::default(),
            planner: None,
        }
    }

    /// This dashboard with a plan view that plans with `planner`.
    pub fn with_planner(mut self, planner: Planner) -> Dashboard {
        self.planner = Some(planner);
        self
    }

    /// The dashboard of `scope` for many users (the controller's): each request authenticates
    /// with a bearer token and sees the namespaces its user may `get packages` in (`auth`);
    /// `kube`'s identity makes the reads and the reviews.
    pub fn for_users(kube: kubepkg_kube::Cluster, scope: Scope) -> Dashboard {
        Dashboard {
            authenticated: true,
            ..Dashboard::new(kube, scope)
        }
    }

    /// This dashboard as `user` sees it, for one request.
    pub(crate) fn as_user(&self, user: User) -> Dashboard {
        Dashboard {
            user: Some(Arc::new(user)),
            readable: Arc::default(),
            ..self.clone()
        }
    }
}

/// A dashboard being served.
pub struct Serving {
    /// Where it listens (the port chosen when 0 was asked for).
    pub address: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Serving {
    /// Serves until the task ends (it does not by itself: the caller ends the process).
    pub async fn wait(self) {
        let _ = self.task.await;
    }
}

/// Binds `address`, starts the watch behind live updates and serves the dashboard in the
/// background.
pub async fn serve(dashboard: Dashboard, address: SocketAddr) -> Result<Serving, DashboardError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| DashboardError::Bind { address, source })?;
    let address = listener.local_addr().unwrap_or(address);
    let changes = live::watch(&dashboard.kube.client, &dashboard.scope);
    let task = tokio::spawn(http::accept(listener, dashboard, changes));
    Ok(Serving { address, task })
}
