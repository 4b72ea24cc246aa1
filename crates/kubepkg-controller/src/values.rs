//! A Package's values as the engine's user values: each `spec.valuesFrom` entry in order
//! (a Secret's or ConfigMap's key, `values.yaml` by default, read as a `-f` file), then
//! `spec.values` above them — all below the command line's sources, which the controller has
//! none of (docs/rules.md#values-precedence).

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use kubepkg_model::values::{UserValues, ValuesError};
use kubepkg_package_object::{PackageSpec, ValuesFrom};
use sha2::Digest as _;

/// The key a `valuesFrom` entry reads when it names none (as Flux's).
pub const DEFAULT_VALUES_KEY: &str = "values.yaml";

/// The user values of a Package, and the text they were made from (for the digest that says
/// whether they changed since the last apply).
#[derive(Debug, Clone)]
pub struct Resolved {
    pub user: UserValues,
    /// `spec.values` and every `valuesFrom` text read, in order, as one canonical string.
    pub fingerprint: String,
    /// The digest of `spec.valuesOnce` (recorded in the status once applied).
    pub once_digest: Option<String>,
}

/// Why a Package's values could not be read. Each names the object and key.
#[derive(Debug, thiserror::Error)]
pub enum ValuesFromError {
    #[error(
        "spec.valuesFrom: {kind} {namespace}/{name} not found; create it or mark the entry optional: true"
    )]
    NotFound {
        kind: String,
        namespace: String,
        name: String,
    },
    #[error(
        "spec.valuesFrom: {kind} {namespace}/{name} has no key {key:?}; add it or mark the entry optional: true"
    )]
    MissingKey {
        kind: String,
        namespace: String,
        name: String,
        key: String,
    },
    #[error("spec.valuesFrom: {kind} {namespace}/{name} key {key:?} is not UTF-8 text")]
    NotText {
        kind: String,
        namespace: String,
        name: String,
        key: String,
    },
    #[error("spec.valuesFrom: kind {0:?} is not Secret or ConfigMap")]
    Kind(String),
    #[error("spec.valuesFrom: reading {kind} {namespace}/{name}")]
    Api {
        kind: String,
        namespace: String,
        name: String,
        #[source]
        source: Box<kubepkg_kube::KubeError>,
    },
    #[error(transparent)]
    Values(#[from] ValuesError),
}

impl ValuesFromError {
    /// True when the cluster could not be asked (retry later), not when the spec is wrong.
    pub fn is_transient(&self) -> bool {
        matches!(self, ValuesFromError::Api { .. })
    }
}

/// Reads `spec.valuesFrom` from `namespace` and adds `spec.values` above it, and
/// `spec.valuesOnce` above all unless it was already applied (`once_applied`: the digest the
/// status recorded for the values once applied).
pub async fn resolve(
    client: &kube::Client,
    namespace: &str,
    spec: &PackageSpec,
    once_applied: Option<&str>,
) -> Result<Resolved, ValuesFromError> {
    let mut user = UserValues::new();
    let mut fingerprint = String::new();
    for entry in &spec.values_from {
        let namespace = entry.namespace.as_deref().unwrap_or(namespace);
        let Some(text) = read(client, namespace, entry).await? else {
            continue;
        };
        let key = entry.key.as_deref().unwrap_or(DEFAULT_VALUES_KEY);
        let name = format!("{} {namespace}/{} key {key}", entry.kind, entry.name);
        user.add_package_values_from(&name, &text)?;
        fingerprint.push_str(&name);
        fingerprint.push('\n');
        fingerprint.push_str(&text);
        fingerprint.push('\n');
    }
    if !spec.values.is_empty() {
        user.add_package_spec(spec.values.clone());
        fingerprint.push_str(&serde_json::Value::Object(spec.values.clone()).to_string());
    }
    // The once values count in the fingerprint whether they are applied or not, so that
    // leaving them out after their one apply is not a change.
    let mut once_digest = None;
    if !spec.values_once.is_empty() {
        let text = serde_json::Value::Object(spec.values_once.clone()).to_string();
        let d = crate::source::hex(&sha2::Sha256::digest(text.as_bytes()));
        if once_applied != Some(d.as_str()) {
            user.add_package_values_once(spec.values_once.clone());
        }
        fingerprint.push_str("\nvaluesOnce ");
        fingerprint.push_str(&d);
        once_digest = Some(d);
    }
    Ok(Resolved {
        user,
        fingerprint,
        once_digest,
    })
}

/// The text of one entry; `None` when it is optional and absent.
async fn read(
    client: &kube::Client,
    namespace: &str,
    entry: &ValuesFrom,
) -> Result<Option<String>, ValuesFromError> {
    let key = entry
        .key
        .as_deref()
        .unwrap_or(DEFAULT_VALUES_KEY)
        .to_string();
    let optional = entry.optional.unwrap_or(false);
    let named = |kind: &str| (kind.to_string(), namespace.to_string(), entry.name.clone());
    let api_err = |e: kube::Error| {
        let (kind, namespace, name) = named(&entry.kind);
        ValuesFromError::Api {
            source: Box::new(kubepkg_kube::KubeError::refused(
                "get",
                format!("{kind} {namespace}/{name}"),
                e,
            )),
            kind,
            namespace,
            name,
        }
    };
    let bytes: Option<Option<Vec<u8>>> = match entry.kind.as_str() {
        "Secret" => Api::<Secret>::namespaced(client.clone(), namespace)
            .get_opt(&entry.name)
            .await
            .map_err(api_err)?
            .map(|s| s.data.and_then(|d| d.get(&key).map(|b| b.0.clone()))),
        "ConfigMap" => Api::<ConfigMap>::namespaced(client.clone(), namespace)
            .get_opt(&entry.name)
            .await
            .map_err(api_err)?
            .map(|c| {
                c.data
                    .and_then(|d| d.get(&key).map(|s| s.clone().into_bytes()))
            }),
        other => return Err(ValuesFromError::Kind(other.to_string())),
    };
    let (kind, namespace, name) = named(&entry.kind);
    match bytes {
        None if optional => Ok(None),
        None => Err(ValuesFromError::NotFound {
            kind,
            namespace,
            name,
        }),
        Some(None) if optional => Ok(None),
        Some(None) => Err(ValuesFromError::MissingKey {
            kind,
            namespace,
            name,
            key,
        }),
        Some(Some(b)) => String::from_utf8(b)
            .map(Some)
            .map_err(|_| ValuesFromError::NotText {
                kind,
                namespace,
                name,
                key,
            }),
    }
}
