//! Leader election for running more than one replica: the leader holds the Lease
//! `kubepkg-controller-leader` through `kubepkg_kube::lease::LeaseLock`, the same lock the
//! engine's operations use (renewed in the background; free once its holder stops renewing for
//! `LEASE_SECONDS`, or at once when its process is seen gone). A standby waits for it. A leader
//! that finds the Lease held by someone else (it could not renew in time) exits, as
//! controller-runtime's leaders do, so that two never reconcile at once.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kubepkg_kube::lease::{LeaseError, LeaseLock, RENEW_EVERY};

/// The leader Lease's name.
pub const LEASE: &str = "kubepkg-controller-leader";

/// Leader election failed.
#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("taking the leader Lease {LEASE}")]
    Lease(#[source] LeaseError),
    #[error("creating the leader Lease's namespace")]
    Namespace(#[source] kubepkg_kube::KubeError),
}

/// Waits until this process holds the leader Lease in `namespace`, then watches that it keeps
/// it (the process exits with status 1 when it does not).
pub async fn acquire(client: &kube::Client, namespace: &str) -> Result<LeaseLock, LeaderError> {
    kubepkg_engine::cluster::ensure_namespace(client, namespace)
        .await
        .map_err(LeaderError::Namespace)?;
    let lock = LeaseLock::acquire(
        client.clone(),
        namespace,
        LEASE,
        true,
        Duration::from_secs(u64::from(u32::MAX)),
        |holder| tracing::info!(%holder, "standing by: another replica leads"),
    )
    .await
    .map_err(LeaderError::Lease)?;
    tracing::info!(holder = lock.holder(), "became the leader");
    let api: Api<Lease> = Api::namespaced(client.clone(), namespace);
    let me = lock.holder().to_string();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(RENEW_EVERY).await;
            if let Ok(Some(lease)) = api.get_opt(LEASE).await {
                let holder = lease.spec.and_then(|s| s.holder_identity);
                if holder.as_deref() != Some(&me) {
                    tracing::error!(?holder, "lost the leader Lease; exiting");
                    std::process::exit(1);
                }
            }
        }
    });
    Ok(lock)
}
