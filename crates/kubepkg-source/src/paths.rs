//! Helm's configuration and cache files, where Helm itself looks for them (its `helmpath`
//! rules on Linux and macOS), so repositories added and registries logged in with `helm` work
//! in kubepkg and the reverse:
//!
//! | file | variable | default |
//! |---|---|---|
//! | configuration home | `HELM_CONFIG_HOME` | `$XDG_CONFIG_HOME/helm`, else `~/.config/helm` |
//! | cache home | `HELM_CACHE_HOME` | `$XDG_CACHE_HOME/helm`, else `~/.cache/helm` |
//! | data home | `HELM_DATA_HOME` | `$XDG_DATA_HOME/helm`, else `~/.local/share/helm` |
//! | plugins (a list, `:`-separated) | `HELM_PLUGINS` | `<data home>/plugins` |
//! | `repositories.yaml` | `HELM_REPOSITORY_CONFIG` | `<config home>/repositories.yaml` |
//! | repository cache (`NAME-index.yaml`, `NAME-charts.txt`) | `HELM_REPOSITORY_CACHE` | `<cache home>/repository` |
//! | registry credentials (`config.json`) | `HELM_REGISTRY_CONFIG` | `<config home>/registry/config.json` |
//! | Docker's credentials, read after Helm's | `DOCKER_CONFIG` (a directory) | `~/.docker/config.json` |
//!
//! kubepkg's own cache (pulled blobs by digest, downloaded charts) is `$KUBEPKG_CACHE_DIR`,
//! else `$XDG_CACHE_HOME/kubepkg`, else `~/.cache/kubepkg`. Resolved once by the binary's
//! settings; nothing else reads these variables.

use std::path::PathBuf;

/// Where Helm's files and kubepkg's cache are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelmPaths {
    /// Helm's configuration home (`HELM_CONFIG_HOME`).
    pub config_home: PathBuf,
    /// Helm's cache home (`HELM_CACHE_HOME`).
    pub cache_home: PathBuf,
    /// Helm's data home (`HELM_DATA_HOME`).
    pub data_home: PathBuf,
    /// The directories Helm looks for plugins in (`HELM_PLUGINS`, split as Go's
    /// `filepath.SplitList` splits it).
    pub plugins: Vec<PathBuf>,
    pub repository_config: PathBuf,
    pub repository_cache: PathBuf,
    pub registry_config: PathBuf,
    /// Docker's `config.json` (registry credentials read when Helm's file has none).
    pub docker_config: PathBuf,
    /// kubepkg's own content cache.
    pub kubepkg_cache: PathBuf,
}

impl HelmPaths {
    /// The paths the environment (`env`: a variable's value) gives; empty variables count as
    /// unset, as in Helm.
    pub fn resolve(env: impl Fn(&str) -> Option<String>) -> HelmPaths {
        let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME").unwrap_or_else(|| PathBuf::from("/"));
        let config_home = var("HELM_CONFIG_HOME").unwrap_or_else(|| {
            var("XDG_CONFIG_HOME")
                .unwrap_or_else(|| home.join(".config"))
                .join("helm")
        });
        let xdg_cache = var("XDG_CACHE_HOME").unwrap_or_else(|| home.join(".cache"));
        let cache_home = var("HELM_CACHE_HOME").unwrap_or_else(|| xdg_cache.join("helm"));
        let data_home = var("HELM_DATA_HOME").unwrap_or_else(|| {
            var("XDG_DATA_HOME")
                .unwrap_or_else(|| home.join(".local").join("share"))
                .join("helm")
        });
        let plugins = match env("HELM_PLUGINS").filter(|v| !v.is_empty()) {
            Some(list) => list.split(':').map(PathBuf::from).collect(),
            None => vec![data_home.join("plugins")],
        };
        HelmPaths {
            repository_config: var("HELM_REPOSITORY_CONFIG")
                .unwrap_or_else(|| config_home.join("repositories.yaml")),
            repository_cache: var("HELM_REPOSITORY_CACHE")
                .unwrap_or_else(|| cache_home.join("repository")),
            registry_config: var("HELM_REGISTRY_CONFIG")
                .unwrap_or_else(|| config_home.join("registry").join("config.json")),
            docker_config: var("DOCKER_CONFIG")
                .unwrap_or_else(|| home.join(".docker"))
                .join("config.json"),
            kubepkg_cache: var("KUBEPKG_CACHE_DIR").unwrap_or_else(|| xdg_cache.join("kubepkg")),
            config_home,
            cache_home,
            data_home,
            plugins,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(vars: &[(&str, &str)]) -> HelmPaths {
        HelmPaths::resolve(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn defaults_are_helms() {
        let p = paths(&[("HOME", "/home/u")]);
        assert_eq!(
            p.repository_config,
            PathBuf::from("/home/u/.config/helm/repositories.yaml")
        );
        assert_eq!(
            p.repository_cache,
            PathBuf::from("/home/u/.cache/helm/repository")
        );
        assert_eq!(
            p.registry_config,
            PathBuf::from("/home/u/.config/helm/registry/config.json")
        );
        assert_eq!(p.kubepkg_cache, PathBuf::from("/home/u/.cache/kubepkg"));
        assert_eq!(
            p.plugins,
            vec![PathBuf::from("/home/u/.local/share/helm/plugins")]
        );
        let p = paths(&[("HOME", "/home/u"), ("HELM_PLUGINS", "/a:/b")]);
        assert_eq!(p.plugins, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
    }

    #[test]
    fn variables_move_each_file() {
        let p = paths(&[
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "/xdg/config"),
            ("HELM_CACHE_HOME", "/helm/cache"),
            ("HELM_REGISTRY_CONFIG", "/r.json"),
            ("HELM_REPOSITORY_CONFIG", ""),
        ]);
        assert_eq!(
            p.repository_config,
            PathBuf::from("/xdg/config/helm/repositories.yaml")
        );
        assert_eq!(p.repository_cache, PathBuf::from("/helm/cache/repository"));
        assert_eq!(p.registry_config, PathBuf::from("/r.json"));
    }
}
