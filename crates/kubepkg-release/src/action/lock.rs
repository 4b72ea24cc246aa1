//! The per-release lock: the cluster layer's [`LeaseLock`] on a Lease named
//! `kubepkg-release-<name>` in the release namespace, held for the whole of an operation.
//! A holder that stopped renewing, or whose process is seen gone, is taken over, and what it
//! left `pending-*` is recovered by the next operation instead of blocking it forever as
//! Helm's "another operation is in progress".

use std::time::Duration;

pub use kubepkg_kube::lease::LeaseLock as ReleaseLock;
use kubepkg_kube::lease::{LeaseError, LeaseLock};

use super::ActionError;

/// The Lease object's name for a release.
pub fn lease_name(release: &str) -> String {
    format!("kubepkg-release-{release}")
}

/// Takes the lease of `release` (see [`LeaseLock::acquire`]); a live holder is
/// [`ActionError::Locked`].
pub async fn acquire(
    client: kube::Client,
    namespace: &str,
    release: &str,
    wait: bool,
    timeout: Duration,
    waiting: impl FnMut(&str),
) -> Result<LeaseLock, ActionError> {
    LeaseLock::acquire(
        client,
        namespace,
        &lease_name(release),
        wait,
        timeout,
        waiting,
    )
    .await
    .map_err(|e| match e {
        LeaseError::Held { holder, .. } => ActionError::Locked {
            release: release.to_string(),
            holder,
        },
        LeaseError::Kube(e) => ActionError::Cluster(e),
    })
}
