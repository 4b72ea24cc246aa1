//! Live updates: one Kubernetes watch per kind a package's state is made of, and a
//! server-sent event stream per open page.
//!
//! [`watch`] starts kube-rs's metadata watcher (object names and resource versions only: a
//! Secret's data never reaches the dashboard this way) on the revision and release Secrets, the
//! workloads and their Pods and Jobs of the namespaces shown; every change bumps one counter.
//! [`stream`] waits on that counter, reads the page's state again through the same reads as the
//! page ([`crate::read`]) and sends it as an event `state` (a JSON list of [`LiveRow`](crate::state::LiveRow)) when it
//! changed. The page's script writes each row into the element with its `data-live-key`.

use std::convert::Infallible;
use std::time::Duration;

use futures::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Bytes, Frame};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::{WatchStreamExt, watcher};
use tokio::sync::{mpsc, watch as signal};

use crate::state::LiveRow;
use crate::views;
use crate::{Dashboard, Scope};

/// The changes seen so far (a counter that every watch event bumps).
pub type Changes = signal::Receiver<u64>;

/// What an event stream follows.
pub(crate) enum Subject {
    /// The package list.
    List,
    /// One package.
    Package { namespace: String, name: String },
}

/// Starts the watches of `scope` (they run as long as the process).
pub(crate) fn watch(client: &kube::Client, scope: &Scope) -> Changes {
    let (tx, rx) = signal::channel(0u64);
    let ns = scope.namespace();
    spawn_watch::<Secret>(client, ns, tx.clone());
    spawn_watch::<Deployment>(client, ns, tx.clone());
    spawn_watch::<StatefulSet>(client, ns, tx.clone());
    spawn_watch::<DaemonSet>(client, ns, tx.clone());
    spawn_watch::<Job>(client, ns, tx.clone());
    spawn_watch::<Pod>(client, ns, tx);
    rx
}

/// A metadata-only watch of kind `K` (in `namespace`, or everywhere) bumping `tx` on every
/// event; errors are retried with backoff (a page keeps its last state meanwhile).
fn spawn_watch<K>(client: &kube::Client, namespace: Option<&str>, tx: signal::Sender<u64>)
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
        + Clone
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let api: Api<PartialObjectMeta<K>> = match namespace {
        Some(n) => Api::namespaced(client.clone(), n),
        None => Api::all(client.clone()),
    };
    tokio::spawn(async move {
        let mut events = watcher(api, watcher::Config::default())
            .default_backoff()
            .boxed();
        while let Some(event) = events.next().await {
            match event {
                Ok(_) => tx.send_modify(|n| *n += 1),
                Err(e) => tracing::debug!("dashboard watch: {e}"),
            }
        }
    });
}

/// The event stream of `subject`: its state now, then again after each change.
pub(crate) fn stream(
    dashboard: Dashboard,
    mut changes: Changes,
    subject: Subject,
) -> UnsyncBoxBody<Bytes, Infallible> {
    let (tx, rx) = mpsc::channel::<Bytes>(8);
    tokio::spawn(async move {
        let mut last = String::new();
        if tx
            .send(Bytes::from_static(b"retry: 2000\n\n"))
            .await
            .is_err()
        {
            return;
        }
        loop {
            changes.borrow_and_update();
            let rows = match &subject {
                Subject::List => dashboard
                    .packages()
                    .await
                    .map(|all| views::list::live_rows(&all)),
                Subject::Package { namespace, name } => dashboard
                    .status(namespace, name)
                    .await
                    .map(|s| views::package::live_rows(&s)),
            };
            let message = match rows {
                Ok(rows) => {
                    let data = serde_json::Value::Array(rows.iter().map(LiveRow::json).collect())
                        .to_string();
                    if data == last {
                        None
                    } else {
                        last.clone_from(&data);
                        Some(format!("event: state\ndata: {data}\n\n"))
                    }
                }
                Err(e) => Some(format!(
                    "event: problem\ndata: {}\n\n",
                    e.to_string().replace('\n', " ")
                )),
            };
            if let Some(m) = message
                && tx.send(Bytes::from(m)).await.is_err()
            {
                return;
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return },
                () = tx.closed() => return,
                () = tokio::time::sleep(Duration::from_secs(15)) => {
                    if tx.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() {
                        return;
                    }
                    continue;
                }
            }
            // A change comes in bursts (a rollout touches a Deployment, its ReplicaSet's Pods,
            // the release Secret): read once after the burst.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let frames = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    StreamBody::new(frames).boxed_unsync()
}
