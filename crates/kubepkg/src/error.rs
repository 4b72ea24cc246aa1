//! The command line's one error type: what a command failed with, its exit code (listed in
//! `kubepkg --help`), and how it is printed.

use kubepkg_engine::EngineError;

/// A command that ended in an error. Outcomes of package operations that ran (rolled back,
/// `UpgradeFailed`, …) are not errors: they are printed and exit with their own codes.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The package (its `kubepkg.yaml`, one of its charts or templates) is invalid; nothing was
    /// applied. Exit code 7.
    #[error(transparent)]
    InvalidPackage(anyhow::Error),
    /// Anything else that stopped the command before it finished. Exit code 1.
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::InvalidPackage(_) => 7,
            CliError::Failed(_) => 1,
        }
    }

    /// What to do when the cluster did not answer at all (the connection was refused or timed
    /// out): which server was tried and where that choice came from.
    pub fn hint(&self, settings: &crate::settings::Settings) -> Option<String> {
        let (CliError::InvalidPackage(e) | CliError::Failed(e)) = self;
        let unreachable = kubepkg_kube::is_unreachable_api(e.as_ref());
        if !unreachable {
            return None;
        }
        let server = kubepkg_kube::server_url(&settings.cluster_options())
            .map(|s| format!(" at {s}"))
            .unwrap_or_default();
        Some(format!(
            "The Kubernetes API server{server} did not answer: is the cluster running, and are \
             --kubeconfig/$KUBECONFIG and --kube-context/$HELM_KUBECONTEXT the ones you mean?"
        ))
    }

    /// The message printed after `Error: `: the error and each cause not already said by
    /// the ones before it, joined by `: ` (typed errors carry their causes as sources and
    /// often name them in their own text too; a cause is printed once).
    pub fn report(&self) -> String {
        let (CliError::InvalidPackage(e) | CliError::Failed(e)) = self;
        kubepkg_engine::error::report(e.as_ref())
    }
}

impl From<EngineError> for CliError {
    fn from(e: EngineError) -> Self {
        if e.is_invalid_package() {
            CliError::InvalidPackage(e.into())
        } else {
            CliError::Failed(e.into())
        }
    }
}

impl From<kubepkg_model::PackageError> for CliError {
    fn from(e: kubepkg_model::PackageError) -> Self {
        CliError::InvalidPackage(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer: {0}")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("inner")]
    struct Inner(#[source] std::io::Error);

    #[test]
    fn a_cause_named_in_the_message_is_printed_once() {
        let e = anyhow::Error::new(Outer(Inner(std::io::Error::other("socket reset"))))
            .context("applying");
        assert_eq!(
            CliError::Failed(e).report(),
            "applying: outer: inner: socket reset"
        );
    }

    #[test]
    fn anyhow_context_chains_print_as_anyhow_alternate_does() {
        let e = anyhow::anyhow!("root").context("middle").context("top");
        assert_eq!(format!("{e:#}"), CliError::Failed(e).report());
    }

    #[test]
    fn invalid_packages_exit_7_everything_else_1() {
        let invalid = CliError::from(kubepkg_model::PackageError::NotAPackage { path: "x".into() });
        assert_eq!(invalid.exit_code(), 7);
        assert_eq!(CliError::from(anyhow::anyhow!("x")).exit_code(), 1);
    }

    /// Stopped before anything changed (a record that cannot be written, a refused
    /// downgrade): exit 1, never 4 (`UpgradeFailed`).
    #[test]
    fn an_apply_stopped_before_anything_changed_exits_1() {
        use kubepkg_package::orchestrator::{Failure, FailureKind, Stopped};
        let e = EngineError::from(Stopped::NotRecorded(Failure::new(
            FailureKind::Record,
            "secrets is forbidden",
        )));
        let cli = CliError::from(e);
        assert_eq!(cli.exit_code(), 1);
        assert_eq!(
            cli.report(),
            "cannot record the package revision, so nothing was changed: secrets is forbidden"
        );
    }
}
