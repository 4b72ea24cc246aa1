//! A chart written back out as Helm writes it (`chartutil.Save`, used by `helm package`, and
//! `helm show chart`): `Chart.yaml` and `Chart.lock` re-serialised from the loaded metadata
//! (`sigs.k8s.io/yaml.Marshal` of Helm's structs: their JSON field names, empty fields
//! omitted, keys sorted), and the archive's entries in Helm's order — `Chart.yaml`,
//! `Chart.lock` (v2), `values.yaml`, `values.schema.json`, the templates, the other files,
//! then each subchart the same way under `charts/<name>/` (archived subcharts unpacked).

use std::collections::BTreeMap;

use crate::archive::{BufferedFile, Limits, load_archive_files};
use crate::chart::load_files;
use crate::error::{ChartError, ChartErrorKind, Result};
use crate::metadata::{Dependency, Lock, Metadata};
use kubepkg_value::Value;

fn strs(v: &[String]) -> Value {
    Value::list(v.iter().map(Value::str).collect())
}

fn dependency_json(d: &Dependency) -> Value {
    let mut m = BTreeMap::new();
    m.insert("name".into(), Value::str(&d.name));
    m.insert("repository".into(), Value::str(&d.repository));
    let mut opt = |k: &str, v: &str| {
        if !v.is_empty() {
            m.insert(k.into(), Value::str(v));
        }
    };
    opt("version", &d.version);
    opt("condition", &d.condition);
    opt("alias", &d.alias);
    if !d.tags.is_empty() {
        m.insert("tags".into(), strs(&d.tags));
    }
    if d.enabled {
        m.insert("enabled".into(), Value::Bool(true));
    }
    if !d.import_values.is_empty() {
        m.insert("import-values".into(), Value::list(d.import_values.clone()));
    }
    Value::map(m)
}

/// Helm's `chart.Metadata` as `encoding/json` writes it.
pub fn metadata_json(md: &Metadata, with_dependencies: bool) -> Value {
    let mut m = BTreeMap::new();
    let mut opt = |k: &str, v: &str| {
        if !v.is_empty() {
            m.insert(k.to_string(), Value::str(v));
        }
    };
    opt("name", &md.name);
    opt("home", &md.home);
    opt("version", &md.version);
    opt("description", &md.description);
    opt("icon", &md.icon);
    opt("apiVersion", &md.api_version);
    opt("condition", &md.condition);
    opt("tags", &md.tags);
    opt("appVersion", &md.app_version);
    opt("kubeVersion", &md.kube_version);
    opt("type", &md.chart_type);
    if !md.sources.is_empty() {
        m.insert("sources".into(), strs(&md.sources));
    }
    if !md.keywords.is_empty() {
        m.insert("keywords".into(), strs(&md.keywords));
    }
    if !md.maintainers.is_empty() {
        let list = md
            .maintainers
            .iter()
            .map(|mt| match mt {
                None => Value::Nil,
                Some(mt) => {
                    let mut x = BTreeMap::new();
                    for (k, v) in [("name", &mt.name), ("email", &mt.email), ("url", &mt.url)] {
                        if !v.is_empty() {
                            x.insert(k.to_string(), Value::str(v));
                        }
                    }
                    Value::map(x)
                }
            })
            .collect();
        m.insert("maintainers".into(), Value::list(list));
    }
    if md.deprecated {
        m.insert("deprecated".into(), Value::Bool(true));
    }
    if let Some(a) = &md.annotations
        && !a.is_empty()
    {
        m.insert(
            "annotations".into(),
            Value::map(a.iter().map(|(k, v)| (k.clone(), Value::str(v))).collect()),
        );
    }
    if with_dependencies && !md.dependencies.is_empty() {
        let list = md
            .dependencies
            .iter()
            .map(|d| d.as_ref().map_or(Value::Nil, dependency_json))
            .collect();
        m.insert("dependencies".into(), Value::list(list));
    }
    Value::map(m)
}

/// `yaml.Marshal(chart.Metadata)`: what `helm show chart` prints and `helm package` stores.
pub fn chart_yaml(md: &Metadata, with_dependencies: bool) -> Result<String> {
    kubepkg_yaml::to_yaml(&metadata_json(md, with_dependencies))
        .map_err(|e| ChartError::from(ChartErrorKind::Chart(e.to_string())))
}

/// `yaml.Marshal(chart.Lock)`.
pub fn lock_yaml(lock: &Lock) -> Result<String> {
    let mut m = BTreeMap::new();
    m.insert("generated".into(), Value::str(&lock.generated));
    m.insert("digest".into(), Value::str(&lock.digest));
    m.insert(
        "dependencies".into(),
        Value::list(
            lock.dependencies
                .iter()
                .map(|d| d.as_ref().map_or(Value::Nil, dependency_json))
                .collect(),
        ),
    );
    kubepkg_yaml::to_yaml(&Value::map(m))
        .map_err(|e| ChartError::from(ChartErrorKind::Chart(e.to_string())))
}

/// The entries of the archive `helm package` writes for the chart of `files` (as the loader
/// reads a chart directory), paths under `NAME/`; `version` and `app_version` replace the
/// chart's (`--version`, `--app-version`). Returns the chart's metadata too.
pub fn archive_entries(
    files: Vec<BufferedFile>,
    version: Option<&str>,
    app_version: Option<&str>,
) -> Result<(Metadata, Vec<BufferedFile>)> {
    let mut out = Vec::new();
    let md = entries_of(files, "", version, app_version, &mut out)?;
    Ok((md, out))
}

fn entries_of(
    files: Vec<BufferedFile>,
    prefix: &str,
    version: Option<&str>,
    app_version: Option<&str>,
    out: &mut Vec<BufferedFile>,
) -> Result<Metadata> {
    let chart = load_files(files.clone())?;
    let mut md = chart.metadata.clone();
    if let Some(v) = version {
        md.version = v.to_string();
    }
    if let Some(v) = app_version {
        md.app_version = v.to_string();
    }
    let base = format!("{prefix}{}", md.name);
    let push = |out: &mut Vec<BufferedFile>, name: &str, data: Vec<u8>| {
        out.push(BufferedFile {
            name: format!("{base}/{name}"),
            data,
        })
    };
    push(
        out,
        "Chart.yaml",
        chart_yaml(&md, md.api_version != "v1")?.into_bytes(),
    );
    if md.api_version == "v2"
        && let Some(lock) = &chart.lock
        && files.iter().any(|f| f.name == "Chart.lock")
    {
        push(out, "Chart.lock", lock_yaml(lock)?.into_bytes());
    }
    for special in ["values.yaml", "values.schema.json"] {
        if let Some(f) = files.iter().find(|f| f.name == special) {
            push(out, special, f.data.clone());
        }
    }
    let is_file = |n: &str| {
        let special = matches!(
            n,
            "Chart.yaml"
                | "Chart.lock"
                | "values.yaml"
                | "values.schema.json"
                | "requirements.yaml"
                | "requirements.lock"
        );
        let subchart = n.starts_with("charts/") && !n.ends_with(".prov");
        !special && !subchart && !n.starts_with("templates/")
    };
    for f in files.iter().filter(|f| f.name.starts_with("templates/")) {
        push(out, &f.name, f.data.clone());
    }
    for f in &files {
        let v1_req = (f.name == "requirements.yaml" || f.name == "requirements.lock")
            && md.api_version == "v1";
        if is_file(&f.name) || v1_req {
            push(out, &f.name, f.data.clone());
        }
    }
    let mut subcharts: BTreeMap<String, Vec<BufferedFile>> = BTreeMap::new();
    for f in &files {
        let Some(rest) = f.name.strip_prefix("charts/") else {
            continue;
        };
        if f.name.ends_with(".prov") {
            continue;
        }
        let cname = rest.split('/').next().unwrap_or(rest).to_string();
        subcharts.entry(cname).or_default().push(BufferedFile {
            name: rest.to_string(),
            data: f.data.clone(),
        });
    }
    for (n, sub) in subcharts {
        if n.starts_with('_') || n.starts_with('.') {
            continue;
        }
        let inner = if n.ends_with(".tgz") {
            load_archive_files(&sub[0].data, &format!("charts/{n}"), &Limits::default())?
        } else {
            sub.into_iter()
                .filter_map(|f| {
                    f.name.split_once('/').map(|(_, rest)| BufferedFile {
                        name: rest.to_string(),
                        data: f.data,
                    })
                })
                .collect()
        };
        entries_of(inner, &format!("{base}/charts/"), None, None, out)?;
    }
    Ok(md)
}

/// `tar` entries written flat (each name already has its chart directory): the archive
/// bytes of [`crate::archive::pack`] without a further top directory.
pub fn pack_entries(entries: &[BufferedFile]) -> std::io::Result<Vec<u8>> {
    crate::archive::pack_flat(entries)
}
