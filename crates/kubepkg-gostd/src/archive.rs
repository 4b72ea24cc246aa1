//! Go's `archive/tar` writer over `compress/gzip`, byte for byte, for archives of regular
//! files (what Helm's `chartutil.Save` writes): [`TarWriter`] follows `archive/tar`'s
//! `Writer.WriteHeader` with an unspecified format (modification times rounded to the
//! second, USTAR where it can encode the entry — long names split into prefix and name —,
//! else PAX with a `path` record), and [`gzip`] follows `gzip.Writer` at the default level
//! with its optional `Extra` and `Comment` header fields, over [`crate::flate::deflate`].

/// One regular file of a tar archive.
#[derive(Debug, Clone)]
pub struct TarEntry<'a> {
    pub name: String,
    pub mode: i64,
    pub data: &'a [u8],
    /// Seconds since the Unix epoch and nanoseconds of the modification time (rounded to the
    /// second as Go's writer rounds it); `None` is Go's zero time.
    pub mtime: Option<(i64, u32)>,
}

const BLOCK: usize = 512;
const NAME_SIZE: usize = 100;
const PREFIX_SIZE: usize = 155;

/// Bytes of a tar stream as Go's `tar.Writer` writes them.
#[derive(Debug, Default)]
pub struct TarWriter {
    out: Vec<u8>,
}

fn format_string(b: &mut [u8], s: &[u8]) {
    let n = s.len().min(b.len());
    b[..n].copy_from_slice(&s[..n]);
    if s.len() < b.len() {
        b[s.len()] = 0;
    }
    if s.len() > b.len() && b[b.len() - 1] == b'/' {
        let head = &s[..b.len() - 1];
        let trimmed = head.iter().rposition(|c| *c != b'/').map_or(0, |p| p + 1);
        b[trimmed] = 0;
    }
}

fn fits_in_octal(n: usize, x: i64) -> bool {
    let oct_bits = (n as u32 - 1) * 3;
    x >= 0 && (n >= 22 || x < 1i64 << oct_bits)
}

fn format_octal(b: &mut [u8], x: i64) {
    let x = if fits_in_octal(b.len(), x) { x } else { 0 };
    let mut s = format!("{x:o}");
    if b.len() > s.len() + 1 {
        s = format!("{}{s}", "0".repeat(b.len() - s.len() - 1));
    }
    format_string(b, s.as_bytes());
}

fn set_ustar_format(blk: &mut [u8; BLOCK]) {
    blk[257..263].copy_from_slice(b"ustar\0");
    blk[263..265].copy_from_slice(b"00");
    let sum: i64 = blk
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if (148..156).contains(&i) {
                32
            } else {
                *c as i64
            }
        })
        .sum();
    format_octal(&mut blk[148..155], sum);
    blk[155] = b' ';
}

/// `splitUSTARPath`.
fn split_ustar_path(name: &str) -> Option<(&str, &str)> {
    let mut length = name.len();
    if length <= NAME_SIZE || !name.is_ascii() {
        return None;
    } else if length > PREFIX_SIZE + 1 {
        length = PREFIX_SIZE + 1;
    } else if name.as_bytes()[length - 1] == b'/' {
        length -= 1;
    }
    let i = name[..length].rfind('/')?;
    let nlen = name.len() - i - 1;
    if i == 0 || nlen > NAME_SIZE || nlen == 0 || i > PREFIX_SIZE {
        return None;
    }
    Some((&name[..i], &name[i + 1..]))
}

fn to_ascii(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii() && *c != '\0').collect()
}

/// `formatPAXRecord`.
fn pax_record(k: &str, v: &str) -> String {
    let mut size = k.len() + v.len() + 3;
    size += size.to_string().len();
    let mut record = format!("{size} {k}={v}\n");
    if record.len() != size {
        size = record.len();
        record = format!("{size} {k}={v}\n");
    }
    record
}

/// `path.Join(dir, "PaxHeaders.0", file)` of `path.Split(name)`.
fn pax_header_name(name: &str) -> String {
    let (dir, file) = match name.rfind('/') {
        Some(i) => (&name[..=i], &name[i + 1..]),
        None => ("", name),
    };
    let joined = [dir, "PaxHeaders.0", file]
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/");
    crate::path::clean(&joined)
}

impl TarWriter {
    pub fn new() -> Self {
        TarWriter::default()
    }

    fn pad(&mut self) {
        let rem = self.out.len() % BLOCK;
        if rem != 0 {
            self.out.resize(self.out.len() + BLOCK - rem, 0);
        }
    }

    fn template(name: &[u8], mode: i64, size: i64, mtime: i64, flag: u8) -> [u8; BLOCK] {
        let mut blk = [0u8; BLOCK];
        blk[156] = flag;
        format_string(&mut blk[0..100], name);
        format_string(&mut blk[157..257], b"");
        format_octal(&mut blk[100..108], mode);
        format_octal(&mut blk[108..116], 0);
        format_octal(&mut blk[116..124], 0);
        format_octal(&mut blk[124..136], size);
        format_octal(&mut blk[136..148], mtime);
        format_string(&mut blk[265..297], b"");
        format_string(&mut blk[297..329], b"");
        format_octal(&mut blk[329..337], 0);
        format_octal(&mut blk[337..345], 0);
        blk
    }

    /// `WriteHeader` of a regular file (`TypeReg`) and `Write` of its data.
    pub fn append(&mut self, entry: &TarEntry<'_>) {
        // Round ModTime to the second (Go's Time.Round: halfway values up).
        let mtime = match entry.mtime {
            None => 0,
            Some((secs, nanos)) => secs + i64::from(nanos >= 500_000_000),
        };
        let size = entry.data.len() as i64;
        let name = entry.name.as_str();
        let ustar_name = if name.len() <= NAME_SIZE && name.is_ascii() {
            Some(("", name))
        } else {
            split_ustar_path(name)
        };
        match ustar_name {
            Some((prefix, short)) if fits_in_octal(12, mtime) => {
                let mut blk = Self::template(short.as_bytes(), entry.mode, size, mtime, b'0');
                format_string(&mut blk[345..500], prefix.as_bytes());
                set_ustar_format(&mut blk);
                self.out.extend_from_slice(&blk);
            }
            _ => {
                let mut records = Vec::new();
                if !name.is_ascii() || name.len() > NAME_SIZE {
                    records.push(("path", name.to_string()));
                }
                if !fits_in_octal(12, mtime) {
                    records.push(("mtime", mtime.to_string()));
                }
                records.sort();
                let data: String = records.iter().map(|(k, v)| pax_record(k, v)).collect();
                let mut header_name = to_ascii(&pax_header_name(name));
                header_name.truncate(NAME_SIZE);
                let header_name = header_name.trim_end_matches('/').to_string();
                // writeRawFile: the V7 fields only.
                let mut blk = [0u8; BLOCK];
                blk[156] = b'x';
                format_string(&mut blk[0..100], header_name.as_bytes());
                format_octal(&mut blk[100..108], 0);
                format_octal(&mut blk[108..116], 0);
                format_octal(&mut blk[116..124], 0);
                format_octal(&mut blk[124..136], data.len() as i64);
                format_octal(&mut blk[136..148], 0);
                set_ustar_format(&mut blk);
                self.out.extend_from_slice(&blk);
                self.out.extend_from_slice(data.as_bytes());
                self.pad();
                let mut blk =
                    Self::template(to_ascii(name).as_bytes(), entry.mode, size, mtime, b'0');
                set_ustar_format(&mut blk);
                self.out.extend_from_slice(&blk);
            }
        }
        self.out.extend_from_slice(entry.data);
        self.pad();
    }

    /// `Close`: the two zero blocks of the trailer.
    pub fn finish(mut self) -> Vec<u8> {
        self.pad();
        self.out.resize(self.out.len() + 2 * BLOCK, 0);
        self.out
    }
}

fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, t) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *t = c;
    }
    let mut crc = !0u32;
    for b in data {
        crc = table[((crc ^ u32::from(*b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// What Go's `gzip.NewWriter` (default level, no name, zero modification time) with `extra`
/// and `comment` set writes for `data` written at once and closed.
pub fn gzip(data: &[u8], extra: Option<&[u8]>, comment: &str) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 255];
    if extra.is_some() {
        out[3] |= 0x04;
    }
    if !comment.is_empty() {
        out[3] |= 0x10;
    }
    if let Some(extra) = extra {
        out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        out.extend_from_slice(extra);
    }
    if !comment.is_empty() {
        // Latin-1, NUL-terminated.
        out.extend(comment.chars().map(|c| c as u32 as u8));
        out.push(0);
    }
    out.extend_from_slice(&crate::flate::deflate(data));
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_ieee() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn a_ustar_header_is_go_s() {
        let mut w = TarWriter::new();
        w.append(&TarEntry {
            name: "a/Chart.yaml".into(),
            mode: 0o644,
            data: b"x",
            mtime: Some((1_700_000_000, 600_000_000)),
        });
        let out = w.finish();
        assert_eq!(out.len(), 512 * 4);
        assert_eq!(&out[100..108], b"0000644\0");
        assert_eq!(&out[124..136], b"00000000001\0");
        assert_eq!(
            &out[136..148],
            format!("{:011o}\0", 1_700_000_001).as_bytes()
        );
        assert_eq!(&out[257..265], b"ustar\x0000");
        assert_eq!(&out[329..345], b"0000000\x000000000\0");
        assert_eq!(out[155], b' ');
    }

    #[test]
    fn long_names_split_or_go_to_pax() {
        let long = format!("{}/{}", "d".repeat(120), "f".repeat(20));
        assert_eq!(split_ustar_path(&long).map(|(p, _)| p.len()), Some(120));
        assert_eq!(pax_header_name("a/b/c"), "a/b/PaxHeaders.0/c");
        assert_eq!(pax_record("path", "x"), "9 path=x\n");
        assert_eq!(pax_record("path", "xx"), "11 path=xx\n");
    }
}
