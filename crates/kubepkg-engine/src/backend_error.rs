//! Why a backend cannot drive a package, checked before anything is pushed or applied: the
//! errors of [`crate::backend::flux`] and [`crate::backend::argocd`], and [`BackendError`], either of them.

/// Why a backend cannot drive a package: checked before anything is pushed or applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    #[error(transparent)]
    Flux(#[from] FluxError),
    #[error(transparent)]
    ArgoCd(#[from] ArgoCdError),
    /// A component has post-renderers the backend's controller cannot run (a Helm plugin on
    /// this machine; any, for Argo CD).
    #[error("backend {backend}: {message}")]
    PostRenderer { backend: String, message: String },
}

/// Why the Flux backend cannot drive a package (checked before anything is applied).
#[derive(Debug, thiserror::Error)]
pub enum FluxError {
    /// A CRD of Flux is not installed.
    #[error(
        "backend flux: the CustomResourceDefinition {crd} is not installed in the cluster, so nothing was applied: install Flux's source-controller and helm-controller (`flux install --components=source-controller,helm-controller`), or use backend helm"
    )]
    CrdMissing { crd: String },
    /// The CRDs could not be read.
    #[error("backend flux: cannot read the CustomResourceDefinition {crd}")]
    CrdUnreadable {
        crd: String,
        #[source]
        source: kube::Error,
    },
    /// No chart repository to push to (an apply needs one).
    #[error(
        "backend flux needs a chart repository (--chart-repository oci://HOST/PATH, or a Package's spec.flux.chartRepository): the registry each component's chart is pushed to and Flux's OCIRepository pulls it from"
    )]
    NotConfigured,
    /// The package cannot be told to Flux (a `readyWhen`, the chart repository).
    #[error("backend flux: {0}; nothing was applied")]
    Compile(#[from] kubepkg_gitops::CompileError),
}

/// Why the Argo CD backend cannot drive a package (checked before anything is pushed or
/// applied).
#[derive(Debug, thiserror::Error)]
pub enum ArgoCdError {
    /// Argo CD's Application CRD is not installed.
    #[error(
        "backend argocd: the CustomResourceDefinition {crd} is not installed in the cluster, so nothing was pushed or applied: install Argo CD or use --backend helm"
    )]
    CrdMissing { crd: String },
    /// The CRD could not be read.
    #[error("backend argocd: cannot read the CustomResourceDefinition {crd}")]
    CrdUnreadable {
        crd: String,
        #[source]
        source: kube::Error,
    },
    /// No chart repository to push to (an apply needs one).
    #[error(
        "backend argocd needs a chart repository (--chart-repository oci://HOST/PATH, or a Package's spec.argocd.chartRepository): the registry each component's chart is pushed to and Argo CD's repo server pulls it from"
    )]
    NotConfigured,
    /// The package cannot be told to Argo CD (the chart repository).
    #[error("backend argocd: {0}; nothing was applied")]
    Compile(#[from] kubepkg_gitops::CompileError),
}
