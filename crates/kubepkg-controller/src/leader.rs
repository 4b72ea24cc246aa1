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

/// The leader Lease's name (of the controller that watches every Package; a shard's adds a
/// suffix: [`lease_name`]).
pub const LEASE: &str = "kubepkg-controller-leader";

/// The leader Lease of the controller watching the Packages `selector` picks (`None`: all):
/// each shard's replicas elect their own leader (`kubepkg-controller-leader-<12 hex of the
/// selector's SHA-256>`).
pub fn lease_name(selector: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    match selector {
        None => LEASE.to_string(),
        Some(s) => {
            let digest = Sha256::digest(s.as_bytes());
            let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
            format!("{LEASE}-{hex}")
        }
    }
}

/// Leader election failed.
#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("taking the leader Lease {0}")]
    Lease(String, #[source] LeaseError),
    #[error("creating the leader Lease's namespace")]
    Namespace(#[source] kubepkg_kube::KubeError),
}

/// Waits until this process holds the leader Lease in `namespace`, then watches that it keeps
/// it (the process exits with status 1 when it does not).
pub async fn acquire(
    client: &kube::Client,
    namespace: &str,
    lease: &str,
) -> Result<LeaseLock, LeaderError> {
    kubepkg_engine::cluster::ensure_namespace(client, namespace)
        .await
        .map_err(LeaderError::Namespace)?;
    let lock = LeaseLock::acquire(
        client.clone(),
        namespace,
        lease,
        true,
        Duration::from_secs(u64::from(u32::MAX)),
        |holder| tracing::info!(%holder, "standing by: another replica leads"),
    )
    .await
    .map_err(|e| LeaderError::Lease(lease.to_string(), e))?;
    tracing::info!(holder = lock.holder(), "became the leader");
    let api: Api<Lease> = Api::namespaced(client.clone(), namespace);
    let me = lock.holder().to_string();
    let name = lease.to_string();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(RENEW_EVERY).await;
            if let Ok(Some(lease)) = api.get_opt(&name).await {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shard_elects_its_own_leader() {
        assert_eq!(lease_name(None), LEASE);
        let a = lease_name(Some("kubepkg.dev/shard=a"));
        let b = lease_name(Some("kubepkg.dev/shard=b"));
        assert!(a.starts_with("kubepkg-controller-leader-") && a.len() == LEASE.len() + 13);
        assert_ne!(a, b);
        assert_eq!(a, lease_name(Some("kubepkg.dev/shard=a")));
    }
}
