//! The PackageRollout object the `rollout` verbs read and write (`rollout.rs`,
//! `rollout_plan.rs`).

use anyhow::{Context as _, Result, bail};
use kube::api::{Api, DynamicObject};

/// The PackageRollouts of `kube`'s namespace.
pub(crate) fn api(kube: &kubepkg_kube::Cluster) -> Api<DynamicObject> {
    Api::namespaced_with(
        kube.client.clone(),
        &kube.namespace,
        &kubepkg_controller::rollout::api_resource(),
    )
}

pub(super) async fn get(kube: &kubepkg_kube::Cluster, name: &str) -> Result<DynamicObject> {
    match api(kube).get_opt(name).await {
        Ok(Some(o)) => Ok(o),
        Ok(None) => bail!(
            "PackageRollout {name} not found in namespace {} (kubectl get packagerollouts -n {} lists them)",
            kube.namespace,
            kube.namespace
        ),
        Err(kube::Error::Api(s)) if s.code == 404 => bail!(
            "the cluster does not serve PackageRollouts: install their CRD (charts/kubepkg-controller/crds/)"
        ),
        Err(e) => Err(e).with_context(|| format!("reading PackageRollout {name}")),
    }
}
