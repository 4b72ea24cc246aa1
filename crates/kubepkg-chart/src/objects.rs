//! The Go objects templates reach besides plain maps: `.Files` (Helm's `engine.files`, a map of
//! file name to bytes with `Get`, `GetBytes`, `Glob`, `Lines`, `AsConfig`, `AsSecrets`) and
//! `.Capabilities` (`KubeVersion` with `Version`/`Major`/`Minor`/`GitVersion`, `APIVersions`
//! with `Has`, and `HelmVersion`).

use crate::file_data::FileData;
use crate::pattern::glob_pattern;
use base64::Engine as _;
use kubepkg_value::{GoObject, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// `.Files`: the chart's non-template files, each read from disk when a template first asks
/// for its contents ([`FileData`]).
#[derive(Debug, Clone, Default)]
pub struct Files {
    files: Arc<BTreeMap<String, FileData>>,
}

impl Files {
    /// Files keyed by chart-relative name.
    pub fn new(files: BTreeMap<String, FileData>) -> Files {
        Files {
            files: Arc::new(files),
        }
    }

    fn get_bytes(&self, name: &str) -> Arc<[u8]> {
        self.files
            .get(name)
            .map_or_else(|| Arc::from(&[][..]), |f| f.bytes().clone())
    }

    fn glob(&self, pattern: &str) -> Files {
        let re = glob_pattern(pattern).unwrap_or_else(|_| glob_pattern("**").expect("glob"));
        Files::new(
            self.files
                .iter()
                .filter(|(k, _)| re.is_match(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    fn as_yaml(&self, f: impl Fn(&[u8]) -> String) -> String {
        let mut m = BTreeMap::new();
        for (k, v) in self.files.iter() {
            let base = k.rsplit('/').next().unwrap_or(k).to_string();
            m.insert(base, Value::str(f(v)));
        }
        if m.is_empty() {
            // Helm's toYAML of an empty map is "{}".
            return "{}".into();
        }
        kubepkg_yaml::to_yaml(&Value::map(m))
            .map(|s| s.strip_suffix('\n').map(str::to_string).unwrap_or(s))
            .unwrap_or_default()
    }

    fn lines(&self, name: &str) -> Value {
        let data = self.get_bytes(name);
        if data.is_empty() {
            return Value::List(Arc::new(Vec::new()), kubepkg_value::ElemType::String);
        }
        let mut s = String::from_utf8_lossy(&data).into_owned();
        if s.ends_with('\n') {
            s.pop();
        }
        Value::str_list(s.split('\n'))
    }
}

impl GoObject for Files {
    fn type_name(&self) -> &str {
        "engine.files"
    }
    fn kind(&self) -> &str {
        "map"
    }
    fn go_len(&self) -> Option<usize> {
        Some(self.files.len())
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(
            name,
            "Get" | "GetBytes" | "Glob" | "Lines" | "AsConfig" | "AsSecrets"
        )
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let want = match name {
            "AsConfig" | "AsSecrets" => 0,
            _ => 1,
        };
        if args.len() != want {
            return Err(format!(
                "wrong number of args for {name}: want {want} got {}",
                args.len()
            ));
        }
        let arg = || match &args[0] {
            Value::String(s) => Ok(s.to_string()),
            other => Err(format!(
                "wrong type for value; expected string; got {}",
                other.type_name()
            )),
        };
        Ok(match name {
            "Get" => Value::str(String::from_utf8_lossy(&self.get_bytes(&arg()?))),
            "GetBytes" => Value::Bytes(self.get_bytes(&arg()?)),
            "Glob" => Value::Object(Arc::new(self.glob(&arg()?))),
            "Lines" => self.lines(&arg()?),
            "AsConfig" => Value::str(self.as_yaml(|b| String::from_utf8_lossy(b).into_owned())),
            "AsSecrets" => {
                Value::str(self.as_yaml(|b| base64::engine::general_purpose::STANDARD.encode(b)))
            }
            _ => return Err(format!("can't call method/function {name:?}")),
        })
    }
    fn format_v(&self) -> String {
        let inner: Vec<String> = self
            .files
            .iter()
            .map(|(k, v)| {
                let bytes: Vec<String> = v.iter().map(|b| b.to_string()).collect();
                format!("{k}:[{}]", bytes.join(" "))
            })
            .collect();
        format!("map[{}]", inner.join(" "))
    }
    fn to_plain(&self) -> Value {
        Value::map(
            self.files
                .iter()
                .map(|(k, v)| (k.clone(), Value::Bytes(v.bytes().clone())))
                .collect(),
        )
    }
}

/// `.Capabilities.KubeVersion`.
#[derive(Debug, Clone)]
pub struct KubeVersion {
    /// The version as given, `v`-prefixed (`v1.33.4-gke.1245000`).
    pub version: String,
    /// `v` and the version's numbers (`String()`; used for constraints and printing).
    pub normalized: String,
    pub major: String,
    pub minor: String,
}

impl KubeVersion {
    /// Helm's `ParseKubeVersion` over Kubernetes' generic version parser: optional leading
    /// space and `v`, two or more dot-separated numbers (the first without a leading zero), then
    /// anything on the same line. The normalized form (what `String()` and constraint checks
    /// see) is `v` and the numbers as parsed (`1.29` stays `v1.29`, `1.30.1+k3s1` is `v1.30.1`).
    pub fn parse(version: &str) -> Result<KubeVersion, String> {
        let s = version.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
        let s = s.strip_prefix('v').unwrap_or(s);
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len());
        // The numbers are `[0-9]+(\.[0-9]+)*`: a trailing dot belongs to the rest.
        let mut nums = &s[..end];
        while nums.ends_with('.') || nums.contains("..") {
            let cut = nums.rfind('.').unwrap_or(0);
            nums = &nums[..cut];
        }
        let rest = &s[nums.len()..];
        if nums.is_empty() || !nums.starts_with(|c: char| c.is_ascii_digit()) || rest.contains('\n')
        {
            return Err(format!("could not parse {version:?} as version"));
        }
        let parts: Vec<&str> = nums.split('.').collect();
        if parts.len() < 2 {
            return Err(format!("illegal version string {version:?}"));
        }
        let mut numbers = Vec::with_capacity(parts.len());
        for (i, p) in parts.iter().enumerate() {
            if i == 0 && p.starts_with('0') && *p != "0" {
                return Err(format!(
                    "illegal zero-prefixed version component {p:?} in {version:?}"
                ));
            }
            let n = p.parse::<u64>().map_err(|_| {
                format!(
                    "illegal non-numeric version component {p:?} in {version:?}: strconv.ParseUint: parsing {p:?}: value out of range"
                )
            })?;
            numbers.push(n.to_string());
        }
        let git = if version.starts_with('v') {
            version.to_string()
        } else {
            format!("v{version}")
        };
        Ok(KubeVersion {
            version: git,
            normalized: format!("v{}", numbers.join(".")),
            major: numbers[0].clone(),
            minor: numbers[1].clone(),
        })
    }

    /// Helm's default for `helm template`: v1.37.0 (client-go 0.37 plus one major).
    pub fn helm_default() -> KubeVersion {
        KubeVersion {
            version: "v1.37.0".into(),
            normalized: "v1.37.0".into(),
            major: "1".into(),
            minor: "37".into(),
        }
    }
}

impl GoObject for KubeVersion {
    fn type_name(&self) -> &str {
        "common.KubeVersion"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::str(&self.version)),
            "Major" => Some(Value::str(&self.major)),
            "Minor" => Some(Value::str(&self.minor)),
            "GitVersion" => Some(Value::str(&self.version)),
            "String" => Some(Value::str(&self.normalized)),
            _ => None,
        }
    }
    /// Go's `%v` of the struct (a copy, so its pointer-receiver `String()` is not used):
    /// `{Version normalizedVersion Major Minor}`. Printed directly by a template it is
    /// `String()` (see the `String` field).
    fn format_v(&self) -> String {
        format!(
            "{{{} {} {} {}}}",
            self.version, self.normalized, self.major, self.minor
        )
    }
    fn to_plain(&self) -> Value {
        let mut m = BTreeMap::new();
        m.insert("Version".into(), Value::str(&self.version));
        m.insert("Major".into(), Value::str(&self.major));
        m.insert("Minor".into(), Value::str(&self.minor));
        Value::map(m)
    }
}

/// `.Capabilities.APIVersions` (`common.VersionSet`).
#[derive(Debug, Clone)]
pub struct VersionSet(pub Arc<Vec<String>>);

impl GoObject for VersionSet {
    fn type_name(&self) -> &str {
        "common.VersionSet"
    }
    fn kind(&self) -> &str {
        "slice"
    }
    fn go_len(&self) -> Option<usize> {
        Some(self.0.len())
    }
    fn has_method(&self, name: &str) -> bool {
        name == "Has"
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        if name != "Has" {
            return Err(format!("can't call method/function {name:?}"));
        }
        match args {
            [Value::String(s)] => Ok(Value::Bool(self.0.iter().any(|v| v == &**s))),
            [other] => Err(format!(
                "wrong type for value; expected string; got {}",
                other.type_name()
            )),
            _ => Err(format!(
                "wrong number of args for Has: want 1 got {}",
                args.len()
            )),
        }
    }
    fn format_v(&self) -> String {
        format!("[{}]", self.0.join(" "))
    }
    fn to_plain(&self) -> Value {
        Value::str_list(self.0.iter())
    }
}

/// `.Capabilities.HelmVersion` (`version.BuildInfo`), reported as Helm v4.3.1.
#[derive(Debug, Clone)]
pub struct HelmVersion;

impl GoObject for HelmVersion {
    fn type_name(&self) -> &str {
        "version.BuildInfo"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::str(HELM_VERSION)),
            "GitCommit" | "GitTreeState" => Some(Value::str("")),
            "GoVersion" => Some(Value::str("go1.26.8")),
            "KubeClientVersion" => Some(Value::str("v1.37")),
            _ => None,
        }
    }
    fn format_v(&self) -> String {
        format!("{{{HELM_VERSION}   go1.26.8 v1.37}}")
    }
    fn to_plain(&self) -> Value {
        let mut m = BTreeMap::new();
        m.insert("version".into(), Value::str(HELM_VERSION));
        m.insert("go_version".into(), Value::str("go1.26.8"));
        m.insert("kube_client_version".into(), Value::str("v1.37"));
        Value::map(m)
    }
}

/// The Helm release kubepkg's rendering is compatible with.
pub const HELM_VERSION: &str = "v4.3.1";

/// `.Capabilities`.
#[derive(Debug, Clone)]
pub struct Capabilities {
    pub kube_version: KubeVersion,
    pub api_versions: VersionSet,
}

/// Helm's default API version set (the client-go scheme's group versions), generated by
/// `tools/helm-ref/capabilities`.
pub fn default_api_versions() -> Vec<String> {
    include_str!("default_api_versions.txt")
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

impl Capabilities {
    /// Defaults plus `extra` API versions, with an optional Kubernetes version.
    pub fn new(kube_version: Option<KubeVersion>, extra: &[String]) -> Capabilities {
        let mut v = default_api_versions();
        v.extend(extra.iter().cloned());
        Capabilities {
            kube_version: kube_version.unwrap_or_else(KubeVersion::helm_default),
            api_versions: VersionSet(Arc::new(v)),
        }
    }
}

impl GoObject for Capabilities {
    fn type_name(&self) -> &str {
        "*common.Capabilities"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "KubeVersion" => Some(Value::Object(Arc::new(self.kube_version.clone()))),
            "APIVersions" => Some(Value::Object(Arc::new(self.api_versions.clone()))),
            "HelmVersion" => Some(Value::Object(Arc::new(HelmVersion))),
            _ => None,
        }
    }
    fn format_v(&self) -> String {
        format!(
            "&{{{} {} {}}}",
            self.kube_version.format_v(),
            self.api_versions.format_v(),
            HelmVersion.format_v()
        )
    }
    fn to_plain(&self) -> Value {
        let mut m = BTreeMap::new();
        m.insert("KubeVersion".into(), self.kube_version.to_plain());
        m.insert("APIVersions".into(), self.api_versions.to_plain());
        m.insert("HelmVersion".into(), HelmVersion.to_plain());
        Value::map(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values printed by `helm template --kube-version V` (v4.3.1) for
    /// `{{ .Capabilities.KubeVersion }}`, `.Version`, `.Major` and `.Minor`.
    #[test]
    fn kube_version_parses_as_helm() {
        let cases = [
            ("1.29", "v1.29", "v1.29", "1", "29"),
            ("1.29.3", "v1.29.3", "v1.29.3", "1", "29"),
            (
                "v1.33.4-gke.1245000",
                "v1.33.4",
                "v1.33.4-gke.1245000",
                "1",
                "33",
            ),
            ("1.30.1+k3s1", "v1.30.1", "v1.30.1+k3s1", "1", "30"),
        ];
        for (input, normalized, version, major, minor) in cases {
            let kv = KubeVersion::parse(input).expect(input);
            assert_eq!(
                (
                    kv.normalized.as_str(),
                    kv.version.as_str(),
                    kv.major.as_str(),
                    kv.minor.as_str()
                ),
                (normalized, version, major, minor),
                "{input}"
            );
        }
    }

    #[test]
    fn kube_version_rejects_what_kubernetes_rejects() {
        for bad in ["notaversion", "1", "v", "01.2", "1..2", "1.2\nx", ""] {
            assert!(KubeVersion::parse(bad).is_err(), "{bad:?} should not parse");
        }
        // Helm's texts after "invalid kube version 'V': ".
        assert_eq!(
            KubeVersion::parse("01.2").unwrap_err(),
            r#"illegal zero-prefixed version component "01" in "01.2""#
        );
        assert_eq!(
            KubeVersion::parse("1..2").unwrap_err(),
            r#"illegal version string "1..2""#
        );
        assert!(KubeVersion::parse("1.2.3.4").is_ok());
    }

    /// `quote .Capabilities.KubeVersion` (a copy: Go's `%v` of the struct) and
    /// `{{ .Capabilities.KubeVersion }}` (`String()`), as helm v4.3.1 prints them.
    #[test]
    fn kube_version_prints_as_go() {
        let kv = KubeVersion::parse("v1.30.4-gke.1245000").unwrap();
        assert_eq!(kv.format_v(), "{v1.30.4-gke.1245000 v1.30.4 1 30}");
        assert!(matches!(kv.field("String"), Some(Value::String(s)) if &*s == "v1.30.4"));
        let caps = Capabilities::new(Some(KubeVersion::parse("1.29").unwrap()), &[]);
        assert!(
            caps.format_v()
                .starts_with("&{{v1.29 v1.29 1 29} [v1 admissionregistration.k8s.io/v1 ")
        );
    }

    /// Sprig's list functions see `.Capabilities.APIVersions`, a named `[]string`, as a slice
    /// (as Go's reflection does).
    #[test]
    fn list_functions_see_named_slices_as_slices() {
        let funcs = kubepkg_funcs::helm_functions();
        let call = |name: &str, args: &[Value]| {
            let f = funcs.iter().find(|f| f.name == name).expect(name);
            (f.call)(args)
        };
        let versions = Value::Object(Arc::new(VersionSet(Arc::new(vec![
            "v1".to_string(),
            "apps/v1".to_string(),
        ]))));
        assert_eq!(
            call("has", &[Value::str("apps/v1"), versions.clone()]),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            call("first", std::slice::from_ref(&versions)),
            Ok(Value::str("v1"))
        );
        assert_eq!(
            call("join", &[Value::str(","), versions]),
            Ok(Value::str("v1,apps/v1"))
        );
    }
}
