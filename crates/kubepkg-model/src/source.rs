//! Package sources: a directory or a `.tgz` archive, holding `kubepkg.yaml` or a bare chart.
//!
//! A directory with `kubepkg.yaml` is a package. A directory with only `Chart.yaml` is a
//! package of one component (named after the chart, versioned as the chart). An archive is
//! extracted safely into a directory the caller owns: no absolute paths, no `..`, no links or
//! device files, and size limits like Helm's chart loader (5 MiB per file, 100 MiB in total);
//! when the archive holds one top-level directory (as `helm package` makes), that directory is
//! the package.

use std::fs;
use std::io::Read;
use std::path::{Component as PathPart, Path, PathBuf};

use serde::Deserialize;

use crate::error::{PackageError, Problem, ProblemKind};
use crate::manifest::{
    ChartSource, Component, MANIFEST_FILE, Package, PackageMeta, Phase, check_dns_label, digest,
    parse_version,
};
use crate::parse::parse_manifest;

/// Largest file accepted inside a package archive (Helm's `MaxDecompressedFileSize`).
pub const MAX_FILE_SIZE: u64 = 5 * 1024 * 1024;
/// Largest total size of a package archive's contents (Helm's `MaxDecompressedChartSize`).
pub const MAX_TOTAL_SIZE: u64 = 100 * 1024 * 1024;

/// Loads a package from a directory or an archive. An archive is extracted into `scratch`
/// (an empty directory the caller owns and removes).
pub fn load(path: &Path, scratch: &Path) -> Result<Package, PackageError> {
    let meta = fs::metadata(path).map_err(|source| missing(path, source))?;
    if meta.is_dir() {
        load_dir(path)
    } else {
        let root = extract_archive(path, scratch)?;
        load_dir(&root).map_err(|e| in_archive(e, scratch, path))
    }
}

/// Why a package source cannot be opened: a path that does not exist (or a URL, which is no
/// package source) says what a source is; anything else is a read error.
fn missing(path: &Path, source: std::io::Error) -> PackageError {
    if source.kind() != std::io::ErrorKind::NotFound {
        return PackageError::Io {
            path: path.to_path_buf(),
            source,
        };
    }
    let text = path.to_string_lossy();
    let hint = if text.starts_with("http://") || text.starts_with("https://") {
        "a URL is not a package source; give a package directory, a chart directory, a .tgz of one, oci://REGISTRY/REPOSITORY or git+https://HOST/REPO.git//PATH?ref=REF (download an archive first: curl -LO URL)"
    } else {
        "no such file or directory; give a package directory, a chart directory, a .tgz of one, oci://REGISTRY/REPOSITORY or git+https://HOST/REPO.git//PATH?ref=REF"
    };
    PackageError::Missing {
        path: path.to_path_buf(),
        hint,
    }
}

/// A path under the extraction directory as the archive entry it came from
/// (`shop.tgz:shop/kubepkg.yaml`): the user gave the archive, not the temporary directory.
fn entry_path(p: &Path, scratch: &Path, archive: &Path) -> PathBuf {
    match p.strip_prefix(scratch) {
        Ok(entry) => PathBuf::from(format!(
            "{}:{}",
            archive.display(),
            entry.to_string_lossy().replace('\\', "/")
        )),
        Err(_) => p.to_path_buf(),
    }
}

/// The same error with every path inside the extraction directory named by its archive entry.
fn in_archive(mut e: PackageError, scratch: &Path, archive: &Path) -> PackageError {
    let name = |p: &Path| entry_path(p, scratch, archive);
    match &mut e {
        PackageError::Invalid { file, problems } => {
            *file = name(file);
            for p in problems {
                p.file = name(&p.file);
                if let ProblemKind::ChartMissing { resolved, .. } = &mut p.kind {
                    *resolved = name(Path::new(resolved)).display().to_string();
                }
            }
        }
        PackageError::NotAPackage { path }
        | PackageError::Missing { path, .. }
        | PackageError::Io { path, .. }
        | PackageError::Archive { path, .. }
        | PackageError::Lock { path, .. } => *path = name(path),
    }
    e
}

/// Loads a package directory: `kubepkg.yaml`, or else a bare chart (`Chart.yaml`).
pub fn load_dir(dir: &Path) -> Result<Package, PackageError> {
    let manifest = dir.join(MANIFEST_FILE);
    if manifest.is_file() {
        let text = read_text(&manifest)?;
        return parse_manifest(&text, &manifest, dir);
    }
    let chart_yaml = dir.join("Chart.yaml");
    if chart_yaml.is_file() {
        return load_bare_chart(dir, &chart_yaml);
    }
    Err(PackageError::NotAPackage {
        path: dir.to_path_buf(),
    })
}

/// A manifest or Chart.yaml as text; bytes that are not UTF-8 are refused with go-yaml's
/// words (`yaml: invalid leading UTF-8 octet`), naming the file.
fn read_text(path: &Path) -> Result<String, PackageError> {
    let raw = fs::read(path).map_err(|source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(raw).map_err(|e| PackageError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("yaml: {}", kubepkg_yaml::decode::utf8_error(e.as_bytes())),
        ),
    })
}

/// The two Chart.yaml fields a bare chart package needs; other fields are the chart layer's.
#[derive(Deserialize, Default)]
struct ChartIdentity {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    version: Option<serde_json::Value>,
}

fn load_bare_chart(dir: &Path, chart_yaml: &Path) -> Result<Package, PackageError> {
    let text = read_text(chart_yaml)?;
    let invalid = |line: Option<u64>, kind: ProblemKind| PackageError::Invalid {
        file: chart_yaml.to_path_buf(),
        problems: vec![Problem {
            file: chart_yaml.to_path_buf(),
            line,
            column: None,
            component: None,
            kind,
        }],
    };
    // Read as Helm reads Chart.yaml (go-yaml through kubepkg-yaml); its message names the line.
    let syntax = |message: String| invalid(None, ProblemKind::Syntax { message });
    let json = kubepkg_yaml::yaml_to_json(&text).map_err(|e| syntax(e.to_string()))?;
    let id: ChartIdentity = if json == "null" {
        ChartIdentity::default()
    } else {
        serde_json::from_str(&json).map_err(|e| syntax(e.to_string()))?
    };
    let name = id.name.unwrap_or_default();
    if let Err(reason) = check_dns_label(&name, 53) {
        return Err(invalid(
            None,
            ProblemKind::BadName {
                what: "chart name",
                name,
                reason,
            },
        ));
    }
    let version_text = match &id.version {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let version = parse_version(&version_text).map_err(|reason| {
        invalid(
            None,
            ProblemKind::BadVersion {
                version: version_text.clone(),
                reason,
            },
        )
    })?;
    Ok(Package {
        root: dir.to_path_buf(),
        manifest_file: chart_yaml.to_path_buf(),
        meta: PackageMeta {
            name: name.clone(),
            version,
            rollback_safe: None,
            rollback_to: None,
            requires: Vec::new(),
        },
        components: vec![Component {
            name: name.clone(),
            path: ".".into(),
            chart: ChartSource::Directory(dir.to_path_buf()),
            values: serde_json::Map::new(),
            namespace: None,
            depends_on: Vec::new(),
            ready_when: Vec::new(),
            phase: Phase::Install,
            upgrade_context: false,
            line: 0,
            post_renderers: Default::default(),
        }],
        digest: digest(text.as_bytes()),
        bare_chart: true,
        source: None,
    })
}

/// Extracts a gzip-compressed tar archive into `dest` safely and returns the package root.
/// The archive is read by the chart layer's archive reader (`kubepkg_chart::archive`), the one
/// archive policy of kubepkg (no links or special files, entry count, per-file and total
/// size and compression-ratio caps), with a package's stricter per-file limit.
pub fn extract_archive(archive: &Path, dest: &Path) -> Result<PathBuf, PackageError> {
    let fail = |reason: String| PackageError::Archive {
        path: archive.to_path_buf(),
        reason,
    };
    let limits = kubepkg_chart::archive::Limits {
        max_file_size: MAX_FILE_SIZE,
        max_total: MAX_TOTAL_SIZE,
        ..Default::default()
    };
    let file = fs::File::open(archive).map_err(|source| PackageError::Io {
        path: archive.to_path_buf(),
        source,
    })?;
    // A compressed archive larger than the decompressed limit cannot fit it.
    let mut raw = Vec::new();
    file.take(MAX_TOTAL_SIZE + 1)
        .read_to_end(&mut raw)
        .map_err(|source| PackageError::Io {
            path: archive.to_path_buf(),
            source,
        })?;
    if raw.len() as u64 > MAX_TOTAL_SIZE {
        return Err(fail(format!(
            "the archive is larger than the {MAX_TOTAL_SIZE}-byte limit"
        )));
    }
    if !kubepkg_chart::archive::is_gzip(&raw) {
        return Err(fail("not a gzip-compressed tar archive".into()));
    }
    let files = kubepkg_chart::archive::read_entries(&raw, &limits, "package", |raw_name| {
        match safe_relative(Path::new(raw_name)) {
            Some(rel) if !rel.as_os_str().is_empty() => Ok(rel.to_string_lossy().into_owned()),
            _ => Err(format!(
                "entry {raw_name:?} is absolute or leaves the archive"
            )),
        }
    })
    .map_err(fail)?;
    let mut top_levels = std::collections::BTreeSet::new();
    let mut root_files = false;
    for f in &files {
        let rel = Path::new(&f.name);
        let mut parts = rel.components();
        match (parts.next(), parts.next()) {
            (Some(first), Some(_)) => {
                top_levels.insert(first.as_os_str().to_os_string());
            }
            _ => root_files = true,
        }
        let target = dest.join(rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|source| PackageError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        fs::write(&target, &f.data).map_err(|source| PackageError::Io {
            path: target.clone(),
            source,
        })?;
    }
    if !root_files && top_levels.len() == 1 {
        let only = top_levels.into_iter().next().unwrap_or_default();
        let inner = dest.join(only);
        if !dest.join(MANIFEST_FILE).is_file() && !dest.join("Chart.yaml").is_file() {
            return Ok(inner);
        }
    }
    Ok(dest.to_path_buf())
}

/// A relative path with no `..` leaving the root and no absolute parts, normalised.
fn safe_relative(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in p.components() {
        match part {
            PathPart::Normal(n) => out.push(n),
            PathPart::CurDir => {}
            PathPart::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            PathPart::RootDir | PathPart::Prefix(_) => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_source_or_a_url_says_what_a_source_is() {
        let scratch = tempfile::tempdir().unwrap();
        for (given, says) in [
            (
                "https://example.invalid/shop-1.0.0.tgz",
                "a URL is not a package source",
            ),
            ("./no-such-package", "no such file or directory"),
        ] {
            let e = load(Path::new(given), scratch.path()).unwrap_err();
            assert!(matches!(e, PackageError::Missing { .. }), "{e:?}");
            let text = e.to_string();
            assert!(
                text.starts_with(given) && text.contains(says) && text.contains("oci://"),
                "{text}"
            );
        }
    }

    fn tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut b = tar::Builder::new(gz);
        for (name, data) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            // Write the raw name so that unsafe names reach the reader unchanged.
            let bytes = name.as_bytes();
            h.as_old_mut().name[..bytes.len()].copy_from_slice(bytes);
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap().finish().unwrap()
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, bytes).unwrap();
        p
    }

    const CHART: &[u8] = b"apiVersion: v2\nname: web\nversion: 0.3.1\n";

    #[test]
    fn bare_chart_directory_is_a_package_of_one_component() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "Chart.yaml", CHART);
        let p = load_dir(d.path()).unwrap();
        assert!(p.bare_chart);
        assert_eq!(p.meta.name, "web");
        assert_eq!(p.meta.version.to_string(), "0.3.1");
        assert_eq!(p.components.len(), 1);
        assert_eq!(p.components[0].name, "web");
        assert_eq!(p.release_name("shop", "web"), "shop");
    }

    #[test]
    fn bare_chart_with_bad_version_is_rejected() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "Chart.yaml",
            b"apiVersion: v2\nname: web\nversion: 1.2\n",
        );
        let e = load_dir(d.path()).unwrap_err().to_string();
        assert!(e.contains("not SemVer 2"), "{e}");
        assert!(e.contains("Chart.yaml"), "{e}");
    }

    #[test]
    fn directory_without_manifest_or_chart_is_not_a_package() {
        let d = tempfile::tempdir().unwrap();
        let e = load_dir(d.path()).unwrap_err();
        assert!(matches!(e, PackageError::NotAPackage { .. }), "{e}");
    }

    #[test]
    fn chart_archive_with_one_top_directory_is_unwrapped() {
        let d = tempfile::tempdir().unwrap();
        let a = write(
            d.path(),
            "web-0.3.1.tgz",
            &tgz(&[("web/Chart.yaml", CHART), ("web/values.yaml", b"x: 1\n")]),
        );
        let out = d.path().join("x");
        fs::create_dir(&out).unwrap();
        let p = load(&a, &out).unwrap();
        assert_eq!(p.root, out.join("web"));
        assert_eq!(p.components[0].name, "web");
    }

    #[test]
    fn package_archive_with_manifest_at_root() {
        let d = tempfile::tempdir().unwrap();
        let manifest =
            b"package: {name: shop, version: 1.0.0}\ncomponents:\n- {name: web, path: web}\n";
        let a = write(
            d.path(),
            "shop.tgz",
            &tgz(&[("kubepkg.yaml", manifest), ("web/Chart.yaml", CHART)]),
        );
        let out = d.path().join("x");
        fs::create_dir(&out).unwrap();
        let p = load(&a, &out).unwrap();
        assert_eq!(p.root, out);
        assert_eq!(p.meta.name, "shop");
        assert_eq!(
            p.components[0].chart,
            ChartSource::Directory(out.join("web"))
        );
    }

    #[test]
    fn archive_entries_leaving_the_directory_are_refused() {
        let d = tempfile::tempdir().unwrap();
        for bad in ["../evil", "a/../../evil", "/etc/evil"] {
            let a = write(d.path(), "bad.tgz", &tgz(&[(bad, b"x")]));
            let out = tempfile::tempdir().unwrap();
            let e = extract_archive(&a, out.path()).unwrap_err().to_string();
            assert!(e.contains("leaves the archive"), "{bad}: {e}");
            assert!(!d.path().join("evil").exists());
        }
    }

    #[test]
    fn archive_links_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut b = tar::Builder::new(gz);
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        b.append_link(&mut h, "chart/link", "/etc/passwd").unwrap();
        let bytes = b.into_inner().unwrap().finish().unwrap();
        let a = write(d.path(), "link.tgz", &bytes);
        let out = tempfile::tempdir().unwrap();
        let e = extract_archive(&a, out.path()).unwrap_err().to_string();
        assert!(e.contains("contains a link (chart/link)"), "{e}");
    }

    #[test]
    fn not_gzip_is_a_clear_error() {
        let d = tempfile::tempdir().unwrap();
        let a = write(d.path(), "x.tgz", b"plain text");
        let out = tempfile::tempdir().unwrap();
        let e = extract_archive(&a, out.path()).unwrap_err();
        assert!(matches!(e, PackageError::Archive { .. }), "{e}");
    }

    #[test]
    fn oversized_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let big = vec![b'a'; (MAX_FILE_SIZE + 1) as usize];
        let a = write(d.path(), "big.tgz", &tgz(&[("c/big", &big)]));
        let out = tempfile::tempdir().unwrap();
        let e = extract_archive(&a, out.path()).unwrap_err().to_string();
        assert!(
            e.contains("file c/big is larger than the maximum file size 5242880"),
            "{e}"
        );
    }

    #[test]
    fn errors_inside_an_archive_name_the_archive_and_entry() {
        let d = tempfile::tempdir().unwrap();
        let bad =
            b"package: {name: shop, version: 1.0.0}\ncomponents:\n- {name: web, path: nope}\n";
        let a = write(d.path(), "shop.tgz", &tgz(&[("shop/kubepkg.yaml", bad)]));
        let scratch = d.path().join("kubepkg-1234-scratch");
        fs::create_dir(&scratch).unwrap();
        let e = load(&a, &scratch).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{}:shop/kubepkg.yaml", a.display())),
            "{e}"
        );
        assert!(!e.contains("kubepkg-1234-scratch"), "{e}");
        let not_utf8 = write(
            d.path(),
            "u.tgz",
            &tgz(&[("kubepkg.yaml", b"package: \xff\n")]),
        );
        let scratch = d.path().join("s2");
        fs::create_dir(&scratch).unwrap();
        let e = load(&not_utf8, &scratch).unwrap_err().to_string();
        assert!(e.contains("u.tgz:kubepkg.yaml"), "{e}");
        assert!(e.contains("yaml: invalid leading UTF-8 octet"), "{e}");
    }

    // The issue measured 100 000 entries accepted in 8.7–20.9 s: the reader stops at the
    // chart archive's limit, before extracting anything and without reading on. Entry 10 002 is
    // a symbolic link (refused when it is read) and 90 000 entries follow it: a reader that
    // went past the limit, or counted only at the end, would report the link or read them all.
    #[test]
    fn an_archive_of_a_hundred_thousand_entries_is_refused_at_the_limit_unread_beyond_it() {
        let d = tempfile::tempdir().unwrap();
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        for i in 0..100_000 {
            let mut h = tar::Header::new_gnu();
            h.set_mode(0o644);
            if i == 10_001 {
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_size(0);
                b.append_link(&mut h, "c/link", "/etc/passwd").unwrap();
            } else {
                h.set_entry_type(tar::EntryType::Regular);
                h.set_size(0);
                b.append_data(&mut h, format!("c/f{i}"), &b""[..]).unwrap();
            }
        }
        let a = write(
            d.path(),
            "many.tgz",
            &b.into_inner().unwrap().finish().unwrap(),
        );
        let out = tempfile::tempdir().unwrap();
        let e = extract_archive(&a, out.path()).unwrap_err().to_string();
        assert!(e.contains("archive has more than 10000 entries"), "{e}");
        assert!(!e.contains("link"), "read past the limit: {e}");
        assert!(e.contains("many.tgz"), "{e}");
        assert_eq!(
            fs::read_dir(out.path()).unwrap().count(),
            0,
            "nothing extracted"
        );
    }

    // Regression: package archives had no entry limit (chart archives stop at 10,000).
    #[test]
    fn archives_with_too_many_entries_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..10_001).map(|i| format!("c/f{i}")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        let a = write(d.path(), "many.tgz", &tgz(&entries));
        let out = tempfile::tempdir().unwrap();
        let e = extract_archive(&a, out.path()).unwrap_err().to_string();
        assert!(e.contains("archive has more than 10000 entries"), "{e}");
    }

    // ----- fuzz targets (issue 16); the engine is the test kit's, shared with kubepkg-chart's -----

    use kubepkg_testkit::fuzz as fuzz_engine;

    fn example_manifests() -> Vec<Vec<u8>> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut out = Vec::new();
        for pkg in fs::read_dir(&root).unwrap().flatten() {
            for v in fs::read_dir(pkg.path()).into_iter().flatten().flatten() {
                if let Ok(b) = fs::read(v.path().join(MANIFEST_FILE)) {
                    out.push(b);
                }
            }
        }
        out.sort();
        out
    }

    const TOKENS: &[&[u8]] = &[
        b": ",
        b"- ",
        b"\n",
        b"  ",
        b"[",
        b"]",
        b"{",
        b"}",
        b"&a ",
        b"*a",
        b"<<: *a",
        b"components:",
        b"package:",
        b"name: ",
        b"version: ",
        b"path: ",
        b"dependsOn: [a]",
        b"requires: ",
        b"readyWhen: ",
        b"rollback: {safe: false}",
        b"\xff",
        b"\t",
        b"'",
        b"\"",
    ];

    #[test]
    fn fuzz_kubepkg_yaml() {
        let corpus = example_manifests();
        let d = tempfile::tempdir().unwrap();
        fuzz_engine::run("kubepkg.yaml", &corpus, TOKENS, 10_000, |input| {
            let text = String::from_utf8_lossy(input);
            let _ = parse_manifest(&text, &d.path().join(MANIFEST_FILE), d.path());
        });
    }

    #[test]
    fn fuzz_package_archive_loader() {
        let corpus = example_manifests();
        let d = tempfile::tempdir().unwrap();
        let n = std::cell::Cell::new(0u64);
        fuzz_engine::run("package-archive", &corpus, TOKENS, 1_000, |input| {
            n.set(n.get() + 1);
            let a = d.path().join(format!("p{}.tgz", n.get()));
            fs::write(
                &a,
                tgz(&[("p/kubepkg.yaml", input), ("p/web/Chart.yaml", CHART)]),
            )
            .unwrap();
            let out = d.path().join(format!("x{}", n.get()));
            fs::create_dir(&out).unwrap();
            if let Err(e) = load(&a, &out) {
                // Errors name the archive, never the extraction directory.
                let text = e.to_string();
                assert!(!text.contains(&out.display().to_string()), "{text}");
            }
            let _ = fs::remove_dir_all(&out);
            let _ = fs::remove_file(&a);
        });
    }
}
