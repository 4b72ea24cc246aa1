//! `kubepkg rollout plan NAME`: what the rollout's current spec would do, changing nothing.
//! Per stage, each registered cluster it takes and whether that cluster's Package changes
//! (`new`: the rollout gave it no Package yet; `changes`: its Package has another spec;
//! `unchanged`); then the package plan of the first cluster that changes, as `kubepkg plan
//! --cluster` prints it against that cluster — the package fetched and loaded as the
//! controller does (`kubepkg_controller::source`, `::loaded`), with that cluster's values and
//! the rollout's post-renderers.

use anyhow::{Context as _, Result, anyhow};
use k8s_openapi::api::core::v1::Secret;
use kube::ResourceExt;
use kube::api::{Api, DynamicObject, ListParams};
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_fleet::spec::RolloutSpec;
use kubepkg_package_object::{KubeConfigSecretRef, PackageSpec};
use serde_json::{Value, json};

use super::print_structured;
use crate::cli::RolloutPlanArgs;
use crate::exit::Exit;
use crate::format::Format;
use crate::present::plan::render_styled;
use crate::progress::Printer;
use crate::settings::Settings;

/// A scratch directory, removed on drop.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One registered cluster as the rollout sees it.
struct Member {
    name: String,
    labels: std::collections::BTreeMap<String, String>,
    stage: Option<usize>,
    change: &'static str,
}

pub async fn plan(
    kube: &kubepkg_kube::Cluster,
    a: &RolloutPlanArgs,
    settings: &Settings,
) -> Result<Exit> {
    let name = &a.rollout.name;
    let obj = super::rollout::get(kube, name).await?;
    let spec: RolloutSpec =
        serde_json::from_value(obj.data.get("spec").cloned().unwrap_or(Value::Null))
            .with_context(|| format!("PackageRollout {name}: its spec does not read"))?;
    let stages = spec
        .check()
        .map_err(|e| anyhow!("PackageRollout {name}: {e}"))?;
    let digest = spec.digest();
    let members = members(kube, name, &spec, &stages, &digest).await?;
    let first = members
        .iter()
        .filter(|m| m.stage.is_some() && m.change != "unchanged")
        .min_by_key(|m| (m.stage, m.name.clone()));
    let plan = match first {
        Some(m) => Some((m.name.clone(), cluster_plan(kube, name, &spec, m).await?)),
        None => None,
    };
    if a.rollout.output == Format::Json {
        let stages: Vec<Value> = stages
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let clusters: Vec<Value> = members
                    .iter()
                    .filter(|m| m.stage == Some(i))
                    .map(|m| json!({"name": m.name, "change": m.change}))
                    .collect();
                json!({"name": s.name, "clusters": clusters})
            })
            .collect();
        let unstaged: Vec<&str> = members
            .iter()
            .filter(|m| m.stage.is_none())
            .map(|m| m.name.as_str())
            .collect();
        let out = json!({
            "rollout": name, "digest": digest, "stages": stages, "unstaged": unstaged,
            "plannedCluster": plan.as_ref().map(|(c, _)| c),
            "plan": plan.as_ref().map(|(_, p)| p),
        });
        print_structured(out, Format::Json, String::new)?;
        return Ok(Exit::Succeeded);
    }
    println!("PackageRollout {name} (digest {digest}):");
    for (i, s) in stages.iter().enumerate() {
        let clusters: Vec<String> = members
            .iter()
            .filter(|m| m.stage == Some(i))
            .map(|m| format!("{} ({})", m.name, m.change))
            .collect();
        let listed = if clusters.is_empty() {
            "no cluster".to_string()
        } else {
            clusters.join(", ")
        };
        println!("  stage {}: {listed}", s.name);
    }
    let unstaged: Vec<&str> = members
        .iter()
        .filter(|m| m.stage.is_none())
        .map(|m| m.name.as_str())
        .collect();
    if !unstaged.is_empty() {
        println!("  no stage takes: {}", unstaged.join(", "));
    }
    match plan {
        Some((cluster, p)) => {
            println!("\nThe plan in cluster {cluster} (the first the rollout changes):\n");
            print!(
                "{}",
                render_styled(&p, !a.no_diff, settings.terminal.stdout)
            );
        }
        None => println!("\nNo cluster changes: every one has this spec."),
    }
    Ok(Exit::Succeeded)
}

/// The registered clusters the rollout selects, each with its stage and change.
async fn members(
    kube: &kubepkg_kube::Cluster,
    rollout: &str,
    spec: &RolloutSpec,
    stages: &[kubepkg_fleet::spec::StagePlan],
    digest: &str,
) -> Result<Vec<Member>> {
    let secrets: Api<Secret> = Api::namespaced(kube.client.clone(), &kube.namespace);
    let registered = secrets
        .list_metadata(&ListParams::default().labels(kubepkg_fleet::CLUSTER_LABEL))
        .await
        .context("listing the registered clusters (Secrets labelled kubepkg.dev/cluster)")?;
    let packages: Api<DynamicObject> = Api::namespaced_with(
        kube.client.clone(),
        &kube.namespace,
        &kubepkg_controller::resource::api_resource(),
    );
    let given = packages
        .list_metadata(
            &ListParams::default().labels(&format!("{}={rollout}", kubepkg_fleet::ROLLOUT_LABEL)),
        )
        .await
        .context("listing the rollout's Packages")?;
    let mut out = Vec::new();
    for s in registered.items {
        let labels = s.labels().clone();
        if !spec
            .clusters
            .as_ref()
            .is_none_or(|sel| sel.matches(&labels))
        {
            continue;
        }
        let name = s.name_any();
        let package = kubepkg_fleet::package_name(rollout, &name);
        let change = match given.items.iter().find(|p| p.name_any() == package) {
            None => "new",
            Some(p)
                if p.annotations()
                    .get(kubepkg_fleet::DIGEST_ANNOTATION)
                    .map(String::as_str)
                    == Some(digest) =>
            {
                "unchanged"
            }
            Some(_) => "changes",
        };
        out.push(Member {
            stage: kubepkg_fleet::decide::stage_of(stages, &labels),
            name,
            labels,
            change,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The package plan of cluster `m`'s Package-to-be against that cluster.
async fn cluster_plan(
    kube: &kubepkg_kube::Cluster,
    rollout: &str,
    spec: &RolloutSpec,
    m: &Member,
) -> Result<kubepkg_package::plan::Plan> {
    let namespace = kube.namespace.clone();
    let package_spec: PackageSpec =
        serde_json::from_value(Value::Object(spec.package_for(&m.labels, &m.name)))
            .context("the rollout's package spec")?;
    let scratch = Scratch(super::package::scratch_dir()?);
    let home = scratch.0.join("charts");
    let paths = kubepkg_source::HelmPaths::resolve(|v| {
        (v == "HOME").then(|| home.to_string_lossy().into_owned())
    });
    let http = kubepkg_controller::source::HttpClient::new()?;
    let fetched = match &package_spec.source.source_ref {
        Some(r) => kubepkg_controller::flux_source::fetch(&kube.client, &namespace, r, &http).await,
        None => {
            kubepkg_controller::source::fetch(
                &kube.client,
                &namespace,
                &package_spec.source,
                &http,
                &scratch.0.join("oci-cache"),
                &paths,
            )
            .await
        }
    }
    .map_err(|e| anyhow!(kubepkg_engine::error::report(&e)))?;
    let mut loaded = kubepkg_controller::loaded::load(&fetched, scratch.0.join("load"), &paths)
        .await
        .map_err(|e| anyhow!(kubepkg_engine::error::report(&e)))?;
    package_spec.add_post_renderers(&mut loaded.package)?;
    let user = kubepkg_controller::values::resolve(&kube.client, &namespace, &package_spec, None)
        .await?
        .user;
    let r = KubeConfigSecretRef {
        name: m.name.clone(),
        key: None,
        namespace: None,
    };
    let target = kubepkg_controller::target::remote(
        kube,
        &Default::default(),
        &namespace,
        &r,
        &Default::default(),
    )
    .await
    .map_err(|e| anyhow!(kubepkg_engine::error::report(&e)))?;
    let caps = ops::capabilities(&target.cluster).await;
    let timeout = std::time::Duration::from_secs(60);
    let kc = KubeCluster::with_sink(target.cluster, caps, timeout, Printer::text().sink());
    let instance = Instance {
        name: &kubepkg_fleet::package_name(rollout, &m.name),
        namespace: &namespace,
    };
    Ok(super::package::cluster_plan(&kc, &loaded.package, instance, &user).await?)
}
