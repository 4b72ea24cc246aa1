//! `kubepkg sign oci://…:TAG|@DIGEST --key KEY` (as `cosign sign --key`), and the `--sign KEY`
//! of `push` and `package push`: the manifest's digest signed with a cosign key and the
//! signature written as cosign writes it (`kubepkg_oci::signature::sign`: a layer of the
//! `sha256-<hex>.sig` manifest), so `cosign verify --key cosign.pub` and Flux accept it.
//!
//! The key is read (and its password asked) before anything is pushed, so a wrong password or
//! key file changes nothing in the registry. The password is read as cosign reads it:
//! `COSIGN_PASSWORD` when it is set (even empty), else a prompt without echo when standard
//! input is a terminal, else all of standard input.

use std::io::{IsTerminal as _, Read as _};
use std::path::Path;

use anyhow::{Context, Result, bail};
use kubepkg_oci::Reference;
use kubepkg_oci::signature::SigningKey;

use crate::cli::{SignArgs, SignWithArgs};
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: SignArgs, settings: &Settings) -> Result<Exit> {
    let reference = Reference::parse(&args.reference)?;
    if reference.tag.is_none() && reference.digest.is_none() {
        bail!(
            "{}: give the tag or digest to sign (oci://HOST/REPO/NAME:1.0.0 or …@sha256:…)",
            args.reference
        );
    }
    let key = signing_key(&args.key)?;
    let client = kubepkg_source::oci::client(&args.access.options(), &settings.paths)?;
    async {
        // The manifest must be there: its digest is what is signed (a tag is resolved once).
        let m = client.pull_manifest(&reference).await?;
        sign_digest(&client, &reference, &m.digest, &key).await
    }
    .await?;
    Ok(Exit::Succeeded)
}

/// What both pushes print for the artifact they pushed (`Pushed:` and `Digest:`, as `helm push`
/// prints them), then its signature with `key` when `--sign` was given.
pub(super) async fn pushed(
    client: &kubepkg_oci::Client,
    reference: &Reference,
    digest: &str,
    key: Option<&SigningKey>,
) -> Result<()> {
    let shown = reference.to_string();
    println!(
        "Pushed: {}",
        shown.trim_start_matches(kubepkg_oci::reference::SCHEME)
    );
    println!("Digest: {digest}");
    match key {
        Some(key) => sign_digest(client, reference, digest, key).await,
        None => Ok(()),
    }
}

/// Signs `digest` of `reference`'s repository with `key` and prints where the signature is.
pub(super) async fn sign_digest(
    client: &kubepkg_oci::Client,
    reference: &Reference,
    digest: &str,
    key: &SigningKey,
) -> Result<()> {
    let signed = kubepkg_oci::signature::sign(client, reference, digest, key).await?;
    let at = Reference {
        tag: None,
        ..reference.with_digest(digest)
    };
    println!(
        "Signed: {}",
        at.to_string()
            .trim_start_matches(kubepkg_oci::reference::SCHEME)
    );
    println!(
        "Signature: {}{}",
        signed
            .reference
            .to_string()
            .trim_start_matches(kubepkg_oci::reference::SCHEME),
        if signed.added { "" } else { " (already there)" }
    );
    Ok(())
}

/// The key of a push's `--sign KEY` (`None` without it), read with its password before anything
/// is pushed.
pub(super) fn push_key(args: &SignWithArgs) -> Result<Option<SigningKey>> {
    args.sign.as_deref().map(signing_key).transpose()
}

/// The signing key in `path`: an encrypted cosign key (the password read as cosign reads it),
/// or an unencrypted PKCS#8/SEC1 EC key.
pub(super) fn signing_key(path: &Path) -> Result<SigningKey> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("reading the signing key {}", path.display()))?;
    Ok(SigningKey::from_pem(
        &bytes,
        &path.display().to_string(),
        password,
    )?)
}

/// cosign's password rule: `COSIGN_PASSWORD` if set, else a terminal prompt, else standard
/// input (all of it, as cosign reads it).
fn password() -> std::io::Result<Vec<u8>> {
    if let Some(p) = std::env::var_os("COSIGN_PASSWORD") {
        return Ok(p.into_encoded_bytes());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut buf = Vec::new();
        stdin.lock().read_to_end(&mut buf)?;
        return Ok(buf);
    }
    prompt("Enter password for private key: ")
}

/// Reads one line from the terminal on standard input without echoing it.
fn prompt(text: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Write as _;
    use std::os::fd::AsFd as _;
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    let saved = rustix::termios::tcgetattr(fd)?;
    let mut quiet = saved.clone();
    quiet.local_modes.remove(rustix::termios::LocalModes::ECHO);
    rustix::termios::tcsetattr(fd, rustix::termios::OptionalActions::Now, &quiet)?;
    eprint!("{text}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let read = stdin.read_line(&mut line);
    let _ = rustix::termios::tcsetattr(fd, rustix::termios::OptionalActions::Now, &saved);
    eprintln!();
    read?;
    Ok(line.trim_end_matches(['\n', '\r']).as_bytes().to_vec())
}
