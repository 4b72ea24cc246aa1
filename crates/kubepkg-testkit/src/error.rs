//! The test kit's errors: each names what was being done and where to look.

use std::path::PathBuf;
use std::time::Duration;

/// A failure of the test kit.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `testenv/up.sh` could not start (or attach to) the control plane.
    #[error(
        "the local control plane did not start ({status}); logs of every component are in {logs}\n{output}"
    )]
    StartFailed {
        /// How the start command ended.
        status: String,
        /// The component logs directory.
        logs: PathBuf,
        /// The start command's output, which ends with the failing component's log tail.
        output: String,
    },
    /// A local file of the control plane could not be used.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A tool the test kit runs (`openssl`, `helm`) failed.
    #[error("{command} failed:\n{output}")]
    Tool {
        /// The command line.
        command: String,
        /// Its standard output and error.
        output: String,
    },
    /// The kubeconfig written by the control plane is unusable.
    #[error("kubeconfig {path}: {message}")]
    Kubeconfig {
        /// The kubeconfig file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A request to the API server failed.
    #[error("{what}: {source}")]
    Kube {
        /// What was being done.
        what: String,
        /// The client's error.
        source: kube::Error,
    },
    /// A watch failed.
    #[error("watching {what}: {source}")]
    Watch {
        /// What was watched.
        what: String,
        /// The watcher's error.
        source: kube::runtime::watcher::Error,
    },
    /// YAML given to [`crate::apply_yaml`] is not a list of Kubernetes objects.
    #[error("YAML document {document}: {message}")]
    Yaml {
        /// 1-based number of the document in the stream.
        document: usize,
        /// What is wrong.
        message: String,
    },
    /// The server does not serve the kind of an object.
    #[error("no resource serves {api_version} {kind}: {source}")]
    UnknownKind {
        /// The object's apiVersion.
        api_version: String,
        /// The object's kind.
        kind: String,
        /// Discovery's answer.
        source: kube::Error,
    },
    /// A condition was not met in time.
    #[error("timed out after {timeout:?} waiting for {what}; last seen: {last_seen}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long.
        timeout: Duration,
        /// The last state seen, as JSON, or `nothing`.
        last_seen: String,
    },
    /// `tools/helm-ref/install-helm.sh` could not build or find the requested `helm`.
    #[error(
        "building helm {version} with tools/helm-ref/install-helm.sh failed ({status}); it needs Go and the Go module proxy\n{stderr}"
    )]
    HelmInstall {
        /// The Helm version asked for.
        version: String,
        /// How the script ended.
        status: String,
        /// The script's error output.
        stderr: String,
    },
    /// The test OCI registry (`kpk-registry`) could not be built or started.
    #[error("test registry: {message}")]
    Registry {
        /// What went wrong, with the tool's output.
        message: String,
    },
    /// Flux's controllers (`testenv/flux/`) could not be built, installed or started.
    #[error("flux: {message}")]
    Flux {
        /// What went wrong, with the tool's output or the controller's log tail.
        message: String,
    },
    /// The HTTP proxy (`tinyproxy`) or the machine's outward address is not there.
    #[error("http proxy: {message}")]
    Proxy {
        /// What went wrong.
        message: String,
    },
    /// Argo CD (`testenv/argocd/`) could not be built or its CRDs installed.
    #[error("argo cd: {message}")]
    ArgoCd {
        /// What went wrong, with the tool's output.
        message: String,
    },
    /// The test Git server (`git http-backend`) or a `git` command failed.
    #[error("git: {message}")]
    Git {
        /// What went wrong, with git's output.
        message: String,
    },
}
