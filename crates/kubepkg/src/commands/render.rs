//! `kubepkg render --backend flux|argocd NAME PACKAGE --chart-repository oci://HOST/PATH`: the
//! package compiled into Flux objects (`kubepkg_gitops::flux`) or Argo CD Applications
//! (`kubepkg_gitops::argocd`) for a GitOps repository, on standard output as YAML documents (or
//! a JSON `List`); what the backend cannot be told (hooks, rollback floors, readyWhen for Argo
//! CD) is said on standard error. With `--push-charts` each component's chart is packed as
//! `helm package` packs it and pushed with Helm's layout first, and the sources are pinned to
//! the pushed digests. The package, its values and its charts are read by the same loaders as
//! `plan` and `apply`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::{Context, Result};
use kubepkg_gitops::flux::{ChartRef, Options};

use super::runtime;
use crate::cli::RenderArgs;
use crate::settings::Settings;

pub fn run(args: RenderArgs, settings: &Settings) -> Result<ExitCode> {
    let loaded = super::package::load(&args.package, &args.oci, settings)?;
    let package = &loaded.package;
    let user = super::package::user_values(&args.values)?;
    user.check(package)?;
    let values: BTreeMap<String, _> = package
        .components
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                kubepkg_package::values::supplied(package, &c.name, &user, None),
            )
        })
        .collect();
    let mut charts = BTreeMap::new();
    let repo = if args.push_charts {
        Some(
            kubepkg_oci::Reference::parse(&args.chart_repository)
                .with_context(|| format!("--chart-repository {}", args.chart_repository))?,
        )
    } else {
        None
    };
    let client = match &repo {
        Some(_) => Some(kubepkg_source::oci::client(
            &args.oci.access.options(),
            &settings.paths,
        )?),
        None => None,
    };
    for c in package.components.iter().filter(|c| !c.is_hook()) {
        let path = c.chart.path();
        let chart = kubepkg_chart::chart::load(path).with_context(|| {
            format!("component {}: loading its chart {}", c.name, path.display())
        })?;
        let mut reference = ChartRef {
            name: chart.metadata.name.clone(),
            version: chart.metadata.version.clone(),
            digest: None,
        };
        if let (Some(repo), Some(client)) = (&repo, &client) {
            let archive = if path.is_dir() {
                let files = kubepkg_chart::chart::dir_files(path)?;
                let (_, entries) = kubepkg_chart::save::archive_entries(files, None, None)?;
                kubepkg_chart::save::pack_entries(&entries).context("packing the chart")?
            } else {
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?
            };
            let meta = super::push::chart_meta(&chart.metadata);
            let pushed = runtime()?.block_on(kubepkg_oci::chart::push(
                client, repo, &archive, &meta, None,
            ))?;
            eprintln!("Pushed: {} ({})", pushed.reference, pushed.digest);
            reference.digest = Some(pushed.digest);
        }
        charts.insert(c.name.clone(), reference);
    }
    let namespace = settings.offline_namespace();
    let compiled = match args.backend.as_str() {
        "argocd" => kubepkg_gitops::argocd::compile(
            package,
            &values,
            &charts,
            &kubepkg_gitops::argocd::Options {
                instance: args.name.clone(),
                argocd_namespace: args.argocd_namespace.clone().unwrap_or(namespace.clone()),
                namespace,
                project: args.argocd_project.clone(),
                repository: args.chart_repository.clone(),
                insecure: args.oci.access.plain_http,
            },
        )?,
        _ => kubepkg_gitops::flux::compile(
            package,
            &values,
            &charts,
            &Options {
                instance: args.name.clone(),
                namespace,
                repository: args.chart_repository.clone(),
                insecure: args.oci.access.plain_http,
                interval: args.interval,
                timeout: args.timeout,
            },
        )?,
    };
    for note in &compiled.notes {
        eprintln!("Note: {note}");
    }
    if args.output == "json" {
        let list =
            serde_json::json!({"apiVersion": "v1", "kind": "List", "items": compiled.objects});
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for o in &compiled.objects {
            print!("---\n{}", kubepkg_release::output::yaml(o)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}
