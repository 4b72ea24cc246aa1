//! Helm's `Chart.yaml` rules (`rules/chartfile.go`): the file parses (strictly too), has a
//! name, a valid apiVersion and SemVer version of type string, well-formed maintainers,
//! sources and icon, and no v2-only fields under apiVersion v1.

use std::path::Path;

use kubepkg_chart::metadata::{Metadata, restore_float_text};
use kubepkg_value::{Value, map_read};

use crate::support::{Linter, Severity};
use crate::urls;

const CHART_FILE: &str = "Chart.yaml";

/// Runs the `Chart.yaml` rules of the chart in `dir`.
pub fn lint(linter: &mut Linter, dir: &Path) {
    let path = dir.join(CHART_FILE);
    let is_dir = std::fs::metadata(&path)
        .map(|m| m.is_dir())
        .unwrap_or(false);
    linter.rule(
        Severity::Error,
        CHART_FILE,
        is_dir.then(|| "should be a file, not a directory".to_string()),
    );
    let (md, raw) = match load(&path) {
        Ok(v) => v,
        Err(e) => {
            linter.error(CHART_FILE, format!("unable to parse YAML\n\t{e}"));
            return;
        }
    };
    let text = std::fs::read(&path).unwrap_or_default();
    let strict =
        duplicate_keys(&String::from_utf8_lossy(&text)).or_else(|| strict_unknown_field(&raw));
    linter.rule(
        Severity::Warning,
        CHART_FILE,
        strict.map(|e| format!("failed to strictly parse chart metadata file\n\t{e}")),
    );
    linter.rule(Severity::Error, CHART_FILE, name(&md));
    linter.rule(Severity::Error, CHART_FILE, api_version(&md));
    linter.rule(Severity::Error, CHART_FILE, string_typed(&raw, "version"));
    linter.rule(Severity::Error, CHART_FILE, version(&md));
    linter.rule(
        Severity::Error,
        CHART_FILE,
        string_typed(&raw, "appVersion"),
    );
    linter.rule(Severity::Error, CHART_FILE, maintainers(&md));
    linter.rule(Severity::Error, CHART_FILE, sources(&md));
    linter.rule(
        Severity::Info,
        CHART_FILE,
        md.icon
            .is_empty()
            .then(|| "icon is recommended".to_string()),
    );
    linter.rule(
        Severity::Error,
        CHART_FILE,
        (!md.icon.is_empty() && !urls::is_request_url(&md.icon))
            .then(|| format!("invalid icon URL '{}'", md.icon)),
    );
    linter.rule(
        Severity::Error,
        CHART_FILE,
        (!md.chart_type.is_empty() && md.api_version != "v2").then(|| {
            format!(
                "chart type is not valid in apiVersion '{}'. It is valid in apiVersion 'v2'",
                md.api_version
            )
        }),
    );
    linter.rule(
        Severity::Error,
        CHART_FILE,
        (!md.dependencies.is_empty() && md.api_version != "v2").then(|| {
            format!(
                "dependencies are not valid in the Chart file with apiVersion '{}'. They are valid in apiVersion 'v2'",
                md.api_version
            )
        }),
    );
    linter.rule(
        Severity::Warning,
        CHART_FILE,
        (!strict_semver(&md.version))
            .then(|| format!("version '{}' is not a valid SemVerV2", md.version)),
    );
}

/// `chartutil.LoadChartfile`: the file decoded into the metadata (not validated), and the raw
/// document for the type and strictness checks.
fn load(path: &Path) -> Result<(Metadata, Value), String> {
    let raw = std::fs::read(path).map_err(|e| go_read_error(path, &e))?;
    let text = kubepkg_yaml::text(&raw).map_err(|e| e.to_string())?;
    let v = kubepkg_yaml::from_yaml_str(text).map_err(|e| e.to_string())?;
    let restored = restore_float_text(&v, text);
    let md = Metadata::decode(&restored).map_err(|e| e.to_string())?;
    Ok((md, v))
}

/// Go's `os.ReadFile` error text.
fn go_read_error(path: &Path, e: &std::io::Error) -> String {
    let what = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    let op = if e.kind() == std::io::ErrorKind::IsADirectory {
        "read"
    } else {
        "open"
    };
    format!("{op} {}: {what}", path.display())
}

/// go-yaml v2's strict complaint about top-level keys given twice (`line N: key "k" already
/// set in map`), which `StrictLoadChartfile` reports before any unknown field.
fn duplicate_keys(text: &str) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut dups = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with([' ', '\t', '#', '-']) || line.starts_with("...") {
            continue;
        }
        let Some((key, _)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim_end();
        let key = key
            .strip_prefix('"')
            .and_then(|k| k.strip_suffix('"'))
            .or_else(|| key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))
            .unwrap_or(key);
        if key.is_empty() || key.contains(' ') {
            continue;
        }
        if seen.iter().any(|k| k == key) {
            dups.push(format!(
                "  line {}: key {} already set in map",
                i + 1,
                kubepkg_gostd::strconv::quote(key)
            ));
        } else {
            seen.push(key.to_string());
        }
    }
    (!dups.is_empty()).then(|| {
        format!(
            "error converting YAML to JSON: yaml: unmarshal errors:\n{}",
            dups.join("\n")
        )
    })
}

// The JSON field names of Helm's `chart.Metadata` (shared with the repository index reader),
// `Maintainer` and `Dependency`.
use kubepkg_chart::metadata::METADATA_FIELDS;
const MAINTAINER_FIELDS: &[&str] = &["name", "email", "url"];
const DEPENDENCY_FIELDS: &[&str] = &[
    "name",
    "version",
    "repository",
    "condition",
    "tags",
    "enabled",
    "import-values",
    "alias",
];

/// `chartutil.StrictLoadChartfile`'s complaint, if any: the first key (in the sorted order
/// the YAML-to-JSON conversion writes) that no field takes, matched as `encoding/json` matches
/// them ([`kubepkg_gostd::json::names_field`]).
fn strict_unknown_field(raw: &Value) -> Option<String> {
    use kubepkg_gostd::json::names_field;
    let unknown = |v: &Value, fields: &[&str]| -> Option<String> {
        let Value::Map(m) = v else { return None };
        map_read(m)
            .keys()
            .find(|k| !fields.iter().any(|f| names_field(k, f)))
            .cloned()
    };
    let Value::Map(m) = raw else { return None };
    for (k, v) in map_read(m).iter() {
        if !METADATA_FIELDS.iter().any(|f| names_field(k, f)) {
            return Some(unknown_field(k));
        }
        let nested: Option<&[&str]> = if names_field(k, "maintainers") {
            Some(MAINTAINER_FIELDS)
        } else if names_field(k, "dependencies") {
            Some(DEPENDENCY_FIELDS)
        } else {
            None
        };
        if let (Some(fields), Value::List(items, _)) = (nested, v) {
            for item in items.iter() {
                if let Some(u) = unknown(item, fields) {
                    return Some(unknown_field(&u));
                }
            }
        }
    }
    None
}

fn unknown_field(k: &str) -> String {
    format!(
        "error unmarshaling JSON: while decoding JSON: json: unknown field {}",
        kubepkg_gostd::strconv::quote(k)
    )
}

/// Go's `%T` of a value decoded from JSON into `interface{}`.
fn go_type(v: &Value) -> &'static str {
    crate::decode::type_names(v).0
}

fn string_typed(raw: &Value, key: &str) -> Option<String> {
    let Value::Map(m) = raw else { return None };
    let m = map_read(m);
    let v = m.get(key)?;
    let t = go_type(v);
    (t != "string").then(|| format!("{key} should be of type string but it's of type {t}"))
}

fn name(md: &Metadata) -> Option<String> {
    if md.name.is_empty() {
        return Some("name is required".into());
    }
    (go_base(&md.name) != md.name).then(|| {
        format!(
            "chart name {} is invalid",
            kubepkg_gostd::strconv::quote(&md.name)
        )
    })
}

/// Go's `filepath.Base`.
fn go_base(p: &str) -> &str {
    if p.is_empty() {
        return ".";
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/";
    }
    t.rsplit('/').next().unwrap_or(t)
}

fn api_version(md: &Metadata) -> Option<String> {
    match md.api_version.as_str() {
        "" => Some("apiVersion is required. The value must be either \"v1\" or \"v2\"".into()),
        "v1" | "v2" => None,
        v => Some(format!(
            "apiVersion '{v}' is not valid. The value must be either \"v1\" or \"v2\""
        )),
    }
}

fn version(md: &Metadata) -> Option<String> {
    if md.version.is_empty() {
        return Some("version is required".into());
    }
    let Ok(v) = kubepkg_semver::Version::parse(&md.version) else {
        return Some(format!("version '{}' is not a valid SemVer", md.version));
    };
    // Masterminds' `>0.0.0-0`: everything above the lowest pre-release of 0.0.0.
    let floor = kubepkg_semver::Version::parse("0.0.0-0").ok()?;
    (v.compare(&floor) != std::cmp::Ordering::Greater)
        .then(|| format!("version {v} is less than or equal to 0.0.0-0"))
}

/// Masterminds' `StrictNewVersion`: `MAJOR.MINOR.PATCH[-PRE][+META]`, numbers without
/// leading zeros, no `v`.
pub(crate) fn strict_semver(v: &str) -> bool {
    if v.is_empty() {
        return false;
    }
    let (rest, meta) = match v.split_once('+') {
        Some((r, m)) => (r, Some(m)),
        None => (v, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (rest, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let num = |p: &str| {
        !p.is_empty()
            && p.bytes().all(|b| b.is_ascii_digit())
            && !(p.len() > 1 && p.starts_with('0'))
            && p.parse::<u64>().is_ok()
    };
    if parts.len() != 3 || !parts.iter().all(|p| num(p)) {
        return false;
    }
    let ident =
        |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if let Some(pre) = pre
        && !pre.split('.').all(|p| {
            ident(p)
                && !(p.bytes().all(|b| b.is_ascii_digit()) && p.len() > 1 && p.starts_with('0'))
        })
    {
        return false;
    }
    if let Some(meta) = meta
        && !meta.split('.').all(ident)
    {
        return false;
    }
    true
}

fn maintainers(md: &Metadata) -> Option<String> {
    for m in &md.maintainers {
        let Some(m) = m else {
            return Some("a maintainer entry is empty".into());
        };
        if m.name.is_empty() {
            return Some("each maintainer requires a name".into());
        }
        if !m.email.is_empty() && !urls::is_email(&m.email) {
            return Some(format!(
                "invalid email '{}' for maintainer '{}'",
                m.email, m.name
            ));
        }
        if !m.url.is_empty() && !urls::is_url(&m.url) {
            return Some(format!(
                "invalid url '{}' for maintainer '{}'",
                m.url, m.name
            ));
        }
    }
    None
}

fn sources(md: &Metadata) -> Option<String> {
    md.sources
        .iter()
        .find(|s| s.is_empty() || !urls::is_request_url(s))
        .map(|s| format!("invalid source URL '{s}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_semver_is_masterminds_strict() {
        for ok in ["1.2.3", "0.1.0", "1.0.0-rc.1", "1.0.0+build.5", "1.0.0-0"] {
            assert!(strict_semver(ok), "{ok}");
        }
        for bad in [
            "v1.2.3", "1.2", "01.2.3", "1.2.3-01", "", "1.2.3.4", "1.2.3-",
        ] {
            assert!(!strict_semver(bad), "{bad}");
        }
    }

    #[test]
    fn base_is_go_filepath_base() {
        assert_eq!(go_base("a/../b"), "b");
        assert_eq!(go_base("name"), "name");
        assert_eq!(go_base("a/"), "a");
    }
}
