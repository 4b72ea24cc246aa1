//! The plan of a `Package` spec, changing nothing: the package fetched and loaded as the
//! controller does (`kubepkg_controller::source`, `::loaded`), with the spec's post-renderers
//! and values, planned as `kubepkg plan --cluster` plans against the cluster it would be
//! applied in (the spec's `kubeConfig` target, else the one the spec is read in). Used by
//! `kubepkg rollout plan` (the spec a rollout gives one cluster) and by the dashboard's plan
//! view (a Package object's current spec).

use anyhow::{Context as _, Result, anyhow};
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_package_object::{KubeConfigSecretRef, PackageSpec};

use crate::progress::Printer;

/// The plan of package instance `name` with `spec`, whose source and values are read in
/// `kube`'s namespace, planned against `target` (a kubeconfig Secret there) or else `kube`.
pub(super) async fn plan(
    kube: &kubepkg_kube::Cluster,
    name: &str,
    spec: &PackageSpec,
    target: Option<&KubeConfigSecretRef>,
) -> Result<kubepkg_package::plan::Plan> {
    let namespace = kube.namespace.clone();
    let scratch = super::package::scratch_dir()?;
    let home = scratch.path().join("charts");
    let paths = kubepkg_source::HelmPaths::resolve(|v| {
        (v == "HOME").then(|| home.to_string_lossy().into_owned())
    });
    let http = kubepkg_controller::source::HttpClient::new()?;
    let fetched = match &spec.source.source_ref {
        Some(r) => kubepkg_controller::flux_source::fetch(&kube.client, &namespace, r, &http).await,
        None => {
            kubepkg_controller::source::fetch(
                &kube.client,
                &namespace,
                &spec.source,
                &http,
                &scratch.path().join("oci-cache"),
                &paths,
            )
            .await
        }
    }
    .map_err(|e| anyhow!(kubepkg_engine::error::report(&e)))?;
    let mut loaded =
        kubepkg_controller::loaded::load(&fetched, scratch.path().join("load"), &paths)
            .await
            .map_err(|e| anyhow!(kubepkg_engine::error::report(&e)))?;
    spec.add_post_renderers(&mut loaded.package)?;
    let user = kubepkg_controller::values::resolve(&kube.client, &namespace, spec, None)
        .await
        .context("the spec's values")?
        .user;
    let cluster = match target {
        Some(r) => {
            kubepkg_controller::target::remote(
                kube,
                &Default::default(),
                &namespace,
                r,
                &Default::default(),
            )
            .await
            .map_err(|e| anyhow!(kubepkg_engine::error::report(&e)))?
            .cluster
        }
        None => kube.clone(),
    };
    let caps = ops::capabilities(&cluster).await;
    let timeout = std::time::Duration::from_secs(60);
    let kc = KubeCluster::with_sink(cluster, caps, timeout, Printer::text().sink());
    let instance = Instance {
        name,
        namespace: &namespace,
    };
    Ok(super::package::cluster_plan(&kc, &loaded.package, instance, &user).await?)
}

/// The dashboard's [`kubepkg_dashboard::Planner`]: the plan of a Package object's current
/// spec, as `kubepkg plan --cluster` prints it (no colour, Secret values masked).
pub(crate) fn dashboard_planner() -> kubepkg_dashboard::Planner {
    std::sync::Arc::new(|p: kubepkg_dashboard::PlanFor| {
        Box::pin(async move {
            let spec = serde_json::from_value(p.object)
                .and_then(|o| kubepkg_controller::resource::spec_of(&o))
                .map_err(|e| format!("the Package's spec: {e}"))?;
            let target = spec.kube_config.as_ref().map(|k| k.secret_ref.clone());
            plan(&p.kube, &p.name, &spec, target.as_ref())
                .await
                .map(|plan| crate::present::plan::render_text(&plan, true))
                .map_err(|e| format!("{e:#}"))
        })
    })
}
