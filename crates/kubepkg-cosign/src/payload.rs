//! The simple-signing payload a cosign signature signs: sigstore's `payload.Cosign`
//! (`github.com/sigstore/sigstore/pkg/signature/payload`), the "atomic container signature"
//! shape of containers/image with cosign's type string.
//!
//! ```json
//! {"critical":{"identity":{"docker-reference":"HOST/REPO"},"image":{"docker-manifest-digest":"sha256:…"},"type":"cosign container image signature"},"optional":null}
//! ```
//!
//! [`Payload::to_bytes`] writes it as Go's `encoding/json` marshals that struct: fields in
//! declaration order, no spaces, `optional` `null` when there are no annotations and its keys
//! sorted otherwise, `<`, `>`, `&`, U+2028 and U+2029 escaped. cosign signs the bytes it
//! uploads, so only a verifier's reading of them ([`Payload::parse`]) must agree with cosign;
//! writing the same bytes lets a test compare what kubepkg and cosign upload for one artifact.

use serde::Deserialize;
use serde_json::{Map, Value};

/// `critical.type` of every cosign signature payload.
pub const COSIGN_SIGNATURE_TYPE: &str = "cosign container image signature";

/// A payload's claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    /// `critical.identity.docker-reference`: the repository the signer named
    /// (`HOST[:PORT]/REPO`, as cosign writes it: registry and repository, no tag).
    pub docker_reference: String,
    /// `critical.image.docker-manifest-digest`: the signed manifest's digest (`sha256:…`).
    pub digest: String,
    /// `optional`: annotations (`cosign sign -a k=v`); `None` is `null`.
    pub optional: Option<Map<String, Value>>,
}

/// Why a payload is not a cosign signature payload.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// Not the JSON of a payload.
    #[error("the signature payload is not simple-signing JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// `critical.type` is another type.
    #[error("the signature payload is of type {0:?}, not {COSIGN_SIGNATURE_TYPE:?}")]
    Type(String),
}

impl Payload {
    /// The payload cosign writes for `digest` in `docker_reference`, without annotations.
    pub fn new(docker_reference: &str, digest: &str) -> Payload {
        Payload {
            docker_reference: docker_reference.to_string(),
            digest: digest.to_string(),
            optional: None,
        }
    }

    /// The payload's bytes, as cosign's Go `json.Marshal` writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::from("{\"critical\":{\"identity\":{\"docker-reference\":");
        out.push_str(&go_json(&Value::String(self.docker_reference.clone())));
        out.push_str("},\"image\":{\"docker-manifest-digest\":");
        out.push_str(&go_json(&Value::String(self.digest.clone())));
        out.push_str("},\"type\":");
        out.push_str(&go_json(&Value::String(COSIGN_SIGNATURE_TYPE.into())));
        out.push_str("},\"optional\":");
        match &self.optional {
            None => out.push_str("null"),
            Some(m) => out.push_str(&go_json(&Value::Object(m.clone()))),
        }
        out.push('}');
        out.into_bytes()
    }

    /// Reads a payload, as sigstore's `Cosign.UnmarshalJSON`: any JSON with the fields,
    /// `critical.type` must be cosign's.
    pub fn parse(bytes: &[u8]) -> Result<Payload, PayloadError> {
        #[derive(Deserialize)]
        struct Simple {
            critical: Critical,
            #[serde(default)]
            optional: Option<Map<String, Value>>,
        }
        #[derive(Deserialize)]
        struct Critical {
            identity: Identity,
            image: Image,
            #[serde(rename = "type")]
            type_: String,
        }
        #[derive(Deserialize)]
        struct Identity {
            #[serde(rename = "docker-reference", default)]
            docker_reference: String,
        }
        #[derive(Deserialize)]
        struct Image {
            #[serde(rename = "docker-manifest-digest", default)]
            docker_manifest_digest: String,
        }
        let s: Simple = serde_json::from_slice(bytes).map_err(PayloadError::Json)?;
        if s.critical.type_ != COSIGN_SIGNATURE_TYPE {
            return Err(PayloadError::Type(s.critical.type_));
        }
        Ok(Payload {
            docker_reference: s.critical.identity.docker_reference,
            digest: s.critical.image.docker_manifest_digest,
            optional: s.optional,
        })
    }
}

/// `v` as Go's `encoding/json` writes an `interface{}`: object keys sorted, HTML characters
/// and the JavaScript line separators escaped.
fn go_json(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    // The characters escaped occur only inside strings, so replacing them in the text is
    // replacing them in the strings.
    sorted(v)
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0b7a7d3e4d4d5a1b0b7a7d3e4d4d5a1b0b7a7d3e4d4d5a1b0b7a7d3e4d4d5a1b";

    #[test]
    fn the_payload_is_cosigns_json_byte_for_byte() {
        // The payload of the committed signature made by `cosign sign-blob` is cosign's own
        // text for this reference and digest (testdata/regen.sh writes it with `cosign
        // generate`).
        let cosign = std::fs::read("testdata/payload.json").unwrap();
        let parsed = Payload::parse(&cosign).unwrap();
        assert_eq!(parsed.to_bytes(), cosign.trim_ascii_end());
        assert_eq!(parsed.docker_reference, "registry.example/charts/app");
        assert!(parsed.digest.starts_with("sha256:"));
        assert_eq!(parsed.optional, None);
    }

    #[test]
    fn annotations_are_sorted_and_html_escaped_as_go_writes_them() {
        let mut optional = Map::new();
        optional.insert("z".into(), Value::String("a<b>&c".into()));
        optional.insert("a".into(), Value::String("1".into()));
        let p = Payload {
            docker_reference: "h/r".into(),
            digest: DIGEST.into(),
            optional: Some(optional),
        };
        let text = String::from_utf8(p.to_bytes()).unwrap();
        assert!(
            text.ends_with(r#""optional":{"a":"1","z":"a\u003cb\u003e\u0026c"}}"#),
            "{text}"
        );
        assert_eq!(Payload::parse(text.as_bytes()).unwrap(), p);
    }

    #[test]
    fn another_type_or_not_json_is_refused() {
        let other = br#"{"critical":{"identity":{"docker-reference":"h/r"},"image":{"docker-manifest-digest":"sha256:00"},"type":"atomic container signature"},"optional":null}"#;
        let e = Payload::parse(other).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"the signature payload is of type "atomic container signature", not "cosign container image signature""#
        );
        assert!(matches!(
            Payload::parse(b"not json").unwrap_err(),
            PayloadError::Json(_)
        ));
    }
}
