//! `Package` objects in tests: their API, the CRD installed once and served, and package
//! archives stored in ConfigMaps the way the controller reads them (`binaryData.package.tgz`).

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, PostParams};

use crate::{Error, TestNamespace};

/// The `Package` API (`kubepkg.dev/v1alpha1`, `packages`) of `ns`.
pub fn package_api(ns: &TestNamespace) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("kubepkg.dev", "v1alpha1", "Package");
    Api::namespaced_with(
        ns.client().clone(),
        ns.name(),
        &ApiResource::from_gvk_with_plural(&gvk, "packages"),
    )
}

/// Applies the CRD `crd` (the text of `packages.kubepkg.dev.yaml`; idempotent) and waits
/// until Packages can be listed.
pub async fn install_package_crd(ns: &TestNamespace, crd: &str) -> Result<(), Error> {
    let _adding = crate::API_SET.read().await;
    crate::apply_yaml(ns.client(), None, crd, crate::FIELD_MANAGER, true).await?;
    let api = package_api(ns);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match api.list(&Default::default()).await {
            Ok(_) => return Ok(()),
            Err(source) if Instant::now() > deadline => {
                return Err(Error::Kube {
                    what: "listing Packages after installing their CRD".into(),
                    source,
                });
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The `.tgz` of a package directory, as `tar czf ARCHIVE -C DIR .` makes it.
pub fn package_archive(dir: &Path) -> std::io::Result<Vec<u8>> {
    crate::tree::tar_gz(|tar| tar.append_dir_all(".", dir))
}

/// A ConfigMap `name` of `ns` holding `bytes` as `binaryData.package.tgz` (replaced if it
/// exists).
pub async fn store_package_archive(
    ns: &TestNamespace,
    name: &str,
    bytes: Vec<u8>,
) -> Result<(), Error> {
    let api: Api<ConfigMap> = ns.api();
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.to_string());
    cm.binary_data = Some([("package.tgz".to_string(), ByteString(bytes))].into());
    let _ = api.delete(name, &DeleteParams::default()).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match api.create(&PostParams::default(), &cm).await {
            Ok(_) => return Ok(()),
            // The deleted one may still be there for a moment.
            Err(kube::Error::Api(s)) if s.code == 409 && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(source) => {
                return Err(Error::Kube {
                    what: format!("creating ConfigMap {name}"),
                    source,
                });
            }
        }
    }
}
