//! The command line's one error type: what a command failed with, the exit code its kind
//! gives ([`CliError::exit`], codes in [`crate::exit`]), and how it is printed.

use kubepkg_engine::EngineError;
use kubepkg_source::SourceError;

use crate::exit::Exit;

/// A command that ended in an error. Outcomes of package operations that ran (rolled back,
/// `UpgradeFailed`, …) are not errors: they are printed and exit with their own codes.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Anything that stopped the command before it finished; its exit code follows from the
    /// kind of error it is or holds ([`CliError::exit`]).
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl CliError {
    /// The exit code of this error: the first error of the chain whose kind has a code of its
    /// own — an invalid package ([`Exit::InvalidPackage`]), a chart or package that could not
    /// be fetched ([`Exit::Unavailable`]) — else [`Exit::Failed`]. `as_helm`: the verb exits as
    /// `helm` does, 1 for any failure.
    pub fn exit(&self, as_helm: bool) -> Exit {
        let CliError::Failed(e) = self;
        if as_helm {
            return Exit::Failed;
        }
        e.chain().find_map(kind).unwrap_or(Exit::Failed)
    }

    /// What to do when the cluster did not answer at all (the connection was refused or timed
    /// out): which server was tried and where that choice came from.
    pub fn hint(&self, settings: &crate::settings::Settings) -> Option<String> {
        let CliError::Failed(e) = self;
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
        let CliError::Failed(e) = self;
        kubepkg_engine::error::report(e.as_ref())
    }
}

/// The exit code of one error of a chain, when its kind has one: the package's own fault, or a
/// chart or package that could not be got from its repository or registry (not a local file
/// or flag: those are plain failures). Transparent wrappers hand on their inner error's
/// sources, not the inner error, so their variants are matched here.
fn kind(e: &(dyn std::error::Error + 'static)) -> Option<Exit> {
    if let Some(CliError::Failed(inner)) = e.downcast_ref::<CliError>() {
        // A command's error handed on through `anyhow` by another command (`render` loads
        // packages as `plan` does): its own chain decides.
        return inner.chain().find_map(kind);
    }
    if let Some(e) = e.downcast_ref::<EngineError>() {
        return e.is_invalid_package().then_some(Exit::InvalidPackage);
    }
    if let Some(p) = e.downcast_ref::<kubepkg_model::PackageError>() {
        // A source that does not exist is a wrong argument, not an invalid package.
        return (!matches!(p, kubepkg_model::PackageError::Missing { .. }))
            .then_some(Exit::InvalidPackage);
    }
    if let Some(e) = e.downcast_ref::<SourceError>() {
        return match e {
            SourceError::Package(p) => kind(p.as_ref()),
            SourceError::NotLocked { .. } | SourceError::LockMismatch { .. } => {
                Some(Exit::InvalidPackage)
            }
            SourceError::Download { .. } => Some(Exit::Unavailable),
            SourceError::Repo(r) => kind(r.as_ref()),
            SourceError::Oci(o) => kind(o),
            SourceError::Git(g) => kind(g),
            _ => None,
        };
    }
    if let Some(e) = e.downcast_ref::<kubepkg_git::GitError>() {
        use kubepkg_git::GitError as G;
        return match e {
            G::InvalidSource { .. } => None,
            G::PathNotFound { .. } | G::NotAPackage { .. } | G::Unsupported { .. } => {
                Some(Exit::InvalidPackage)
            }
            _ => Some(Exit::Unavailable),
        };
    }
    if let Some(e) = e.downcast_ref::<kubepkg_fetch::FetchError>() {
        use kubepkg_fetch::FetchError as F;
        return matches!(
            e,
            F::ClientCertificateRequired { .. }
                | F::ClientCertificateRefused { .. }
                | F::Transport { .. }
                | F::Status { .. }
                | F::Redirects { .. }
                | F::Timeout { .. }
                | F::TooLarge { .. }
        )
        .then_some(Exit::Unavailable);
    }
    if let Some(e) = e.downcast_ref::<kubepkg_repo::RepoError>() {
        use kubepkg_repo::RepoError as R;
        return matches!(
            e,
            R::Index(_)
                | R::Unreachable { .. }
                | R::UpdateFailed(_)
                | R::ChartNotFound { .. }
                | R::ChartNotFoundAt { .. }
                | R::NoDownloadUrls(_)
                | R::BadDigest { .. }
                | R::DigestMismatch { .. }
        )
        .then_some(Exit::Unavailable);
    }
    if let Some(e) = e.downcast_ref::<kubepkg_oci::Error>() {
        use kubepkg_oci::Error as O;
        return matches!(
            e,
            O::AuthRequired { .. }
                | O::AuthDenied { .. }
                | O::NotFound { .. }
                | O::NoMatchingTag { .. }
                | O::DigestMismatch { .. }
                | O::TooLarge { .. }
                | O::Status { .. }
                | O::Transport { .. }
                | O::Malformed { .. }
                | O::Unsigned { .. }
                | O::SignatureRejected { .. }
                | O::SignatureForOtherArtifact { .. }
                | O::ClientCertificateRequired { .. }
                | O::ClientCertificateRefused { .. }
        )
        .then_some(Exit::Unavailable);
    }
    None
}

impl From<EngineError> for CliError {
    fn from(e: EngineError) -> Self {
        CliError::Failed(e.into())
    }
}

impl From<kubepkg_model::PackageError> for CliError {
    fn from(e: kubepkg_model::PackageError) -> Self {
        CliError::Failed(e.into())
    }
}

impl From<SourceError> for CliError {
    fn from(e: SourceError) -> Self {
        CliError::Failed(e.into())
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
        assert_eq!(invalid.exit(false).code(), 7);
        assert_eq!(CliError::from(anyhow::anyhow!("x")).exit(false).code(), 1);
        // Helm's verbs exit 1 whatever failed.
        assert_eq!(invalid.exit(true).code(), 1);
        // Handed on through anyhow by a command that calls another's loader: still 7.
        let handed_on = CliError::from(anyhow::Error::new(invalid));
        assert_eq!(handed_on.exit(false).code(), 7);
        // A source that does not exist (or a URL) is a wrong argument: 1, loaded through the
        // source layer or not.
        let missing = || kubepkg_model::PackageError::Missing {
            path: "https://example.invalid/x.tgz".into(),
            hint: "a URL is not a package source",
        };
        assert_eq!(CliError::from(missing()).exit(false).code(), 1);
        let through_source = SourceError::Package(Box::new(missing()));
        assert_eq!(CliError::from(through_source).exit(false).code(), 1);
    }

    /// A chart that could not be downloaded is no invalid package: exit 9, also when the
    /// error was given context on its way up.
    #[test]
    fn a_failed_download_exits_9_not_7() {
        let refused = kubepkg_fetch::FetchError::Transport {
            url: "http://127.0.0.1:1/c-1.0.0.tgz".into(),
            source: "connection refused".into(),
        };
        let e = CliError::from(anyhow::Error::new(refused).context("fetching the charts"));
        assert_eq!(e.exit(false), Exit::Unavailable);
        let lock = SourceError::NotLocked {
            component: "db".into(),
            chart: "postgresql".into(),
        };
        assert_eq!(CliError::from(lock).exit(false), Exit::InvalidPackage);
        let missing = SourceError::Oci(kubepkg_oci::Error::NotFound {
            reference: "oci://r/pkgs/shop:1.0.0".into(),
        });
        assert_eq!(CliError::from(missing).exit(false), Exit::Unavailable);
        // A reference mistyped on the command line is no download that failed.
        let typo = SourceError::Oci(kubepkg_oci::Error::InvalidReference {
            input: "oci://".into(),
            reason: "no host".into(),
        });
        assert_eq!(CliError::from(typo).exit(false), Exit::Failed);
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
        assert_eq!(cli.exit(false).code(), 1);
        assert_eq!(
            cli.report(),
            "cannot record the package revision, so nothing was changed: secrets is forbidden"
        );
    }
}
