//! Safe reading of chart archives (`.tgz`): gzip-compressed tar streams whose first path
//! component is the chart directory.
//!
//! Follows Helm's `LoadArchiveFiles` (absolute paths, `..`, drive letters and a `Chart.yaml`
//! outside the chart directory are errors; a UTF-8 BOM is stripped; 100 MiB total decompressed
//! size) and adds limits Helm lacks: symbolic and hard links are refused, at most
//! [`Limits::max_files`] entries, at most [`Limits::max_file_size`] per file and a cap on the
//! compression ratio (gzip bombs). Every refusal is an [`|e| ChartError::from(ChartErrorKind::Archive(e))`] that starts with
//! Helm's CLI message (`unable to load chart archive`) and adds the archive and the reason.

use crate::error::{ChartError, ChartErrorKind, Result};
use crate::file_data::FileData;
use std::io::Read;

/// Limits applied while extracting an archive.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Total decompressed bytes (Helm: 100 MiB).
    pub max_total: u64,
    /// Bytes of one file (Helm declares 5 MiB but does not enforce it; neither do we by default).
    pub max_file_size: u64,
    /// Number of tar entries.
    pub max_files: usize,
    /// Decompressed bytes per compressed byte once past 1 MiB.
    pub max_ratio: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_total: 100 * 1024 * 1024,
            max_file_size: 100 * 1024 * 1024,
            max_files: 10_000,
            max_ratio: 1000,
        }
    }
}

/// A file read from an archive or directory: chart-relative slash path and contents.
#[derive(Debug, Clone)]
pub struct BufferedFile {
    pub name: String,
    pub data: FileData,
}

struct CountingReader<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

fn is_drive_path(n: &str) -> bool {
    let b = n.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/'
}

/// Go's `http.DetectContentType` as Helm's `EnsureArchive` calls it: on a 512-byte buffer, so a
/// file shorter than that is padded with zero bytes (and a short text file reads as binary).
/// The common signatures of Go's sniffer are recognised; anything else is text or binary.
fn detect_content_type(raw: &[u8]) -> &'static str {
    let mut data = [0u8; 512];
    let n = raw.len().min(512);
    data[..n].copy_from_slice(&raw[..n]);
    let ws = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let first = data.iter().position(|&b| !ws(b)).unwrap_or(data.len());
    let text = &data[first..];
    const HTML: [&str; 17] = [
        "<!DOCTYPE HTML",
        "<HTML",
        "<HEAD",
        "<SCRIPT",
        "<IFRAME",
        "<H1",
        "<DIV",
        "<FONT",
        "<TABLE",
        "<A",
        "<STYLE",
        "<TITLE",
        "<B",
        "<BODY",
        "<BR",
        "<P",
        "<!--",
    ];
    let html = HTML.iter().any(|sig| {
        let sig = sig.as_bytes();
        text.len() > sig.len()
            && text[..sig.len()].eq_ignore_ascii_case(sig)
            && matches!(text[sig.len()], b' ' | b'>')
    });
    if html {
        return "text/html; charset=utf-8";
    }
    if text.starts_with(b"<?xml") {
        return "text/xml; charset=utf-8";
    }
    const EXACT: [(&[u8], &str); 13] = [
        (b"%PDF-", "application/pdf"),
        (b"%!PS-Adobe-", "application/postscript"),
        (b"\xFE\xFF", "text/plain; charset=utf-16be"),
        (b"\xFF\xFE", "text/plain; charset=utf-16le"),
        (b"\xEF\xBB\xBF", "text/plain; charset=utf-8"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"\x89PNG\x0D\x0A\x1A\x0A", "image/png"),
        (b"\xFF\xD8\xFF", "image/jpeg"),
        (b"BM", "image/bmp"),
        (b"PK\x03\x04", "application/zip"),
        (b"OggS\x00", "application/ogg"),
        (b"\x00asm", "application/wasm"),
    ];
    if let Some((_, t)) = EXACT.iter().find(|(sig, _)| data.starts_with(sig)) {
        return t;
    }
    if data.starts_with(b"Rar!\x1A\x07\x00") || data.starts_with(b"Rar!\x1A\x07\x01\x00") {
        return "application/x-rar-compressed";
    }
    let binary = |b: u8| matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F);
    if text.iter().any(|&b| binary(b)) {
        "application/octet-stream"
    } else {
        "text/plain; charset=utf-8"
    }
}

/// Go's `path.Clean` for slash paths.
pub use kubepkg_gostd::path::clean as clean_path;

/// Read every regular file of a gzipped chart archive. `origin` names the archive in errors.
pub fn load_archive_files(raw: &[u8], origin: &str, limits: &Limits) -> Result<Vec<BufferedFile>> {
    // Helm's CLI says only "unable to load chart archive" and drops the reason; its SDK
    // (`LoadArchive`) appends the reason. We print Helm's words, the archive and the reason.
    let err = |m: String| {
        ChartError::from(ChartErrorKind::Archive(format!(
            "unable to load chart archive {origin}: {m}"
        )))
    };
    if !is_gzip(raw) {
        if origin.ends_with(".yaml") || origin.ends_with(".yml") {
            return Err(ChartError::from(ChartErrorKind::Archive(format!(
                "file '{origin}' seems to be a YAML file, but expected a gzipped archive"
            ))));
        }
        return Err(ChartError::from(ChartErrorKind::Archive(format!(
            "file '{origin}' does not appear to be a gzipped archive; got '{}'",
            detect_content_type(raw)
        ))));
    }
    let mut files = read_entries(raw, limits, "chart", chart_entry_name).map_err(err)?;
    for f in &mut files {
        if let Some(rest) = f.data.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
            f.data = FileData::from(rest);
        }
    }
    if files.is_empty() {
        return Err(err("no files in chart archive".into()));
    }
    Ok(files)
}

/// Writes `files` as a gzipped tar under the top-level directory `top`, as `helm package` lays
/// a chart out: entries in the order given, regular files of mode 0644, time 0, so the same
/// files always give the same bytes. The reverse of [`load_archive_files`].
pub fn pack(top: &str, files: &[BufferedFile]) -> std::io::Result<Vec<u8>> {
    write_tar_gz(
        files
            .iter()
            .map(|f| (format!("{top}/{}", f.name), &f.data[..])),
    )
}

/// [`pack`] of entries whose names already carry their top-level directory (a chart and its
/// subcharts as `helm package` lays them out, `crate::save::archive_entries`).
pub fn pack_flat(files: &[BufferedFile]) -> std::io::Result<Vec<u8>> {
    write_tar_gz(files.iter().map(|f| (f.name.clone(), &f.data[..])))
}

fn write_tar_gz<'a>(entries: impl Iterator<Item = (String, &'a [u8])>) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (name, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, name, data)?;
    }
    tar.into_inner()?.finish()
}

/// Whether `raw` starts as a gzip stream does.
pub fn is_gzip(raw: &[u8]) -> bool {
    raw.starts_with(&[0x1f, 0x8b, 0x08])
}

/// Helm's path rules for a chart archive entry: the first component is the chart directory
/// and is dropped; the rest must stay inside it.
fn chart_entry_name(raw_name: &str) -> std::result::Result<String, String> {
    let delim = if raw_name.contains('\\') { '\\' } else { '/' };
    let parts: Vec<&str> = raw_name.split(delim).collect();
    let n = parts[1..].join("/");
    if n.starts_with('/') {
        return Err("chart illegally contains absolute paths".into());
    }
    let n = clean_path(&n);
    if n == "." {
        return Err(format!(
            "chart illegally contains content outside the base directory: {raw_name:?}"
        ));
    }
    if n.starts_with("..") {
        return Err("chart illegally references parent directory".into());
    }
    if is_drive_path(&n) {
        return Err("chart contains illegally named files".into());
    }
    if parts[0] == "Chart.yaml" {
        return Err("chart yaml not in base directory".into());
    }
    Ok(n)
}

/// Reads every regular file of a gzipped tar stream under `limits` — the one archive policy
/// of kubepkg, for charts and packages alike: links and special files refused, at most
/// `max_files` entries, `max_file_size` per file, `max_total` in all, and a compression
/// ratio cap. Directory and pax entries are skipped. `name` turns an entry's raw path into the
/// name it is kept under, or refuses it; `kind` ("chart", "package") words the refusals. The
/// error is the reason, for the caller to prefix with the archive's name.
pub fn read_entries(
    raw: &[u8],
    limits: &Limits,
    kind: &str,
    name: impl FnMut(&str) -> std::result::Result<String, String>,
) -> std::result::Result<Vec<BufferedFile>, String> {
    let gz = flate2::read::GzDecoder::new(raw);
    read_stream(gz, Some(raw.len() as u64), limits, kind, name)
}

/// [`read_entries`] of an uncompressed tar stream (an OCI image layout as `package save`
/// writes it and `oras`, `skopeo` and `crane` read it): the same policy, without the
/// compression ratio cap (nothing is compressed).
pub fn read_tar_entries(
    raw: &[u8],
    limits: &Limits,
    kind: &str,
    name: impl FnMut(&str) -> std::result::Result<String, String>,
) -> std::result::Result<Vec<BufferedFile>, String> {
    read_stream(raw, None, limits, kind, name)
}

/// Writes `files` as an uncompressed tar (names as given, regular files of mode 0644, time 0,
/// in the order given): the reverse of [`read_tar_entries`].
pub fn write_tar(files: &[BufferedFile]) -> std::io::Result<Vec<u8>> {
    let mut tar = tar::Builder::new(Vec::new());
    for f in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(f.data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, &f.name, &f.data[..])?;
    }
    tar.into_inner()
}

fn read_stream(
    reader: impl Read,
    compressed_len: Option<u64>,
    limits: &Limits,
    kind: &str,
    mut name: impl FnMut(&str) -> std::result::Result<String, String>,
) -> std::result::Result<Vec<BufferedFile>, String> {
    let mut counter = CountingReader {
        inner: reader,
        count: 0,
    };
    let mut files = Vec::new();
    let mut archive = tar::Archive::new(&mut counter);
    let entries = archive
        .entries()
        .map_err(|e| format!("cannot read archive: {e}"))?;
    let mut remaining = limits.max_total;
    let mut count = 0usize;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("cannot read archive: {e}"))?;
        count += 1;
        if count > limits.max_files {
            return Err(format!(
                "archive has more than {} entries",
                limits.max_files
            ));
        }
        let header = entry.header();
        let entry_type = header.entry_type();
        let raw_name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if entry_type.is_dir()
            || entry_type.is_pax_global_extensions()
            || entry_type.is_pax_local_extensions()
        {
            continue;
        }
        if entry_type.is_symlink() || entry_type.is_hard_link() {
            return Err(format!(
                "{kind} archive contains a link ({raw_name}); links are not allowed in {kind}s"
            ));
        }
        if !(entry_type.is_file() || entry_type == tar::EntryType::Continuous) {
            return Err(format!(
                "{kind} archive contains an irregular file ({raw_name})"
            ));
        }
        let n = name(&raw_name)?;
        let size = entry.size();
        if size > remaining {
            return Err(format!(
                "decompressed {kind} is larger than the maximum size {}",
                limits.max_total
            ));
        }
        if size > limits.max_file_size {
            return Err(format!(
                "file {n} is larger than the maximum file size {}",
                limits.max_file_size
            ));
        }
        let mut data = Vec::with_capacity(size as usize);
        (&mut entry)
            .take(size.min(remaining) + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("cannot read {n}: {e}"))?;
        remaining = remaining.saturating_sub(data.len() as u64);
        if (data.len() as u64) < size || remaining == 0 {
            return Err(format!(
                "decompressed {kind} is larger than the maximum size {}",
                limits.max_total
            ));
        }
        let decompressed = limits.max_total - remaining;
        if let Some(compressed_len) = compressed_len
            && decompressed > 1024 * 1024
            && decompressed / compressed_len.max(1) > limits.max_ratio
        {
            return Err(format!(
                "archive expands more than {}x (a gzip bomb?)",
                limits.max_ratio
            ));
        }
        files.push(BufferedFile {
            name: n,
            data: data.into(),
        });
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    enum Entry<'a> {
        File(&'a str, &'a [u8]),
        Link(&'a str, &'a str, tar::EntryType),
    }

    fn tgz(entries: &[Entry]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut b = tar::Builder::new(gz);
        for e in entries {
            let mut h = tar::Header::new_gnu();
            match e {
                Entry::File(name, data) => {
                    h.set_entry_type(tar::EntryType::Regular);
                    h.set_size(data.len() as u64);
                    h.set_mode(0o644);
                    // Raw names: the tar crate refuses to write `..` through set_path.
                    let raw = &mut h.as_old_mut().name;
                    raw[..name.len()].copy_from_slice(name.as_bytes());
                    h.set_cksum();
                    b.append(&h, *data).unwrap();
                }
                Entry::Link(name, target, kind) => {
                    h.set_entry_type(*kind);
                    h.set_size(0);
                    h.set_mode(0o777);
                    h.set_path(name).unwrap();
                    h.set_link_name(target).unwrap();
                    h.set_cksum();
                    b.append(&h, &[][..]).unwrap();
                }
            }
        }
        b.into_inner().unwrap().finish().unwrap()
    }

    fn refusal(entries: &[Entry]) -> String {
        match load_archive_files(&tgz(entries), "x.tgz", &Limits::default()) {
            Ok(files) => panic!("accepted {} files", files.len()),
            Err(e) => e.to_string(),
        }
    }

    const CHART: &[u8] = b"apiVersion: v2\nname: c\nversion: 1.0.0\n";

    /// The reasons are the texts of Helm's `LoadArchiveFiles` (pkg/chart/loader/archive).
    #[test]
    fn unsafe_archives_are_refused_with_helms_words_and_the_reason() {
        assert_eq!(
            refusal(&[
                Entry::File("c/Chart.yaml", CHART),
                Entry::File("c/../../etc/x.yaml", b"x")
            ]),
            "unable to load chart archive x.tgz: chart illegally references parent directory"
        );
        assert_eq!(
            refusal(&[Entry::File("Chart.yaml", CHART)]),
            "unable to load chart archive x.tgz: chart illegally contains content outside the base directory: \"Chart.yaml\""
        );
        assert_eq!(
            refusal(&[Entry::File("c/C:/x.yaml", b"x")]),
            "unable to load chart archive x.tgz: chart contains illegally named files"
        );
        for kind in [tar::EntryType::Symlink, tar::EntryType::Link] {
            assert_eq!(
                refusal(&[Entry::Link("c/templates/l.yaml", "/etc/passwd", kind)]),
                "unable to load chart archive x.tgz: chart archive contains a link (c/templates/l.yaml); links are not allowed in charts"
            );
        }
    }

    /// What helm v4.3.1 printed for these files given as the chart (`... got 'TYPE'`).
    #[test]
    fn content_types_are_sniffed_as_helm_sniffs_them() {
        let cases: [(&[u8], &str); 9] = [
            (b"", "application/octet-stream"),
            (b"hello world\n", "application/octet-stream"),
            (&[b'x'; 600], "text/plain; charset=utf-8"),
            (
                b"  <!DOCTYPE html><html></html>",
                "text/html; charset=utf-8",
            ),
            (b"<?xml version=\"1.0\"?><a/>", "text/xml; charset=utf-8"),
            (b"\x89PNG\r\n\x1a\nrest", "image/png"),
            (b"PK\x03\x04rest", "application/zip"),
            (b"%PDF-1.4", "application/pdf"),
            (b"BZh91AY", "application/octet-stream"),
        ];
        for (raw, want) in cases {
            assert_eq!(detect_content_type(raw), want, "{raw:?}");
        }
        assert_eq!(
            detect_content_type(b"\xef\xbb\xbfhello"),
            "text/plain; charset=utf-8"
        );
    }

    #[test]
    fn not_gzip_is_named_as_helm_names_it() {
        let e = load_archive_files(b"name: x\n", "/tmp/c.yaml", &Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "file '/tmp/c.yaml' seems to be a YAML file, but expected a gzipped archive"
        );
    }

    #[test]
    fn a_safe_archive_loads_without_its_directory_prefix() {
        let files = load_archive_files(
            &tgz(&[
                Entry::File("c/Chart.yaml", CHART),
                Entry::File("c/./templates/a.yaml", b"a"),
            ]),
            "x.tgz",
            &Limits::default(),
        )
        .unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["Chart.yaml", "templates/a.yaml"]);
    }

    #[test]
    fn a_packed_chart_reads_back_the_same_files() {
        let files = vec![
            BufferedFile {
                name: "Chart.yaml".into(),
                data: b"apiVersion: v2\nname: c\nversion: 1.0.0\n".to_vec().into(),
            },
            BufferedFile {
                name: "templates/cm.yaml".into(),
                data: b"kind: ConfigMap\n".to_vec().into(),
            },
        ];
        let raw = pack("c", &files).unwrap();
        assert_eq!(
            pack("c", &files).unwrap(),
            raw,
            "the same files, the same bytes"
        );
        let back = load_archive_files(&raw, "c.tgz", &Limits::default()).unwrap();
        let names: Vec<(&str, &[u8])> = back
            .iter()
            .map(|f| (f.name.as_str(), &f.data[..]))
            .collect();
        let want: Vec<(&str, &[u8])> = files
            .iter()
            .map(|f| (f.name.as_str(), &f.data[..]))
            .collect();
        assert_eq!(names, want);
    }
}
