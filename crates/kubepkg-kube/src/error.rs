//! Typed errors of the cluster layer, each naming the object or setting involved.

use std::fmt;
use std::time::Duration;

use crate::manifest::ObjectRef;
use crate::readiness::Readiness;

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
    /// The API server refused an operation on an object, or could not be reached for it.
    #[error("{action} {object}: {source}")]
    Api {
        action: &'static str,
        object: String,
        #[source]
        source: ApiFailure,
    },
    /// An existing object belongs to another release or to no release.
    #[error(transparent)]
    Foreign(#[from] crate::ownership::ForeignObject),
    /// Objects did not become ready in time.
    #[error("{0}")]
    NotReady(NotReadyReport),
    /// A CRD upgrade that would break stored or existing objects (docs/rules.md#crd-upgrades).
    #[error(transparent)]
    UnsafeCrd(UnsafeCrdUpgrade),
    /// An object failed while waiting (kstatus `Failed`), e.g. a failed Job.
    #[error("{0}")]
    Failed(NotReadyReport),
}

impl KubeError {
    pub(crate) fn api(action: &'static str, object: &ObjectRef, e: kube::Error) -> Self {
        Self::refused(action, object.to_string(), e)
    }

    /// The API server refused `action` on `object` (or could not be reached): its status
    /// message and code, not the client's debug text.
    pub fn refused(action: &'static str, object: String, e: kube::Error) -> Self {
        KubeError::Api {
            action,
            object,
            source: ApiFailure::from(e),
        }
    }

    /// The API server's answer behind this error, if the server answered.
    pub fn status(&self) -> Option<&ApiStatus> {
        match self {
            KubeError::Api {
                source: ApiFailure::Status(s),
                ..
            } => Some(s),
            _ => None,
        }
    }

    /// True when the API answered 404.
    pub fn is_not_found(&self) -> bool {
        self.status().is_some_and(|s| s.code == 404)
    }
}

/// Why an API call failed: the server's answer, or no answer at all.
#[derive(Debug, thiserror::Error)]
pub enum ApiFailure {
    /// The API server answered with a `Status` (refused, not found, conflict, …).
    #[error(transparent)]
    Status(ApiStatus),
    /// No usable answer: connection, TLS, timeout, or a response that does not decode. The
    /// client's error (and its causes, down to the socket) is the source.
    #[error(transparent)]
    Transport(Box<kube::Error>),
}

impl From<kube::Error> for ApiFailure {
    fn from(e: kube::Error) -> Self {
        match e {
            kube::Error::Api(s) => ApiFailure::Status(ApiStatus {
                code: s.code,
                reason: s.reason,
                message: s.message,
            }),
            other => ApiFailure::Transport(Box::new(other)),
        }
    }
}

/// The API server's `Status` answer: its HTTP code, machine-readable reason and message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiStatus {
    pub code: u16,
    /// `NotFound`, `Conflict`, `Forbidden`, `Invalid`, …
    pub reason: String,
    pub message: String,
}

/// Whether `e` (or one of its causes) is a request to the Kubernetes API that got no answer at
/// all: the connection was refused, timed out or found no route (not a refusal by the server,
/// and not a failure of some other HTTP client).
pub fn is_unreachable_api(e: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind::*;
    let mut api = false;
    let mut cause = Some(e);
    while let Some(c) = cause {
        api |= c.is::<kube::Error>() || c.is::<ApiFailure>() || c.is::<KubeError>();
        if api
            && let Some(io) = c.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                ConnectionRefused | TimedOut | HostUnreachable | NetworkUnreachable
            )
        {
            return true;
        }
        cause = c.source();
    }
    false
}

/// Whether `e` (or one of its causes) is the API server refusing a request as forbidden (403:
/// the identity may not do it; the message names the user, verb, resource and namespace).
pub fn is_forbidden(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        let status = c
            .downcast_ref::<ApiStatus>()
            .or_else(|| c.downcast_ref::<KubeError>().and_then(KubeError::status))
            .or_else(|| match c.downcast_ref::<ApiFailure>() {
                Some(ApiFailure::Status(s)) => Some(s),
                _ => None,
            });
        if status.is_some_and(|s| s.code == 403)
            || matches!(c.downcast_ref::<kube::Error>(), Some(kube::Error::Api(s)) if s.code == 403)
        {
            return true;
        }
        cause = c.source();
    }
    false
}

/// One object that is not ready, with what the cluster says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unready {
    pub id: ObjectRef,
    pub readiness: Readiness,
    /// Most recent events of the object (and of its pods), newest last: `Type Reason: message`.
    pub events: Vec<String>,
    /// The pods behind it, one line each ([`crate::diagnosis`]).
    pub pods: Vec<String>,
    /// The last log lines of a failed Job's pod.
    pub log: Vec<String>,
}

/// What is not ready when waiting ends without success.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotReadyReport {
    /// The timeout that expired; `None` when an object failed.
    pub timeout: Option<Duration>,
    pub objects: Vec<Unready>,
}

impl fmt::Display for NotReadyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.timeout {
            Some(t) => write!(
                f,
                "timed out after {}s waiting for {} object(s) to become ready:",
                t.as_secs(),
                self.objects.len()
            )?,
            None => write!(f, "{} object(s) failed:", self.objects.len())?,
        }
        for u in &self.objects {
            write!(f, "\n  {}: {}", u.id, u.readiness.status)?;
            if !u.readiness.reason.is_empty() {
                write!(f, " ({})", u.readiness.reason)?;
            }
            if !u.readiness.message.is_empty() {
                write!(f, ": {}", u.readiness.message)?;
            }
            for p in &u.pods {
                write!(f, "\n    {p}")?;
            }
            for e in &u.events {
                write!(f, "\n    event: {e}")?;
            }
            for l in &u.log {
                write!(f, "\n    {l}")?;
            }
        }
        Ok(())
    }
}

/// A CRD upgrade refused, naming the CRD, the version and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnsafeCrdUpgrade {
    #[error(
        "refusing to upgrade CustomResourceDefinition {crd}: the new definition drops version {version}, which is listed in the cluster's status.storedVersions {stored:?} (objects may still be stored at {version}); keep {version} in the chart's CRD, or migrate the stored objects to another version (read and write each one back) and remove {version} from status.storedVersions first"
    )]
    DropsStoredVersion {
        crd: String,
        version: String,
        stored: Vec<String>,
    },
    #[error(
        "refusing to upgrade CustomResourceDefinition {crd}: the new definition stops serving version {version}, which existing object {object} uses (written as {group}/{version}); keep serving {version}, or move the objects and their clients to another version first"
    )]
    UnservesUsedVersion {
        crd: String,
        version: String,
        group: String,
        object: String,
    },
}
