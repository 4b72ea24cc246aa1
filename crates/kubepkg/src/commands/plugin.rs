//! `kubepkg plugin list`: the plugins in Helm's plugins directories (`$HELM_PLUGINS`, else
//! `<Helm data home>/plugins`), printed as `helm plugin list` (Helm 4) prints them. kubepkg
//! runs `postrenderer/v1` plugins with the `subprocess` runtime (`--post-renderer`); it lists
//! the others so one can see what Helm would find. A `plugin.yaml` that does not load is skipped
//! with a warning, as Helm does.

use anyhow::Result;
use kubepkg_release::output::table;

use crate::cli::PluginCommand;
use crate::exit::Exit;
use crate::settings::Settings;

pub fn run(cmd: PluginCommand, settings: &Settings) -> Result<Exit> {
    let PluginCommand::List(args) = cmd;
    let (plugins, warnings) = kubepkg_chart::plugin::find_plugins(&settings.paths.plugins)?;
    for w in warnings {
        eprintln!("WARNING: {w}");
    }
    let data_plugins = settings.paths.data_home.join("plugins");
    let mut rows = vec![
        [
            "NAME",
            "VERSION",
            "TYPE",
            "APIVERSION",
            "PROVENANCE",
            "SOURCE",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for p in plugins.iter().filter(|p| {
        args.plugin_type
            .as_deref()
            .is_none_or(|t| t.is_empty() || p.plugin_type == t)
    }) {
        let source = if p.source_url.is_empty() {
            "unknown".to_string()
        } else {
            p.source_url.clone()
        };
        rows.push(vec![
            p.name.clone(),
            p.version.clone(),
            p.plugin_type.clone(),
            p.api_version.clone(),
            kubepkg_chart::plugin::provenance(&data_plugins, p).to_string(),
            source,
        ]);
    }
    print!("{}", table::uitable(&rows));
    Ok(Exit::Succeeded)
}
