//! `kubepkg env [NAME]`: the environment kubepkg reads, as `helm env` prints Helm's: one
//! `NAME="value"` line per variable, sorted, each value as kubepkg resolved it (defaults
//! filled in). The `HELM_*` lines are the Helm variables kubepkg honours, with the values
//! `helm env` prints for the same environment; `HELM_DRIVER` and `KUBEPKG_CACHE_DIR` are read
//! by kubepkg as well. With NAME, only that value (nothing for an unknown one, as Helm).

use anyhow::Result;

use crate::cli::EnvArgs;
use crate::exit::Exit;
use crate::settings::Settings;

/// The variables and their resolved values, sorted by name.
pub fn variables(settings: &Settings) -> Vec<(&'static str, String)> {
    let path = |p: &std::path::Path| p.display().to_string();
    let paths = &settings.paths;
    let mut vars = vec![
        ("HELM_CACHE_HOME", path(&paths.cache_home)),
        ("HELM_CONFIG_HOME", path(&paths.config_home)),
        ("HELM_DATA_HOME", path(&paths.data_home)),
        ("HELM_DEBUG", settings.debug.to_string()),
        (
            "HELM_DRIVER",
            match settings.helm_driver() {
                "" => "secret".to_string(),
                d => d.to_string(),
            },
        ),
        ("HELM_KUBEASGROUPS", settings.impersonate.groups.join(",")),
        (
            "HELM_KUBEASUSER",
            settings.impersonate.user.clone().unwrap_or_default(),
        ),
        (
            "HELM_KUBECONTEXT",
            settings.kube_context.clone().unwrap_or_default(),
        ),
        ("HELM_NAMESPACE", settings.namespace_shown()),
        (
            "HELM_PLUGINS",
            std::env::join_paths(&paths.plugins)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        ("HELM_REGISTRY_CONFIG", path(&paths.registry_config)),
        ("HELM_REPOSITORY_CACHE", path(&paths.repository_cache)),
        ("HELM_REPOSITORY_CONFIG", path(&paths.repository_config)),
        ("KUBEPKG_CACHE_DIR", path(&paths.kubepkg_cache)),
    ];
    vars.sort_by_key(|(name, _)| *name);
    vars
}

pub fn run(args: EnvArgs, settings: &Settings) -> Result<Exit> {
    let vars = variables(settings);
    match args.name {
        Some(name) => {
            if let Some((_, value)) = vars.iter().find(|(n, _)| *n == name) {
                println!("{value}");
            }
        }
        None => {
            for (name, value) in vars {
                // Go's %q of the value, as `helm env` writes it.
                println!("{name}={}", kubepkg_gostd::strconv::quote(&value));
            }
        }
    }
    Ok(Exit::Succeeded)
}
