//! A package instance on a cluster, as the engine names and observes it: the Lease that
//! serializes its operations ([`lease_name`]) and each component's live state
//! ([`ComponentState`], what `kubepkg status` shows; the CLI prints it).

use serde::Serialize;

/// The Lease that serializes applies of one package instance (in the package's namespace).
pub fn lease_name(name: &str) -> String {
    format!("kubepkg.package.{name}")
}

/// A component's live state for `kubepkg status`, as the cluster side observed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentState {
    pub name: String,
    pub release: String,
    pub namespace: String,
    pub revision: u64,
    pub ready: bool,
    /// What it still waits for (an object and its condition), when not ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lease_is_named_after_the_instance() {
        assert_eq!(lease_name("kv"), "kubepkg.package.kv");
    }
}
