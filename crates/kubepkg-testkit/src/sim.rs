//! Pod annotations that steer the control plane's simulated kubelets.
//!
//! Put them on a pod template (a Deployment's, a Job's, a hook Pod's) to
//! choose what the pod's containers do. Without any, long-running pods
//! (restartPolicy `Always`) become Running and Ready at once, and
//! run-to-completion pods (`Never`, `OnFailure`) Succeed after one second.
//! The simulator itself lives in `testenv/kpk-cluster/nodesim.go`.

/// What the containers do: absent or [`OK`], [`FAIL`] or [`UNREADY`].
pub const MODE: &str = "kubepkg.dev/sim";
/// Containers run normally.
pub const OK: &str = "ok";
/// Containers exit non-zero after [`EXIT_AFTER`]: the pod Fails under
/// restartPolicy `Never`; under `OnFailure` and `Always` it stays Running,
/// never Ready, in `CrashLoopBackOff` with a growing restart count (which is
/// what a Job with `OnFailure` counts against its backoffLimit).
pub const FAIL: &str = "fail";
/// Containers run but never become Ready.
pub const UNREADY: &str = "unready";
/// A Go duration (`3s`, `500ms`): how long a long-running pod's containers
/// run before they become Ready. Default `0s`.
pub const READY_AFTER: &str = "kubepkg.dev/sim-ready-after";
/// A Go duration: how long containers of run-to-completion or failing pods
/// run before they exit. Default `1s`.
pub const EXIT_AFTER: &str = "kubepkg.dev/sim-exit-after";
/// The exit code of failing containers (non-zero). Default `1`.
pub const EXIT_CODE: &str = "kubepkg.dev/sim-exit-code";
/// Text served as every container's log (through the API server's pod log
/// endpoint, like a real kubelet's). Default: one line saying the container
/// started.
pub const LOG: &str = "kubepkg.dev/sim-log";
