//! Cosign's key files and the one signature algorithm of its default keys, ECDSA on P-256 with
//! SHA-256 (sigstore's `ECDSASignerVerifier`: the signature is ASN.1 DER, written base64).
//!
//! | file | PEM block | read by |
//! |---|---|---|
//! | `cosign.pub` | `PUBLIC KEY` (SPKI) | [`PublicKey::from_pem`] |
//! | `cosign.key` | `ENCRYPTED SIGSTORE PRIVATE KEY` (cosign ≥ 2.0) or `ENCRYPTED COSIGN PRIVATE KEY` (older): [`crate::encrypted`] around PKCS#8 DER | [`SigningKey::from_pem`], with the password |
//! | an unencrypted key (`openssl genpkey`, `openssl ecparam -genkey`) | `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC1) | [`SigningKey::from_pem`], no password asked |
//!
//! As Go's `pem.Decode`, the first PEM block counts (an `EC PARAMETERS` block before an
//! `EC PRIVATE KEY`, as `openssl ecparam -genkey` writes it, is skipped). Other key types (RSA,
//! Ed25519, other curves) are refused with a message naming them: cosign's own keys are
//! P-256.

use base64::Engine as _;
use p256::ecdsa::signature::{Signer as _, Verifier as _};
use p256::pkcs8::der::Decode as _;
use p256::pkcs8::{DecodePrivateKey as _, DecodePublicKey as _, EncodePublicKey as _, LineEnding};

use crate::encrypted::{self, DecryptError};

/// A key file that could not be used: names the file (or Secret key) and what to do.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {kind}")]
pub struct KeyError {
    /// The file or object the key came from.
    pub origin: String,
    pub kind: KeyErrorKind,
}

/// What is wrong with a key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyErrorKind {
    /// No PEM block at all.
    #[error("not a PEM key file; give {expected} as `cosign generate-key-pair` writes it")]
    NotPem { expected: &'static str },
    /// A PEM block of another kind.
    #[error("a PEM {found:?} block is not {expected}")]
    WrongBlock {
        found: String,
        expected: &'static str,
    },
    /// A key of another type than ECDSA P-256.
    #[error("{what}; kubepkg signs and verifies with ECDSA P-256 keys (cosign's default)")]
    Unsupported { what: String },
    /// The key's DER does not parse.
    #[error("the key does not parse ({0}); give the file `cosign generate-key-pair` wrote")]
    Malformed(String),
    /// The password could not be read.
    #[error("reading the key's password: {0}; set COSIGN_PASSWORD")]
    Password(#[source] std::io::Error),
    /// The password does not open the key.
    #[error(
        "wrong password: the key does not decrypt with it; set COSIGN_PASSWORD to the password the key was made with"
    )]
    WrongPassword,
    /// The encrypted key is not go-securesystemslib's format.
    #[error("the encrypted key is unusable: {0}")]
    Encrypted(#[source] DecryptError),
}

/// Where the public keys are expected from.
const PUBLIC_EXPECTED: &str = "a public key (PEM PUBLIC KEY, cosign.pub)";
/// Where the private keys are expected from.
const PRIVATE_EXPECTED: &str = "a private key (ENCRYPTED SIGSTORE PRIVATE KEY as in cosign.key, PRIVATE KEY or EC PRIVATE KEY)";

/// A verification key (`cosign.pub`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    key: p256::ecdsa::VerifyingKey,
}

impl PublicKey {
    /// Reads a PEM `PUBLIC KEY` (SPKI) of an ECDSA P-256 key; `origin` names it in errors.
    pub fn from_pem(bytes: &[u8], origin: &str) -> Result<PublicKey, KeyError> {
        let err = |kind| KeyError {
            origin: origin.to_string(),
            kind,
        };
        let block = first_block(bytes, PUBLIC_EXPECTED).map_err(err)?;
        if block.tag() != "PUBLIC KEY" {
            return Err(err(KeyErrorKind::WrongBlock {
                found: block.tag().to_string(),
                expected: PUBLIC_EXPECTED,
            }));
        }
        let der = block.contents();
        match p256::PublicKey::from_public_key_der(der) {
            Ok(k) => Ok(PublicKey { key: k.into() }),
            Err(e) => Err(err(match spki_algorithm(der) {
                Some(what) => KeyErrorKind::Unsupported { what },
                None => KeyErrorKind::Malformed(e.to_string()),
            })),
        }
    }

    /// Whether `signature_b64` (standard base64 of an ASN.1 DER ECDSA signature, as in the
    /// layer annotation) is this key's signature of `payload` (SHA-256). Any valid signature is
    /// accepted, high or low `s`, as Go's `ecdsa.VerifyASN1`.
    pub fn verifies(&self, payload: &[u8], signature_b64: &str) -> bool {
        let Ok(der) = base64::engine::general_purpose::STANDARD.decode(signature_b64.trim()) else {
            return false;
        };
        let Ok(sig) = p256::ecdsa::Signature::from_der(&der) else {
            return false;
        };
        self.key.verify(payload, &sig).is_ok()
    }

    /// The key as `cosign.pub` holds it (PEM `PUBLIC KEY`).
    pub fn to_pem(&self) -> String {
        p256::PublicKey::from(&self.key)
            .to_public_key_pem(LineEnding::LF)
            .unwrap_or_default()
    }
}

/// A signing key (`cosign.key`, or an unencrypted EC key).
#[derive(Clone)]
pub struct SigningKey {
    key: p256::ecdsa::SigningKey,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("public", &self.public_key())
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// Reads a private key PEM; `password` is asked (once) only for an encrypted cosign key.
    /// `origin` names the file in errors.
    pub fn from_pem(
        bytes: &[u8],
        origin: &str,
        password: impl FnOnce() -> std::io::Result<Vec<u8>>,
    ) -> Result<SigningKey, KeyError> {
        let err = |kind| KeyError {
            origin: origin.to_string(),
            kind,
        };
        let block = first_block(bytes, PRIVATE_EXPECTED).map_err(err)?;
        let pkcs8 = |der: &[u8]| match p256::SecretKey::from_pkcs8_der(der) {
            Ok(k) => Ok(k),
            Err(e) => Err(err(match pkcs8_algorithm(der) {
                Some(what) => KeyErrorKind::Unsupported { what },
                None => KeyErrorKind::Malformed(e.to_string()),
            })),
        };
        let secret = match block.tag() {
            "ENCRYPTED SIGSTORE PRIVATE KEY" | "ENCRYPTED COSIGN PRIVATE KEY" => {
                let password = password().map_err(|e| err(KeyErrorKind::Password(e)))?;
                let der = match encrypted::decrypt(block.contents(), &password) {
                    Ok(d) => d,
                    Err(DecryptError::WrongPassword) => {
                        return Err(err(KeyErrorKind::WrongPassword));
                    }
                    Err(e) => return Err(err(KeyErrorKind::Encrypted(e))),
                };
                pkcs8(&der)?
            }
            "PRIVATE KEY" => pkcs8(block.contents())?,
            "EC PRIVATE KEY" => p256::SecretKey::from_sec1_der(block.contents()).map_err(|e| {
                err(KeyErrorKind::Unsupported {
                    what: format!("an EC PRIVATE KEY that is not a P-256 key ({e})"),
                })
            })?,
            "RSA PRIVATE KEY" => {
                return Err(err(KeyErrorKind::Unsupported {
                    what: "an RSA key".into(),
                }));
            }
            other => {
                return Err(err(KeyErrorKind::WrongBlock {
                    found: other.to_string(),
                    expected: PRIVATE_EXPECTED,
                }));
            }
        };
        Ok(SigningKey {
            key: p256::ecdsa::SigningKey::from(&secret),
        })
    }

    /// The standard base64 of the ASN.1 DER ECDSA signature of SHA-256(`payload`), as the
    /// layer annotation holds it (deterministic nonces, RFC 6979: signing the same payload
    /// again gives the same signature).
    pub fn sign(&self, payload: &[u8]) -> String {
        let sig: p256::ecdsa::Signature = self.key.sign(payload);
        base64::engine::general_purpose::STANDARD.encode(sig.to_der().as_bytes())
    }

    /// The key's public half.
    pub fn public_key(&self) -> PublicKey {
        PublicKey {
            key: *self.key.verifying_key(),
        }
    }
}

/// The first PEM block of `bytes`, skipping `EC PARAMETERS`.
fn first_block(bytes: &[u8], expected: &'static str) -> Result<pem::Pem, KeyErrorKind> {
    let blocks = pem::parse_many(bytes).unwrap_or_default();
    blocks
        .into_iter()
        .find(|b| b.tag() != "EC PARAMETERS")
        .ok_or(KeyErrorKind::NotPem { expected })
}

const EC_PUBLIC_KEY: &str = "1.2.840.10045.2.1";

/// What key an SPKI holds, when it parses and is not a P-256 key.
fn spki_algorithm(der: &[u8]) -> Option<String> {
    let spki = p256::pkcs8::spki::SubjectPublicKeyInfoRef::from_der(der).ok()?;
    Some(describe_algorithm(&spki.algorithm))
}

/// What key a PKCS#8 key holds, when it parses and is not a P-256 key.
fn pkcs8_algorithm(der: &[u8]) -> Option<String> {
    let info = p256::pkcs8::PrivateKeyInfo::from_der(der).ok()?;
    Some(describe_algorithm(&info.algorithm))
}

/// A key's algorithm identifier (and its curve, for an EC key) in words.
fn describe_algorithm(algorithm: &p256::pkcs8::spki::AlgorithmIdentifierRef<'_>) -> String {
    let curve = algorithm
        .parameters
        .and_then(|p| p.decode_as::<p256::pkcs8::ObjectIdentifier>().ok());
    describe(&algorithm.oid.to_string(), curve.map(|c| c.to_string()))
}

fn describe(oid: &str, curve: Option<String>) -> String {
    match (oid, curve.as_deref()) {
        ("1.2.840.113549.1.1.1", _) => "an RSA key".into(),
        ("1.3.101.112", _) => "an Ed25519 key".into(),
        (EC_PUBLIC_KEY, Some("1.3.132.0.34")) => "an ECDSA P-384 key".into(),
        (EC_PUBLIC_KEY, Some("1.3.132.0.35")) => "an ECDSA P-521 key".into(),
        (EC_PUBLIC_KEY, Some(c)) => format!("an ECDSA key on curve {c}"),
        (o, _) => format!("a key of algorithm {o}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed key pair, made by `cosign generate-key-pair` with this password
    /// (testdata/regen.sh).
    const PASSWORD: &[u8] = b"kubepkg-test-password";

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("testdata/{name}")).unwrap()
    }

    fn cosign_key() -> SigningKey {
        SigningKey::from_pem(&fixture("cosign.key"), "cosign.key", || {
            Ok(PASSWORD.to_vec())
        })
        .unwrap()
    }

    #[test]
    fn cosigns_encrypted_key_opens_with_its_password_and_matches_cosign_pub() {
        let key = cosign_key();
        let public = PublicKey::from_pem(&fixture("cosign.pub"), "cosign.pub").unwrap();
        assert_eq!(key.public_key(), public);
        // The PEM text of the public half is cosign's own (`cosign public-key` wrote
        // cosign.pub from the private key).
        assert_eq!(
            public.to_pem(),
            String::from_utf8(fixture("cosign.pub")).unwrap()
        );
    }

    #[test]
    fn signatures_made_by_cosign_verify_and_tampered_ones_do_not() {
        let public = PublicKey::from_pem(&fixture("cosign.pub"), "cosign.pub").unwrap();
        let payload = fixture("payload.json");
        let sigs = String::from_utf8(fixture("payload.json.sigs")).unwrap();
        let sigs: Vec<&str> = sigs.lines().filter(|l| !l.is_empty()).collect();
        assert!(sigs.len() >= 4, "regen.sh signs the payload several times");
        for sig in &sigs {
            assert!(public.verifies(&payload, sig), "cosign's signature {sig}");
            let mut other = payload.clone();
            other[10] ^= 1;
            assert!(!public.verifies(&other, sig));
        }
        let other = PublicKey::from_pem(&fixture("other.pub"), "other.pub").unwrap();
        assert!(!other.verifies(&payload, sigs[0]));
        assert!(!public.verifies(&payload, "not base64!"));
        assert!(!public.verifies(&payload, "AAAA"));
    }

    #[test]
    fn a_high_s_signature_verifies_as_in_go() {
        // Go's ecdsa.VerifyASN1 accepts s and n - s alike; cosign signs with random nonces, so
        // half its signatures have a high s.
        let public = PublicKey::from_pem(&fixture("cosign.pub"), "cosign.pub").unwrap();
        let payload = fixture("payload.json");
        let sigs = String::from_utf8(fixture("payload.json.sigs")).unwrap();
        for line in sigs.lines().filter(|l| !l.is_empty()) {
            let der = base64::engine::general_purpose::STANDARD
                .decode(line)
                .unwrap();
            let sig = p256::ecdsa::Signature::from_der(&der).unwrap();
            let flipped = match sig.normalize_s() {
                // High s: its low form is the flip.
                Some(low) => low,
                // Low s: make the high form, n - s.
                None => {
                    let (r, s) = sig.split_scalars();
                    p256::ecdsa::Signature::from_scalars(r, -*s).unwrap()
                }
            };
            let b64 = base64::engine::general_purpose::STANDARD.encode(flipped.to_der().as_bytes());
            assert!(public.verifies(&payload, &b64), "{line} with s flipped");
        }
    }

    #[test]
    fn what_kubepkg_signs_verifies_and_is_deterministic() {
        let key = cosign_key();
        let payload = fixture("payload.json");
        let sig = key.sign(&payload);
        assert!(key.public_key().verifies(&payload, &sig));
        assert_eq!(key.sign(&payload), sig, "RFC 6979 nonces");
    }

    #[test]
    fn a_wrong_password_is_one_line_naming_the_file() {
        let e = SigningKey::from_pem(&fixture("cosign.key"), "keys/cosign.key", || {
            Ok(b"nope".to_vec())
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "keys/cosign.key: wrong password: the key does not decrypt with it; set COSIGN_PASSWORD to the password the key was made with"
        );
        let e = SigningKey::from_pem(&fixture("cosign.key"), "cosign.key", || {
            Err(std::io::Error::other("no terminal"))
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "cosign.key: reading the key's password: no terminal; set COSIGN_PASSWORD"
        );
    }

    #[test]
    fn unencrypted_pkcs8_and_sec1_keys_sign_without_a_password() {
        // openssl genpkey / openssl ecparam -genkey output (testdata/regen.sh), the same key.
        let asked = std::cell::Cell::new(false);
        let pkcs8 = SigningKey::from_pem(&fixture("pkcs8.key"), "pkcs8.key", || {
            asked.set(true);
            Ok(vec![])
        })
        .unwrap();
        let sec1 = SigningKey::from_pem(&fixture("sec1.key"), "sec1.key", || {
            asked.set(true);
            Ok(vec![])
        })
        .unwrap();
        assert!(!asked.get(), "no password is asked for an unencrypted key");
        assert_eq!(pkcs8.public_key(), sec1.public_key());
        let public = PublicKey::from_pem(&fixture("pkcs8.pub"), "pkcs8.pub").unwrap();
        assert_eq!(pkcs8.public_key(), public);
    }

    #[test]
    fn other_files_and_key_types_are_refused_naming_them() {
        let e = PublicKey::from_pem(b"hello", "k.pub").unwrap_err();
        assert_eq!(
            e.to_string(),
            "k.pub: not a PEM key file; give a public key (PEM PUBLIC KEY, cosign.pub) as `cosign generate-key-pair` writes it"
        );
        let e = PublicKey::from_pem(&fixture("cosign.key"), "cosign.key").unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"cosign.key: a PEM "ENCRYPTED SIGSTORE PRIVATE KEY" block is not a public key (PEM PUBLIC KEY, cosign.pub)"#
        );
        let e = PublicKey::from_pem(&fixture("rsa.pub"), "rsa.pub").unwrap_err();
        assert_eq!(
            e.to_string(),
            "rsa.pub: an RSA key; kubepkg signs and verifies with ECDSA P-256 keys (cosign's default)"
        );
        let e = PublicKey::from_pem(&fixture("p384.pub"), "p384.pub").unwrap_err();
        assert!(e.to_string().contains("an ECDSA P-384 key"), "{e}");
        let e = SigningKey::from_pem(&fixture("p384.key"), "p384.key", || Ok(vec![])).unwrap_err();
        assert!(e.to_string().contains("an ECDSA P-384 key"), "{e}");
        let e =
            SigningKey::from_pem(&fixture("cosign.pub"), "cosign.pub", || Ok(vec![])).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"cosign.pub: a PEM "PUBLIC KEY" block is not a private key"#),
            "{e}"
        );
    }
}
