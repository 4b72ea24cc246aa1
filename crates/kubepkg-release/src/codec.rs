//! The release body codec: JSON → gzip → base64, as Helm's storage drivers write the
//! `release` key of a Secret or ConfigMap, and the reverse. Decoding accepts bodies
//! without gzip (Helm's pre-compression records) as Helm does.

use crate::error::Error;
use crate::gojson;
use crate::record::Release;

/// Encodes a release as Helm does: Go-compatible JSON, gzip at best compression, base64
/// ([`kubepkg_record::encode`]).
pub fn encode(release: &Release) -> Result<String, Error> {
    Ok(kubepkg_record::encode(&to_json(release)?))
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

/// Base64 then (when gzip magic is present) gunzip, giving the JSON body
/// ([`kubepkg_record::decode`]: within its one size cap).
pub fn decode_to_json(key: &str, payload: &[u8]) -> Result<Vec<u8>, Error> {
    kubepkg_record::decode(payload).map_err(|e| Error::Decode {
        key: key.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Info, Status};
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

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
