//! Why a Git source could not be read: each error names the source and says what to do.

use std::path::PathBuf;

/// A Git source failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The source's text or fields are not a Git source.
    #[error("{source_text}: {reason}")]
    InvalidSource { source_text: String, reason: String },
    /// The host could not be reached, or the transfer broke off.
    #[error(
        "{source_text}: cannot reach the repository; check the URL and that the host is up and answering"
    )]
    Unreachable {
        source_text: String,
        #[source]
        source: gix::Error,
    },
    /// The host answered that there is no repository at the URL (HTTP 404).
    #[error("{source_text}: the host has no repository at this URL (HTTP 404); check the URL")]
    RepositoryNotFound {
        source_text: String,
        #[source]
        source: gix::Error,
    },
    /// The repository asked for credentials and none were given.
    #[error(
        "{source_text}: the repository needs credentials; give them (CLI: --username and --password; Package: source.git.secretRef with username and password, or bearerToken; for ssh://, identity and known_hosts)"
    )]
    CredentialsNeeded {
        source_text: String,
        #[source]
        source: gix::Error,
    },
    /// The repository refused the credentials given.
    #[error(
        "{source_text}: the repository refused the credentials; check the username and password (or bearer token, or SSH key)"
    )]
    CredentialsRejected {
        source_text: String,
        #[source]
        source: gix::Error,
    },
    /// `ssh` did not accept the host's key (not in `known_hosts`, or changed).
    #[error(
        "{source_text}: the host's SSH key is not one known_hosts accepts ({said}); add the host's key to known_hosts (ssh-keyscan HOST)"
    )]
    HostKeyRejected { source_text: String, said: String },
    /// The ref names nothing on the remote.
    #[error("{source_text}: the repository has no {wanted}{known}; fix the ref")]
    RefNotFound {
        source_text: String,
        wanted: String,
        /// `" (it has: …)"`, the names of that kind it does have, or empty.
        known: String,
    },
    /// `semver` is not a SemVer constraint.
    #[error("{source_text}: semver {constraint:?} is not a version constraint")]
    BadConstraint {
        source_text: String,
        constraint: String,
        #[source]
        source: kubepkg_semver::SemverError,
    },
    /// `path` is not a directory of the commit's tree.
    #[error(
        "{source_text}: commit {commit} has no directory {path:?}; point the path at the package's directory"
    )]
    PathNotFound {
        source_text: String,
        commit: String,
        path: String,
    },
    /// The directory at `path` holds no `kubepkg.yaml`.
    #[error(
        "{source_text}: {where_} of commit {commit} has no kubepkg.yaml; point the path at the package's directory (the one with kubepkg.yaml)"
    )]
    NotAPackage {
        source_text: String,
        commit: String,
        where_: String,
    },
    /// The package has a symbolic link or a submodule, which a package cannot hold.
    #[error(
        "{source_text}: {file} of commit {commit} is a {what}; a package holds files and directories only"
    )]
    Unsupported {
        source_text: String,
        commit: String,
        file: String,
        what: &'static str,
    },
    /// The fetched objects or the package's files are larger than allowed.
    #[error("{source_text}: the {what} is larger than {limit} bytes ({variable} raises the limit)")]
    TooLarge {
        source_text: String,
        what: &'static str,
        limit: u64,
        variable: &'static str,
    },
    /// The fetch took longer than allowed.
    #[error("{source_text}: fetching took longer than {seconds}s")]
    Timeout { source_text: String, seconds: u64 },
    /// The fetch failed for another reason (the repository sent what Git cannot read, …).
    #[error("{source_text}: fetching failed")]
    Fetch {
        source_text: String,
        #[source]
        source: gix::Error,
    },
    /// A file of the cache could not be written or read.
    #[error("{what} {}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl GitError {
    /// Whether the error is the source's reachability (try again later), not its content or
    /// spec (wait for a change): unreachable hosts, time-outs, credentials.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            GitError::Unreachable { .. }
                | GitError::RepositoryNotFound { .. }
                | GitError::HostKeyRejected { .. }
                | GitError::Timeout { .. }
                | GitError::CredentialsNeeded { .. }
                | GitError::CredentialsRejected { .. }
                | GitError::Fetch { .. }
                | GitError::Io { .. }
        )
    }
}
