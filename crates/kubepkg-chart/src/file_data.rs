//! A chart file's contents: bytes in memory, or a file on disk read at its first use.
//!
//! Loading a chart directory reads what building the chart needs (`Chart.yaml`, values, the
//! schema, subchart archives) and small templates, and leaves the other files — large
//! templates, `.Files`, `crds/`, READMEs — on disk: a chart with megabytes of CRDs loads as
//! fast as one without, a large template is read when the render parses it (never, for a
//! subchart its condition disables), and the rest only when a template asks for them (`.Files.Get`, `Glob`, `AsConfig`, …), `crds/` is
//! printed (`--include-crds`) or applied, or the chart is packed or saved. The directory loader
//! asks the kernel whether each such file can be read (`faccessat`, the check `open` makes), so
//! a file Helm cannot read fails the load as it does in Helm; a file that becomes unreadable after that (removed or replaced while the process
//! runs) reads as empty.

use std::fmt;
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// A file's contents, shared by every clone (see the module docs).
#[derive(Clone)]
pub struct FileData(Arc<Inner>);

struct Inner {
    /// Where to read the contents from at first use (`None`: given in memory).
    path: Option<PathBuf>,
    bytes: OnceLock<Arc<[u8]>>,
}

impl FileData {
    /// Contents already in memory.
    pub fn new(bytes: impl Into<Arc<[u8]>>) -> FileData {
        let cell = OnceLock::new();
        let _ = cell.set(bytes.into());
        FileData(Arc::new(Inner {
            path: None,
            bytes: cell,
        }))
    }

    /// The contents of the file at `path`, read at the first [`FileData::bytes`] (a UTF-8 byte
    /// order mark stripped, as Helm's directory loader strips it).
    pub fn on_disk(path: PathBuf) -> FileData {
        FileData(Arc::new(Inner {
            path: Some(path),
            bytes: OnceLock::new(),
        }))
    }

    /// The contents (read now if they are on disk and not read yet).
    pub fn bytes(&self) -> &Arc<[u8]> {
        self.0.bytes.get_or_init(|| {
            let Some(path) = &self.0.path else {
                return Arc::from(&[][..]);
            };
            std::fs::File::open(path)
                .and_then(|file| {
                    let len = file.metadata()?.len();
                    read_open(file, len)
                })
                .unwrap_or_else(|_| Arc::from(&[][..]))
        })
    }

    /// Whether the contents are in memory (given, or read already).
    pub fn is_read(&self) -> bool {
        self.0.bytes.get().is_some()
    }
}

/// All of an open `file` whose size was `len` when it was opened, without a leading UTF-8 byte
/// order mark (Helm's loader strips it), read straight into the shared buffer: in one read
/// where the file still has that size (it may have changed since: then what it holds now).
pub(crate) fn read_open(mut file: std::fs::File, len: u64) -> std::io::Result<Arc<[u8]>> {
    use std::io::Read as _;
    const BOM: &[u8] = &[0xEF, 0xBB, 0xBF];
    let len = usize::try_from(len).unwrap_or(0);
    let mut bytes = zeroed(len);
    let Some(buf) = Arc::get_mut(&mut bytes) else {
        return Err(std::io::Error::other("a new buffer is shared"));
    };
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // Whatever was added since its size was read (usually nothing: one read that ends there).
    // Through `take`: `File::read_to_end` itself asks the file's size and position first (two
    // more system calls for each file of a chart); the generic one just reads.
    let mut more = Vec::new();
    (&mut file).take(u64::MAX).read_to_end(&mut more)?;
    if filled < len || !more.is_empty() {
        let mut now = buf[..filled].to_vec();
        now.append(&mut more);
        bytes = Arc::from(now);
    }
    Ok(match bytes.strip_prefix(BOM) {
        Some(rest) => Arc::from(rest),
        None => bytes,
    })
}

/// A new buffer of `len` zero bytes, from the allocator's zeroed memory: a large one is fresh
/// pages the kernel zeroes as they are first written (by the read that fills them), where
/// collecting zeros wrote every byte once more (a seventh of the CPU of a chart whose one
/// template is 1.4 MB, `perf record`).
fn zeroed(len: usize) -> Arc<[u8]> {
    let zeroed = Arc::<[u8]>::new_zeroed_slice(len);
    // SAFETY: every byte is initialized (to zero), and zero is a valid `u8`.
    #[allow(unsafe_code)]
    unsafe {
        zeroed.assume_init()
    }
}

impl Deref for FileData {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.bytes()
    }
}

impl AsRef<[u8]> for FileData {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

impl From<Vec<u8>> for FileData {
    fn from(bytes: Vec<u8>) -> FileData {
        FileData::new(bytes)
    }
}

impl From<Arc<[u8]>> for FileData {
    fn from(bytes: Arc<[u8]>) -> FileData {
        FileData::new(bytes)
    }
}

impl From<&[u8]> for FileData {
    fn from(bytes: &[u8]) -> FileData {
        FileData::new(bytes)
    }
}

impl PartialEq for FileData {
    fn eq(&self, other: &FileData) -> bool {
        self.bytes() == other.bytes()
    }
}

impl fmt::Debug for FileData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.bytes.get() {
            Some(b) => write!(f, "FileData({} bytes)", b.len()),
            None => write!(f, "FileData(not read yet: {:?})", self.0.path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_on_disk_is_read_at_first_use_and_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crd.yaml");
        std::fs::write(&path, b"\xEF\xBB\xBFkind: CustomResourceDefinition\n").unwrap();
        let data = FileData::on_disk(path.clone());
        let shared = data.clone();
        assert!(!data.is_read(), "loading does not read it");
        assert_eq!(
            &*shared, b"kind: CustomResourceDefinition\n",
            "BOM stripped"
        );
        assert!(data.is_read(), "every clone sees the one read");
        std::fs::write(&path, b"changed").unwrap();
        assert_eq!(&*data, b"kind: CustomResourceDefinition\n", "read once");
    }

    #[test]
    fn an_open_file_is_read_as_it_is_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.yaml");
        let read = |len: u64| read_open(std::fs::File::open(&path).unwrap(), len).unwrap();
        std::fs::write(&path, b"\xEF\xBB\xBFkind: x\n").unwrap();
        assert_eq!(&*read(11), b"kind: x\n", "the size it had: BOM stripped");
        assert_eq!(&*read(4), b"kind: x\n", "grown since it was measured");
        assert_eq!(&*read(40), b"kind: x\n", "shrunk since it was measured");
        std::fs::write(&path, b"").unwrap();
        assert_eq!(&*read(0), b"");
        assert_eq!(&*read(2), b"");
    }

    #[test]
    fn bytes_in_memory_are_kept_as_given() {
        let data = FileData::from(b"\xEF\xBB\xBFx".to_vec());
        assert!(data.is_read());
        assert_eq!(&*data, b"\xEF\xBB\xBFx");
        assert_eq!(data, FileData::from(&b"\xEF\xBB\xBFx"[..]));
    }
}
