//! The release body codec: JSON → gzip → base64, as Helm's storage drivers write the
//! `release` key of a Secret or ConfigMap, and the reverse. Decoding accepts bodies
//! without gzip (Helm's pre-compression records) as Helm does.

use std::io::{Read, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use crate::error::Error;
use crate::gojson;
use crate::record::Release;

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Largest decompressed body accepted (Helm's own limit for a release is the 1 MiB object
/// size; this guards against a gzip bomb in a tampered Secret).
const MAX_BODY: u64 = 256 * 1024 * 1024;

/// Encodes a release as Helm does: Go-compatible JSON, gzip at best compression, base64.
pub fn encode(release: &Release) -> Result<String, Error> {
    let json = to_json(release)?;
    let mut gz = GzEncoder::new(Vec::with_capacity(json.len() / 3), Compression::best());
    gz.write_all(&json).map_err(|e| Error::Encode {
        release: release.name.clone(),
        message: e.to_string(),
    })?;
    let bytes = gz.finish().map_err(|e| Error::Encode {
        release: release.name.clone(),
        message: e.to_string(),
    })?;
    Ok(STANDARD.encode(bytes))
}

/// The JSON body exactly as Helm's `json.Marshal` would write it.
pub fn to_json(release: &Release) -> Result<Vec<u8>, Error> {
    gojson::to_vec(release).map_err(|e| Error::Encode {
        release: release.name.clone(),
        message: e.to_string(),
    })
}

/// Decodes the `release` payload of a storage object named `key` (for error messages).
pub fn decode(key: &str, payload: &[u8]) -> Result<Release, Error> {
    let json = decode_to_json(key, payload)?;
    serde_json::from_slice(&json).map_err(|e| Error::Decode {
        key: key.to_string(),
        message: format!("release JSON: {e}"),
    })
}

/// Base64 then (when gzip magic is present) gunzip, giving the JSON body.
pub fn decode_to_json(key: &str, payload: &[u8]) -> Result<Vec<u8>, Error> {
    let trimmed = payload.trim_ascii();
    let raw = STANDARD.decode(trimmed).map_err(|e| Error::Decode {
        key: key.to_string(),
        message: format!("base64: {e}"),
    })?;
    if raw.len() > 3 && raw[..3] == GZIP_MAGIC {
        let mut out = Vec::with_capacity(raw.len() * 4);
        GzDecoder::new(raw.as_slice())
            .take(MAX_BODY)
            .read_to_end(&mut out)
            .map_err(|e| Error::Decode {
                key: key.to_string(),
                message: format!("gzip: {e}"),
            })?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Info, Status};

    #[test]
    fn round_trip_keeps_every_field() {
        let mut r = Release {
            name: "web".into(),
            version: 2,
            namespace: "prod".into(),
            manifest: "---\n# Source: web/templates/cm.yaml\nkind: ConfigMap\n".into(),
            ..Default::default()
        };
        r.info = Some(Info {
            status: Status::Deployed,
            description: "Upgrade complete".into(),
            ..Default::default()
        });
        r.config.insert("replicas".into(), serde_json::json!(3));
        let enc = encode(&r).unwrap();
        let back = decode("k", enc.as_bytes()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn uncompressed_legacy_body_is_read() {
        let body = STANDARD.encode(br#"{"name":"old","version":1}"#);
        let r = decode("k", body.as_bytes()).unwrap();
        assert_eq!((r.name.as_str(), r.version), ("old", 1));
    }

    #[test]
    fn garbage_is_a_typed_error_naming_the_object() {
        let err = decode("sh.helm.release.v1.x.v1", b"%%%").unwrap_err();
        assert!(err.to_string().contains("sh.helm.release.v1.x.v1"), "{err}");
        let not_json = STANDARD.encode(b"not json at all");
        let err = decode("k2", not_json.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("k2"), "{err}");
    }
}
