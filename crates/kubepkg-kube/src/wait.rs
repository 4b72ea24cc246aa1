//! Waiting for objects by watching them (never by sleeping): each object gets a watch on
//! its name; readiness is recomputed with [`crate::readiness`] on every change until all are
//! current or the deadline passes. A timeout reports every object that is not ready with
//! its status, reason and message, the pods behind it, its recent Warning events and, for a
//! failed Job, its log tail ([`crate::diagnosis`]).
//!
//! A watch that breaks while waiting (a dropped connection, an API server restarting) does not
//! end the wait: [`watch_named`] lists and watches again, with backoff, until the deadline.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};

use crate::client::Cluster;
use crate::error::{ApiFailure, KubeError, NotReadyReport, Unready};
use crate::manifest::ObjectRef;
use crate::readiness::{self, Readiness, Status};

/// Whether an API server of this process refused a streaming list (`sendInitialEvents`: the
/// WatchList feature, on by default in Kubernetes 1.32 and from 1.34, off in 1.33 and before
/// 1.32): from then on [`watch_named`] lists before it watches.
static STREAMING_REFUSED: AtomicBool = AtomicBool::new(false);

/// A watch of the object `name` that outlives broken connections: after an error (yielded,
/// for the caller to skip) it watches again, with kube's default backoff (up to a few seconds
/// between tries), for as long as it is polled. One request where the server streams the
/// initial state in the watch (a streaming list), else a list and a watch.
pub fn watch_named<K>(
    api: Api<K>,
    name: &str,
) -> impl futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + use<K>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let listing = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let streaming = !STREAMING_REFUSED.load(Ordering::Relaxed);
    let first = if streaming {
        listing.clone().streaming_lists()
    } else {
        listing.clone()
    };
    let inner = watcher(api.clone(), first).default_backoff().boxed();
    futures::stream::unfold(
        (inner, streaming, api, listing),
        |(mut inner, streaming, api, listing)| async move {
            let item = inner.next().await?;
            if streaming && refuses_streaming(&item) {
                STREAMING_REFUSED.store(true, Ordering::Relaxed);
                let inner = watcher(api.clone(), listing.clone())
                    .default_backoff()
                    .boxed();
                return Some((item, (inner, false, api, listing)));
            }
            Some((item, (inner, streaming, api, listing)))
        },
    )
}

/// Whether the server refused the streaming list's request itself (422 or 400: an unknown or
/// disabled `sendInitialEvents`), not a watch that broke.
fn refuses_streaming<K>(item: &Result<watcher::Event<K>, watcher::Error>) -> bool {
    let refused = |code: u16| code == 422 || code == 400;
    match item {
        Err(watcher::Error::WatchStartFailed(kube::Error::Api(s))) => refused(s.code),
        Err(watcher::Error::WatchError(s)) => refused(s.code),
        _ => false,
    }
}

/// Waits until every object is `Current`. `progress` is called with the objects not ready
/// yet whenever that set or their reasons change. A Job or Pod that fails ends the wait at
/// once with [`KubeError::Failed`].
pub async fn wait_ready(
    cluster: &Cluster,
    ids: &[ObjectRef],
    timeout: Duration,
    progress: impl FnMut(&[(ObjectRef, Readiness)]),
) -> Result<(), KubeError> {
    wait_until(
        cluster,
        ids,
        timeout,
        |v| readiness::compute(v, jiff::Timestamp::now()),
        progress,
    )
    .await
}

/// Waits until hook objects are done as Helm judges hooks: a Job when `Complete=True`
/// (failed on `Failed=True`), a Pod when `Succeeded` (failed when `Failed`); kstatus would
/// call a running Job current, which is not what a hook waits for.
pub async fn wait_hooks_done(
    cluster: &Cluster,
    ids: &[ObjectRef],
    timeout: Duration,
) -> Result<(), KubeError> {
    wait_until(cluster, ids, timeout, readiness::hook_completion, |_| {}).await
}

/// Waits until `judge` says every object is current (see [`wait_ready`]).
pub async fn wait_until(
    cluster: &Cluster,
    ids: &[ObjectRef],
    timeout: Duration,
    judge: impl Fn(&serde_json::Value) -> Readiness,
    mut progress: impl FnMut(&[(ObjectRef, Readiness)]),
) -> Result<(), KubeError> {
    if ids.is_empty() {
        return Ok(());
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let mut streams = Vec::new();
    let mut resolved = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let (api, id) = cluster.locate(id, &cluster.namespace).await?;
        streams.push(watch_named(api, &id.name).map(move |ev| (i, ev)).boxed());
        resolved.push(id);
    }
    let mut merged = futures::stream::select_all(streams);
    let not_found = || Readiness {
        status: Status::NotFound,
        reason: "NotFound".into(),
        message: "object not found".into(),
    };
    let mut state: Vec<Readiness> = vec![not_found(); ids.len()];
    // Until every watch has listed its object, an object not seen yet may well exist:
    // progress is reported only once all states are known (no false "not found").
    let mut listed: Vec<bool> = vec![false; ids.len()];
    let mut last_reported: Vec<(ObjectRef, Readiness)> = Vec::new();
    let mut outage = Outage::default();
    loop {
        let pending: Vec<(ObjectRef, Readiness)> = resolved
            .iter()
            .zip(&state)
            .filter(|(_, r)| !r.is_ready())
            .map(|(id, r)| (id.clone(), r.clone()))
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let failed: Vec<&(ObjectRef, Readiness)> = pending
            .iter()
            .filter(|(id, r)| {
                r.status == Status::Failed && matches!(id.kind.as_str(), "Job" | "Pod")
            })
            .collect();
        if !failed.is_empty() {
            let ids: Vec<(ObjectRef, Readiness)> = failed.into_iter().cloned().collect();
            return Err(KubeError::Failed(report(cluster, None, ids).await));
        }
        if pending != last_reported && listed.iter().all(|l| *l) {
            progress(&pending);
            last_reported = pending.clone();
        }
        let next = match tokio::time::timeout_at(deadline, merged.next()).await {
            Ok(Some(x)) => x,
            Ok(None) | Err(_) => {
                return Err(KubeError::NotReady(
                    report(cluster, Some(timeout), pending).await,
                ));
            }
        };
        let (i, ev) = next;
        match ev {
            Ok(watcher::Event::Apply(o)) | Ok(watcher::Event::InitApply(o)) => {
                // Objects from a list carry no apiVersion/kind; the rules need them.
                let mut v = serde_json::to_value(&o).unwrap_or_default();
                if let Some(m) = v.as_object_mut() {
                    m.insert("apiVersion".into(), resolved[i].api_version.clone().into());
                    m.insert("kind".into(), resolved[i].kind.clone().into());
                }
                state[i] = judge(&v);
            }
            Ok(watcher::Event::Delete(_)) => state[i] = not_found(),
            Ok(watcher::Event::InitDone) => listed[i] = true,
            Ok(watcher::Event::Init) => {}
            // The watch broke; it is set up again (with backoff): keep waiting — unless the
            // API server has refused every connection for OUTAGE: then nothing can be judged.
            Err(e) => {
                outage.watch_failed(e, &resolved[i].to_string())?;
                continue;
            }
        }
        outage.answered();
    }
}

/// How long a wait goes on while the API server cannot be reached at all before it ends with
/// that error (shorter outages are waited through).
pub const OUTAGE: Duration = Duration::from_secs(20);

/// What a wait loop over watches knows of an outage: since when its watches have failed
/// without an answer in between (a dropped watch, then connections refused); [`OUTAGE`] of that,
/// ended by an API server that does not answer at all, ends the wait.
#[derive(Debug, Default)]
pub struct Outage {
    since: Option<tokio::time::Instant>,
}

impl Outage {
    /// A watch of `object` failed with `e`: the error that ends the wait once the watches have
    /// failed for [`OUTAGE`] and the API server does not answer at all, else nothing (the
    /// watcher tries again with backoff).
    pub fn watch_failed(&mut self, e: watcher::Error, object: &str) -> Result<(), KubeError> {
        let since = *self.since.get_or_insert_with(tokio::time::Instant::now);
        let cause = match e {
            watcher::Error::InitialListFailed(k)
            | watcher::Error::WatchStartFailed(k)
            | watcher::Error::WatchFailed(k)
                if crate::error::is_unreachable_api(&k) =>
            {
                k
            }
            _ => return Ok(()),
        };
        if since.elapsed() < OUTAGE {
            return Ok(());
        }
        Err(KubeError::Api {
            action: "watch",
            object: object.to_string(),
            source: ApiFailure::Transport(Box::new(cause)),
        })
    }

    /// The API server answered: any outage is over.
    pub fn answered(&mut self) {
        self.since = None;
    }
}

/// Waits until every object is gone (uninstall `--wait`).
pub async fn wait_deleted(
    cluster: &Cluster,
    ids: &[ObjectRef],
    timeout: Duration,
) -> Result<(), KubeError> {
    let deadline = tokio::time::Instant::now() + timeout;
    for id in ids {
        let (api, id) = match cluster.locate(id, &cluster.namespace).await {
            Ok(x) => x,
            Err(KubeError::UnknownKind { .. }) => continue,
            Err(e) => return Err(e),
        };
        let uid = match api.get_opt(&id.name).await {
            Ok(Some(o)) => o.metadata.uid.unwrap_or_default(),
            Ok(None) => continue,
            Err(e) => return Err(KubeError::api("get", &id, e)),
        };
        // A broken watch is set up again until the deadline.
        let gone = async {
            loop {
                let fut = kube::runtime::wait::await_condition(
                    api.clone(),
                    &id.name,
                    kube::runtime::conditions::is_deleted(&uid),
                );
                if fut.await.is_ok() {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        };
        if tokio::time::timeout_at(deadline, gone).await.is_err() {
            return Err(KubeError::NotReady(NotReadyReport {
                timeout: Some(timeout),
                objects: vec![Unready {
                    id: id.clone(),
                    readiness: Readiness {
                        status: Status::Terminating,
                        reason: "NotDeleted".into(),
                        message: "object still exists".into(),
                    },
                    events: recent_events(cluster, &id).await,
                    pods: Vec::new(),
                    log: Vec::new(),
                }],
            }));
        }
    }
    Ok(())
}

async fn report(
    cluster: &Cluster,
    timeout: Option<Duration>,
    pending: Vec<(ObjectRef, Readiness)>,
) -> NotReadyReport {
    let mut objects = Vec::new();
    for (id, readiness) in pending {
        let failed = readiness.status == Status::Failed;
        let d = crate::diagnosis::diagnose(cluster, &id, failed).await;
        objects.push(Unready {
            id,
            readiness,
            events: d.events,
            pods: d.pods,
            log: d.log,
        });
    }
    NotReadyReport { timeout, objects }
}

/// The last three events about an object, oldest first.
pub async fn recent_events(cluster: &Cluster, id: &ObjectRef) -> Vec<String> {
    let ns = if id.namespace.is_empty() {
        "default"
    } else {
        &id.namespace
    };
    let mut events = crate::diagnosis::object_events(cluster, ns, &id.kind, &id.name).await;
    events.sort();
    let n = events.len();
    events
        .into_iter()
        .skip(n.saturating_sub(3))
        .map(|(_, _, t)| t)
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures::StreamExt;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::runtime::watcher;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// An API server that refuses streaming lists as Kubernetes 1.33 does (422) and answers a
    /// list of one ConfigMap and an empty watch otherwise; it keeps the request lines.
    async fn refusing_server() -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut conn, _)) = listener.accept().await else {
                    return;
                };
                let log = log.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    let n = conn.read(&mut buf).await.unwrap_or(0);
                    let request = String::from_utf8_lossy(&buf[..n]).to_string();
                    let line = request.lines().next().unwrap_or_default().to_string();
                    log.lock().unwrap().push(line.clone());
                    let (status, body) = if line.contains("sendInitialEvents=true") {
                        (
                            "422 Unprocessable Entity",
                            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","code":422}"#.to_string(),
                        )
                    } else if line.contains("watch=true") {
                        ("200 OK", String::new())
                    } else {
                        (
                            "200 OK",
                            r#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"cm","namespace":"ns","resourceVersion":"7"}}]}"#.to_string(),
                        )
                    };
                    let response = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = conn.write_all(response.as_bytes()).await;
                });
            }
        });
        (address, asked)
    }

    #[tokio::test]
    async fn a_refused_streaming_list_falls_back_to_a_list_and_a_watch() {
        let (address, asked) = refusing_server().await;
        let config = kube::Config::new(address.parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let api: Api<ConfigMap> = Api::namespaced(client, "ns");
        let mut events = watch_named(api, "cm").boxed();
        let mut seen = Vec::new();
        while !seen.iter().any(|e: &String| e == "listed") {
            let event = tokio::time::timeout(Duration::from_secs(30), events.next())
                .await
                .expect("an event within 30 s")
                .expect("the stream goes on");
            seen.push(match event {
                Err(watcher::Error::WatchStartFailed(kube::Error::Api(s))) => {
                    format!("refused {}", s.code)
                }
                Err(e) => format!("error {e}"),
                Ok(watcher::Event::Init) => "init".into(),
                Ok(watcher::Event::InitApply(cm)) => {
                    format!("object {}", cm.metadata.name.unwrap())
                }
                Ok(watcher::Event::InitDone) => "listed".into(),
                Ok(other) => format!("{other:?}"),
            });
        }
        assert_eq!(seen, ["refused 422", "init", "object cm", "listed"]);
        assert!(STREAMING_REFUSED.load(Ordering::Relaxed));
        let requests = asked.lock().unwrap().clone();
        assert!(
            requests[0].contains("watch=true") && requests[0].contains("sendInitialEvents=true"),
            "{requests:?}"
        );
        assert!(
            requests[1].starts_with("GET /api/v1/namespaces/ns/configmaps?")
                && !requests[1].contains("watch=true")
                && requests[1].contains("fieldSelector=metadata.name%3Dcm"),
            "{requests:?}"
        );
        // A later watch of this process lists first, without asking for a streaming list.
        drop(events);
        let config = kube::Config::new(address.parse().unwrap());
        let api: Api<ConfigMap> = Api::namespaced(kube::Client::try_from(config).unwrap(), "ns");
        let mut again = watch_named(api, "cm").boxed();
        let first = tokio::time::timeout(Duration::from_secs(30), again.next()).await;
        assert!(
            matches!(first, Ok(Some(Ok(watcher::Event::Init)))),
            "{first:?}"
        );
        let asked = asked.lock().unwrap().clone();
        assert!(
            !asked.last().unwrap().contains("sendInitialEvents"),
            "{asked:?}"
        );
    }
}
