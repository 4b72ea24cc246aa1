//! Test kit for kubepkg's cluster tests (dev-only, never shipped).
//!
//! Every integration test that needs Kubernetes calls [`TestNamespace::new`]:
//! the first call in a test binary starts the local control plane (or
//! attaches to the one already running) through `testenv/up.sh`, under a file
//! lock so parallel test binaries never start two. Each test then gets a
//! fresh namespace and its own [`kube::Client`], and helpers to apply YAML
//! with server-side apply, wait for conditions through watches, and read pod
//! logs. The namespace is deleted when the test passes and kept (with its
//! name printed) when it fails, so a failed run can be inspected.
//!
//! The control plane is real: etcd, kube-apiserver, kube-controller-manager
//! and kube-scheduler built from Kubernetes' own sources, plus simulated
//! nodes whose pods can be told to fail or stay unready through pod
//! annotations (see [`sim`]).
//!
//! Tests of how kubepkg survives a flaky network put a [`fault::FaultProxy`] between it and the
//! API server (resets, refused connections, latency, cut answers and watches, at a rate).
//!
//! Tests of chart repositories serve one with [`chart_repo::ChartRepo`] (a static `index.yaml`
//! and archives made by the real `helm`, over HTTP or HTTPS, optionally with basic auth).
//! Tests of OCI registries start a real one on loopback with [`registry::Registry::start`];
//! tests of signatures sign and verify with the real `cosign` ([`cosign::Cosign`]).
//! Tests of Git package sources serve repositories with [`git_server::GitServer`] (the real
//! `git http-backend` on loopback, optionally behind basic auth) and push with the real `git`.
//! Tests of the Flux backend run Flux's real controllers for their namespace with
//! [`flux::Flux::start`]; tests of the Argo CD backend run Argo CD's real application
//! controller and repo server with [`argocd::ArgoCd::start`].
//!
//! Tests that compare with the real `helm` CLI get it from [`helm_binary`] and run it
//! against their namespace with [`helm_command`]; those of kubepkg's kustomize-style
//! post-renderers run the real `kustomize` ([`kustomize::kustomize_build`]).
//!
//! More detail:
//! - `tooling` is the one runner of each `testenv/<name>/build.sh` (Go, cached) and the one
//!   installer of the CRDs a build ships, under a lock.
//! - The registry can serve plain HTTP, TLS with a per-registry CA, required client
//!   certificates, htpasswd basic auth and bearer tokens, on loopback or on the outward
//!   address for proxy tests. Flux and Argo CD are started per test namespace, their logs shown
//!   when the test fails, and killed on drop.
//! - [`proxy::HttpProxy`] is a real HTTP proxy (Debian's `tinyproxy`, installed by
//!   `scripts/test` through `scripts/lib/needs.sh`); [`proxy::outward_ip`] is the non-loopback
//!   address proxied test servers listen on.
//! - [`fault::FaultProxy`] passes TLS through, so 429 and 503 are tested at the HTTP level in
//!   `kubepkg-kube` instead.
//! - Packages and charts written for a test (one simulated Deployment per component, hook
//!   charts): [`charts`]; with feature `engine`, the engine driven in-process over a test
//!   namespace and readers of its revisions and Helm records: `engine`.
//! - File trees a test lays out from a list of files, or reads back to compare what two tools
//!   wrote: [`tree`].
//! - [`fuzz`]: the seeded mutation fuzzer of the chart and package loaders' fuzz tests.
//! - `Package` objects and archives in ConfigMaps: [`package_api`], [`install_package_crd`],
//!   [`store_package_archive`].
#![forbid(unsafe_code)]

mod apply;
/// Argo CD's real application controller and repo server as processes against the plane (with their Redis), and its CRDs, built by `testenv/argocd/build.sh`.
pub mod argocd;
/// Accessibility audits with axe-core (npm, cached outside the clone) in the test's browser.
pub mod axe;
/// A headless Chromium driven through chromedriver (W3C WebDriver) for tests of web pages, and a plain GET and event-stream reader.
pub mod browser;
/// A static Helm chart repository on loopback (HTTP/HTTPS, basic auth), built with real `helm`.
pub mod chart_repo;
pub mod charts;
pub mod cosign;
#[cfg(feature = "engine")]
pub mod engine;
mod error;
pub mod fault;
/// Flux's real source-controller and helm-controller as processes against the plane, with Flux's CRDs.
pub mod flux;
pub mod fuzz;
/// A real Git server on loopback (`git http-backend` behind a small CGI server, basic or bearer auth; `sshd` for `ssh://`) and repositories to push to.
pub mod git_server;
mod helm;
/// The recorded Helm references of `testdata/helm-reference/` and how tests compare with them.
pub mod helm_reference;
/// The real kstatus library (Go, cli-utils) as a test oracle: [`kstatus::classify`], [`kstatus::assert_status`].
pub mod kstatus;
/// The real `kustomize` CLI, the oracle of kubepkg's declarative post-renderers, built by `testenv/kustomize/build.sh`.
pub mod kustomize;
mod namespace;
mod packages;
mod plane;
mod process;
pub mod proxy;
pub mod real_node;
pub mod registry;
pub mod relay;
/// One HTTP/1 server loop (hyper, optional TLS, on its own thread, stopped on drop) for the kit's servers.
pub mod serve;
pub mod sim;
mod tooling;
pub mod tree;
mod wait;

pub use apply::{apply_yaml, force_apply, parse_yaml_objects, resolve};
pub use error::Error;
pub use helm::{helm_binary, helm_command, helm_offline};
pub use namespace::TestNamespace;
pub use packages::{install_package_crd, package_api, package_archive, store_package_archive};
pub use plane::{
    ControlPlane, control_plane, fleet_plane, real_node_plane, start_plane_in, target_plane,
};
pub use wait::{eventually, has_condition, wait_deleted, wait_for};

/// The field manager the test kit's own applies use.
pub const FIELD_MANAGER: &str = "kubepkg-testkit";

/// The shared plane's set of API versions (`.Capabilities.APIVersions`) within one test
/// binary: a test that adds to it (installs a CRD) holds `read()` while it does; a test that
/// reads the whole set more than once and compares the readings (plan against apply, one
/// discovery path against another) holds `write()`, so no CRD appears between its readings.
pub static API_SET: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());
