//! The real `cosign` CLI for tests of kubepkg's signatures: `github.com/sigstore/cosign/v2`
//! built from the Go module proxy by `testenv/cosign/build.sh` on first use (once per test
//! binary, through [`crate::tooling`]) and cached. It is run key-based and offline only:
//! [`Cosign::generate_key_pair`], and [`Cosign::command`] for `sign --key` (with
//! `--tlog-upload=false`) and `verify --key` (with `--insecure-ignore-tlog=true`); no
//! transparency log, Fulcio or TUF is contacted, and cosign's own state (`~/.sigstore`) is
//! kept in a temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::Error;

/// The path of `cosign`, built by `testenv/cosign/build.sh` on first use.
pub fn cosign_binary() -> Result<PathBuf, Error> {
    crate::tooling::built_tool("cosign")
}

/// The cosign CLI with a password for its keys.
#[derive(Debug, Clone)]
pub struct Cosign {
    bin: PathBuf,
    password: String,
}

impl Cosign {
    /// cosign, its keys' password given through `COSIGN_PASSWORD` (as cosign reads it).
    pub fn new(password: &str) -> Result<Cosign, Error> {
        Ok(Cosign {
            bin: cosign_binary()?,
            password: password.to_string(),
        })
    }

    /// `cosign ARGS` with `COSIGN_PASSWORD`, no standard input, and cosign's home, TUF root
    /// and Docker config under the system temporary directory (no credentials of the user).
    pub fn command(&self, args: &[&str]) -> Command {
        let home = std::env::temp_dir().join("kubepkg-cosign-home");
        let mut c = Command::new(&self.bin);
        c.args(args)
            .env("COSIGN_PASSWORD", &self.password)
            .env("HOME", &home)
            .env("TUF_ROOT", home.join(".sigstore/root"))
            .env("DOCKER_CONFIG", home.join(".docker"))
            .env_remove("COSIGN_EXPERIMENTAL")
            .env_remove("SIGSTORE_ROOT_FILE")
            .stdin(Stdio::null());
        c
    }

    /// Runs `cosign ARGS` and returns its output, whatever its exit status.
    pub fn run(&self, args: &[&str]) -> Result<Output, Error> {
        self.command(args).output().map_err(|source| Error::Io {
            what: "running",
            path: self.bin.clone(),
            source,
        })
    }

    /// Runs `cosign ARGS`; a non-zero exit is an error with cosign's output.
    pub fn ok(&self, args: &[&str]) -> Result<Output, Error> {
        let out = self.run(args)?;
        if !out.status.success() {
            return Err(Error::Tool {
                command: format!("cosign {}", args.join(" ")),
                output: format!(
                    "{}\n{}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            });
        }
        Ok(out)
    }

    /// `cosign sign --key KEY IMAGE` (`HOST/REPO@DIGEST`) offline (no transparency log) and
    /// allowing a plain-HTTP registry, as the test registry is.
    pub fn sign(&self, key: &Path, image: &str) -> Result<Output, Error> {
        self.ok(&[
            "sign",
            "--key",
            key.to_str().unwrap(),
            "--tlog-upload=false",
            "--allow-http-registry",
            "--yes",
            image,
        ])
    }

    /// `cosign generate-key-pair --output-key-prefix PREFIX` in `dir`: returns the paths of
    /// `PREFIX.key` (encrypted with the password) and `PREFIX.pub`.
    pub fn generate_key_pair(&self, dir: &Path, prefix: &str) -> Result<(PathBuf, PathBuf), Error> {
        let out = self
            .command(&["generate-key-pair", "--output-key-prefix", prefix])
            .current_dir(dir)
            .output()
            .map_err(|source| Error::Io {
                what: "running",
                path: self.bin.clone(),
                source,
            })?;
        if !out.status.success() {
            return Err(Error::Tool {
                command: "cosign generate-key-pair".into(),
                output: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok((
            dir.join(format!("{prefix}.key")),
            dir.join(format!("{prefix}.pub")),
        ))
    }
}
