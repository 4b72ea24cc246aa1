//! The body of a record kept in a Kubernetes object, as Helm's storage drivers write the
//! `release` key of a Secret or ConfigMap: JSON → gzip (best compression) → base64. kubepkg
//! writes its Helm release records (`kubepkg-release`) and its package revisions
//! (`kubepkg-package`) this way, and reads both back here, with one policy:
//!
//! - whitespace around the base64 text is ignored;
//! - a body without the gzip magic is plain JSON (Helm's records from before compression);
//! - the decompressed body may be at most [`MAX_BODY`] bytes, and a larger one is an error, never a
//!   truncated read. A Kubernetes object holds at most about 1 MiB, so no real record comes near
//!   it; it only stops a gzip bomb in a tampered object from exhausting memory.
//!
//! The JSON itself is the caller's (Helm's exact `json.Marshal` form for releases).
#![forbid(unsafe_code)]

use std::io::{Read, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

/// The largest decompressed body accepted.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Why a stored body cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The stored text is not base64.
    #[error("not base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// The gzip stream is damaged.
    #[error("bad gzip data: {0}")]
    Gzip(#[source] std::io::Error),
    /// The body decompresses to more than [`MAX_BODY`] bytes.
    #[error("larger than {limit} bytes decompressed")]
    TooLarge { limit: usize },
}

/// The stored form of the JSON body `json`: gzip at best compression, then base64.
pub fn encode(json: &[u8]) -> String {
    let mut gz = GzEncoder::new(Vec::with_capacity(json.len() / 3), Compression::best());
    // Writing into a Vec cannot fail.
    let _ = gz.write_all(json);
    STANDARD.encode(gz.finish().unwrap_or_default())
}

/// The JSON body of a stored `payload` (see the crate docs for what is accepted).
pub fn decode(payload: &[u8]) -> Result<Vec<u8>, BodyError> {
    decode_within(payload, MAX_BODY)
}

fn decode_within(payload: &[u8], limit: usize) -> Result<Vec<u8>, BodyError> {
    let trimmed: Vec<u8> = payload
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let raw = STANDARD.decode(&trimmed)?;
    if !raw.starts_with(&GZIP_MAGIC) {
        return Ok(raw);
    }
    let mut out = Vec::with_capacity(raw.len() * 4);
    GzDecoder::new(raw.as_slice())
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(BodyError::Gzip)?;
    if out.len() > limit {
        return Err(BodyError::TooLarge { limit });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_round_trips_and_is_stored_as_helm_stores_it() {
        let json = br#"{"name":"web","version":2}"#;
        let stored = encode(json);
        // base64 of gzip: Helm's release payloads start with "H4sI".
        assert!(stored.starts_with("H4sI"), "{stored}");
        assert_eq!(decode(stored.as_bytes()).unwrap(), json);
        // Line breaks as a YAML dump wraps the text.
        let wrapped = format!("{}\n{}\n", &stored[..10], &stored[10..]);
        assert_eq!(decode(wrapped.as_bytes()).unwrap(), json);
    }

    #[test]
    fn a_body_without_gzip_is_plain_json() {
        let stored = STANDARD.encode(br#"{"name":"old"}"#);
        assert_eq!(decode(stored.as_bytes()).unwrap(), br#"{"name":"old"}"#);
    }

    #[test]
    fn damage_is_a_typed_error() {
        assert!(matches!(
            decode(b"not base64 !!"),
            Err(BodyError::Base64(_))
        ));
        let mut cut = STANDARD.decode(encode(&[b'x'; 4096])).unwrap();
        cut.truncate(cut.len() / 2);
        let e = decode(STANDARD.encode(cut).as_bytes()).unwrap_err();
        assert!(matches!(e, BodyError::Gzip(_)), "{e}");
    }

    #[test]
    fn a_body_over_the_cap_is_an_error_not_a_truncated_read() {
        let stored = encode(&[b' '; 1001]);
        let e = decode_within(stored.as_bytes(), 1000).unwrap_err();
        assert_eq!(e.to_string(), "larger than 1000 bytes decompressed");
        assert_eq!(decode_within(stored.as_bytes(), 1001).unwrap().len(), 1001);
    }
}
