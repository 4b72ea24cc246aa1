//! `index.yaml` as Helm's `repo.loadIndex` reads it: JSON when the bytes are valid JSON, else
//! YAML decoded strictly (an unknown field is an error, as `yaml.UnmarshalStrict`); an empty
//! file and a missing `apiVersion` are errors; each entry is validated as Chart.yaml is
//! (`kubepkg_chart::metadata::Metadata::validate`) and an invalid or null entry is skipped with
//! Helm's warning ([`Skipped`]) instead of failing the whole index; each chart's versions are
//! sorted newest first. [`IndexFile::get`] is Helm's version selection (`IndexFile.Get`).

use std::collections::BTreeMap;

use kubepkg_chart::metadata::Metadata;
use kubepkg_semver::{Constraints, Version};
use kubepkg_value::{Value, map_read};

/// A repository's index.
#[derive(Debug, Clone, Default)]
pub struct IndexFile {
    pub api_version: String,
    /// As written (RFC 3339).
    pub generated: String,
    /// Chart name → its versions, newest first.
    pub entries: BTreeMap<String, Vec<ChartVersion>>,
}

/// One version of a chart in an index: its Chart.yaml plus where to download it.
#[derive(Debug, Clone, Default)]
pub struct ChartVersion {
    pub metadata: Metadata,
    pub urls: Vec<String>,
    pub created: String,
    pub removed: bool,
    /// The archive's SHA-256 (hex, optionally `sha256:`-prefixed), when the index has one.
    pub digest: String,
}

impl ChartVersion {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }
    pub fn version(&self) -> &str {
        &self.metadata.version
    }
}

/// An entry skipped while loading, printed as Helm's warning (Go `slog`'s text line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub chart: String,
    /// `None` for a null entry.
    pub version: Option<String>,
    pub source: String,
    pub error: Option<String>,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.version, &self.error) {
            (Some(version), Some(error)) => write!(
                f,
                "level=WARN msg=\"skipping loading invalid entry for chart\" name={} version={} source={} error={}",
                logfmt(&self.chart),
                logfmt(version),
                logfmt(&self.source),
                logfmt(error)
            ),
            _ => write!(
                f,
                "level=WARN msg=\"skipping loading invalid entry for chart: empty entry\" name={} source={}",
                logfmt(&self.chart),
                logfmt(&self.source)
            ),
        }
    }
}

/// A value as Go's `slog.TextHandler` writes it: quoted (Go syntax) when empty or when it has
/// spaces, quotes, `=` or control characters.
pub fn logfmt(s: &str) -> String {
    if !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '=' || c.is_control())
    {
        return s.to_string();
    }
    kubepkg_gostd::strconv::quote(s)
}

/// An index and the entries skipped while loading it.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub index: IndexFile,
    pub skipped: Vec<Skipped>,
}

/// Why an index could not be read (Helm's texts).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    #[error("empty index.yaml file")]
    Empty,
    #[error("no API version specified")]
    NoApiVersion,
    #[error(transparent)]
    Yaml(#[from] kubepkg_yaml::YamlError),
    #[error(transparent)]
    Json(#[from] kubepkg_yaml::JsonError),
    #[error(transparent)]
    Decode(#[from] kubepkg_chart::metadata::DecodeError),
    #[error("error unmarshaling JSON: while decoding JSON: json: unknown field {0:?}")]
    UnknownField(String),
    #[error(
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go struct field {field} of type {want}"
    )]
    Type {
        got: &'static str,
        field: String,
        want: &'static str,
    },
}

const INDEX_FIELDS: &[&str] = &[
    "serverinfo",
    "apiversion",
    "generated",
    "entries",
    "publickeys",
    "annotations",
];
/// What `repo.ChartVersion` adds to `chart.Metadata`'s fields
/// ([`kubepkg_chart::metadata::METADATA_FIELDS`]).
const CHART_VERSION_FIELDS: &[&str] = &[
    "urls",
    "created",
    "removed",
    "digest",
    "checksum",
    "engine",
    "tillerversion",
    "url",
];

/// Reads an index's bytes; `source` (the repository URL or the cache file) names it in warnings.
pub fn load_index(data: &[u8], source: &str) -> Result<Loaded, IndexError> {
    if data.is_empty() {
        return Err(IndexError::Empty);
    }
    let text = kubepkg_yaml::text(data)?;
    let (doc, strict) = match kubepkg_yaml::json::from_json(text) {
        Ok(v) => (v, false),
        Err(_) => (kubepkg_yaml::from_yaml_str(text)?, true),
    };
    let top = fields(&doc, "IndexFile", "repo.IndexFile")?;
    if strict {
        check_known(&top, &[INDEX_FIELDS])?;
    }
    let mut index = IndexFile {
        api_version: string(&top, "apiVersion", "IndexFile.apiVersion")?,
        generated: string(&top, "generated", "IndexFile.generated")?,
        entries: BTreeMap::new(),
    };
    let mut skipped = Vec::new();
    let entries = match get(&top, "entries") {
        None | Some(Value::Nil) => BTreeMap::new(),
        Some(Value::Map(m)) => map_read(m).clone(),
        Some(other) => {
            return Err(IndexError::Type {
                got: other.json_kind(),
                field: "IndexFile.entries".into(),
                want: "map[string]repo.ChartVersions",
            });
        }
    };
    for (name, versions) in entries {
        let items: Vec<Value> = match versions {
            Value::Nil => Vec::new(),
            Value::List(items, _) => items.as_ref().clone(),
            other => {
                return Err(IndexError::Type {
                    got: other.json_kind(),
                    field: "IndexFile.entries".into(),
                    want: "repo.ChartVersions",
                });
            }
        };
        let mut kept = Vec::new();
        // Helm walks each list backwards, so its warnings come last entry first.
        for item in items.iter().rev() {
            if matches!(item, Value::Nil) {
                skipped.push(Skipped {
                    chart: name.clone(),
                    version: None,
                    source: source.to_string(),
                    error: None,
                });
                continue;
            }
            let f = fields(item, "IndexFile.entries", "repo.ChartVersion")?;
            if strict {
                check_known(
                    &f,
                    &[
                        kubepkg_chart::metadata::METADATA_FIELDS,
                        CHART_VERSION_FIELDS,
                    ],
                )?;
            }
            let mut metadata = Metadata::decode(item)?;
            if metadata.api_version.is_empty() {
                metadata.api_version = "v1".into();
            }
            let cv = ChartVersion {
                urls: strings(&f, "urls", "IndexFile.entries.urls")?,
                created: string(&f, "created", "IndexFile.entries.created")?,
                removed: match get(&f, "removed") {
                    None | Some(Value::Nil) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(IndexError::Type {
                            got: other.json_kind(),
                            field: "IndexFile.entries.removed".into(),
                            want: "bool",
                        });
                    }
                },
                digest: string(&f, "digest", "IndexFile.entries.digest")?,
                metadata,
            };
            let mut checked = cv.metadata.clone();
            match checked.validate() {
                Ok(()) => kept.push(ChartVersion {
                    metadata: checked,
                    ..cv
                }),
                // Helm keeps entries whose only fault is a duplicated dependency name.
                Err(e) if e.starts_with("more than one dependency with name or alias") => {
                    kept.push(cv)
                }
                Err(e) => skipped.push(Skipped {
                    chart: name.clone(),
                    version: Some(cv.metadata.version.clone()),
                    source: source.to_string(),
                    error: Some(format!("validation: {e}")),
                }),
            }
        }
        sort_newest_first(&mut kept);
        index.entries.insert(name, kept);
    }
    if index.api_version.is_empty() {
        return Err(IndexError::NoApiVersion);
    }
    Ok(Loaded { index, skipped })
}

/// Newest first by SemVer (every kept entry has a valid version; the others sort last).
pub fn sort_newest_first(versions: &mut [ChartVersion]) {
    versions.sort_by(|a, b| {
        match (
            Version::parse(a.version()).ok(),
            Version::parse(b.version()).ok(),
        ) {
            (Some(x), Some(y)) => y.compare(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });
}

/// Why [`IndexFile::get`] found nothing (Helm's texts).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GetError {
    #[error("no chart name found")]
    NoChartName,
    #[error("no chart version found")]
    NoChartVersion,
    #[error(transparent)]
    Constraint(#[from] kubepkg_semver::SemverError),
    #[error("no chart version found for {name}-{version}")]
    NoMatch { name: String, version: String },
}

/// What [`IndexFile::get`] chose, and Helm's warning when it fell back from an exact version.
#[derive(Debug, Clone, Copy)]
pub struct Selected<'a> {
    pub chart: &'a ChartVersion,
    /// Helm's `slog` line when `version` was not a range and was not found exactly.
    pub fell_back: bool,
}

impl IndexFile {
    /// Helm's `IndexFile.Get`: `version` empty means the newest version that is not a
    /// pre-release; otherwise an exact version string wins, else the newest version the SemVer
    /// constraint `version` allows. (`--devel` callers pass `>0.0.0-0`.)
    pub fn get(&self, name: &str, version: &str) -> Result<Selected<'_>, GetError> {
        let versions = self.entries.get(name).ok_or(GetError::NoChartName)?;
        if versions.is_empty() {
            return Err(GetError::NoChartVersion);
        }
        let constraint = Constraints::parse(if version.is_empty() { "*" } else { version })?;
        if !version.is_empty()
            && let Some(exact) = versions.iter().find(|v| v.version() == version)
        {
            return Ok(Selected {
                chart: exact,
                fell_back: false,
            });
        }
        for v in versions {
            let Ok(parsed) = Version::parse(v.version()) else {
                continue;
            };
            if constraint.check(&parsed) {
                return Ok(Selected {
                    chart: v,
                    fell_back: !version.is_empty() && !is_version_range(version),
                });
            }
        }
        Err(GetError::NoMatch {
            name: name.to_string(),
            version: version.to_string(),
        })
    }
}

/// Helm's `isVersionRange`: operators, `||`, ` - `, or an `x` wildcard in the version core.
pub fn is_version_range(version: &str) -> bool {
    if version.contains(['^', '~', '<', '>', '=', '!', '*'])
        || version.contains("||")
        || version.contains(" - ")
    {
        return true;
    }
    let core = version.find(['-', '+']).map_or(version, |i| &version[..i]);
    core.contains(['x', 'X'])
}

type Fields = Vec<(String, Value)>;

fn fields(v: &Value, field: &str, want: &'static str) -> Result<Fields, IndexError> {
    match v {
        Value::Nil => Ok(Vec::new()),
        Value::Map(m) => Ok(map_read(m)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()),
        other => Err(IndexError::Type {
            got: other.json_kind(),
            field: field.to_string(),
            want,
        }),
    }
}

/// Every key of `f` is a field of one of `known` (case-insensitively, as `encoding/json`).
fn check_known(f: &Fields, known: &[&[&str]]) -> Result<(), IndexError> {
    for (k, _) in f {
        if !known
            .iter()
            .flat_map(|l| l.iter())
            .any(|n| n.eq_ignore_ascii_case(k))
        {
            return Err(IndexError::UnknownField(k.clone()));
        }
    }
    Ok(())
}

/// encoding/json's field match: an exact key wins, else a case-insensitive one.
fn get<'a>(f: &'a Fields, name: &str) -> Option<&'a Value> {
    f.iter()
        .find(|(k, _)| k == name)
        .or_else(|| f.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| v)
}

fn string(f: &Fields, name: &str, field: &str) -> Result<String, IndexError> {
    match get(f, name) {
        None | Some(Value::Nil) => Ok(String::new()),
        Some(v) => match v.as_str() {
            Some(s) => Ok(s.to_string()),
            None => Err(IndexError::Type {
                got: v.json_kind(),
                field: field.to_string(),
                want: "string",
            }),
        },
    }
}

fn strings(f: &Fields, name: &str, field: &str) -> Result<Vec<String>, IndexError> {
    match get(f, name) {
        None | Some(Value::Nil) => Ok(Vec::new()),
        Some(Value::List(items, _)) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or(IndexError::Type {
                    got: v.json_kind(),
                    field: field.to_string(),
                    want: "string",
                })
            })
            .collect(),
        Some(other) => Err(IndexError::Type {
            got: other.json_kind(),
            field: field.to_string(),
            want: "[]string",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = r#"apiVersion: v1
entries:
  app:
  - apiVersion: v2
    name: app
    version: 0.1.0
    urls: [app-0.1.0.tgz]
    digest: aa
  - apiVersion: v2
    name: app
    version: 1.2.0
    urls: [app-1.2.0.tgz]
  - apiVersion: v2
    name: app
    version: 2.0.0-rc.1
    urls: [app-2.0.0-rc.1.tgz]
  - null
  - apiVersion: v2
    name: app
    version: notsemver
generated: "2026-01-01T00:00:00Z"
"#;

    #[test]
    fn entries_are_sorted_and_invalid_ones_skipped_with_helms_warning() {
        let loaded = load_index(INDEX.as_bytes(), "http://r").unwrap();
        let versions: Vec<&str> = loaded.index.entries["app"]
            .iter()
            .map(|v| v.version())
            .collect();
        assert_eq!(versions, ["2.0.0-rc.1", "1.2.0", "0.1.0"]);
        let warnings: Vec<String> = loaded.skipped.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            warnings,
            [
                r#"level=WARN msg="skipping loading invalid entry for chart" name=app version=notsemver source=http://r error="validation: chart.metadata.version \"notsemver\" is invalid""#,
                r#"level=WARN msg="skipping loading invalid entry for chart: empty entry" name=app source=http://r"#,
            ]
        );
    }

    #[test]
    fn version_selection_is_helms() {
        let index = load_index(INDEX.as_bytes(), "x").unwrap().index;
        let pick = |v: &str| index.get("app", v).map(|s| s.chart.version().to_string());
        assert_eq!(pick("").unwrap(), "1.2.0");
        assert_eq!(pick(">0.0.0-0").unwrap(), "2.0.0-rc.1");
        assert_eq!(pick("~0.1").unwrap(), "0.1.0");
        assert_eq!(pick("0.1.0").unwrap(), "0.1.0");
        assert_eq!(
            pick("9.9.9").unwrap_err().to_string(),
            "no chart version found for app-9.9.9"
        );
        assert_eq!(
            index.get("nope", "").unwrap_err().to_string(),
            "no chart name found"
        );
    }

    #[test]
    fn bad_indexes_are_refused_with_helms_texts() {
        let err = |s: &str| load_index(s.as_bytes(), "x").unwrap_err().to_string();
        assert_eq!(err(""), "empty index.yaml file");
        assert_eq!(err("entries: {}\n"), "no API version specified");
        assert_eq!(
            err("apiVersion: v1\nfoo: bar\n"),
            r#"error unmarshaling JSON: while decoding JSON: json: unknown field "foo""#
        );
        assert!(
            err("apiVersion: v1\nentries: [\n")
                .starts_with("error converting YAML to JSON: yaml: line")
        );
        // JSON is read leniently, as Helm reads it.
        assert!(load_index(br#"{"apiVersion":"v1","foo":1}"#, "x").is_ok());
    }

    #[test]
    fn version_ranges_are_told_from_versions() {
        for r in ["^1", "~1.2", ">=1", "1.x", "1.2.X", "1 - 2", "1 || 2", "*"] {
            assert!(is_version_range(r), "{r}");
        }
        for v in ["1.2.3", "1.2.3-rc.1", "1.2.3+x"] {
            assert!(!is_version_range(v), "{v}");
        }
    }
}
