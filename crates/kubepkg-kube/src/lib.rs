//! kubepkg-kube: kubepkg's cluster layer.
//!
//! - [`readiness`]: kstatus' readiness rules as pure functions over object JSON.
//! - [`order`], [`manifest`]: Helm's kind order and the one manifest → objects conversion,
//!   re-exported from the leaf crate `kubepkg-manifest`.
//! - [`lease`]: the lease lock held for an operation (per release and per package).
//! - [`client`], [`discovery`]: connecting and resolving kinds; [`apply`]: SSA, CRDs first,
//!   prune; [`wait`]: waiting for readiness by watch with reports of what is not ready.
//! - [`retry`]: the one retry policy of every API call, a layer inside the client.
//! - [`crd`]: the safety rules for upgrading a CustomResourceDefinition.
//! - [`failpoint`]: test-only pause points (`KUBEPKG_FAILPOINT`) for crash tests.
//! - [`ownership`]: Helm's release ownership labels/annotations and the adoption rules.
//! - [`diagnosis`]: what explains an unready object (the pods behind it, their container
//!   states, recent Warning events, a failed Job's log tail), bounded.
//!
//! The discovery cache also gives the server's `.Capabilities`
//! ([`discovery::server_capabilities`]). An [`client::ApplyObserver`] on a [`Cluster`] sees
//! every object sent by server-side apply. The retry layer is tested against a scripted local
//! HTTP server (`tests/it/retry.rs`). This crate builds neither the template engine nor the
//! chart layer.
#![forbid(unsafe_code)]

pub mod apply;
pub mod client;
pub mod crd;
pub mod diagnosis;
pub mod discovery;
pub mod error;
pub mod failpoint;
pub mod lease;
pub mod ownership;
pub mod readiness;
pub mod retry;
pub mod wait;

pub use apply::{Applier, ApplyOptions};
pub use client::{
    Cluster, ClusterOptions, Impersonation, default_namespace, kubeconfig_contexts, server_url,
};
pub use error::{ApiFailure, ApiStatus, KubeError, is_forbidden, is_unreachable_api};
pub use kubepkg_manifest::object as manifest;
pub use kubepkg_manifest::order;
pub use manifest::{ManifestObject, ObjectRef};
