//! Test-only failpoints: named places in an operation where the process can be made to
//! stop, so crash tests can kill it at a precise point. Off unless the environment variable
//! `KUBEPKG_FAILPOINT` names the point (comma-separated for several).
//!
//! When a named point is reached the process prints `kubepkg: failpoint <name> reached,
//! pausing` to standard error and waits forever (its lease keeps being renewed, as a slow
//! process would); the test then kills it. Points:
//! - `after-pending`: a release operation has written its `pending-*` record and changed
//!   nothing in the cluster yet;
//! - `mid-apply`: the first kind group of a release's objects has been applied, the rest
//!   not (some objects new, some old).

/// The environment variable naming the active failpoints.
pub const ENV: &str = "KUBEPKG_FAILPOINT";

/// True when `name` is active.
pub fn active(name: &str) -> bool {
    std::env::var(ENV)
        .map(|v| v.split(',').any(|p| p.trim() == name))
        .unwrap_or(false)
}

/// Pauses forever when `name` is active; returns at once otherwise.
pub async fn reached(name: &str) {
    if active(name) {
        eprintln!("kubepkg: failpoint {name} reached, pausing");
        std::future::pending::<()>().await;
    }
}
