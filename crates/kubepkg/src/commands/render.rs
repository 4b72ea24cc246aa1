//! `kubepkg render --backend flux|argocd NAME PACKAGE --chart-repository oci://HOST/PATH`: the
//! package compiled into Flux objects (`kubepkg_gitops::flux`) or Argo CD Applications
//! (`kubepkg_gitops::argocd`) for a GitOps repository, on standard output as YAML documents (or
//! a JSON `List`); what the backend cannot be told (hooks, rollback floors, readyWhen for Argo
//! CD) is said on standard error. With `--push-charts` each component's chart is packed as
//! `helm package` packs it and pushed with Helm's layout first, and the sources are pinned to
//! the pushed digests. The package, its values and its charts are read by the same loaders as
//! `plan` and `apply`.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use kubepkg_gitops::flux::{ChartRef, Options};
use kubepkg_model::Backend;

use crate::cli::RenderArgs;
use crate::exit::Exit;
use crate::format::Format;
use crate::settings::Settings;

pub async fn run(args: RenderArgs, settings: &Settings) -> Result<Exit> {
    let loaded = super::package::load(&args.package, &args.oci, settings).await?;
    let package = &loaded.package;
    let user = super::package::user_values(&args.values)?;
    user.check(package)?;
    let values: BTreeMap<String, _> = package
        .components
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                kubepkg_model::values::supplied(package, &c.name, &user, None),
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
        let reference = if let (Some(repo), Some(client)) = (&repo, &client) {
            let pushed = kubepkg_source::push::push_chart(client, repo, path)
                .await
                .with_context(|| format!("component {}", c.name))?;
            eprintln!("Pushed: {} ({})", pushed.reference, pushed.digest);
            ChartRef {
                name: pushed.name,
                version: pushed.version,
                digest: Some(pushed.digest),
            }
        } else {
            let chart = kubepkg_chart::chart::load(path).with_context(|| {
                format!("component {}: loading its chart {}", c.name, path.display())
            })?;
            ChartRef {
                name: chart.metadata.name.clone(),
                version: chart.metadata.version.clone(),
                digest: None,
            }
        };
        charts.insert(c.name.clone(), reference);
    }
    let namespace = settings.offline_namespace();
    let compiled = match args.backend {
        Backend::Argocd => kubepkg_gitops::argocd::compile(
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
                secret_ref: None,
                interval: args.interval,
                timeout: args.timeout,
                driven: false,
                service_account: None,
            },
        )?,
    };
    for note in &compiled.notes {
        eprintln!("Note: {note}");
    }
    if args.output == Format::Json {
        let list =
            serde_json::json!({"apiVersion": "v1", "kind": "List", "items": compiled.objects});
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for o in &compiled.objects {
            print!("---\n{}", kubepkg_release::output::yaml(o)?);
        }
    }
    Ok(Exit::Succeeded)
}
