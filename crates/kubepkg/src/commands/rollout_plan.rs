//! `kubepkg rollout plan NAME`: what the rollout's current spec would do, changing nothing.
//! Per stage, each registered cluster it takes and whether that cluster's Package changes
//! (`new`: the rollout gave it no Package yet; `changes`: its Package has another spec;
//! `unchanged`); then the package plan of the first cluster that changes, as `kubepkg plan
//! --cluster` prints it against that cluster (`spec_plan`: the package fetched and loaded as
//! the controller does, with that cluster's values and the rollout's post-renderers).

use anyhow::{Context as _, Result, anyhow};
use k8s_openapi::api::core::v1::Secret;
use kube::ResourceExt;
use kube::api::{Api, DynamicObject, ListParams};
use kubepkg_engine::{Instance, ops};
use kubepkg_fleet::spec::RolloutSpec;
use kubepkg_package_object::{KubeConfigSecretRef, PackageSpec};
use serde_json::{Value, json};

use super::print_structured;
use crate::cli::RolloutPlanArgs;
use crate::exit::Exit;
use crate::format::Format;
use crate::present::plan::render_styled;
use crate::settings::Settings;

/// One registered cluster as the rollout sees it.
struct Member {
    name: String,
    labels: std::collections::BTreeMap<String, String>,
    stage: Option<usize>,
    change: &'static str,
}

/// The rollout's spec: from `--filename` (which must be the PackageRollout NAME), else from the
/// cluster.
async fn rollout_spec(
    kube: Option<&kubepkg_kube::Cluster>,
    a: &RolloutPlanArgs,
) -> Result<RolloutSpec> {
    let name = &a.rollout.name;
    let data = match (&a.filename, kube) {
        (Some(file), _) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("reading {}", file.display()))?;
            let v = kubepkg_yaml::from_yaml_str(&text)
                .map_err(|e| anyhow!("{}: {e}", file.display()))?;
            let v = kubepkg_chart::schema::value_to_json(&v);
            if v["kind"] != json!(kubepkg_fleet::KIND) || v["metadata"]["name"] != json!(name) {
                anyhow::bail!(
                    "{}: not the PackageRollout {name} (kind {}, name {})",
                    file.display(),
                    v["kind"],
                    v["metadata"]["name"]
                );
            }
            v
        }
        (None, Some(kube)) => {
            let o = super::rollout_object::get(kube, name).await?;
            json!({"spec": o.data.get("spec").cloned().unwrap_or(Value::Null)})
        }
        (None, None) => anyhow::bail!("--offline needs the rollout: --filename FILE"),
    };
    serde_json::from_value(data.get("spec").cloned().unwrap_or(Value::Null))
        .with_context(|| format!("PackageRollout {name}: its spec does not read"))
}

/// `rollout plan --offline`: the stages by their selectors and the package's plan as a first
/// install, with the rollout's `package.values` (its `valuesFrom` and `clusterValues` need the
/// cluster and are left out, which the output says).
pub async fn offline(a: &RolloutPlanArgs, settings: &Settings) -> Result<Exit> {
    let name = &a.rollout.name;
    let spec = rollout_spec(None, a).await?;
    let stages = spec
        .check()
        .map_err(|e| anyhow!("PackageRollout {name}: {e}"))?;
    let package_spec: PackageSpec = serde_json::from_value(Value::Object(spec.package.clone()))
        .context("the rollout's package spec")?;
    let (path, source_args) = match (&a.package, &package_spec.source.oci) {
        (Some(p), _) => (p.clone(), crate::cli::PackageSourceArgs::default()),
        (None, Some(oci)) => (
            std::path::PathBuf::from(oci),
            crate::cli::PackageSourceArgs {
                version: package_spec.source.version.clone(),
                ..Default::default()
            },
        ),
        (None, None) => anyhow::bail!(
            "--offline plans the package named by --package PACKAGE (the rollout's source is read by the controller in the cluster; only an oci source is read without it)"
        ),
    };
    let mut loaded = super::package::load(&path, &source_args, settings).await?;
    package_spec.add_post_renderers(&mut loaded.package)?;
    let mut user = kubepkg_model::values::UserValues::new();
    if !package_spec.values.is_empty() {
        user.add_package_spec(package_spec.values.clone());
    }
    let namespace = settings.offline_namespace();
    let instance = Instance {
        name,
        namespace: &namespace,
    };
    let plan = ops::plan_offline(&loaded.package, instance, &user)?;
    let selectors: Vec<String> = stages
        .iter()
        .map(|s| match &s.selector {
            Some(sel) => serde_json::to_string(sel).unwrap_or_default(),
            None => "every cluster no earlier stage takes".into(),
        })
        .collect();
    if a.rollout.output == Format::Json {
        let stages: Vec<Value> = stages
            .iter()
            .zip(&selectors)
            .map(|(s, sel)| json!({"name": s.name, "selector": sel}))
            .collect();
        let out = json!({"rollout": name, "digest": spec.digest(), "stages": stages, "plan": plan});
        print_structured(out, Format::Json, String::new)?;
        return Ok(Exit::Succeeded);
    }
    println!(
        "PackageRollout {name} (digest {}), offline: which clusters each stage takes is known in the managing cluster",
        spec.digest()
    );
    for (s, sel) in stages.iter().zip(&selectors) {
        println!("  stage {}: {sel}", s.name);
    }
    let left_out = match (
        package_spec.values_from.is_empty(),
        spec.cluster_values.is_empty(),
    ) {
        (true, true) => String::new(),
        _ => " (valuesFrom and clusterValues are read in the cluster: left out)".into(),
    };
    println!("\nThe plan of the package as a first install, with package.values{left_out}:\n");
    print!(
        "{}",
        render_styled(&plan, !a.no_diff, settings.terminal.stdout)
    );
    Ok(Exit::Succeeded)
}

pub async fn plan(
    kube: &kubepkg_kube::Cluster,
    a: &RolloutPlanArgs,
    settings: &Settings,
) -> Result<Exit> {
    let name = &a.rollout.name;
    let spec = rollout_spec(Some(kube), a).await?;
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
    let package_spec: PackageSpec =
        serde_json::from_value(Value::Object(spec.package_for(&m.labels, &m.name)))
            .context("the rollout's package spec")?;
    let target = KubeConfigSecretRef {
        name: m.name.clone(),
        key: None,
        namespace: None,
    };
    let name = kubepkg_fleet::package_name(rollout, &m.name);
    super::spec_plan::plan(kube, &name, &package_spec, Some(&target)).await
}
