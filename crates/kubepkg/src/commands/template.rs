//! `kubepkg template`: render a chart locally and print what `helm template` prints. With
//! `--dry-run=server` (Helm 4) the chart renders against the cluster in the kubeconfig:
//! `.Capabilities` are the server's version and served API versions (`--kube-version` and
//! `--api-versions` are then ignored, as in Helm).

use crate::cli::TemplateArgs;
use crate::exit::Exit;
use crate::settings::Settings;
use kubepkg_chart::TemplateOptions;
use std::io::Write;

pub async fn run(args: TemplateArgs, settings: &Settings) -> anyhow::Result<Exit> {
    // Helm 4's reading of --dry-run for `template` (always a dry run).
    let server = match args.dry_run.as_deref() {
        None | Some("client") | Some("1" | "t" | "T" | "TRUE" | "true" | "True") => false,
        Some("server") => true,
        Some(v @ ("none" | "0" | "f" | "F" | "FALSE" | "false" | "False")) => {
            anyhow::bail!("invalid dry-run value ({v:?}). Must be \"server\" or \"client\"")
        }
        Some(v) => anyhow::bail!(
            "invalid dry-run value ({v:?}). Must be \"none\", \"server\", or \"client\""
        ),
    };
    let (name, chart) = match args.args.as_slice() {
        [_, _] if args.generate_name => {
            anyhow::bail!("cannot set --generate-name and also specify a name")
        }
        [name, chart] => (name.clone(), chart.clone()),
        [chart] if args.generate_name => (generated_name(chart), chart.clone()),
        [chart] => ("release-name".to_string(), chart.clone()),
        _ => anyhow::bail!("expected at most two arguments"),
    };
    let post_renderers = args.post_render.resolve(&settings.paths.plugins)?;
    let located = super::locate_chart(&chart, &args.source, settings).await?;
    let opts = TemplateOptions {
        release_name: name,
        chart: located.path,
        namespace: settings.offline_namespace(),
        values: args.values.options(),
        show_only: args.show_only,
        include_crds: args.include_crds,
        skip_tests: args.skip_tests,
        no_hooks: args.no_hooks,
        is_upgrade: args.is_upgrade,
        revision: None,
        kube_version: args.kube_version,
        api_versions: args.api_versions,
        output_dir: args.output_dir,
        use_release_name: args.release_name,
        skip_schema_validation: args.skip_schema_validation,
        post_renderers,
        // This process prints the output and exits.
        exit_after: true,
    };
    let out = if server {
        let caps = cluster_capabilities(settings).await?;
        kubepkg_chart::action::template_with_capabilities(&opts, &caps)
    } else {
        kubepkg_chart::template(&opts)
    }
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(Exit::Succeeded)
}

/// The cluster's `.Capabilities` (server version and served API versions).
async fn cluster_capabilities(
    settings: &Settings,
) -> anyhow::Result<kubepkg_chart::objects::Capabilities> {
    let cluster = settings.connect().await?;
    let caps = kubepkg_engine::chart::ClusterCapabilities::discover(&cluster.client).await?;
    caps.to_chart().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Helm's `--generate-name`: the chart path's base name up to its first dot, a dash, and the
/// current Unix time.
fn generated_name(chart: &str) -> String {
    let base = std::path::Path::new(chart)
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = match base.as_str() {
        "" | "." => "chart".to_string(),
        b => b.split('.').next().unwrap_or(b).to_string(),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{base}-{now}")
}
