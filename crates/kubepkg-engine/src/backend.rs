//! What the GitOps backends ([`crate::flux`], [`crate::argocd`]) share: the server-side apply
//! of the objects they hand to their controller, the watch of one until its controller says
//! what they wait for ([`KubeCluster::watch_until`]) with a progress line per new reason, and
//! what one apply of a package gives them to make their objects from ([`Run`]).

use futures::StreamExt;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use std::time::Duration;
use tokio::time::Instant;

use kubepkg_package::Package;
use kubepkg_package::orchestrator::{Event, Failure, FailureKind};
use serde_json::Value;

use crate::cluster::KubeCluster;

/// What a backend's objects are made from during one apply: the package, its instance name,
/// its namespace and the components' timeout.
#[derive(Clone)]
pub(crate) struct Run {
    pub(crate) package: Package,
    pub(crate) instance: String,
    pub(crate) namespace: String,
    pub(crate) timeout: Duration,
}

/// Server-side applies `object` (kubepkg's field manager, taking over conflicts).
pub(crate) async fn apply_object(
    api: &Api<DynamicObject>,
    object: &Value,
) -> Result<DynamicObject, Failure> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    api.patch(
        name,
        &PatchParams::apply(kubepkg_kube::apply::FIELD_MANAGER).force(),
        &Patch::Apply(object),
    )
    .await
    .map_err(|e| Failure::new(FailureKind::Apply, format!("applying {kind} {name}: {e}")))
}

/// What a backend makes of one version of the object it watches.
pub(crate) enum Seen<T> {
    /// The wait is over, with this result.
    Done(T),
    /// The wait failed.
    Failed(Failure),
    /// Still waiting, for this reason (a progress event when it changes).
    Waiting(String),
    /// Nothing to judge (the object is not there yet): still waiting, for the same reason.
    Unchanged,
}

/// What a backend reads from its object's status for one wait: ready (with the revision its
/// controller made), failed, or still waiting — with its controller's words.
#[derive(Debug, PartialEq)]
pub(crate) enum State {
    Ready(u64),
    Failed(String),
    Waiting(String),
}

impl State {
    /// As a watch judges it; a failure names `object`.
    pub(crate) fn seen(self, object: &str) -> Seen<u64> {
        match self {
            State::Ready(revision) => Seen::Done(revision),
            State::Failed(message) => Seen::Failed(Failure::new(
                FailureKind::NotReady,
                format!("{object}: {message}"),
            )),
            State::Waiting(message) => Seen::Waiting(message),
        }
    }
}

/// The object a backend watches: `name` of `api`, called `object` in messages (`HelmRelease
/// shop/shop-db`), until `deadline`.
pub(crate) struct Watch<'a> {
    pub(crate) api: &'a Api<DynamicObject>,
    pub(crate) name: &'a str,
    pub(crate) object: &'a str,
    pub(crate) deadline: Instant,
}

impl KubeCluster {
    /// Watches `watch`'s object until `judge` (given each version of it, `None` once it is
    /// gone) says the wait is done or failed, reporting each new reason it waits for as a
    /// progress event of `component`; at the deadline, fails with `timed_out(the last reason)`.
    pub(crate) async fn watch_until<T>(
        &self,
        component: &str,
        watch: Watch<'_>,
        mut judge: impl FnMut(Option<&Value>) -> Seen<T>,
        timed_out: impl FnOnce(&str) -> Failure,
    ) -> Result<T, Failure> {
        let mut shown = String::new();
        let mut stream =
            kube::runtime::watcher::watch_object(watch.api.clone(), watch.name).boxed();
        loop {
            let seen = match tokio::time::timeout_at(watch.deadline, stream.next()).await {
                Err(_) | Ok(None) => return Err(timed_out(&shown)),
                Ok(Some(Err(_))) => continue,
                Ok(Some(Ok(o))) => {
                    let value = o.map(|o| serde_json::to_value(&o).unwrap_or_default());
                    judge(value.as_ref())
                }
            };
            match seen {
                Seen::Done(t) => return Ok(t),
                Seen::Failed(f) => return Err(f),
                Seen::Waiting(reason) if reason != shown => {
                    self.waiting(component, watch.object, &reason);
                    shown = reason;
                }
                Seen::Waiting(_) | Seen::Unchanged => {}
            }
        }
    }

    /// Reports that `component` waits for `object` because of `reason`.
    pub(crate) fn waiting(&self, component: &str, object: &str, reason: &str) {
        self.report(&Event::WaitingFor {
            component: component.to_string(),
            object: object.to_string(),
            reason: reason.to_string(),
        });
    }
}
