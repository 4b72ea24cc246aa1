//! Where and as whom a Package's components are applied (docs/controller.md#multi-tenancy,
//! #remote-clusters): the cluster the controller runs in, or the one `spec.kubeConfig`'s
//! Secret describes; as the controller itself, or impersonating the Package's ServiceAccount
//! (`spec.serviceAccountName`, else `--default-service-account`) there.
//!
//! The kubeconfig Secret is read with the controller's own identity, in the Package's
//! namespace unless `secretRef.namespace` names another (which `--no-cross-namespace-refs`
//! refuses before this is reached). One client is kept per Secret and identity, built again
//! when the Secret's kubeconfig changes.

use std::collections::HashMap;
use std::sync::Mutex;

use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kubepkg_kube::{Cluster, Impersonation, KubeError};
use kubepkg_package_object::{DEFAULT_KUBECONFIG_KEYS, KubeConfigSecretRef, PackageSpec, Target};
use sha2::{Digest, Sha256};

/// Why a Package's target cluster cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The kubeconfig Secret does not exist.
    #[error(
        "Secret {namespace}/{name} (spec.kubeConfig.secretRef) not found: create it with the target cluster's kubeconfig under key {key}"
    )]
    SecretMissing {
        namespace: String,
        name: String,
        key: String,
    },
    /// The Secret has none of the keys read.
    #[error(
        "Secret {namespace}/{name} (spec.kubeConfig.secretRef) has no key {keys}: store the kubeconfig under it or set secretRef.key"
    )]
    KeyMissing {
        namespace: String,
        name: String,
        keys: String,
    },
    /// Reading the Secret failed (retried).
    #[error("reading Secret {namespace}/{name} (spec.kubeConfig.secretRef)")]
    Read {
        namespace: String,
        name: String,
        #[source]
        source: Box<KubeError>,
    },
    /// The kubeconfig cannot be used (not a kubeconfig, refused credentials).
    #[error("the kubeconfig of spec.kubeConfig.secretRef")]
    Kubeconfig(#[source] KubeError),
    /// No client acting as the Package's ServiceAccount could be built.
    #[error("acting as {who}")]
    Identity {
        who: Impersonation,
        #[source]
        source: KubeError,
    },
}

impl TargetError {
    /// Whether trying again later may help without an edit (the Secret may be created or
    /// readable by then).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            TargetError::Read { .. }
                | TargetError::SecretMissing { .. }
                | TargetError::KeyMissing { .. }
        )
    }
}

/// The cluster a Package is applied in, acting as its identity.
pub struct Acting {
    pub cluster: Cluster,
    /// `spec.kubeConfig`'s cluster (`None`: the controller's own).
    pub target: Option<Target>,
}

/// What a client is kept under: the kubeconfig Secret (`NAMESPACE/NAME`; none: the
/// controller's cluster) and the identity acted as.
type ClientKey = (Option<String>, Impersonation);

/// The clients built so far, each with the digest of the kubeconfig it was built from.
#[derive(Default)]
pub struct Clients {
    built: Mutex<HashMap<ClientKey, (String, Cluster)>>,
}

impl Clients {
    fn get(&self, key: &ClientKey, digest: &str) -> Option<Cluster> {
        let built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        built
            .get(key)
            .filter(|(d, _)| d == digest)
            .map(|(_, c)| c.clone())
    }

    fn put(&self, key: ClientKey, digest: String, cluster: Cluster) {
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        built.insert(key, (digest, cluster));
    }
}

/// Where and as whom the components of a Package of `namespace` with `spec` are applied:
/// `home` (the controller's cluster) or its `kubeConfig` target, acting as `who`.
pub async fn acting_for(
    home: &Cluster,
    clients: &Clients,
    namespace: &str,
    spec: Option<&PackageSpec>,
    who: &Impersonation,
) -> Result<Acting, TargetError> {
    let Some(r) = spec
        .and_then(|s| s.kube_config.as_ref())
        .map(|k| &k.secret_ref)
    else {
        if who.is_none() {
            return Ok(Acting {
                cluster: home.clone(),
                target: None,
            });
        }
        let key = (None, who.clone());
        if let Some(c) = clients.get(&key, "") {
            return Ok(Acting {
                cluster: c,
                target: None,
            });
        }
        let cluster = home
            .impersonating(who)
            .map_err(|source| TargetError::Identity {
                who: who.clone(),
                source,
            })?;
        clients.put(key, String::new(), cluster.clone());
        return Ok(Acting {
            cluster,
            target: None,
        });
    };
    remote(home, clients, namespace, r, who).await
}

/// The cluster of the kubeconfig Secret `r` (of `namespace` unless it names another), acting as
/// `who`, for objects of `namespace`: what a Package with `spec.kubeConfig` is applied in, and
/// what a fleet rollout asks a registered cluster's version of.
pub async fn remote(
    home: &Cluster,
    clients: &Clients,
    namespace: &str,
    r: &KubeConfigSecretRef,
    who: &Impersonation,
) -> Result<Acting, TargetError> {
    let secret_namespace = r.namespace.as_deref().unwrap_or(namespace);
    let (text, key_read) = kubeconfig_text(home, secret_namespace, r).await?;
    let origin = format!("Secret {secret_namespace}/{} key {key_read}", r.name);
    let digest = format!("{:x}", Sha256::digest(text.as_bytes()));
    let key = (Some(format!("{secret_namespace}/{}", r.name)), who.clone());
    let cluster = match clients.get(&key, &digest) {
        Some(c) => c,
        None => {
            let target = Cluster::from_kubeconfig_text(&text, &origin, namespace)
                .await
                .map_err(TargetError::Kubeconfig)?;
            let cluster = if who.is_none() {
                target
            } else {
                target
                    .impersonating(who)
                    .map_err(|source| TargetError::Identity {
                        who: who.clone(),
                        source,
                    })?
            };
            clients.put(key, digest, cluster.clone());
            cluster
        }
    };
    let mut cluster = cluster;
    cluster.namespace = namespace.to_string();
    let target = Target {
        server: cluster.server().unwrap_or_default(),
        kube_config: format!("{secret_namespace}/{}", r.name),
    };
    Ok(Acting {
        cluster,
        target: Some(target),
    })
}

/// The kubeconfig text of the Secret `r` and the key it was read from.
async fn kubeconfig_text(
    home: &Cluster,
    namespace: &str,
    r: &KubeConfigSecretRef,
) -> Result<(String, String), TargetError> {
    let api: Api<Secret> = Api::namespaced(home.client.clone(), namespace);
    let keys: Vec<&str> = match &r.key {
        Some(k) => vec![k.as_str()],
        None => DEFAULT_KUBECONFIG_KEYS.to_vec(),
    };
    let secret = match api.get_opt(&r.name).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            return Err(TargetError::SecretMissing {
                namespace: namespace.to_string(),
                name: r.name.clone(),
                key: keys[0].to_string(),
            });
        }
        Err(e) => {
            return Err(TargetError::Read {
                namespace: namespace.to_string(),
                name: r.name.clone(),
                source: Box::new(KubeError::refused(
                    "get",
                    format!("Secret {namespace}/{}", r.name),
                    e,
                )),
            });
        }
    };
    let data = secret.data.unwrap_or_default();
    keys.iter()
        .find_map(|k| {
            data.get(*k)
                .map(|v| (String::from_utf8_lossy(&v.0).into_owned(), k.to_string()))
        })
        .ok_or_else(|| TargetError::KeyMissing {
            namespace: namespace.to_string(),
            name: r.name.clone(),
            keys: keys.join(" or "),
        })
}
