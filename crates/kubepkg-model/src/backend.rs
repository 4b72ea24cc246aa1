//! [`Backend`]: which backend applies a package's components — kubepkg's own Helm releases,
//! Flux's helm-controller or Argo CD. One value for the `--backend` flag, a `Package`'s
//! `spec.backend` and each component of a package revision (which records the backend that
//! applied it, so rollback, uninstall and status act through the same one).

use serde::{Deserialize, Serialize};

/// How a package's components are applied (docs/backends.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// kubepkg renders and applies the charts and stores Helm releases itself.
    #[default]
    Helm,
    /// One Flux `HelmRelease` per component, released by Flux's helm-controller.
    Flux,
    /// One Argo CD `Application` per component, synced by Argo CD.
    Argocd,
}

impl Backend {
    /// Every backend, in the order help texts list them.
    pub const ALL: [Backend; 3] = [Backend::Helm, Backend::Flux, Backend::Argocd];

    /// The name users type (`--backend`, `spec.backend`).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Helm => "helm",
            Backend::Flux => "flux",
            Backend::Argocd => "argocd",
        }
    }

    /// What pulls the charts kubepkg pushes to the backend's chart repository (`--chart-repository`,
    /// `spec.<backend>.chartRepository`), for the message that asks for one; `None` for the
    /// helm backend, which renders the charts itself and needs no repository.
    pub fn chart_puller(self) -> Option<&'static str> {
        match self {
            Backend::Helm => None,
            Backend::Flux => Some("Flux's OCIRepository"),
            Backend::Argocd => Some("Argo CD's repo server"),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no backend.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend {0:?}: expected helm, flux or argocd")]
pub struct UnknownBackend(pub String);

impl std::str::FromStr for Backend {
    type Err = UnknownBackend;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Backend::ALL
            .into_iter()
            .find(|b| b.as_str() == s)
            .ok_or_else(|| UnknownBackend(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backend_reads_back_from_its_name_and_nothing_else_reads() {
        for b in Backend::ALL {
            assert_eq!(b.as_str().parse::<Backend>(), Ok(b));
            assert_eq!(serde_json::to_value(b).unwrap(), b.as_str());
        }
        assert!("Flux".parse::<Backend>().is_err());
        assert!("".parse::<Backend>().is_err());
    }
}
