//! go-securesystemslib's `encrypted` format (`github.com/secure-systems-lab/go-securesystemslib/encrypted`),
//! the body of cosign's `ENCRYPTED SIGSTORE PRIVATE KEY` PEM block: Go's `json.Marshal` of
//!
//! ```json
//! {"kdf":{"name":"scrypt","params":{"N":65536,"r":8,"p":1},"salt":"<base64>"},
//!  "cipher":{"name":"nacl/secretbox","nonce":"<base64>"},"ciphertext":"<base64>"}
//! ```
//!
//! (Go writes `[]byte` as standard base64 with padding.) The key is `scrypt(password, salt, N,
//! r, p)` of 32 bytes; the ciphertext is NaCl's `secretbox.Seal` (XSalsa20-Poly1305, the
//! 16-byte tag first) of the private key's PKCS#8 DER. As go-securesystemslib, only its three
//! parameter sets are accepted (legacy 2^15, standard 2^16, OWASP 2^17; `r` 8, `p` 1), which
//! also bounds the memory the KDF takes (128 MiB at most).

use base64::Engine as _;
use crypto_secretbox::aead::{Aead, KeyInit};
use crypto_secretbox::{Key, Nonce, XSalsa20Poly1305};
use serde::Deserialize;

/// Why an encrypted key could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum DecryptError {
    /// Not the format's JSON.
    #[error("not go-securesystemslib encrypted JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// A field that is not standard base64.
    #[error("{field} is not base64")]
    Base64 { field: &'static str },
    /// A KDF or cipher other than scrypt and nacl/secretbox.
    #[error("unknown {what} {name:?} (cosign uses scrypt and nacl/secretbox)")]
    Unknown { what: &'static str, name: String },
    /// scrypt parameters other than go-securesystemslib's three.
    #[error("unsupported scrypt parameters N={n} r={r} p={p}")]
    Params { n: u64, r: u64, p: u64 },
    /// A nonce that is not 24 bytes.
    #[error("the secretbox nonce is not 24 bytes")]
    Nonce,
    /// The secretbox did not open: the password is wrong (or the file was altered).
    #[error("decryption failed")]
    WrongPassword,
}

#[derive(Deserialize)]
struct Data {
    kdf: Kdf,
    cipher: Cipher,
    ciphertext: String,
}

#[derive(Deserialize)]
struct Kdf {
    name: String,
    params: Params,
    salt: String,
}

#[derive(Deserialize)]
struct Params {
    #[serde(rename = "N")]
    n: u64,
    r: u64,
    p: u64,
}

#[derive(Deserialize)]
struct Cipher {
    name: String,
    nonce: String,
}

/// The plaintext of `data` (the format's JSON) opened with `password`.
pub fn decrypt(data: &[u8], password: &[u8]) -> Result<Vec<u8>, DecryptError> {
    let d: Data = serde_json::from_slice(data).map_err(DecryptError::Json)?;
    if d.kdf.name != "scrypt" {
        return Err(DecryptError::Unknown {
            what: "kdf",
            name: d.kdf.name,
        });
    }
    if d.cipher.name != "nacl/secretbox" {
        return Err(DecryptError::Unknown {
            what: "cipher",
            name: d.cipher.name,
        });
    }
    let Params { n, r, p } = d.kdf.params;
    let log_n = match (n, r, p) {
        (32768, 8, 1) => 15,
        (65536, 8, 1) => 16,
        (131072, 8, 1) => 17,
        _ => return Err(DecryptError::Params { n, r, p }),
    };
    let b64 = |field: &'static str, s: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map_err(|_| DecryptError::Base64 { field })
    };
    let salt = b64("kdf.salt", &d.kdf.salt)?;
    let nonce = b64("cipher.nonce", &d.cipher.nonce)?;
    let ciphertext = b64("ciphertext", &d.ciphertext)?;
    if nonce.len() != 24 {
        return Err(DecryptError::Nonce);
    }
    let params =
        scrypt::Params::new(log_n, 8, 1, 32).map_err(|_| DecryptError::Params { n, r, p })?;
    let mut key = [0u8; 32];
    scrypt::scrypt(password, &salt, &params, &mut key).map_err(|_| DecryptError::Params {
        n,
        r,
        p,
    })?;
    let cipher = XSalsa20Poly1305::new(Key::from_slice(&key));
    cipher
        .decrypt(Nonce::from_slice(&nonce), ciphertext.as_slice())
        .map_err(|_| DecryptError::WrongPassword)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_kdfs_parameters_and_nonces_are_refused_before_any_work() {
        let with = |kdf: &str, params: &str, cipher: &str, nonce: &str| {
            format!(
                r#"{{"kdf":{{"name":"{kdf}","params":{params},"salt":"AAAA"}},"cipher":{{"name":"{cipher}","nonce":"{nonce}"}},"ciphertext":"AAAA"}}"#
            )
        };
        let ok_params = r#"{"N":32768,"r":8,"p":1}"#;
        let nonce24 = base64::engine::general_purpose::STANDARD.encode([0u8; 24]);
        let huge = r#"{"N":1073741824,"r":8,"p":1}"#;
        let unknown = |what: &str, name: &str| {
            format!("unknown {what} {name:?} (cosign uses scrypt and nacl/secretbox)")
        };
        for (kdf, params, cipher, nonce, error) in [
            (
                "argon2",
                ok_params,
                "nacl/secretbox",
                &*nonce24,
                unknown("kdf", "argon2"),
            ),
            (
                "scrypt",
                ok_params,
                "aes",
                &nonce24,
                unknown("cipher", "aes"),
            ),
            (
                "scrypt",
                huge,
                "nacl/secretbox",
                &nonce24,
                "unsupported scrypt parameters N=1073741824 r=8 p=1".into(),
            ),
            (
                "scrypt",
                ok_params,
                "nacl/secretbox",
                "AAAA",
                "the secretbox nonce is not 24 bytes".into(),
            ),
            (
                "scrypt",
                ok_params,
                "nacl/secretbox",
                "!!",
                "cipher.nonce is not base64".into(),
            ),
        ] {
            let e = decrypt(with(kdf, params, cipher, nonce).as_bytes(), b"").unwrap_err();
            assert_eq!(e.to_string(), error, "{kdf} {params} {cipher} {nonce}");
        }
        assert!(matches!(
            decrypt(b"{}", b"").unwrap_err(),
            DecryptError::Json(_)
        ));
    }
}
