//! kubepkg's package layer: everything about a package that needs no cluster.
//!
//! - [`backend`]: which backend applies the components (helm, flux, argocd);
//! - [`manifest`]: `kubepkg.yaml` (docs/kubepkg-yaml.md), read strictly and validated;
//! - [`source`]: package directories, `.tgz` archives and bare charts;
//! - [`graph`]: apply order (dependencies first, manifest order otherwise), hooks, uninstall order;
//! - [`values`]: values per component with provenance, and the `kubepkg.*` upgrade context;
//! - [`revision`]: the package revision record kept in the cluster, and its Secret encoding;
//! - [`conditions`]: the kstatus conditions (Ready, Reconciling, Stalled) a revision's state implies;
//! - [`instance`]: a package instance on a cluster: its Lease's name, each component's live state;
//! - [`object`]: the `Package` custom resource (docs/package-object.md): its CRD, spec and the
//!   status kubepkg writes;
//! - [`plan`]: what an apply would do, as data and JSON (the CLI prints it as text);
//! - [`orchestrator`]: the apply decisions (docs/rules.md) as a state machine over a
//!   [`orchestrator::Cluster`] trait;
//! - [`rollback_policy`]: whether an older version may run again (manual rollbacks and
//!   downgrades), and what a failed upgrade does;
//! - [`verdict`]: verdicts that `PreUpgrade` check hooks report (proceed, refused,
//!   check_failed).
//!
//! The cluster side (releases, readiness, leases, Secret storage) lives in other crates and is
//! reached only through the orchestrator's trait, so this crate is fully testable offline.

#![forbid(unsafe_code)]

pub mod backend;
pub mod chart_adapter;
pub mod conditions;
pub mod constraint;
pub mod error;
pub mod graph;
pub mod instance;
pub mod lock;
pub mod manifest;
pub mod object;
pub mod orchestrator;
pub mod plan;
pub mod render;
pub mod revision;
pub mod rollback_hooks;
pub mod rollback_policy;
pub mod source;
pub mod values;
pub mod verdict;

pub use backend::Backend;
pub use constraint::Constraint;
pub use error::{PackageError, Problem, ProblemKind};
pub use manifest::{Component, Package, PackageMeta, Phase, ReadyCondition, Requirement};
