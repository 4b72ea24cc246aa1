//! One namespace per test, deleted when the test passes.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use kube::api::{Api, DeleteParams, LogParams, PostParams};
use kube::core::{DynamicObject, NamespaceResourceScope};
use kube::{Client, Resource};

use crate::error::Error;
use crate::plane::{ControlPlane, control_plane};
use crate::wait::wait_for;

/// Label put on every namespace the test kit creates.
pub const TEST_LABEL: &str = "kubepkg.dev/test";

/// A namespace of its own for one test, with a client to the control plane.
///
/// Dropping it deletes the namespace, unless the test is failing (panicking)
/// or `KUBEPKG_TESTKIT_KEEP` is set: then its name is printed and it is kept
/// for inspection.
pub struct TestNamespace {
    plane: ControlPlane,
    client: Client,
    name: String,
}

impl std::fmt::Debug for TestNamespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestNamespace")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

static SEQUENCE: AtomicU32 = AtomicU32::new(0);

/// A DNS-label namespace name from the test's name and a unique suffix.
fn namespace_name(test: &str) -> String {
    let mut stem: String = test
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    stem.truncate(40);
    let stem = stem.trim_matches('-');
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let unique = (std::process::id() as u64) << 32
        | u64::from(nanos ^ SEQUENCE.fetch_add(1, Ordering::Relaxed).rotate_left(16));
    let suffix = format!("{:x}", unique % 0xff_ffff);
    if stem.is_empty() {
        format!("t-{suffix}")
    } else {
        format!("t-{stem}-{suffix}")
    }
}

impl TestNamespace {
    /// Starts or attaches to the control plane, then creates a fresh
    /// namespace named after `test` and waits until pods can be created in
    /// it (its `default` ServiceAccount exists).
    pub async fn new(test: &str) -> Result<Self, Error> {
        TestNamespace::named_in(control_plane()?, &namespace_name(test)).await
    }

    /// [`TestNamespace::new`] for a test that cannot go on without it: fails the test, saying
    /// why, when the control plane cannot be started or reached or the namespace created.
    pub async fn fresh(test: &str) -> Self {
        Self::new(test)
            .await
            .unwrap_or_else(|e| panic!("test namespace {test:?} on the control plane: {e}"))
    }

    /// The namespace `name` on `plane` (another control plane's namespace of the same name
    /// as one of the first: where a remote Package's components go), created as [`Self::new`]
    /// creates one and deleted with it.
    pub async fn named_in(plane: ControlPlane, name: &str) -> Result<Self, Error> {
        let client = plane.client().await?;
        let name = name.to_string();
        let mut ns = Namespace::default();
        ns.metadata.name = Some(name.clone());
        ns.metadata.labels = Some([(TEST_LABEL.to_string(), "true".to_string())].into());
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await
            .map_err(|source| Error::Kube {
                what: format!("creating namespace {name}"),
                source,
            })?;
        let sa = Api::<ServiceAccount>::namespaced(client.clone(), &name);
        wait_for(
            &sa,
            "default",
            Duration::from_secs(60),
            &format!("the default ServiceAccount of namespace {name}"),
            |_| true,
        )
        .await?;
        Ok(TestNamespace {
            plane,
            client,
            name,
        })
    }

    /// The namespace's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The admin client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The control plane.
    pub fn plane(&self) -> &ControlPlane {
        &self.plane
    }

    /// A typed API for a namespaced kind in this namespace.
    pub fn api<K>(&self) -> Api<K>
    where
        K: Resource<Scope = NamespaceResourceScope>,
        <K as Resource>::DynamicType: Default,
    {
        Api::namespaced(self.client.clone(), &self.name)
    }

    /// Server-side applies every object of a YAML stream as the test kit's
    /// field manager, namespaced objects without a namespace landing in
    /// this one. See [`crate::apply_yaml`].
    pub async fn apply_yaml(&self, yaml: &str) -> Result<Vec<DynamicObject>, Error> {
        crate::apply::apply_yaml(
            &self.client,
            Some(&self.name),
            yaml,
            crate::FIELD_MANAGER,
            false,
        )
        .await
    }

    /// The log of a container of a pod in this namespace (the first
    /// container when `container` is `None`).
    pub async fn pod_logs(&self, pod: &str, container: Option<&str>) -> Result<String, Error> {
        let params = LogParams {
            container: container.map(str::to_string),
            ..LogParams::default()
        };
        self.api::<Pod>()
            .logs(pod, &params)
            .await
            .map_err(|source| Error::Kube {
                what: format!("reading the log of pod {}/{pod}", self.name),
                source,
            })
    }
}

impl Drop for TestNamespace {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("KUBEPKG_TESTKIT_KEEP").is_some() {
            eprintln!(
                "kubepkg-testkit: keeping namespace {} for inspection (kubeconfig {}, logs in {})",
                self.name,
                self.plane.kubeconfig().display(),
                self.plane.logs_dir().display()
            );
            return;
        }
        // Drop cannot await, and the test's runtime may be shutting down:
        // delete from a thread with a runtime and a client of its own.
        let name = self.name.clone();
        let deleted = crate::plane::on_own_runtime(&self.plane, move |client| async move {
            Api::<Namespace>::all(client)
                .delete(&name, &DeleteParams::background())
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        if let Err(e) = deleted {
            eprintln!(
                "kubepkg-testkit: could not delete namespace {}: {e}",
                self.name
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::namespace_name;

    #[test]
    fn namespace_names_are_dns_labels() {
        let name = namespace_name("Deployment_becomes::Available/through ReplicaSets");
        assert!(name.len() <= 63, "{name}");
        assert!(
            name.starts_with("t-deployment-becomes--available"),
            "{name}"
        );
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{name}"
        );
        assert!(!name.ends_with('-'), "{name}");
        assert_ne!(namespace_name("same"), namespace_name("same"));
        assert!(namespace_name("___").starts_with("t-"));
    }
}
