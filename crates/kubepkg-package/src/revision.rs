//! Package revisions: what kubepkg records in the cluster after each apply
//! (docs/rules.md#revisions).
//!
//! One revision per apply that changes something, in the spirit of Helm's release records: the
//! package version, the manifest digest, the values the user gave (per component) and their
//! digest, and each component's release name, namespace and release revision. Hooks are never
//! recorded. A rollback is a new revision. Statuses are Helm's (`deployed`, `failed`,
//! `superseded`, `pending-upgrade`, …).
//!
//! Storage mirrors Helm's: one Secret per revision named `kubepkg.package.v1.<name>.v<revision>`,
//! of type `kubepkg.dev/package.v1`, in the package's namespace, labelled `owner=kubepkg`,
//! `name`, `status` and `version`, whose `package` key holds the record as gzip-compressed JSON
//! in base64 (the bytes the API server then stores base64-encoded again, as Helm's do).
//!
//! A record keeps the [`Reason`] its run ended with and the kstatus [`Condition`]s its state
//! implied when it was written ([`crate::conditions`] computes them).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use kubepkg_model::Backend;
use kubepkg_model::manifest::{PackageSource, ReadyCondition, digest};
use kubepkg_model::values::ValueLayer;

use crate::verdict::Verdict;

/// Secret type of package revision records.
pub const SECRET_TYPE: &str = "kubepkg.dev/package.v1";
/// Key of the record inside the Secret's data.
pub const SECRET_KEY: &str = "package";

/// Status of a package revision, spelled as Helm spells release statuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RevisionStatus {
    /// The default: a record that says nothing of its state.
    #[default]
    Unknown,
    /// The current revision, fully applied and ready.
    Deployed,
    /// Replaced by a later deployed revision.
    Superseded,
    /// The apply failed (kept for diagnosis; `UpgradeFailed` or `InstallFailed`).
    Failed,
    /// Being uninstalled.
    Uninstalling,
    /// Uninstalled (kept with `--keep-history`).
    Uninstalled,
    /// First install in progress.
    PendingInstall,
    /// Upgrade in progress.
    PendingUpgrade,
    /// Rollback in progress.
    PendingRollback,
}

impl RevisionStatus {
    /// Helm's spelling (`pending-upgrade`).
    pub fn as_str(self) -> &'static str {
        match self {
            RevisionStatus::Unknown => "unknown",
            RevisionStatus::Deployed => "deployed",
            RevisionStatus::Superseded => "superseded",
            RevisionStatus::Failed => "failed",
            RevisionStatus::Uninstalling => "uninstalling",
            RevisionStatus::Uninstalled => "uninstalled",
            RevisionStatus::PendingInstall => "pending-install",
            RevisionStatus::PendingUpgrade => "pending-upgrade",
            RevisionStatus::PendingRollback => "pending-rollback",
        }
    }

    /// Whether an apply is (or was, if it crashed) in progress.
    pub fn is_pending(self) -> bool {
        matches!(
            self,
            RevisionStatus::PendingInstall
                | RevisionStatus::PendingUpgrade
                | RevisionStatus::PendingRollback
                | RevisionStatus::Uninstalling
        )
    }
}

/// The reason an apply ended with (docs/package-object.md#reasons); revisions record it by
/// name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    Succeeded,
    RequirementsNotMet,
    UpgradeFailed,
    RolledBack,
    InstallFailed,
    /// A `PreUpgrade` check hook reported the verdict `refused`: nothing else changed.
    UpgradeRefused,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Succeeded => "Succeeded",
            Reason::RequirementsNotMet => "RequirementsNotMet",
            Reason::UpgradeFailed => "UpgradeFailed",
            Reason::RolledBack => "RolledBack",
            Reason::InstallFailed => "InstallFailed",
            Reason::UpgradeRefused => "UpgradeRefused",
        }
    }
}

/// One condition, as `metav1.Condition`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    /// `"True"` or `"False"`.
    pub status: String,
    pub reason: String,
    #[serde(default)]
    pub message: String,
    /// RFC 3339 time the status last changed.
    #[serde(default)]
    pub last_transition_time: String,
}

impl Condition {
    pub(crate) fn new(type_: &str, status: bool, reason: &str, message: &str) -> Condition {
        Condition {
            type_: type_.to_string(),
            status: if status { "True" } else { "False" }.to_string(),
            reason: reason.to_string(),
            message: message.to_string(),
            last_transition_time: String::new(),
        }
    }

    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
}

/// One component's state in a revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentRecord {
    pub name: String,
    /// Helm release name.
    pub release: String,
    pub namespace: String,
    /// Helm release revision this package revision runs (0 if never applied).
    pub revision: u64,
    /// Chart name-version, for history output.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub chart: String,
    /// The component's `readyWhen` in this revision, so a rollback to it waits for the same gates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ready_when: Vec<ReadyCondition>,
    /// The backend that applied the component (`None` in records written before kubepkg kept
    /// it, and for a component never applied), so rollback, uninstall and status act through
    /// the same one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<Backend>,
    /// The post-renderers the component was rendered with, in order (`plugin NAME ARGS…`,
    /// `patches`): empty when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub post_renderers: Vec<String>,
    /// The components it depends on directly (`install.dependsOn` and the implied order), so a
    /// revision's graph can be drawn without its package (the dashboard); empty in records
    /// written before kubepkg kept it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
}

/// A package revision record. Its default is an empty record of status `unknown` (a base for
/// records built field by field, such as tests').
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageRevision {
    /// Package instance name (the `Package` object / CLI NAME).
    pub name: String,
    /// Namespace the record lives in.
    pub namespace: String,
    /// 1, 2, 3, … per package instance.
    pub revision: u64,
    /// `package.name` of the manifest.
    pub package: String,
    /// `package.version` (SemVer 2).
    pub version: String,
    /// `sha256:<hex>` of kubepkg.yaml.
    pub manifest_digest: String,
    /// Where the package came from when it was pulled from a registry: the reference, the tag
    /// `--version` resolved to and the manifest digest. `None` for a local package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PackageSource>,
    /// The values the user gave, per component (`-f`/`--set`, not package or chart defaults).
    #[serde(default)]
    pub values: BTreeMap<String, Map<String, Value>>,
    /// `sha256:<hex>` of `values` as canonical JSON (sorted keys).
    pub values_digest: String,
    /// Where `values` came from: each user source (`-f` file, `--set-json`, `--set`,
    /// `--set-string`, `--set-file`, `spec.values`) in the order applied, with what it set, for
    /// `kubepkg values --explain`. Empty in records written before kubepkg kept it (they still
    /// read; their values are then explained as a whole).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub value_sources: Vec<ValueLayer>,
    /// `rollback.safe` of this version (None: not declared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_safe: Option<bool>,
    /// `rollback.to` of this version: its rollback floor, the constraint every older version
    /// that runs again must satisfy (None: not declared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_to: Option<String>,
    /// Components in apply order; hooks are never recorded.
    pub components: Vec<ComponentRecord>,
    pub status: RevisionStatus,
    /// Human summary, as Helm's `info.description` ("Install complete", "Rollback to 3", …).
    #[serde(default)]
    pub description: String,
    /// The reason the revision ended with (docs/package-object.md#reasons), stored as its
    /// name (`Succeeded`, `UpgradeFailed`, …); `None` while a run is under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// RFC 3339 time of the first deployment of this package instance.
    #[serde(default)]
    pub first_deployed: String,
    /// RFC 3339 time of this revision.
    #[serde(default)]
    pub last_deployed: String,
    /// kstatus conditions (`Ready`, `Reconciling`, `Stalled`) of this revision's state, as of
    /// when it was recorded ([`crate::conditions`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The `PreUpgrade` hooks this revision's apply ran to completion, each with the versions
    /// it moved between, recorded as soon as each completed: a run that recovers this revision
    /// after a crash does not run them again (docs/rules.md#preupgrade-hooks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks_completed: Vec<HookRun>,
    /// The verdicts `PreUpgrade` hooks of this run reported (docs/rules.md#verdicts-from-hooks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook_verdicts: Vec<Verdict>,
    /// This version's `PreRollback` hooks, kept with their charts so that a later manual
    /// rollback away from this revision can run them (docs/rules.md#prerollback-hooks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rollback_hooks: Vec<RollbackHook>,
    /// While the revision is pending: the components its run has yet to apply (or is applying),
    /// in order, their release revision not recorded yet; `status` and the dashboard show them
    /// after `components`. Empty once the run ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to_apply: Vec<ComponentRecord>,
}

/// A `PreRollback` hook as a revision keeps it: its release, the values it is given (package
/// defaults and the user's, without `kubepkg.*`) and its chart archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RollbackHook {
    pub name: String,
    pub release: String,
    pub namespace: String,
    #[serde(default)]
    pub values: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ready_when: Vec<ReadyCondition>,
    /// The chart as a `.tgz`, base64-encoded.
    pub chart: String,
}

/// The most chart bytes (all `PreRollback` hooks of a revision together) a revision keeps.
pub const MAX_ROLLBACK_HOOK_BYTES: usize = 256 * 1024;

/// A `PreUpgrade` hook that ran to completion for an upgrade between two versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRun {
    /// The hook component's name.
    pub name: String,
    /// The version the package moved from (the deployed one).
    pub from_version: String,
    /// The version it moved to.
    pub to_version: String,
}

impl PackageRevision {
    /// The Secret name of this revision.
    pub fn secret_name(&self) -> String {
        secret_name(&self.name, self.revision)
    }

    /// The component record named `name`.
    pub fn component(&self, name: &str) -> Option<&ComponentRecord> {
        self.components.iter().find(|c| c.name == name)
    }

    /// Parsed version, if it is valid SemVer.
    pub fn semver(&self) -> Option<kubepkg_semver::Version> {
        kubepkg_semver::Version::parse_strict(&self.version).ok()
    }
}

/// `kubepkg.package.v1.<name>.v<revision>`.
pub fn secret_name(name: &str, revision: u64) -> String {
    format!("kubepkg.package.v1.{name}.v{revision}")
}

/// The labels of a revision Secret (Helm's `owner`, `name`, `status`, `version`).
pub fn secret_labels(rev: &PackageRevision) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("owner".to_string(), "kubepkg".to_string()),
        ("name".to_string(), rev.name.clone()),
        ("status".to_string(), rev.status.as_str().to_string()),
        ("version".to_string(), rev.revision.to_string()),
    ])
}

/// The label selector that lists one package instance's revisions.
pub fn secret_selector(name: &str) -> String {
    format!("owner=kubepkg,name={name}")
}

/// A revision Secret as plain data; the cluster layer turns it into a `v1.Secret`.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionSecret {
    pub name: String,
    pub namespace: String,
    pub type_: String,
    pub labels: BTreeMap<String, String>,
    /// `data` (raw bytes; the API encodes them as base64).
    pub data: BTreeMap<String, Vec<u8>>,
}

/// Errors decoding a stored revision.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    /// The Secret lacks the `package` key.
    #[error("Secret {secret} has no {SECRET_KEY:?} key; it is not a kubepkg package revision")]
    MissingKey { secret: String },
    /// The Secret has another type.
    #[error("Secret {secret} has type {found:?}, expected {SECRET_TYPE}")]
    WrongType { secret: String, found: String },
    /// The payload is damaged.
    #[error("Secret {secret} holds a damaged package revision: {reason}")]
    Corrupt { secret: String, reason: String },
}

/// `sha256:<hex>` of values as canonical JSON (keys sorted at every level).
pub fn values_digest(values: &BTreeMap<String, Map<String, Value>>) -> String {
    let canonical = canonical_json(&Value::Object(
        values
            .iter()
            .map(|(k, v)| (k.clone(), Value::Object(v.clone())))
            .collect(),
    ));
    digest(canonical.as_bytes())
}

/// JSON text with sorted keys (independent of map insertion order).
pub fn canonical_json(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::to_string(k).unwrap_or_default(),
                        canonical_json(&m[k])
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", parts.join(","))
        }
        other => other.to_string(),
    }
}

/// Encodes a record as the Secret's `package` value: base64(gzip(JSON)) ([`kubepkg_record`]).
pub fn encode(rev: &PackageRevision) -> Vec<u8> {
    let json = serde_json::to_vec(rev).unwrap_or_default();
    kubepkg_record::encode(&json).into_bytes()
}

/// Decodes the Secret's `package` value (`secret` names it in errors). Like Helm, a payload
/// that is not gzip-compressed is read as plain JSON ([`kubepkg_record::decode`]).
pub fn decode(secret: &str, payload: &[u8]) -> Result<PackageRevision, RevisionError> {
    let corrupt = |reason: String| RevisionError::Corrupt {
        secret: secret.to_string(),
        reason,
    };
    let json = kubepkg_record::decode(payload).map_err(|e| corrupt(e.to_string()))?;
    serde_json::from_slice(&json).map_err(|e| corrupt(format!("bad JSON: {e}")))
}

/// The Secret that stores `rev`.
pub fn to_secret(rev: &PackageRevision) -> RevisionSecret {
    RevisionSecret {
        name: rev.secret_name(),
        namespace: rev.namespace.clone(),
        type_: SECRET_TYPE.to_string(),
        labels: secret_labels(rev),
        data: BTreeMap::from([(SECRET_KEY.to_string(), encode(rev))]),
    }
}

/// Reads a revision back from its Secret.
pub fn from_secret(secret: &RevisionSecret) -> Result<PackageRevision, RevisionError> {
    if secret.type_ != SECRET_TYPE {
        return Err(RevisionError::WrongType {
            secret: secret.name.clone(),
            found: secret.type_.clone(),
        });
    }
    let payload = secret
        .data
        .get(SECRET_KEY)
        .ok_or_else(|| RevisionError::MissingKey {
            secret: secret.name.clone(),
        })?;
    decode(&secret.name, payload)
}

/// A package instance's history, ordered by revision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub revisions: Vec<PackageRevision>,
}

impl History {
    /// Builds a history from records in any order.
    pub fn new(mut revisions: Vec<PackageRevision>) -> History {
        revisions.sort_by_key(|r| r.revision);
        History { revisions }
    }

    /// The highest revision, whatever its status.
    pub fn latest(&self) -> Option<&PackageRevision> {
        self.revisions.last()
    }

    /// The revision currently deployed (the latest with status `deployed`).
    pub fn deployed(&self) -> Option<&PackageRevision> {
        self.revisions
            .iter()
            .rev()
            .find(|r| r.status == RevisionStatus::Deployed)
    }

    /// The revision numbered `n`.
    pub fn get(&self, n: u64) -> Option<&PackageRevision> {
        self.revisions.iter().find(|r| r.revision == n)
    }

    /// The number the next revision gets.
    pub fn next_revision(&self) -> u64 {
        self.latest().map_or(1, |r| r.revision + 1)
    }

    /// The revision an argument-less `kubepkg rollback` goes back to: the one before the
    /// deployed (or latest) revision that was ever deployed successfully.
    pub fn rollback_target(&self) -> Option<&PackageRevision> {
        let current = self.deployed().or(self.latest())?.revision;
        self.revisions.iter().rev().find(|r| {
            r.revision < current
                && matches!(
                    r.status,
                    RevisionStatus::Superseded | RevisionStatus::Deployed
                )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> PackageRevision {
        let mut values = BTreeMap::new();
        values.insert(
            "operator".to_string(),
            json!({"replicas": 2, "image": {"tag": "v1"}})
                .as_object()
                .cloned()
                .unwrap(),
        );
        PackageRevision {
            source: None,
            name: "kv".into(),
            namespace: "kubepkg-system".into(),
            revision: 7,
            package: "kubevirt".into(),
            version: "1.4.0".into(),
            manifest_digest: "sha256:00".into(),
            values_digest: values_digest(&values),
            value_sources: Vec::new(),
            values,
            rollback_safe: Some(false),
            rollback_to: None,
            components: vec![
                ComponentRecord {
                    name: "operator".into(),
                    release: "kv-operator".into(),
                    namespace: "kubevirt".into(),
                    revision: 4,
                    chart: "kubevirt-operator-1.4.0".into(),
                    ready_when: vec![],
                    backend: None,
                    post_renderers: Vec::new(),
                    depends_on: Vec::new(),
                },
                ComponentRecord {
                    name: "kubevirt".into(),
                    release: "kv-kubevirt".into(),
                    namespace: "kubevirt".into(),
                    revision: 3,
                    chart: String::new(),
                    ready_when: vec![],
                    backend: None,
                    post_renderers: Vec::new(),
                    depends_on: Vec::new(),
                },
            ],
            status: RevisionStatus::Deployed,
            description: "Upgrade complete".into(),
            reason: Some(Reason::Succeeded),
            first_deployed: "2026-01-01T00:00:00Z".into(),
            last_deployed: "2026-01-02T00:00:00Z".into(),
            conditions: crate::conditions::invalid_package("x", "2026-01-02T00:00:00Z"),
            hooks_completed: Vec::new(),
            hook_verdicts: Vec::new(),
            rollback_hooks: Vec::new(),
            to_apply: Vec::new(),
        }
    }

    #[test]
    fn secret_round_trip() {
        let rev = sample();
        let s = to_secret(&rev);
        assert_eq!(s.name, "kubepkg.package.v1.kv.v7");
        assert_eq!(s.type_, "kubepkg.dev/package.v1");
        assert_eq!(s.namespace, "kubepkg-system");
        assert_eq!(
            s.labels,
            BTreeMap::from([
                ("name".to_string(), "kv".to_string()),
                ("owner".to_string(), "kubepkg".to_string()),
                ("status".to_string(), "deployed".to_string()),
                ("version".to_string(), "7".to_string()),
            ])
        );
        // base64 of gzip: starts with "H4sI" like Helm's release payloads.
        assert!(s.data["package"].starts_with(b"H4sI"));
        assert_eq!(from_secret(&s).unwrap(), rev);
    }

    #[test]
    fn json_field_names_are_stable() {
        let v: Value = serde_json::to_value(sample()).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "name",
                "namespace",
                "revision",
                "package",
                "version",
                "manifestDigest",
                "values",
                "valuesDigest",
                "rollbackSafe",
                "components",
                "status",
                "description",
                "reason",
                "firstDeployed",
                "lastDeployed",
                "conditions"
            ]
        );
        assert_eq!(v["status"], json!("deployed"));
        assert_eq!(
            serde_json::to_value(RevisionStatus::PendingUpgrade).unwrap(),
            json!("pending-upgrade")
        );
    }

    #[test]
    fn a_component_names_its_backend_and_an_older_record_without_one_still_reads() {
        let mut rev = sample();
        rev.components[0].backend = Some(Backend::Flux);
        let v: Value = serde_json::to_value(&rev).unwrap();
        assert_eq!(v["components"][0]["backend"], "flux");
        // Unknown (never applied, or written before kubepkg kept it): left out, read as None.
        assert!(v["components"][1].get("backend").is_none());
        let back: PackageRevision = serde_json::from_value(v).unwrap();
        assert_eq!(back.components[0].backend, Some(Backend::Flux));
        assert_eq!(back.components[1].backend, None);
    }

    #[test]
    fn plain_json_payload_is_accepted_like_helm() {
        let json = serde_json::to_vec(&sample()).unwrap();
        let payload = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, json);
        assert_eq!(decode("x", payload.as_bytes()).unwrap(), sample());
    }

    #[test]
    fn damaged_payloads_are_errors_not_panics() {
        for bad in [&b"!!!"[..], b"H4sIAAAA", b"e30=", b""] {
            let e = decode("kubepkg.package.v1.kv.v1", bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("kubepkg.package.v1.kv.v1"), "{e}");
        }
        let mut s = to_secret(&sample());
        s.type_ = "helm.sh/release.v1".into();
        assert!(matches!(
            from_secret(&s),
            Err(RevisionError::WrongType { .. })
        ));
        s.type_ = SECRET_TYPE.into();
        s.data.clear();
        assert!(matches!(
            from_secret(&s),
            Err(RevisionError::MissingKey { .. })
        ));
    }

    #[test]
    fn values_digest_ignores_key_order() {
        let mut a = BTreeMap::new();
        a.insert(
            "c".to_string(),
            json!({"x": 1, "y": {"b": 1, "a": 2}})
                .as_object()
                .cloned()
                .unwrap(),
        );
        let mut m = Map::new();
        m.insert("y".into(), json!({"a": 2, "b": 1}));
        m.insert("x".into(), json!(1));
        let mut b = BTreeMap::new();
        b.insert("c".to_string(), m);
        assert_eq!(values_digest(&a), values_digest(&b));
        b.get_mut("c").unwrap().insert("x".into(), json!(2));
        assert_ne!(values_digest(&a), values_digest(&b));
    }

    #[test]
    fn history_queries() {
        let mk = |n: u64, status| PackageRevision {
            revision: n,
            status,
            ..sample()
        };
        let h = History::new(vec![
            mk(3, RevisionStatus::Failed),
            mk(1, RevisionStatus::Superseded),
            mk(2, RevisionStatus::Deployed),
        ]);
        assert_eq!(h.latest().unwrap().revision, 3);
        assert_eq!(h.deployed().unwrap().revision, 2);
        assert_eq!(h.next_revision(), 4);
        assert_eq!(h.rollback_target().unwrap().revision, 1);
        assert_eq!(History::default().next_revision(), 1);
        assert!(History::default().rollback_target().is_none());
        assert!(RevisionStatus::PendingUpgrade.is_pending());
        assert!(!RevisionStatus::Failed.is_pending());
    }
}
