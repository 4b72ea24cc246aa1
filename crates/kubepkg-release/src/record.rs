//! Helm's release record (`helm.sh/helm/v3 pkg/release`, `helm.sh/helm/v4 pkg/release/v1`)
//! as plain Rust data with exactly Helm's JSON field names and omission rules.
//!
//! Helm 3 and Helm 4 differ only in how they write zero timestamps (Helm 3 writes `""`,
//! Helm 4 omits the field) and in Helm 4's additions (`apply_method`, `output_log_policies`,
//! file `modtime`). Reading accepts both; writing follows Helm 4 (zero times omitted), which
//! Helm 3 reads back as zero times. Fields this crate does not model are kept verbatim in
//! `extra` maps so a record written by a newer Helm survives a round trip through kubepkg.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// `Chart.yaml` (`chart.Metadata`) and its parts: the chart crate's one model, whose serde form
/// is Helm's JSON for them.
pub use kubepkg_chart::metadata::{Dependency, Maintainer, Metadata};

/// Prefix of the storage object's name: `sh.helm.release.v1.<name>.v<revision>`.
pub const STORAGE_PREFIX: &str = "sh.helm.release.v1";
/// Type of the Secret that holds a release record.
pub const SECRET_TYPE: &str = "helm.sh/release.v1";

/// One revision of one release: what was deployed, from which chart, with which values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Release {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chart: Option<Chart>,
    /// User-supplied values only (what `helm get values` prints without `--all`).
    #[serde(
        skip_serializing_if = "Map::is_empty",
        serialize_with = "sorted_map",
        deserialize_with = "null_as_default"
    )]
    pub config: Map<String, Value>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub hooks: Vec<Hook>,
    /// The revision number (Helm calls it `version`).
    #[serde(skip_serializing_if = "is_zero")]
    pub version: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Custom labels; never in the JSON body, stored as labels of the storage object.
    #[serde(skip)]
    pub labels: BTreeMap<String, String>,
    /// `ssa` or `csa` (Helm 4); empty means client-side apply.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub apply_method: String,
    /// Fields written by another Helm version that this crate does not model.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Release {
    /// The release's status, `unknown` when it has no info.
    pub fn status(&self) -> Status {
        self.info
            .as_ref()
            .map(|i| i.status.clone())
            .unwrap_or(Status::Unknown)
    }

    /// Sets status and description, creating the info block if missing (Helm's `SetStatus`).
    pub fn set_status(&mut self, status: Status, description: impl Into<String>) {
        let info = self.info.get_or_insert_with(Info::default);
        info.status = status;
        info.description = description.into();
    }

    /// Chart name and version as `helm list` shows it (`name-version`).
    pub fn chart_label(&self) -> String {
        match self.chart.as_ref().and_then(|c| c.metadata.as_ref()) {
            Some(m) => format!("{}-{}", m.name, m.version),
            None => String::new(),
        }
    }

    /// App version from the chart metadata, empty when absent.
    pub fn app_version(&self) -> &str {
        self.chart
            .as_ref()
            .and_then(|c| c.metadata.as_ref())
            .map(|m| m.app_version.as_str())
            .unwrap_or("")
    }
}

/// Release information: times, status, description and notes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Info {
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub first_deployed: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub last_deployed: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub deleted: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Status::is_empty")]
    pub status: Status,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub notes: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The chart as stored inside a release (Helm's `chart.Chart`): metadata, lock, templates,
/// default values, schema and other files. Go writes nil slices/maps as `null`, so do we.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Chart {
    pub metadata: Option<Metadata>,
    pub lock: Option<Lock>,
    pub templates: Option<Vec<File>>,
    #[serde(serialize_with = "sorted_opt_map")]
    pub values: Option<Map<String, Value>>,
    #[serde(with = "go_bytes_opt")]
    pub schema: Option<Vec<u8>>,
    /// Modification time of `values.schema.json` (Helm 4; omitted when zero).
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub schemamodtime: Option<jiff::Timestamp>,
    pub files: Option<Vec<File>>,
    /// Modification time of the chart (Helm 4; omitted when zero).
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub modtime: Option<jiff::Timestamp>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Chart.lock` as a stored release holds it. Not the chart crate's `Lock`: a record read
/// back must write the same bytes, so `generated` stays the JSON value Helm wrote and a nil
/// dependency list (`null`) stays apart from an empty one; the entries are the one model's
/// [`Dependency`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Lock {
    /// Go writes a zero `generated` time as `0001-01-01T00:00:00Z`; kept verbatim.
    pub generated: Value,
    pub digest: String,
    pub dependencies: Option<Vec<Dependency>>,
}

/// A file of the chart: name relative to the chart root and its bytes (base64 in JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct File {
    pub name: String,
    #[serde(with = "go_bytes")]
    pub data: Vec<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "go_time")]
    pub modtime: Option<jiff::Timestamp>,
}

/// A hook of the release: a manifest run at given events, outside the normal apply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hook {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Chart-relative template path, e.g. `mychart/templates/job.yaml`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub events: Vec<HookEvent>,
    pub last_run: HookExecution,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub weight: i64,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub delete_policies: Vec<HookDeletePolicy>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub output_log_policies: Vec<HookOutputLogPolicy>,
}

/// The last execution of a hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookExecution {
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub started_at: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none", with = "go_time")]
    pub completed_at: Option<jiff::Timestamp>,
    /// Always written, `""` when the hook never ran.
    pub phase: HookPhase,
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vm])* $variant,)*
            /// A value this version of kubepkg does not know; kept verbatim.
            Other(String),
        }
        impl $name {
            /// The exact string Helm uses.
            pub fn as_str(&self) -> &str {
                match self { $(Self::$variant => $text,)* Self::Other(s) => s }
            }
            /// Parses Helm's string; unknown strings become `Other`.
            pub fn parse(s: &str) -> Self {
                match s { $($text => Self::$variant,)* other => Self::Other(other.to_string()) }
            }
        }
        /// What an absent or empty value reads as: the empty string, kept as `Other`.
        impl Default for $name {
            fn default() -> Self { Self::Other(String::new()) }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(self.as_str()) }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = Option::<String>::deserialize(d)?.unwrap_or_default();
                Ok(Self::parse(&s))
            }
        }
    };
}

string_enum! {
    /// Release status (Helm's `release.Status`).
    Status {
        /// `unknown`
        Unknown => "unknown",
        Deployed => "deployed",
        Uninstalled => "uninstalled",
        Superseded => "superseded",
        Failed => "failed",
        Uninstalling => "uninstalling",
        PendingInstall => "pending-install",
        PendingUpgrade => "pending-upgrade",
        PendingRollback => "pending-rollback",
    }
}

impl Status {
    /// True for the transitional states that mean "an operation is under way".
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            Status::PendingInstall | Status::PendingUpgrade | Status::PendingRollback
        )
    }
    fn is_empty(&self) -> bool {
        self.as_str().is_empty()
    }
}

string_enum! {
    /// When a hook runs.
    HookEvent {
        PreInstall => "pre-install",
        PostInstall => "post-install",
        PreDelete => "pre-delete",
        PostDelete => "post-delete",
        PreUpgrade => "pre-upgrade",
        PostUpgrade => "post-upgrade",
        PreRollback => "pre-rollback",
        PostRollback => "post-rollback",
        Test => "test",
    }
}

impl HookEvent {
    /// Parses an event of the `helm.sh/hook` annotation; `test-success` is Helm's old name of `test`.
    pub fn from_annotation(s: &str) -> Option<Self> {
        match s.trim() {
            "test-success" => Some(HookEvent::Test),
            other => match HookEvent::parse(other) {
                HookEvent::Other(_) => None,
                known => Some(known),
            },
        }
    }
}

string_enum! {
    /// When a hook's objects are deleted.
    HookDeletePolicy {
        HookSucceeded => "hook-succeeded",
        HookFailed => "hook-failed",
        BeforeHookCreation => "before-hook-creation",
    }
}

string_enum! {
    /// When a hook's pod logs are copied to the output (Helm 4).
    HookOutputLogPolicy {
        OnSucceeded => "hook-succeeded",
        OnFailed => "hook-failed",
    }
}

string_enum! {
    /// The state of a hook execution.
    HookPhase {
        Unknown => "Unknown",
        Running => "Running",
        Succeeded => "Succeeded",
        Failed => "Failed",
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}
fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// `null` (Go's nil slice or map) read as the empty value.
fn null_as_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A JSON value whose object keys serialize in Go's order (sorted), as Go's `json.Marshal`
/// writes a `map[string]interface{}`.
pub struct Sorted<'a>(pub &'a Value);

impl Serialize for Sorted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match self.0 {
            Value::Object(m) => sorted_map(m, s),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Sorted(item))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

fn sorted_map<S: Serializer>(m: &Map<String, Value>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    let mut out = s.serialize_map(Some(keys.len()))?;
    for k in keys {
        out.serialize_entry(k, &Sorted(&m[k]))?;
    }
    out.end()
}

fn sorted_opt_map<S: Serializer>(m: &Option<Map<String, Value>>, s: S) -> Result<S::Ok, S::Error> {
    match m {
        Some(m) => sorted_map(m, s),
        None => s.serialize_none(),
    }
}

/// Go `time.Time` as JSON: RFC 3339 with nanoseconds; Helm 3 writes a zero time as `""`,
/// Go itself as `0001-01-01T00:00:00Z`. Both read as "no time".
pub mod go_time {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<jiff::Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.collect_str(t),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<jiff::Timestamp>, D::Error> {
        let raw = Option::<String>::deserialize(d)?.unwrap_or_default();
        parse(&raw).map_err(D::Error::custom)
    }

    /// Parses Go's time text; empty or Go's zero time give `None`.
    pub fn parse(raw: &str) -> Result<Option<jiff::Timestamp>, String> {
        if raw.is_empty() {
            return Ok(None);
        }
        let t: jiff::Timestamp = raw
            .parse()
            .map_err(|e| format!("invalid time {raw:?}: {e}"))?;
        if t.as_second() == GO_ZERO_UNIX {
            return Ok(None);
        }
        Ok(Some(t))
    }

    /// Unix seconds of Go's zero time, 0001-01-01T00:00:00Z.
    const GO_ZERO_UNIX: i64 = -62_135_596_800;
}

/// Go `[]byte` as JSON: standard base64 with padding.
mod go_bytes {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(b))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let raw = Option::<String>::deserialize(d)?.unwrap_or_default();
        decode(&raw)
    }
    pub fn decode<E: serde::de::Error>(raw: &str) -> Result<Vec<u8>, E> {
        STANDARD.decode(raw.as_bytes()).map_err(E::custom)
    }
}

/// Go `[]byte` that may be nil (`null`).
mod go_bytes_opt {
    use super::*;

    pub fn serialize<S: Serializer>(b: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match b {
            Some(b) => go_bytes::serialize(b, s),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|raw| go_bytes::decode(&raw))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_strings_are_helms() {
        for (s, text) in [
            (Status::PendingInstall, "pending-install"),
            (Status::PendingUpgrade, "pending-upgrade"),
            (Status::PendingRollback, "pending-rollback"),
            (Status::Uninstalling, "uninstalling"),
            (Status::Superseded, "superseded"),
        ] {
            assert_eq!(s.as_str(), text);
            assert_eq!(Status::parse(text), s);
        }
        assert!(Status::PendingRollback.is_pending());
        assert!(!Status::Deployed.is_pending());
        assert_eq!(Status::parse("weird"), Status::Other("weird".into()));
    }

    #[test]
    fn hook_event_annotation_accepts_test_success_alias() {
        assert_eq!(
            HookEvent::from_annotation(" test-success"),
            Some(HookEvent::Test)
        );
        assert_eq!(
            HookEvent::from_annotation("pre-upgrade"),
            Some(HookEvent::PreUpgrade)
        );
        assert_eq!(HookEvent::from_annotation("crd-install"), None);
    }

    #[test]
    fn helm3_empty_times_read_as_none_and_zero_time_too() {
        let info: Info = serde_json::from_str(
            r#"{"first_deployed":"2024-01-02T03:04:05.5+09:00","last_deployed":"0001-01-01T00:00:00Z","deleted":"","status":"deployed"}"#,
        )
        .unwrap();
        assert_eq!(
            info.first_deployed.unwrap().to_string(),
            "2024-01-01T18:04:05.5Z"
        );
        assert_eq!(info.last_deployed, None);
        assert_eq!(info.deleted, None);
        assert_eq!(info.status, Status::Deployed);
    }

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let raw = r#"{"name":"a","future_field":{"x":1},"version":3}"#;
        let r: Release = serde_json::from_str(raw).unwrap();
        assert_eq!(r.extra["future_field"]["x"], 1);
        let back = serde_json::to_value(&r).unwrap();
        assert_eq!(back["future_field"]["x"], 1);
    }
}
