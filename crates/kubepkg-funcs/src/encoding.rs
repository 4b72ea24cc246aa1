//! Sprig's encodings and digests: base64/base32 with Go's decoders (newlines skipped, padding
//! required, `illegal base64 data at input byte N` returned as the result), hex digests
//! (`sha1sum`, `sha256sum`, `sha512sum`), `adler32sum`, and Sprig's JSON functions over Go's
//! encoding/json (from `kubepkg-yaml`).

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::Value;
use sha1::Digest;

use crate::args::{arg, bytes, s};
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("b64enc", [StringBytes], |a| Ok(b64enc(bytes(a, 0)).into())),
        f!("b64dec", [String], |a| Ok(text(b64dec(s(a, 0))))),
        f!("b32enc", [StringBytes], |a| Ok(b32enc(bytes(a, 0)).into())),
        f!("b32dec", [String], |a| Ok(text(b32dec(s(a, 0))))),
        f!("sha1sum", [StringBytes], |a| Ok(hex::encode(
            sha1::Sha1::digest(bytes(a, 0))
        )
        .into())),
        f!("sha256sum", [StringBytes], |a| Ok(hex::encode(
            sha2::Sha256::digest(bytes(a, 0))
        )
        .into())),
        f!("sha512sum", [StringBytes], |a| Ok(hex::encode(
            sha2::Sha512::digest(bytes(a, 0))
        )
        .into())),
        f!("adler32sum", [StringBytes], |a| Ok(adler32(bytes(a, 0))
            .to_string()
            .into())),
        f!("toJson", [Any], |a| Ok(kubepkg_yaml::json::to_json(arg(
            a, 0
        ))
        .unwrap_or_default()
        .into())),
        f!("mustToJson", [Any], |a| kubepkg_yaml::json::to_json(arg(
            a, 0
        ))
        .map(Value::from)
        .map_err(|e| e.to_string())),
        f!("toPrettyJson", [Any], |a| Ok(
            kubepkg_yaml::json::to_pretty_json(arg(a, 0))
                .unwrap_or_default()
                .into()
        )),
        f!("mustToPrettyJson", [Any], |a| {
            kubepkg_yaml::json::to_pretty_json(arg(a, 0))
                .map(Value::from)
                .map_err(|e| e.to_string())
        }),
        f!("toRawJson", [Any], raw_json),
        f!("mustToRawJson", [Any], raw_json),
        f!("fromJson", [String], |a| Ok(kubepkg_yaml::json::from_json(
            s(a, 0)
        )
        .unwrap_or(Value::Nil))),
        f!("mustFromJson", [String], |a| kubepkg_yaml::json::from_json(
            s(a, 0)
        )
        .map_err(|e| e.to_string())),
    ]
}

fn raw_json(a: &[Value]) -> FuncResult {
    kubepkg_yaml::json::to_raw_json(arg(a, 0))
        .map(Value::from)
        .map_err(|e| e.to_string())
}

/// Decoded bytes as the Go string they make (binary data stays binary), or the error text
/// Sprig returns in its place.
fn text(r: Result<Vec<u8>, String>) -> Value {
    match r {
        Ok(b) => Value::from_go_bytes(b),
        Err(e) => e.into(),
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// `base64.StdEncoding.EncodeToString`.
pub fn b64enc(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// `base64.StdEncoding.DecodeString` with Go's error offsets.
pub fn b64dec(src: &str) -> Result<Vec<u8>, String> {
    let src = src.as_bytes();
    let err = |i: usize| format!("illegal base64 data at input byte {i}");
    let decode = |c: u8| B64.iter().position(|x| *x == c).map(|p| p as u8);
    let mut out = Vec::with_capacity(src.len() * 3 / 4);
    let mut si = 0;
    loop {
        let mut dbuf = [0u8; 4];
        let mut j = 0;
        let mut dlen = 4;
        let mut end = false;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(err(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = decode(c) {
                dbuf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(err(si - 1));
            }
            match j {
                0 | 1 => return Err(err(si - 1)),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(err(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(err(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                return Err(err(si));
            }
            dlen = j;
            end = true;
            break;
        }
        let v = (u32::from(dbuf[0]) << 18)
            | (u32::from(dbuf[1]) << 12)
            | (u32::from(dbuf[2]) << 6)
            | u32::from(dbuf[3]);
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if end {
            return Ok(out);
        }
    }
}

/// `base32.StdEncoding.EncodeToString`.
pub fn b32enc(data: &[u8]) -> String {
    data_encoding::BASE32.encode(data)
}

/// `base32.StdEncoding.DecodeString` with Go's error offsets.
pub fn b32dec(s: &str) -> Result<Vec<u8>, String> {
    let src: Vec<u8> = s.bytes().filter(|c| *c != b'\n' && *c != b'\r').collect();
    let olen = src.len();
    let err = |i: usize| format!("illegal base32 data at input byte {i}");
    let mut out = Vec::new();
    let mut rest: &[u8] = &src;
    loop {
        if rest.is_empty() {
            return Ok(out);
        }
        let mut dbuf = [0u8; 8];
        let mut j = 0;
        let mut dlen = 8;
        let mut end = false;
        while j < 8 {
            if rest.is_empty() {
                return Err(err(olen - j));
            }
            let c = rest[0];
            rest = &rest[1..];
            if c == b'=' && j >= 2 && rest.len() < 8 {
                if rest.len() + j < 7 {
                    return Err(err(olen));
                }
                for k in 0..(7 - j) {
                    if rest.len() > k && rest[k] != b'=' {
                        return Err(err(olen - rest.len() + k - 1));
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return Err(err(olen - rest.len() - 1));
                }
                break;
            }
            match B32.iter().position(|x| *x == c) {
                Some(p) => dbuf[j] = p as u8,
                None => return Err(err(olen - rest.len() - 1)),
            }
            j += 1;
        }
        let mut v: u64 = 0;
        for d in dbuf {
            v = (v << 5) | u64::from(d);
        }
        let bytes = v.to_be_bytes();
        let n = match dlen {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => 0,
        };
        out.extend_from_slice(&bytes[3..3 + n]);
        if end {
            return Ok(out);
        }
    }
}

/// `hash/adler32.Checksum`.
pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_go() {
        assert_eq!(b64enc(b"hello"), "aGVsbG8=");
        assert_eq!(b64dec("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(b64dec("aGVs\nbG8=").unwrap(), b"hello");
        crate::assert_refusals(
            b64dec,
            &[
                ("abc", "illegal base64 data at input byte 0"),
                ("a!cd", "illegal base64 data at input byte 1"),
            ],
        );
    }

    #[test]
    fn base32_and_digests() {
        assert_eq!(b32enc(b"hello"), "NBSWY3DP");
        assert_eq!(b32dec("NBSWY3DP").unwrap(), b"hello");
        // Known vectors: adler32("Wikipedia") = 0x11E60398.
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }
}
