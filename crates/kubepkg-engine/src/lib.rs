//! kubepkg-engine: the package layer (`kubepkg-package`) on a real cluster.
//!
//! - [`chart`]: a component's chart rendered into a release payload;
//! - [`store`]: package revision Secrets;
//! - [`ready`]: `readyWhen` gates, checked and waited for by watch;
//! - [`cluster`]: [`cluster::KubeCluster`], the orchestrator's `Cluster` over releases and the API;
//! - [`flux`]: the component steps of `backend: flux` (HelmReleases that Flux's helm-controller
//!   releases, gated and rolled back by kubepkg);
//! - [`argocd`]: the component steps of `backend: argocd` (Applications that Argo CD's
//!   application controller syncs when kubepkg sets their operation, gated and rolled back by
//!   kubepkg);
//! - [`ops`]: the operations behind `kubepkg plan/apply/status/history/rollback/uninstall/list/values`;
//! - [`verbs`]: the single-release verbs that render a chart (`install`, `upgrade`) with Helm's
//!   values rules, and `get values --all`'s computed values.
//!
//! The rules themselves (order, hooks, rollback safety, revisions) live in
//! `kubepkg_package::orchestrator`; this crate only carries them out.
#![forbid(unsafe_code)]

pub mod argocd;
mod backend;
pub mod chart;
pub mod cluster;
pub mod error;
pub mod flux;
pub mod hook_output;
pub mod ops;
pub mod ready;
pub mod store;
pub mod verbs;

pub use cluster::KubeCluster;
pub use error::EngineError;
pub use ops::Instance;
