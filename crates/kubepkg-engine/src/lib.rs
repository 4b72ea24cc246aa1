//! kubepkg-engine: the package layer (`kubepkg-package`) on a real cluster.
//!
//! - [`chart`]: a component's chart rendered into a release payload;
//! - [`store`]: package revision Secrets;
//! - [`ready`]: `readyWhen` gates, checked and waited for by watch;
//! - [`cluster`]: [`cluster::KubeCluster`], the orchestrator's `Cluster` over releases and the API;
//! - [`backend`]: [`Backend`], the one backend configuration, and its three implementations of
//!   the component steps: kubepkg's own Helm releases ([`backend::helm`]), Flux's HelmReleases
//!   ([`backend::flux`]) and Argo CD's Applications ([`backend::argocd`]);
//! - [`compare`]: two recorded revisions diffed as a plan diffs (Secrets masked);
//! - [`reads`]: the reads many status reads of one page share (one list per namespace and kind);
//! - [`ops`]: the operations behind `kubepkg plan/apply/status/history/rollback/uninstall/list/values`;
//! - [`verbs`]: the single-release verbs that render a chart (`install`, `upgrade`) with Helm's
//!   values rules, and `get values --all`'s computed values.
//!
//! The rules themselves (order, hooks, rollback safety, revisions) live in
//! `kubepkg_package::orchestrator`; this crate only carries them out.
#![forbid(unsafe_code)]

pub mod backend;
pub mod backend_error;
pub mod chart;
pub mod cluster;
pub mod compare;
pub mod error;
pub mod hook_output;
pub mod ops;
pub mod post_render;
pub mod reads;
pub mod ready;
pub mod report;
pub mod store;
pub mod verbs;

pub use backend::{Backend, BackendConfig, BackendError, ChartRepository};
pub use cluster::KubeCluster;
pub use error::EngineError;
pub use ops::Instance;
