//! kubepkg's package layer: what applying a package means, without a cluster. The package
//! itself (`kubepkg.yaml`, the graph, values) is `kubepkg-model`'s; this crate decides what an
//! apply, upgrade or rollback does with it and records the outcome.
//!
//! - [`verdict`]: verdicts that `PreUpgrade` check hooks report (proceed, refused,
//!   check_failed);
//! - [`revision`]: the package revision record kept in the cluster (with the reason its run
//!   ended with and its kstatus conditions), its Secret encoding, and the history;
//! - [`revision_values`]: a recorded revision's values explained, and the notice when an apply
//!   drops them;
//! - [`conditions`]: the kstatus conditions (Ready, Reconciling, Stalled) a revision's state
//!   implies;
//! - [`rollback_policy`]: whether an older version may run again (manual rollbacks and
//!   downgrades), and what a failed upgrade does;
//! - [`plan`]: what an apply would do, as data and JSON;
//! - [`orchestrator`]: the apply decisions (docs/rules.md) as a state machine over a
//!   [`orchestrator::Cluster`] trait;
//! - [`render`]: a component's chart rendered with its values, as the plan and the cluster
//!   side need it;
//! - [`rollback_hooks`]: the `PreRollback` hooks a revision keeps for a later rollback;
//! - [`instance`]: a package instance on a cluster: its Lease's name, each component's live
//!   state.
//!
//! The text reports (plan text, tables, colours) are the binary's (`crates/kubepkg/src/present`).
//!
//! The cluster side (releases, readiness, leases, Secret storage) lives in other crates and is
//! reached only through the orchestrator's trait, so this crate is fully testable offline.

#![forbid(unsafe_code)]

pub mod conditions;
pub mod instance;
pub mod orchestrator;
pub mod plan;
pub mod render;
pub mod revision;
pub mod revision_values;
pub mod rollback_hooks;
pub mod rollback_policy;
pub mod verdict;
