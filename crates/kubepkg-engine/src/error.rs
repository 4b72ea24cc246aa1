//! The engine's errors: one variant per way an operation can fail before or outside the
//! orchestrator's own outcomes (which are [`kubepkg_package::orchestrator::Outcome`]s).

/// Errors of package operations on a cluster.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The package is invalid (manifest, chart paths, values).
    #[error(transparent)]
    Package(#[from] kubepkg_model::PackageError),
    /// User values could not be read or do not fit the package.
    #[error(transparent)]
    Values(#[from] kubepkg_model::values::ValuesError),
    /// A component's chart could not be rendered.
    #[error(transparent)]
    Render(#[from] kubepkg_package::render::RenderError),
    /// The API server's version does not read as a Kubernetes version.
    #[error(transparent)]
    ServerVersion(#[from] ServerVersionError),
    /// A Kubernetes API call failed.
    #[error(transparent)]
    Api(#[from] kubepkg_kube::KubeError),
    /// A stored release's manifest does not read as Kubernetes objects.
    #[error("{release}: its recorded manifest is not readable")]
    Recorded {
        release: String,
        #[source]
        source: kubepkg_kube::manifest::ManifestError,
    },
    /// A stored package revision could not be decoded.
    #[error(transparent)]
    Revision(#[from] kubepkg_package::revision::RevisionError),
    /// A release operation failed.
    #[error(transparent)]
    Release(#[from] kubepkg_release::action::ActionError),
    /// Another kubepkg process holds the package's Lease.
    #[error(
        "another kubepkg operation on package {name:?} is in progress (Lease {lease} held by {holder}); wait for it or retry later"
    )]
    Locked {
        name: String,
        lease: String,
        holder: String,
    },
    /// No package of that name is installed.
    #[error(
        "package {name:?} is not installed in namespace {namespace:?} (no revisions found); `kubepkg list -A` shows installed packages"
    )]
    NotInstalled { name: String, namespace: String },
    /// The controller reconciles this package from its `Package` object.
    #[error(
        "package {name:?} is managed by {object}, which the kubepkg controller reconciles: change the object (kubectl edit package {name} -n {namespace}), or pass --force to suspend it and apply from the CLI"
    )]
    Managed {
        name: String,
        namespace: String,
        object: String,
    },
    /// An apply with the helm backend over components Flux's helm-controller releases (their
    /// HelmReleases would fight kubepkg's own releases over the same Helm release).
    #[error(
        "package {name:?}: component {component} is released by Flux (HelmRelease {namespace}/{release}), so nothing was applied: apply with --backend flux --chart-repository oci://HOST/PATH (a Package object: backend: flux), or uninstall the package first to move it to backend helm"
    )]
    ReleasedByFlux {
        name: String,
        component: String,
        namespace: String,
        release: String,
    },
    /// A rollback the rules refuse.
    #[error(transparent)]
    Refused(#[from] kubepkg_package::orchestrator::RollbackRefused),
    /// A `PreRollback` hook could not be kept in the revision or restored from it.
    #[error(transparent)]
    RollbackHook(#[from] kubepkg_package::rollback_hooks::RollbackHookError),
    /// An apply that stopped before anything changed: a downgrade the rollback policy
    /// forbids, or a first record that could not be written.
    #[error(transparent)]
    Stopped(kubepkg_package::orchestrator::Stopped),
    /// The backend cannot drive the package (Flux or Argo CD not installed, a `readyWhen` Flux
    /// cannot evaluate, a chart repository it cannot pull from): nothing was applied.
    #[error(transparent)]
    Backend(Box<crate::backend_error::BackendError>),
    /// A backend's step failed outside an apply (an uninstall).
    #[error(transparent)]
    Step(kubepkg_package::orchestrator::Failure),
    /// The package instance name would not be accepted by the API server or Helm.
    #[error(transparent)]
    InstanceName(#[from] kubepkg_model::manifest::InstanceNameError),
}

impl From<kubepkg_package::orchestrator::Stopped> for EngineError {
    fn from(s: kubepkg_package::orchestrator::Stopped) -> Self {
        use kubepkg_package::orchestrator::Stopped;
        match s {
            Stopped::Rollback(r) => EngineError::Refused(r),
            other => EngineError::Stopped(other),
        }
    }
}

/// The API server reported a version that does not read as a Kubernetes version.
#[derive(Debug, thiserror::Error)]
#[error("cluster version {version:?}: {message}")]
pub struct ServerVersionError {
    pub version: String,
    /// The version parser's reason.
    pub message: String,
}

impl From<crate::backend_error::BackendError> for EngineError {
    fn from(e: crate::backend_error::BackendError) -> Self {
        EngineError::Backend(Box::new(e))
    }
}

impl EngineError {
    pub(crate) fn api(action: &'static str, object: impl Into<String>, e: kube::Error) -> Self {
        EngineError::Api(kubepkg_kube::KubeError::refused(action, object.into(), e))
    }

    /// True when the package itself is at fault (its `kubepkg.yaml`, a chart, a template):
    /// nothing was applied, and fixing the package is what to do (`kubepkg` exits 7).
    pub fn is_invalid_package(&self) -> bool {
        matches!(
            self,
            EngineError::Package(p) if !matches!(p, kubepkg_model::PackageError::Missing { .. })
        ) || matches!(
            self,
            EngineError::Render(_)
                | EngineError::RollbackHook(
                    kubepkg_package::rollback_hooks::RollbackHookError::Chart { .. }
                        | kubepkg_package::rollback_hooks::RollbackHookError::TooLarge { .. }
                )
        )
    }
}

pub use crate::report::report;
