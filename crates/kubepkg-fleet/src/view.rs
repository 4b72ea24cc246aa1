//! What the rollout's decisions read and say, shared by [`crate::decide`] and
//! [`crate::rollback`]: each cluster's Package as seen ([`ClusterView`], [`Outcome`]) and the
//! states of a stage and of the rollout ([`StageState`], [`Phase`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a cluster's Package shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterView {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The digest its Package was given (`None`: no Package yet).
    pub given: Option<String>,
    /// How its Package stands for what it was given.
    pub outcome: Outcome,
    /// Whether its Package keeps a spec from before its digest to go back to.
    pub previous: bool,
    /// The digest it was rolled back from, if it was.
    pub rolled_back_from: Option<String>,
    /// Its Package's conditions: type → status (for stage gates).
    pub conditions: BTreeMap<String, String>,
}

/// How a Package stands for the spec it was last given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not yet reconciled for that spec, or still applying (with what it waits for).
    InProgress(String),
    /// Ready with that spec.
    Ready,
    /// Failed with that spec (its Ready message).
    Failed(String),
}

/// A stage's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StageState {
    /// An earlier stage is not done yet.
    Waiting,
    /// A `Manual` stage not approved yet.
    AwaitingApproval,
    /// Clusters are being started or are in progress.
    Progressing,
    /// Every cluster is Ready; the bake time has not passed yet.
    Baking,
    /// Every cluster is Ready and baked.
    Done,
    /// A cluster of the stage failed.
    Failed,
}

/// The rollout's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Progressing,
    Paused,
    AwaitingApproval,
    Baking,
    Succeeded,
    Halted,
    /// `onFailure: Rollback` is giving clusters their previous spec back.
    RollingBack,
    /// Every cluster given the digest is back at the version it ran before.
    RolledBack,
    /// Aborted (`kubepkg rollout abort`): no cluster changes any more.
    Aborted,
}
