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
use crate::file_data::FileData;
use crate::json_values::to_chart_value;
use crate::metadata::{Lock, Metadata};
use kubepkg_value::Value;

/// A value of the one `Chart.yaml` model in its JSON form (Helm's field names, `omitempty`), as
/// a Go value for the YAML writer: what `sigs.k8s.io/yaml.Marshal` writes from Helm's structs.
fn json_form(v: &impl serde::Serialize) -> Value {
    to_chart_value(&serde_json::to_value(v).expect("chart metadata is always JSON"))
}

/// Helm's `chart.Metadata` as `encoding/json` writes it (without `dependencies` unless
/// `with_dependencies`: a v1 chart keeps them in `requirements.yaml`).
pub fn metadata_json(md: &Metadata, with_dependencies: bool) -> Value {
    if with_dependencies {
        json_form(md)
    } else {
        json_form(&Metadata {
            dependencies: Vec::new(),
            ..md.clone()
        })
    }
}

/// `yaml.Marshal(chart.Metadata)`: what `helm show chart` prints and `helm package` stores.
pub fn chart_yaml(md: &Metadata, with_dependencies: bool) -> Result<String> {
    kubepkg_yaml::to_yaml(&metadata_json(md, with_dependencies))
        .map_err(|e| ChartError::from(ChartErrorKind::Chart(e.to_string())))
}

/// `yaml.Marshal(chart.Lock)`.
pub fn lock_yaml(lock: &Lock) -> Result<String> {
    kubepkg_yaml::to_yaml(&json_form(lock))
        .map_err(|e| ChartError::from(ChartErrorKind::Chart(e.to_string())))
}

/// A modification time (`None`: Go's zero time, which `chartutil.Save` replaces by the time of
/// writing).
pub use crate::chart::ModTime;

/// The entries of the archive `helm package` writes for the chart of `files` (as the loader
/// reads a chart directory), paths under `NAME/`; `version` and `app_version` replace the
/// chart's (`--version`, `--app-version`). Returns the chart's metadata too.
pub fn archive_entries(
    files: Vec<BufferedFile>,
    version: Option<&str>,
    app_version: Option<&str>,
) -> Result<(Metadata, Vec<BufferedFile>)> {
    let mut out = Vec::new();
    let timed = files.into_iter().map(|f| (f, None)).collect();
    let md = entries_of(timed, "", version, app_version, None, &mut out)?;
    Ok((md, out.into_iter().map(|(f, _)| f).collect()))
}

/// A chart directory archived as Helm's `chartutil.Save` writes it (what `helm dependency
/// update` stores for a `file://` dependency): `NAME-VERSION.tgz` and its bytes — Go's
/// `archive/tar` entries of mode 0644 carrying each file's modification time (Chart.lock's:
/// its `generated` time), in Helm's order, through Go's gzip (default level, Helm's extra
/// header field and `Helm` comment). `source_date_epoch` (`SOURCE_DATE_EPOCH`) stamps every
/// time, as Helm's `StampModTimes` does. Returns the chart's metadata too.
pub fn save_dir(
    dir: &std::path::Path,
    source_date_epoch: Option<i64>,
) -> Result<(Metadata, String, Vec<u8>)> {
    let files = crate::chart::dir_files_timed(dir)?;
    let mut out = Vec::new();
    let md = entries_of(files, "", None, None, source_date_epoch, &mut out)?;
    let now = {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        (d.as_secs() as i64, d.subsec_nanos())
    };
    let mut tar = kubepkg_gostd::archive::TarWriter::new();
    for (f, mtime) in &out {
        tar.append(&kubepkg_gostd::archive::TarEntry {
            name: f.name.clone(),
            mode: 0o644,
            data: &f.data,
            mtime: Some(mtime.unwrap_or(now)),
        });
    }
    let bytes = kubepkg_gostd::archive::gzip(&tar.finish(), Some(HEADER_BYTES), "Helm");
    let name = format!("{}-{}.tgz", md.name, md.version);
    Ok((md, name, bytes))
}

/// `headerBytes` of Helm's `chartutil`: the gzip header's extra field of every chart archive.
const HEADER_BYTES: &[u8] = b"rr\x28\x00aHR0cHM6Ly95b3V0dS5iZS96OVV6MWljandyTQo=";

/// The time of a lock's `generated` (Go's `time.Time` from RFC 3339); `None` when it has none.
fn generated_time(text: &str) -> ModTime {
    let t = kubepkg_gostd::time::parse_in_location(
        "2006-01-02T15:04:05Z07:00",
        text,
        &kubepkg_gostd::time::Location::Utc,
    )
    .ok()?;
    (!t.is_zero()).then_some((t.unix_secs, t.nanos))
}

fn entries_of(
    files: Vec<(BufferedFile, ModTime)>,
    prefix: &str,
    version: Option<&str>,
    app_version: Option<&str>,
    epoch: Option<i64>,
    out: &mut Vec<(BufferedFile, ModTime)>,
) -> Result<Metadata> {
    let plain: Vec<BufferedFile> = files.iter().map(|(f, _)| f.clone()).collect();
    let chart = load_files(plain)?;
    let mut md = chart.metadata.clone();
    if let Some(v) = version {
        md.version = v.to_string();
    }
    if let Some(v) = app_version {
        md.app_version = v.to_string();
    }
    let stamp = |t: ModTime| match epoch {
        Some(e) => Some((e, 0)),
        None => t,
    };
    let time_of = |name: &str| {
        stamp(
            files
                .iter()
                .find(|(f, _)| f.name == name)
                .and_then(|(_, t)| *t),
        )
    };
    let base = format!("{prefix}{}", md.name);
    let push = |out: &mut Vec<(BufferedFile, ModTime)>, name: &str, data: FileData, t: ModTime| {
        out.push((
            BufferedFile {
                name: format!("{base}/{name}"),
                data,
            },
            t,
        ))
    };
    push(
        out,
        "Chart.yaml",
        FileData::from(chart_yaml(&md, md.api_version != "v1")?.into_bytes()),
        time_of("Chart.yaml"),
    );
    if md.api_version == "v2"
        && let Some(lock) = &chart.lock
        && files.iter().any(|(f, _)| f.name == "Chart.lock")
    {
        let mut lock = lock.clone();
        if let Some(e) = epoch {
            lock.generated =
                kubepkg_gostd::time::Time::utc_unix(e, 0).format(kubepkg_gostd::time::RFC3339_NANO);
        }
        let t = generated_time(&lock.generated);
        push(out, "Chart.lock", lock_yaml(&lock)?.into_bytes().into(), t);
    }
    for special in ["values.yaml", "values.schema.json"] {
        if let Some((f, t)) = files.iter().find(|(f, _)| f.name == special) {
            push(out, special, f.data.clone(), stamp(*t));
        }
    }
    let is_file = |n: &str| {
        let subchart = n.starts_with("charts/") && !n.ends_with(".prov");
        !crate::chart::is_chart_definition(n) && !subchart && !n.starts_with("templates/")
    };
    for (f, t) in files
        .iter()
        .filter(|(f, _)| f.name.starts_with("templates/"))
    {
        push(out, &f.name, f.data.clone(), stamp(*t));
    }
    for (f, t) in &files {
        let v1_req = (f.name == "requirements.yaml" || f.name == "requirements.lock")
            && md.api_version == "v1";
        if is_file(&f.name) || v1_req {
            push(out, &f.name, f.data.clone(), stamp(*t));
        }
    }
    let mut subcharts: BTreeMap<String, Vec<(BufferedFile, ModTime)>> = BTreeMap::new();
    for (f, t) in &files {
        let Some(rest) = f.name.strip_prefix("charts/") else {
            continue;
        };
        if f.name.ends_with(".prov") {
            continue;
        }
        let cname = rest.split('/').next().unwrap_or(rest).to_string();
        subcharts.entry(cname).or_default().push((
            BufferedFile {
                name: rest.to_string(),
                data: f.data.clone(),
            },
            *t,
        ));
    }
    for (n, sub) in subcharts {
        if n.starts_with('_') || n.starts_with('.') {
            continue;
        }
        let inner = if n.ends_with(".tgz") {
            let raw = &sub[0].0.data;
            let times = archive_times(raw);
            load_archive_files(raw, &format!("charts/{n}"), &Limits::default())?
                .into_iter()
                .map(|f| {
                    let t = times.get(&f.name).copied();
                    (f, t)
                })
                .collect()
        } else {
            sub.into_iter()
                .filter_map(|(f, t)| {
                    f.name.split_once('/').map(|(_, rest)| {
                        (
                            BufferedFile {
                                name: rest.to_string(),
                                data: f.data,
                            },
                            t,
                        )
                    })
                })
                .collect()
        };
        entries_of(inner, &format!("{base}/charts/"), None, None, epoch, out)?;
    }
    Ok(md)
}

/// The modification times of an archive's regular files, by their name in the chart (the
/// path after the archive's top directory), as Go's tar reader reports them.
fn archive_times(raw: &[u8]) -> BTreeMap<String, (i64, u32)> {
    let mut times = BTreeMap::new();
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(raw));
    let Ok(entries) = tar.entries() else {
        return times;
    };
    for entry in entries.flatten() {
        let Ok(path) = entry.path() else { continue };
        let path = path.to_string_lossy().replace('\\', "/");
        let Some((_, rest)) = path.split_once('/') else {
            continue;
        };
        if let Ok(m) = entry.header().mtime() {
            times.insert(rest.to_string(), (m as i64, 0));
        }
    }
    times
}

/// `tar` entries written flat (each name already has its chart directory): the archive
/// bytes of [`crate::archive::pack`] without a further top directory.
pub fn pack_entries(entries: &[BufferedFile]) -> std::io::Result<Vec<u8>> {
    crate::archive::pack_flat(entries)
}
