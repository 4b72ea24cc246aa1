//! Cosign's classic key-based signatures, the format `cosign sign --key` writes and
//! `cosign verify --key` and Flux's source-controller (`verify: {provider: cosign}`) read,
//! as pure functions over bytes (no registry, no I/O): the registry side (the
//! `sha256-<hex>.sig` manifest) is `kubepkg_oci::signature`.
//!
//! - [`payload`]: the simple-signing payload (`critical.identity.docker-reference`,
//!   `critical.image.docker-manifest-digest`, `critical.type` =
//!   `"cosign container image signature"`, `optional`), written byte for byte as cosign's Go
//!   `json.Marshal` of sigstore's `payload.Cosign`, and read back.
//! - [`key`]: the keys: [`PublicKey`] from `cosign.pub` (a PEM `PUBLIC KEY`, SPKI),
//!   [`SigningKey`] from `cosign.key` (`ENCRYPTED SIGSTORE PRIVATE KEY`, or the older
//!   `ENCRYPTED COSIGN PRIVATE KEY`; [`encrypted`] decrypts it) or an unencrypted PKCS#8
//!   (`PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`) PEM; ECDSA P-256 with SHA-256 (cosign's
//!   default key type), signatures ASN.1 DER, base64 in the layer annotation
//!   [`SIGNATURE_ANNOTATION`].
//! - [`encrypted`]: go-securesystemslib's `encrypted` format cosign keeps private keys in:
//!   JSON with an scrypt KDF (salt, `N`/`r`/`p` of its three accepted strengths) and a NaCl
//!   secretbox (XSalsa20-Poly1305) around the PKCS#8 DER key.
//!
//! Why RustCrypto's crates (`p256`/`ecdsa`, `scrypt`, `crypto_secretbox`, `sha2`, `pem`)
//! rather than the `sigstore` crate: every one of them but `crypto_secretbox` is already in
//! the workspace (Sprig's crypto functions, kube's client), where `sigstore` 0.x brings
//! `reqwest` with a second HTTP and TLS stack, `oci-client` (the registry client
//! `kubepkg-oci`'s docs say why we do not use), Fulcio, Rekor and TUF clients, and `openssl`
//! or `aws-lc-rs` features, to use a few hundred lines of it: key-based verification of the
//! classic format is a PEM decode, a KDF, a secretbox and one ECDSA check. Keyless (Fulcio
//! certificates, Rekor inclusion proofs) is not done here.
//!
//! Everything is checked against the real `cosign` CLI: the unit tests read a key pair and
//! signatures made by `cosign generate-key-pair` and `cosign sign-blob` (`testdata/`,
//! `testdata/regen.sh`), and `crates/kubepkg/tests/it/signatures.rs` has cosign verify what
//! kubepkg signs and kubepkg verify what cosign signs, in a real registry.
#![forbid(unsafe_code)]

pub mod encrypted;
pub mod key;
pub mod payload;

pub use key::{KeyError, PublicKey, SigningKey};
pub use payload::{Payload, PayloadError};

/// The media type of a signature layer: the simple-signing payload.
pub const SIMPLE_SIGNING_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";

/// The layer annotation holding the base64 signature of the layer's payload.
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";

/// The tag of the signatures of the manifest `digest` (`sha256:<hex>` → `sha256-<hex>.sig`),
/// cosign's "tag-based discovery"; `None` for anything but a `sha256:` digest of 64 lowercase
/// hex digits.
pub fn signature_tag(digest: &str) -> Option<String> {
    let hex = digest.strip_prefix("sha256:")?;
    let ok = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then(|| format!("sha256-{hex}.sig"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_tag_is_the_digest_with_a_dash_and_sig() {
        let d = format!("sha256:{}", "ab".repeat(32));
        assert_eq!(
            signature_tag(&d).as_deref(),
            Some(format!("sha256-{}.sig", "ab".repeat(32)).as_str())
        );
        assert_eq!(signature_tag("sha256:abc"), None);
        assert_eq!(signature_tag(&format!("sha512:{}", "ab".repeat(32))), None);
        assert_eq!(signature_tag(&format!("sha256:{}", "AB".repeat(32))), None);
    }
}
