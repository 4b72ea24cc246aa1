//! `kubepkg template`: render a chart locally and print what `helm template` prints.

use crate::cli::TemplateArgs;
use kubepkg_chart::{TemplateOptions, ValueOptions};
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: Box<TemplateArgs>) -> anyhow::Result<ExitCode> {
    let args = *args;
    if args.dry_run.as_deref() == Some("server") {
        anyhow::bail!("kubepkg template renders offline; --dry-run=server needs a cluster");
    }
    let (name, chart) = match args.args.as_slice() {
        [_, _] if args.generate_name => {
            anyhow::bail!("cannot set --generate-name and also specify a name")
        }
        [name, chart] => (name.clone(), chart.clone()),
        [chart] if args.generate_name => (generated_name(chart), chart.clone()),
        [chart] => ("release-name".to_string(), chart.clone()),
        _ => anyhow::bail!("expected at most two arguments"),
    };
    let namespace = args
        .namespace
        .or_else(|| {
            std::env::var("HELM_NAMESPACE")
                .ok()
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "default".to_string());
    let opts = TemplateOptions {
        release_name: name,
        chart: chart.into(),
        namespace,
        values: ValueOptions {
            value_files: args.values.into_iter().map(Into::into).collect(),
            json_values: args.set_json,
            values: args.set,
            string_values: args.set_string,
            file_values: args.set_file,
            literal_values: args.set_literal,
        },
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
    };
    let out = kubepkg_chart::template(&opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
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
