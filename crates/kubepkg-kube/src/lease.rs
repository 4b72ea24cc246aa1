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
//!
//! A process never waits on its own lease: a Lease whose holder is this very process but no
//! [`LeaseLock`] of it (one it could not free, e.g. when the API server was unreachable at the
//! end of an earlier operation) is taken over at once; and a create or replace whose answer
//! was lost and that the retry layer sent again finds the Lease held by its own identity, which
//! counts as taken. [`LeaseLock::release`] frees the Lease on every exit path, trying again on
//! passing failures.
//!
//! Two requests in the usual case: the Lease is created without being read first (read only
//! when that conflicts), and freed by one delete whose preconditions are the uid and
//! resourceVersion this lock (or its renewer) last wrote (read first only when that fails).

pub mod holder;

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams, Preconditions};
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

/// The holder identities of this process's live [`LeaseLock`]s.
static LIVE: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

fn live(holder: &str) -> bool {
    LIVE.lock().is_ok_and(|l| l.contains(holder))
}

fn set_live(holder: &str, on: bool) {
    if let Ok(mut l) = LIVE.lock() {
        if on {
            l.insert(holder.to_string());
        } else {
            l.remove(holder);
        }
    }
}

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
    /// The Lease as this lock last wrote it (uid, resourceVersion): freed by one delete with
    /// those preconditions, without reading it first.
    written: Written,
    /// The previous holder whose lease had expired, when this lock took one over.
    pub took_over_from: Option<String>,
    /// Whether that holder's process was seen gone (taken over before its lease expired).
    pub holder_process_gone: bool,
}

/// The uid and resourceVersion of the Lease as a lock last wrote it (shared with its renewer).
type Written = std::sync::Arc<Mutex<Option<Preconditions>>>;

/// The preconditions that match `lease` exactly as it is.
fn exactly(lease: &Lease) -> Preconditions {
    Preconditions {
        resource_version: lease.metadata.resource_version.clone(),
        uid: lease.metadata.uid.clone(),
    }
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

/// The holder identity of a lease, if any.
fn holder_of(lease: &Lease) -> Option<&str> {
    lease
        .spec
        .as_ref()
        .and_then(|s| s.holder_identity.as_deref())
        .filter(|h| !h.is_empty())
}

/// The process the holder of this lease recorded.
fn holder_process(lease: &Lease) -> Option<HolderProcess> {
    let holder = holder_of(lease)?;
    lease
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(holder::ANNOTATION))
        .and_then(|v| HolderProcess::decode(v, holder))
}

/// Is the holder of this (unexpired) lease a process of this host that is certainly gone?
pub fn holder_is_gone(lease: &Lease) -> bool {
    holder_process(lease).is_some_and(|p| p.liveness() == Liveness::Gone)
}

/// Is this lease held by this process through no live [`LeaseLock`] (left behind by an
/// earlier operation of this process that could not free it)?
pub fn held_by_this_process_unlocked(lease: &Lease) -> bool {
    let Some(holder) = holder_of(lease) else {
        return false;
    };
    !live(holder) && holder_process(lease).is_some_and(|p| p.is_current())
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
        // Most Leases are free and absent: created at once, read only when that conflicts.
        let mut assume_absent = true;
        loop {
            let current = if std::mem::take(&mut assume_absent) {
                None
            } else {
                api.get_opt(&name).await.map_err(|e| lease_err(&name, e))?
            };
            // A create or replace of ours whose answer was lost, sent again by the retry
            // layer, left the Lease ours: it is taken.
            if let Some(lease) = &current
                && holder_of(lease) == Some(holder.as_str())
            {
                let written = Some(exactly(lease));
                return Ok(LeaseLock::started(api, name, holder, written, None, false));
            }
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
                        .map(|l| (exactly(&l), None))
                }
                Some(lease)
                    if is_free(lease, jiff::Timestamp::now())
                        || holder_is_gone(lease)
                        || held_by_this_process_unlocked(lease) =>
                {
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
                        .map(|l| (exactly(&l), previous))
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
                Ok((written, previous)) => {
                    let gone = gone && previous.is_some();
                    return Ok(LeaseLock::started(
                        api,
                        name,
                        holder,
                        Some(written),
                        previous,
                        gone,
                    ));
                }
                // Lost a race (409 conflict/exists): look again.
                Err(kube::Error::Api(s)) if s.code == 409 => continue,
                Err(e) => {
                    // The write may have gone through with its answer lost: a Lease left
                    // ours is freed, not held by a process that believes it failed.
                    free(&api, &name, &holder).await;
                    return Err(lease_err(&name, e));
                }
            }
        }
    }

    /// A lock on a lease just taken: renewed from now on.
    fn started(
        api: Api<Lease>,
        name: String,
        holder: String,
        written: Option<Preconditions>,
        took_over_from: Option<String>,
        holder_process_gone: bool,
    ) -> LeaseLock {
        set_live(&holder, true);
        let written: Written = std::sync::Arc::new(Mutex::new(written));
        let renewer = tokio::spawn(renew(
            api.clone(),
            name.clone(),
            holder.clone(),
            written.clone(),
        ));
        LeaseLock {
            api,
            name,
            holder,
            renewer,
            written,
            took_over_from,
            holder_process_gone,
        }
    }

    /// The identity this lock holds the lease as.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Stops renewing and frees the lease (deleted, so the next holder starts fresh), if it
    /// is still this lock's. Each API call goes through the retry layer; when even that fails
    /// the whole is tried again a few times, and at worst the Lease is left to this process,
    /// which a later operation of it or of another process on this host takes over at once
    /// (see the module docs), and anyone else when it expires.
    pub async fn release(self) {
        self.renewer.abort();
        set_live(&self.holder, false);
        // The Lease as last written by this lock: one delete with exactly those
        // preconditions. A renewal whose answer was lost, or a contender that took the Lease
        // over, makes it fail (409): then it is read first, as below.
        let written = self.written.lock().ok().and_then(|w| w.clone());
        if let Some(exactly) = written {
            let dp = DeleteParams {
                preconditions: Some(exactly),
                ..Default::default()
            };
            match self.api.delete(&self.name, &dp).await {
                Ok(_) => return,
                Err(kube::Error::Api(s)) if s.code == 404 => return,
                Err(_) => {}
            }
        }
        free(&self.api, &self.name, &self.holder).await;
    }
}

/// Deletes the Lease `name` if `holder` holds it (see [`LeaseLock::release`]), tried again
/// ([`crate::retry::Settle`]) while the API keeps failing.
async fn free(api: &Api<Lease>, name: &str, holder: &str) {
    let mut rounds = crate::retry::Settle::default();
    while rounds.next().await {
        let lease = match api.get_opt(name).await {
            Ok(Some(lease)) => lease,
            Ok(None) => return,
            // No answer at all (twice): the Lease expires, or this process takes it over at once.
            Err(e) if crate::error::is_unreachable_api(&e) => {
                if rounds.unanswered() {
                    return;
                }
                continue;
            }
            Err(_) => continue,
        };
        if holder_of(&lease) != Some(holder) {
            return;
        }
        // Only this version of the Lease: a contender that took it over in between keeps it.
        let dp = DeleteParams {
            preconditions: Some(exactly(&lease)),
            ..Default::default()
        };
        match api.delete(name, &dp).await {
            Ok(_) => return,
            Err(kube::Error::Api(s)) if s.code == 404 => return,
            Err(_) => continue,
        }
    }
}

impl Drop for LeaseLock {
    fn drop(&mut self) {
        self.renewer.abort();
        // Not freed on the server (that needs an await): this process no longer holds it, so
        // its next operation takes it over at once.
        set_live(&self.holder, false);
    }
}

async fn renew(api: Api<Lease>, name: String, holder: String, written: Written) {
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
        if let Ok(renewed) = api.replace(&name, &PostParams::default(), &lease).await
            && let Ok(mut w) = written.lock()
        {
            *w = Some(exactly(&renewed));
        }
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

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lease_this_process_left_behind_is_its_own_to_take_over() {
        let holder = "host-1-leftover";
        let mut l = lease(holder, "2026-01-01T00:00:45Z", 30);
        annotate_holder(&mut l.metadata, holder);
        assert!(!holder_is_gone(&l), "this process runs");
        assert!(held_by_this_process_unlocked(&l), "no live lock holds it");
        set_live(holder, true);
        assert!(
            !held_by_this_process_unlocked(&l),
            "a live lock of this process holds it"
        );
        set_live(holder, false);
        assert!(held_by_this_process_unlocked(&l));
        // Another process's lease (another start time) is not this process's.
        let mut other = lease("host-2-x", "2026-01-01T00:00:45Z", 30);
        let me = HolderProcess::current().unwrap();
        let them = HolderProcess {
            start_ticks: me.start_ticks + 1,
            ..me
        };
        other
            .metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert(holder::ANNOTATION.into(), them.encode("host-2-x"));
        assert!(!held_by_this_process_unlocked(&other));
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
