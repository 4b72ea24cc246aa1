//! Typed errors of the release layer, one variant per failure, each naming the release or
//! storage object involved and what to do about it.

/// Errors of release encoding, decoding and storage.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A release could not be serialized (should not happen with valid data).
    #[error("cannot encode release {release:?}: {message}")]
    Encode { release: String, message: String },
    /// A stored record could not be decoded: the object was not written by Helm or kubepkg,
    /// or was edited by hand.
    #[error(
        "cannot decode release record {key:?}: {message} (inspect it with `kubectl get secret {key} -o yaml`; delete it only if it is not a real revision)"
    )]
    Decode { key: String, message: String },
    /// No record with this name (and revision).
    #[error("release: not found: {name}{}", revision.map(|r| format!(" revision {r}")).unwrap_or_default())]
    NotFound { name: String, revision: Option<u64> },
    /// A record with this key already exists (two writers raced for one revision).
    #[error("release record {key:?} already exists (another operation wrote this revision; retry)")]
    AlreadyExists { key: String },
    /// The release name cannot be stored by Helm (label value or object name rules).
    #[error("invalid release name {name:?}: {reason}")]
    InvalidName { name: String, reason: String },
    /// A custom label uses a name Helm reserves for its own bookkeeping.
    #[error(
        "custom label {label:?} is reserved by Helm's storage (name, owner, status, version, createdAt, modifiedAt)"
    )]
    ReservedLabel { label: String },
    /// `$HELM_DRIVER` names a driver kubepkg does not have.
    #[error("HELM_DRIVER={name:?} is not supported by kubepkg (use secret, configmap or memory)")]
    UnsupportedDriver { name: String },
    /// The storage backend (the Kubernetes API) failed.
    #[error("release storage ({driver}) failed on {key}")]
    Backend {
        driver: &'static str,
        key: String,
        #[source]
        source: kubepkg_kube::ApiFailure,
    },
}
