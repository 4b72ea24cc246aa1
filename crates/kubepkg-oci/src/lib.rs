//! The OCI distribution protocol as kubepkg uses it.
//!
//! - [`reference`]: `oci://host[:port]/repo/name[:tag|@sha256:…]` with Helm's parsing rules.
//! - [`client`]: manifests, blobs, uploads and tag lists over HTTP(S), with the authentication
//!   of real registries (basic, and the bearer-token flow on a `401` challenge), `--plain-http`,
//!   `--insecure-skip-tls-verify` and `--ca-file`, size caps ([`limits`]) on every answer.
//! - [`credentials`]: Docker's `config.json` and Helm's registry config, and `registry
//!   login/logout` writing Helm's file as helm does.
//! - [`cache`]: the content-addressed cache; every manifest and blob is digest-checked before
//!   it is used or cached (a mismatch names both digests), and a second pull of a digest
//!   transfers nothing.
//! - [`chart`]: Helm charts in registries, with Helm v4's media types and annotations;
//!   [`package`]: kubepkg packages as one OCI artifact; [`version`]: `--version` (tag or
//!   SemVer constraint) resolved against the tags.
//! - [`signature`]: cosign signatures (`sha256-<hex>.sig` manifests) read, verified and
//!   written, with `kubepkg-cosign`'s payload and keys.
//! - [`layout`]: a package (and its cosign signature) as an OCI image layout, for `package
//!   save` / `package load` between registries without a network path between them.
//!
//! More detail, one line each (docs/registries.md has the user's view):
//! - [`reference`] writes a `+` in a tag as `_`, as Helm does.
//! - [`client`] uses `kubepkg_fetch::tls_client_config` for `--ca-file`,
//!   `--cert-file`/`--key-file` and `--insecure-skip-tls-verify`, and `kubepkg-fetch`'s proxies.
//! - [`credentials`] reads Helm's registry config, then Docker's `config.json`, and runs
//!   credential helpers (`credHelpers`, `credsStore`).
//! - [`cache`] writes a temporary file and renames it; [`limits`] reads
//!   `KUBEPKG_OCI_MAX_MANIFEST_BYTES` and `KUBEPKG_OCI_MAX_BLOB_BYTES`.
//! - [`package::assemble`] builds the package artifact without I/O; [`package::push`] sends it.
//! - [`layout::of_assembled`] lays out a local package's assembled artifact; layouts are files
//!   in, files out, every blob digest-checked; the tar is the caller's (`kubepkg_chart::archive`).
//! - [`signature::Verifier`] checks the signature before any blob of the artifact is fetched
//!   (`chart::pull_verified`, `package::pull_verified`); [`signature`] also signs.
//!
//! Why our own client over hyper rather than the `oci-client` crate (ORAS' Rust client):
//! `oci-client` 0.18 would bring reqwest 0.13 and a second HTTP and TLS stack (its rustls
//! feature picks aws-lc-rs, a C build; without it a process-wide default crypto provider must
//! be installed), where the workspace already has hyper 1, hyper-rustls and rustls with ring
//! (the controller's); its `Reference` follows Docker's normalisation (a default registry and `library/` prefix),
//! not Helm's rules; its errors do not tell a missing credential from a refused one per
//! reference, which our one-line messages need; and its manifest and blob reads have no size
//! caps. The protocol subset kubepkg needs (manifest GET/PUT, blob HEAD/GET, monolithic upload,
//! tag list with paging, the token flow) is small and tested here against the real CNCF
//! distribution registry.
#![forbid(unsafe_code)]

pub mod cache;
pub mod chart;
pub mod client;
pub mod credentials;
pub mod error;
pub mod layout;
pub mod limits;
pub mod manifest;
pub mod package;
pub mod reference;
pub mod signature;
pub mod version;

pub use cache::Cache;
pub use client::{Client, ClientOptions};
pub use credentials::{Credential, CredentialFiles};
pub use error::Error;
pub use limits::Limits;
pub use reference::Reference;

/// Resolves `version` (a tag, a SemVer version or constraint, or empty for the newest) for
/// `repo` when it has neither tag nor digest; a reference with either is returned as is.
pub async fn resolve(
    client: &Client,
    repo: &Reference,
    version: Option<&str>,
) -> Result<Reference, Error> {
    if repo.tag.is_some() || repo.digest.is_some() {
        return Ok(repo.clone());
    }
    let version = version.unwrap_or("");
    if let Some(d) = version.strip_prefix('@') {
        return Ok(repo.with_digest(d));
    }
    if version.starts_with("sha256:") {
        return Ok(repo.with_digest(version));
    }
    let tag = reference::tag_of_version(version);
    if kubepkg_semver::has_strict_core(version) {
        // An exact version is a tag: no tag list needed (as `helm pull --version 1.2.3`).
        return Ok(repo.with_tag(&tag));
    }
    let tags = client.list_tags(repo).await?;
    let tag = version::resolve_tag(repo, &tags, version)?;
    Ok(repo.with_tag(&tag))
}
