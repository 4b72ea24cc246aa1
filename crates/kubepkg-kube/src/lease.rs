//! The lease lock kubepkg holds for the whole of an operation: a `coordination.k8s.io/v1`
//! Lease (one per release, `kubepkg-release-<name>`, and one per package,
//! `kubepkg.package.<name>`; the names are the release and package layers' business),
//! renewed in the background.
//! A lease whose holder stopped renewing (its `renewTime + leaseDurationSeconds` is past) is
//! free: that holder died, and whatever it left `pending-*` is recovered by the next
//! operation instead of blocking it forever as Helm's "another operation is in progress".
//! A holder also records its process ([`holder`]); a contender on the same host and boot, in
//! the same PID namespace, sees at once when that process is gone and takes over without
//! waiting for the expiry (a crashed CLI run is recovered immediately by the next one).

pub mod holder;

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use tokio::task::JoinHandle;

use self::holder::{HolderProcess, Liveness};
use crate::KubeError;

/// Why a lease could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// A live holder has the lease (and the caller would not, or no longer, wait).
    #[error("lease {lease:?} is held by {holder}")]
    Held { lease: String, holder: String },
    /// The API server refused or could not be reached.
    #[error(transparent)]
    Kube(#[from] KubeError),
}

/// Seconds a holder may go without renewing before its lease counts as abandoned.
pub const LEASE_SECONDS: i32 = 30;
/// How often a holder renews.
pub const RENEW_EVERY: Duration = Duration::from_secs(10);

/// This process's identity as a holder: host, process id and a random suffix.
pub fn holder_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "kubepkg".to_string());
    let nanos = jiff::Timestamp::now().subsec_nanosecond();
    format!("{host}-{}-{:x}", std::process::id(), nanos)
}

/// A held lease; renewed until [`LeaseLock::release`] or drop.
pub struct LeaseLock {
    api: Api<Lease>,
    name: String,
    holder: String,
    renewer: JoinHandle<()>,
    /// The previous holder whose lease had expired, when this lock took one over.
    pub took_over_from: Option<String>,
    /// Whether that holder's process was seen gone (taken over before its lease expired).
    pub holder_process_gone: bool,
}

/// Is this lease free at `now` for `holder`?
pub fn is_free(lease: &Lease, now: jiff::Timestamp) -> bool {
    let Some(spec) = &lease.spec else { return true };
    let holder = spec.holder_identity.as_deref().unwrap_or("");
    if holder.is_empty() {
        return true;
    }
    let duration = i64::from(spec.lease_duration_seconds.unwrap_or(LEASE_SECONDS));
    match spec.renew_time.as_ref().or(spec.acquire_time.as_ref()) {
        Some(MicroTime(t)) => t.as_second() + duration < now.as_second(),
        None => true,
    }
}

/// Is the holder of this (unexpired) lease a process of this host that is certainly gone?
pub fn holder_is_gone(lease: &Lease) -> bool {
    let Some(holder) = lease
        .spec
        .as_ref()
        .and_then(|s| s.holder_identity.as_deref())
    else {
        return false;
    };
    lease
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(holder::ANNOTATION))
        .and_then(|v| HolderProcess::decode(v, holder))
        .is_some_and(|p| p.liveness() == Liveness::Gone)
}

/// Records (or, where this process cannot be described, clears) the holder process annotation.
fn annotate_holder(meta: &mut ObjectMeta, holder: &str) {
    let annotations = meta.annotations.get_or_insert_with(Default::default);
    match HolderProcess::current() {
        Some(p) => {
            annotations.insert(holder::ANNOTATION.to_string(), p.encode(holder));
        }
        None => {
            annotations.remove(holder::ANNOTATION);
        }
    }
}

fn spec_for(holder: &str, transitions: i32) -> LeaseSpec {
    let now = MicroTime(jiff::Timestamp::now());
    LeaseSpec {
        holder_identity: Some(holder.to_string()),
        lease_duration_seconds: Some(LEASE_SECONDS),
        acquire_time: Some(now.clone()),
        renew_time: Some(now),
        lease_transitions: Some(transitions),
        ..Default::default()
    }
}

impl LeaseLock {
    /// Acquires the Lease `name` in `namespace`. When a live holder has it: with `wait`,
    /// waits (calling `waiting` once with the holder) until it is free or `timeout` passes;
    /// without, fails at once with [`LeaseError::Held`]. An expired lease, or one whose
    /// holder process is seen gone, is taken over ([`LeaseLock::took_over_from`]).
    pub async fn acquire(
        client: kube::Client,
        namespace: &str,
        name: &str,
        wait: bool,
        timeout: Duration,
        mut waiting: impl FnMut(&str),
    ) -> Result<LeaseLock, LeaseError> {
        let api: Api<Lease> = Api::namespaced(client, namespace);
        let name = name.to_string();
        let holder = holder_identity();
        let deadline = tokio::time::Instant::now() + timeout;
        let mut told = false;
        let mut gone = false;
        loop {
            let current = api.get_opt(&name).await.map_err(|e| lease_err(&name, e))?;
            let attempt = match &current {
                None => {
                    let mut lease = Lease {
                        metadata: ObjectMeta {
                            name: Some(name.clone()),
                            namespace: Some(namespace.to_string()),
                            ..Default::default()
                        },
                        spec: Some(spec_for(&holder, 0)),
                    };
                    annotate_holder(&mut lease.metadata, &holder);
                    api.create(&PostParams::default(), &lease)
                        .await
                        .map(|_| None)
                }
                Some(lease) if is_free(lease, jiff::Timestamp::now()) || holder_is_gone(lease) => {
                    gone = !is_free(lease, jiff::Timestamp::now());
                    let previous = lease
                        .spec
                        .as_ref()
                        .and_then(|s| s.holder_identity.clone())
                        .filter(|h| !h.is_empty());
                    let transitions = lease
                        .spec
                        .as_ref()
                        .and_then(|s| s.lease_transitions)
                        .unwrap_or(0)
                        + 1;
                    let mut next = lease.clone();
                    next.spec = Some(spec_for(&holder, transitions));
                    annotate_holder(&mut next.metadata, &holder);
                    // The resourceVersion in `next` makes this a compare-and-swap.
                    api.replace(&name, &PostParams::default(), &next)
                        .await
                        .map(|_| previous)
                }
                Some(lease) => {
                    let other = lease
                        .spec
                        .as_ref()
                        .and_then(|s| s.holder_identity.clone())
                        .unwrap_or_default();
                    if !wait {
                        return Err(LeaseError::Held {
                            lease: name,
                            holder: other,
                        });
                    }
                    if !told {
                        waiting(&other);
                        told = true;
                    }
                    if tokio::time::Instant::now() >= deadline {
                        return Err(LeaseError::Held {
                            lease: name,
                            holder: other,
                        });
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            match attempt {
                Ok(previous) => {
                    let renewer = tokio::spawn(renew(api.clone(), name.clone(), holder.clone()));
                    return Ok(LeaseLock {
                        api,
                        name,
                        holder,
                        renewer,
                        holder_process_gone: gone && previous.is_some(),
                        took_over_from: previous,
                    });
                }
                // Lost a race (409 conflict/exists): look again.
                Err(kube::Error::Api(s)) if s.code == 409 => continue,
                Err(e) => return Err(lease_err(&name, e)),
            }
        }
    }

    /// The identity this lock holds the lease as.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Stops renewing and frees the lease (deleted, so the next holder starts fresh).
    pub async fn release(self) {
        self.renewer.abort();
        if let Ok(Some(lease)) = self.api.get_opt(&self.name).await
            && lease
                .spec
                .as_ref()
                .and_then(|s| s.holder_identity.as_deref())
                == Some(&self.holder)
        {
            let _ = self.api.delete(&self.name, &DeleteParams::default()).await;
        }
    }
}

impl Drop for LeaseLock {
    fn drop(&mut self) {
        self.renewer.abort();
    }
}

async fn renew(api: Api<Lease>, name: String, holder: String) {
    loop {
        tokio::time::sleep(RENEW_EVERY).await;
        let Ok(Some(mut lease)) = api.get_opt(&name).await else {
            continue;
        };
        let Some(spec) = lease.spec.as_mut() else {
            continue;
        };
        if spec.holder_identity.as_deref() != Some(&holder) {
            return;
        }
        spec.renew_time = Some(MicroTime(jiff::Timestamp::now()));
        let _ = api.replace(&name, &PostParams::default(), &lease).await;
    }
}

fn lease_err(name: &str, e: kube::Error) -> LeaseError {
    LeaseError::Kube(KubeError::refused("lock", format!("Lease {name:?}"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(holder: &str, renewed: &str, secs: i32) -> Lease {
        Lease {
            metadata: ObjectMeta::default(),
            spec: Some(LeaseSpec {
                holder_identity: Some(holder.into()),
                renew_time: Some(MicroTime(renewed.parse().unwrap())),
                lease_duration_seconds: Some(secs),
                ..Default::default()
            }),
        }
    }

    #[test]
    fn expired_or_empty_lease_is_free() {
        let now: jiff::Timestamp = "2026-01-01T00:01:00Z".parse().unwrap();
        assert!(!is_free(&lease("a", "2026-01-01T00:00:45Z", 30), now));
        assert!(is_free(&lease("a", "2026-01-01T00:00:20Z", 30), now));
        assert!(is_free(&lease("", "2026-01-01T00:00:59Z", 30), now));
        assert!(is_free(&Lease::default(), now));
    }
}
