//! Waiting for objects through watches (never by sleeping and polling).

use std::fmt::Debug;
use std::pin::pin;
use std::time::Duration;

use futures::TryStreamExt;
use kube::Resource;
use kube::api::Api;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::Error;

/// A predicate true when the object's `status.conditions` has an entry of
/// type `kind` with status `status` (`"True"`, `"False"`, `"Unknown"`).
pub fn has_condition<K: Serialize>(kind: &str, status: &str) -> impl Fn(&K) -> bool {
    let (kind, status) = (kind.to_string(), status.to_string());
    move |object| {
        let Ok(value) = serde_json::to_value(object) else {
            return false;
        };
        value["status"]["conditions"]
            .as_array()
            .is_some_and(|conds| {
                conds
                    .iter()
                    .any(|c| c["type"] == kind.as_str() && c["status"] == status.as_str())
            })
    }
}

/// What a timeout reports: the last state seen, without managed fields.
fn describe<K: Serialize>(last: Option<&K>) -> String {
    let Some(object) = last else {
        return "nothing (the object did not exist)".into();
    };
    let mut value = serde_json::to_value(object).unwrap_or_default();
    if let Some(meta) = value.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        meta.remove("managedFields");
    }
    serde_json::to_string(&value).unwrap_or_default()
}

/// Watches the object `name` until `condition` holds, and returns it.
///
/// `what` names the awaited state in the timeout error, which also shows the
/// object as last seen.
pub async fn wait_for<K>(
    api: &Api<K>,
    name: &str,
    timeout: Duration,
    what: &str,
    condition: impl Fn(&K) -> bool,
) -> Result<K, Error>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug + Send + 'static,
{
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut last: Option<K> = None;
    let mut last_error: Option<String> = None;
    let waiting = async {
        let mut events = pin!(watcher::watcher(api.clone(), config).default_backoff());
        loop {
            match events.try_next().await {
                Ok(Some(Event::Apply(object) | Event::InitApply(object))) => {
                    if condition(&object) {
                        return Ok(object);
                    }
                    last = Some(object);
                }
                Ok(Some(Event::Delete(_))) => last = None,
                Ok(Some(Event::Init | Event::InitDone)) => {}
                Ok(None) => {
                    return Err(Error::Timeout {
                        what: what.to_string(),
                        timeout,
                        last_seen: "the watch ended".into(),
                    });
                }
                Err(e) => last_error = Some(e.to_string()),
            }
        }
    };
    match tokio::time::timeout(timeout, waiting).await {
        Ok(result) => result,
        Err(_) => {
            let mut last_seen = describe(last.as_ref());
            if let Some(e) = last_error {
                last_seen.push_str(&format!("; last watch error: {e}"));
            }
            Err(Error::Timeout {
                what: what.to_string(),
                timeout,
                last_seen,
            })
        }
    }
}

/// Watches the object `name` until it no longer exists.
pub async fn wait_deleted<K>(api: &Api<K>, name: &str, timeout: Duration) -> Result<(), Error>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug + Send + 'static,
{
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut last: Option<K> = None;
    let waiting = async {
        let mut events = pin!(watcher::watcher(api.clone(), config).default_backoff());
        loop {
            match events.try_next().await {
                Ok(Some(Event::InitApply(object) | Event::Apply(object))) => last = Some(object),
                // A (re)list starts: only what it returns exists.
                Ok(Some(Event::Init)) => last = None,
                Ok(Some(Event::InitDone)) if last.is_none() => return,
                Ok(Some(Event::Delete(_))) => return,
                Ok(Some(Event::InitDone)) | Err(_) => {}
                Ok(None) => std::future::pending::<()>().await,
            }
        }
    };
    tokio::time::timeout(timeout, waiting)
        .await
        .map_err(|_| Error::Timeout {
            what: format!("{name} to be deleted"),
            timeout,
            last_seen: describe(last.as_ref()),
        })
}

/// Polls `check` every 100 ms until it returns `Some`, for at most `limit`.
pub async fn eventually<T>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
