//! Fleet rollouts (docs/fleet.md): one package version across many clusters, in stages.
//!
//! - **Clusters** are registered in the managing cluster as Secrets labelled
//!   [`CLUSTER_LABEL`] holding a kubeconfig under `value` (Flux's `kubeConfig` Secret shape, so
//!   the same Secret is a `Package`'s `spec.kubeConfig.secretRef`); their other labels are what
//!   stages select on.
//! - A [`PackageRollout`](spec::RolloutSpec) (`kubepkg.dev/v1alpha1`, [`CRD`]) holds the
//!   `Package` spec every cluster gets, per-cluster values by label, and ordered **stages**.
//!   The controller gives each cluster a `Package` of its own targeting it, so hooks, readiness,
//!   revisions and rollback rules hold in every cluster as they do in one.
//! - [`decide`] is the whole rollout logic as a pure function of what the cluster shows (each
//!   cluster's Package, the stages' recorded times, approvals, the clock): which clusters start
//!   now, what each stage and the rollout wait for. Being recomputed from observed state on every
//!   reconcile, a controller killed at any point resumes without upgrading a cluster twice,
//!   skipping one or running a stage ahead.
//!
//! Modules: [`spec`] (the custom resource's spec and status), [`selector`] (label selectors),
//! [`decide`], [`history`] (`status.history`), [`rollback`] (`onFailure: Rollback`'s part of the decision).

pub mod decide;
pub mod history;
pub mod rollback;
pub mod selector;
pub mod spec;
#[cfg(test)]
mod test_support;
pub mod view;

/// The CustomResourceDefinition of `PackageRollout` (`packagerollouts.kubepkg.dev`).
pub const CRD: &str = include_str!("../crd/packagerollouts.kubepkg.dev.yaml");
pub const GROUP: &str = "kubepkg.dev";
pub const VERSION: &str = "v1alpha1";
pub const KIND: &str = "PackageRollout";
pub const PLURAL: &str = "packagerollouts";

/// The label that registers a Secret as a fleet cluster (any value).
pub const CLUSTER_LABEL: &str = "kubepkg.dev/cluster";
/// The label on each Package a rollout made, naming the rollout.
pub const ROLLOUT_LABEL: &str = "kubepkg.dev/rollout";
/// The label on each Package a rollout made, naming its cluster.
pub const CLUSTER_NAME_LABEL: &str = "kubepkg.dev/cluster-name";
/// The annotation on each Package a rollout made: the rollout digest its spec was given.
pub const DIGEST_ANNOTATION: &str = "kubepkg.dev/rollout-digest";
/// The annotation on each Package a rollout started over an earlier spec: that spec, the
/// digest it was given and the version it ran (JSON, [`rollback::Previous`]), what
/// `onFailure: Rollback` gives the Package back. Written in the same apply that gives the new
/// digest, so no cluster is ever upgraded without it.
pub const PREVIOUS_ANNOTATION: &str = "kubepkg.dev/rollout-previous";
/// The annotation on each Package a rollout rolled back: the digest it was rolled back from
/// (that digest never starts it again).
pub const ROLLED_BACK_ANNOTATION: &str = "kubepkg.dev/rolled-back-from";
/// The annotation on a PackageRollout that aborts its digest: `DIGEST` (`kubepkg rollout
/// abort` writes it); a new digest is a new rollout, not aborted.
pub const ABORTED_ANNOTATION: &str = "kubepkg.dev/aborted";
/// The annotation on a PackageRollout approving manual stages: `STAGE@DIGEST[,…]`
/// (`kubepkg rollout promote` writes it); an approval is for one digest only.
pub const APPROVED_ANNOTATION: &str = "kubepkg.dev/approved";

/// The name of the Package a rollout gives `cluster`.
pub fn package_name(rollout: &str, cluster: &str) -> String {
    format!("{rollout}-{cluster}")
}
