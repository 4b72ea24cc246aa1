//! kubepkg-kube: kubepkg's cluster layer.
//!
//! - [`readiness`]: kstatus' readiness rules as pure functions over object JSON.
//! - [`order`]: Helm's install and uninstall order of kinds.
//! - [`manifest`]: a rendered manifest split into objects with their template source.
//! - [`client`], [`discovery`]: connecting and resolving kinds; [`apply`]: SSA, CRDs first,
//!   prune; [`wait`]: waiting for readiness by watch with reports of what is not ready.
//! - [`crd`]: the safety rules for upgrading a CustomResourceDefinition.
//! - [`failpoint`]: test-only pause points (`KUBEPKG_FAILPOINT`) for crash tests.
//! - [`ownership`]: Helm's release ownership labels/annotations and the adoption rules.
#![forbid(unsafe_code)]

pub mod apply;
pub mod client;
pub mod crd;
pub mod discovery;
pub mod error;
pub mod failpoint;
pub mod manifest;
pub mod order;
pub mod ownership;
pub mod readiness;
pub mod wait;

pub use apply::{Applier, ApplyOptions};
pub use client::{Cluster, ClusterOptions};
pub use error::KubeError;
pub use manifest::{ManifestObject, ObjectRef};
