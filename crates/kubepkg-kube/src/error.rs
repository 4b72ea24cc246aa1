//! Typed errors of the cluster layer, each naming the object or setting involved.

use crate::manifest::ObjectRef;

/// Errors talking to the cluster.
#[derive(Debug, thiserror::Error)]
pub enum KubeError {
    /// No usable kubeconfig and not running in a cluster.
    #[error(
        "cannot configure a Kubernetes client: {0} (set KUBECONFIG, pass --kubeconfig, or run inside a cluster)"
    )]
    Config(String),
    /// The requested kubeconfig context does not exist.
    #[error("kubeconfig context {0:?} not found")]
    NoContext(String),
    /// The API server does not serve this kind (often: its CRD is not installed yet).
    #[error(
        "no matches for kind {kind:?} in version {api_version:?} (is its CustomResourceDefinition installed?)"
    )]
    UnknownKind { api_version: String, kind: String },
    /// The API server refused an operation on an object.
    #[error("{action} {object}: {message}")]
    Api {
        action: &'static str,
        object: String,
        message: String,
        code: u16,
    },
    /// An existing object belongs to another release or to no release.
    #[error(transparent)]
    Foreign(#[from] crate::ownership::ForeignObject),
    /// Objects did not become ready in time.
    #[error("{0}")]
    NotReady(crate::wait::NotReadyReport),
    /// A CRD upgrade that would break stored or existing objects (docs/rules.md#crd-upgrades).
    #[error(transparent)]
    UnsafeCrd(crate::crd::UnsafeCrdUpgrade),
    /// An object failed while waiting (kstatus `Failed`), e.g. a failed Job.
    #[error("{0}")]
    Failed(crate::wait::NotReadyReport),
}

impl KubeError {
    pub(crate) fn api(action: &'static str, object: &ObjectRef, e: kube::Error) -> Self {
        Self::refused(action, object.to_string(), e)
    }

    /// The API server refused `action` on `object` (or could not be reached): its status
    /// message and code, not the client's debug text.
    pub fn refused(action: &'static str, object: String, e: kube::Error) -> Self {
        let code = match &e {
            kube::Error::Api(s) => s.code,
            _ => 0,
        };
        let message = match &e {
            kube::Error::Api(s) => s.message.clone(),
            other => other.to_string(),
        };
        KubeError::Api {
            action,
            object,
            message,
            code,
        }
    }

    /// True when the API answered 404.
    pub fn is_not_found(&self) -> bool {
        matches!(self, KubeError::Api { code: 404, .. })
    }
}
