//! kubepkg's package model: what a package is and how it is read, without a cluster and
//! without any decision about applying it.
//!
//! - [`manifest`]: the model a `kubepkg.yaml` describes ([`Package`], [`Component`], …);
//! - [`parse`]: `kubepkg.yaml` (docs/kubepkg-yaml.md) read strictly and validated, and its
//!   JSON Schema;
//! - [`source`]: package directories, `.tgz` archives and bare charts;
//! - [`lock`]: `kubepkg.lock`, the exact chart of each repository component;
//! - [`graph`]: apply order (dependencies first, manifest order otherwise), hooks, uninstall order;
//! - [`constraint`]: SemVer constraints as Helm writes them;
//! - [`values`]: values per component with provenance, and the `kubepkg.*` upgrade context;
//! - [`chart_adapter`]: the seam between these JSON values and the chart layer's values;
//! - [`backend`]: which backend applies the components (helm, flux, argocd);
//! - [`error`]: a package that cannot be read or is invalid.
//!
//! What an apply does with a package (plan, orchestration, revisions) is `kubepkg-package`'s.

#![forbid(unsafe_code)]

pub mod backend;
pub mod chart_adapter;
pub mod constraint;
pub mod error;
pub mod graph;
pub mod lock;
pub mod manifest;
pub mod parse;
pub mod source;
pub mod values;

// The model's main types at the crate root, as they were at `kubepkg_package`'s: the names
// every layer above speaks in.
pub use backend::Backend;
pub use constraint::Constraint;
pub use error::{PackageError, Problem, ProblemKind};
pub use manifest::{Component, Package, PackageMeta, Phase, ReadyCondition, Requirement};
