//! The crate's one error type: each variant is a one-line message naming the reference and
//! what to do.

use std::path::PathBuf;

/// A failure talking to a registry or reading its content.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Not an `oci://host/repo[:tag|@digest]` reference.
    #[error("invalid registry reference {input:?}: {reason}")]
    InvalidReference { input: String, reason: String },
    /// The registry wants credentials and none are configured for it.
    #[error("authentication required for {reference}: run `kubepkg registry login {host}`")]
    AuthRequired { reference: String, host: String },
    /// The registry refused the credentials (wrong password, or no access).
    #[error(
        "authentication denied for {reference}: check the credentials, or run `kubepkg registry login {host}`"
    )]
    AuthDenied { reference: String, host: String },
    /// The manifest (tag or digest) or repository does not exist.
    #[error("{reference}: not found in the registry; check the repository name and the version")]
    NotFound { reference: String },
    /// `--version` matched no tag of the repository.
    #[error("{reference}: no tag matches version {constraint:?} (tags: {tags}); pick one of them")]
    NoMatchingTag {
        reference: String,
        constraint: String,
        tags: String,
    },
    /// `--version` is neither a tag nor a SemVer constraint.
    #[error("{reference}: version {constraint:?} is not a SemVer version or constraint: {source}")]
    BadConstraint {
        reference: String,
        constraint: String,
        #[source]
        source: kubepkg_semver::SemverError,
    },
    /// The artifact is not what was asked for (e.g. a container image where a chart is expected).
    #[error("{reference} is {found}, not {expected}; check the reference")]
    WrongArtifact {
        reference: String,
        found: String,
        expected: &'static str,
    },
    /// Content whose digest is not the one its descriptor names.
    #[error(
        "{reference}: digest mismatch: expected {expected}, got {actual}; the registry's copy is damaged, nothing was cached"
    )]
    DigestMismatch {
        reference: String,
        expected: String,
        actual: String,
    },
    /// A manifest or blob above its size cap.
    #[error(
        "{reference}: {what} of {size} bytes is above the limit of {limit} bytes; raise {env} if it is expected"
    )]
    TooLarge {
        reference: String,
        what: &'static str,
        size: u64,
        limit: u64,
        env: &'static str,
    },
    /// Any other answer of the registry that is not a success.
    #[error("{reference}: the registry answered {status} to {method} {path}: {message}")]
    Status {
        reference: String,
        method: String,
        path: String,
        status: u16,
        message: String,
    },
    /// The registry could not be reached (connection, TLS, protocol).
    #[error("{reference}: cannot reach {url}: {message}{hint}")]
    Transport {
        reference: String,
        url: String,
        message: String,
        hint: &'static str,
    },
    /// What the registry sent is not the JSON it should be.
    #[error("{reference}: the registry sent a malformed {what}: {message}")]
    Malformed {
        reference: String,
        what: &'static str,
        message: String,
    },
    /// `--verify-key` (or `source.verify`) asked for a signature and the artifact has none.
    #[error(
        "{reference}: not signed: the repository has no cosign signature tag {tag}; sign it (`kubepkg sign` or `cosign sign --key`) or check the reference"
    )]
    Unsigned { reference: String, tag: String },
    /// The artifact's signatures do not verify with the trusted keys.
    #[error("{reference}: signature refused: {tag}: {why}")]
    SignatureRejected {
        reference: String,
        tag: String,
        why: String,
    },
    /// A signature that verifies with a trusted key signs another digest (a signature copied
    /// from another artifact).
    #[error(
        "{reference}: signature refused: {tag} verifies with {key} but signs {claimed}, not this artifact; a signature copied from another artifact is refused"
    )]
    SignatureForOtherArtifact {
        reference: String,
        tag: String,
        key: String,
        claimed: String,
    },
    /// An image layout archive (`package load`) that is not a usable layout.
    #[error("{archive}: {message}")]
    Layout { archive: String, message: String },
    /// A blob of an image layout archive whose bytes are not those its name says.
    #[error(
        "{archive}: {file}: digest mismatch: expected {expected}, got {actual}; the archive is damaged or was altered, nothing was pushed"
    )]
    LayoutDigestMismatch {
        archive: String,
        file: String,
        expected: String,
        actual: String,
    },
    /// A size-cap variable that is not a whole number of bytes.
    #[error("{variable}={value:?}: not a whole number of bytes")]
    BadLimit {
        variable: &'static str,
        value: String,
    },
    /// A TLS option could not be used (a `--ca-file` that is not PEM certificates).
    #[error("{path}: {message}")]
    TlsConfig { path: PathBuf, message: String },
    /// `--cert-file`/`--key-file` could not be used (a missing half, a key of another
    /// certificate, an unreadable file): kubepkg-fetch's message, naming the files.
    #[error(transparent)]
    ClientTls(Box<kubepkg_fetch::FetchError>),
    /// The registry ended the TLS session because no client certificate was given.
    #[error(
        "{reference}: cannot reach {url}: the registry requires a client certificate (TLS alert {alert}); give --cert-file and --key-file"
    )]
    ClientCertificateRequired {
        reference: String,
        url: String,
        alert: String,
    },
    /// The registry ended the TLS session refusing the client certificate given.
    #[error(
        "{reference}: cannot reach {url}: the registry refused the client certificate {} (TLS alert {alert}); give one signed by a CA the registry trusts",
        .cert.display()
    )]
    ClientCertificateRefused {
        reference: String,
        url: String,
        cert: PathBuf,
        alert: String,
    },
    /// A proxy variable (`HTTPS_PROXY`, …) kubepkg cannot use.
    #[error(transparent)]
    Proxy(kubepkg_fetch::ProxyError),
    /// A credentials file (Docker's or Helm's `config.json`) is unusable.
    #[error("registry credentials {path}: {message}")]
    Credentials { path: PathBuf, message: String },
    /// A local file (cache, output) could not be read or written.
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(
        what: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { what, path, source }
    }
}
