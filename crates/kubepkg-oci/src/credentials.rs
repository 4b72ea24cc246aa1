//! Registry credentials as users have them: Helm's registry config first, then Docker's
//! `config.json` (where each is comes from `kubepkg_source::HelmPaths`, resolved once from
//! the environment by the binary), both in Docker's `config.json` format (`auths.<host>.auth` = base64 `user:password`, or
//! `username`/`password`; `credHelpers`/`credsStore` run `docker-credential-<name> get`; an
//! `identitytoken` alone, an OAuth2 refresh token, is not exchanged yet and counts as none).
//! [`login`] and [`logout`] write Helm's file the way helm does (other keys kept, tab-indented
//! JSON, mode 0600, written whole through a rename), so a login by either tool serves both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::error::Error;

/// A user name and password (or token) for one registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Credential {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .finish()
    }
}

/// Where credentials are looked up, in order.
#[derive(Debug, Clone)]
pub struct CredentialFiles {
    /// Helm's registry config: read first, written by login/logout.
    pub helm: PathBuf,
    /// Docker's config.json: read when Helm's has nothing for the host.
    pub docker: Option<PathBuf>,
}

impl CredentialFiles {
    /// No files: only [`crate::ClientOptions::credential`] (the controller's pull Secret).
    pub fn none() -> CredentialFiles {
        CredentialFiles {
            helm: PathBuf::new(),
            docker: None,
        }
    }

    /// The credential for `host` (`host[:port]`), if any file has one.
    pub fn lookup(&self, host: &str) -> Result<Option<Credential>, Error> {
        let files = std::iter::once(&self.helm).chain(self.docker.as_ref());
        for path in files.filter(|p| !p.as_os_str().is_empty()) {
            if let Some(c) = lookup_in(path, host)? {
                return Ok(Some(c));
            }
        }
        Ok(None)
    }
}

fn read_config(path: &Path) -> Result<Option<Map<String, Value>>, Error> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("reading", path)(e)),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Some(Map::new()));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(Error::Credentials {
            path: path.to_path_buf(),
            message: "not a JSON object".into(),
        }),
        Err(e) => Err(Error::Credentials {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

/// The keys a host may be stored under (Docker also keeps `https://host` forms).
fn keys_of(host: &str) -> [String; 3] {
    [
        host.to_string(),
        format!("https://{host}"),
        format!("http://{host}"),
    ]
}

/// The credential for `host` in `bytes`, a Docker `config.json` (e.g. the `.dockerconfigjson`
/// of a `kubernetes.io/dockerconfigjson` Secret; `origin` names it in errors). Credential
/// helpers are not run for it.
pub fn lookup_in_json(
    bytes: &[u8],
    origin: &Path,
    host: &str,
) -> Result<Option<Credential>, Error> {
    let config = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            return Err(Error::Credentials {
                path: origin.to_path_buf(),
                message: "not a JSON object".into(),
            });
        }
        Err(e) => {
            return Err(Error::Credentials {
                path: origin.to_path_buf(),
                message: e.to_string(),
            });
        }
    };
    let auths_only: Map<String, Value> = config.into_iter().filter(|(k, _)| k == "auths").collect();
    lookup_in_config(auths_only, origin, host)
}

fn lookup_in(path: &Path, host: &str) -> Result<Option<Credential>, Error> {
    let Some(config) = read_config(path)? else {
        return Ok(None);
    };
    lookup_in_config(config, path, host)
}

fn lookup_in_config(
    config: Map<String, Value>,
    path: &Path,
    host: &str,
) -> Result<Option<Credential>, Error> {
    let bad = |message: String| Error::Credentials {
        path: path.to_path_buf(),
        message,
    };
    if let Some(Value::Object(helpers)) = config.get("credHelpers")
        && let Some(Value::String(helper)) = keys_of(host).iter().find_map(|k| helpers.get(k))
    {
        return run_helper(path, helper, host);
    }
    if let Some(Value::Object(auths)) = config.get("auths") {
        for key in keys_of(host) {
            let Some(entry) = auths.get(&key) else {
                continue;
            };
            let field = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default();
            if !field("auth").is_empty() {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(field("auth").trim())
                    .map_err(|e| bad(format!("auths.{key}.auth is not base64: {e}")))?;
                let text = String::from_utf8(raw)
                    .map_err(|_| bad(format!("auths.{key}.auth is not UTF-8")))?;
                let (u, p) = text
                    .split_once(':')
                    .ok_or_else(|| bad(format!("auths.{key}.auth is not user:password")))?;
                return Ok(Some(Credential {
                    username: u.to_string(),
                    password: p.to_string(),
                }));
            }
            if !field("username").is_empty() {
                return Ok(Some(Credential {
                    username: field("username").to_string(),
                    password: field("password").to_string(),
                }));
            }
        }
    }
    if let Some(Value::String(store)) = config.get("credsStore") {
        return run_helper(path, store, host);
    }
    Ok(None)
}

/// `docker-credential-<helper> get` with the host on standard input.
fn run_helper(path: &Path, helper: &str, host: &str) -> Result<Option<Credential>, Error> {
    use std::io::Write;
    let program = format!("docker-credential-{helper}");
    let bad = |message: String| Error::Credentials {
        path: path.to_path_buf(),
        message,
    };
    let mut child = std::process::Command::new(&program)
        .arg("get")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| bad(format!("running {program}: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(host.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| bad(format!("running {program}: {e}")))?;
    if !out.status.success() {
        // Helpers answer "credentials not found" with a failure: no credential for this host.
        return Ok(None);
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| bad(format!("{program} printed no JSON: {e}")))?;
    let s = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Ok(Some(Credential {
        username: s("Username"),
        password: s("Secret"),
    }))
}

/// Records `credential` for `host` in Helm's registry config `path`, as `helm registry login` does.
pub fn login(path: &Path, host: &str, credential: &Credential) -> Result<(), Error> {
    let mut config = read_config(path)?.unwrap_or_default();
    let auths = config
        .entry("auths")
        .or_insert_with(|| Value::Object(Map::new()));
    if !auths.is_object() {
        *auths = Value::Object(Map::new());
    }
    let token = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", credential.username, credential.password));
    if let Value::Object(auths) = auths {
        let mut entry = Map::new();
        entry.insert("auth".into(), Value::String(token));
        auths.insert(host.to_string(), Value::Object(entry));
    }
    write_config(path, config)
}

/// Removes `host`'s credential from Helm's registry config `path`; `false` when it had none.
pub fn logout(path: &Path, host: &str) -> Result<bool, Error> {
    let Some(mut config) = read_config(path)? else {
        return Ok(false);
    };
    let removed = match config.get_mut("auths") {
        Some(Value::Object(auths)) => {
            let mut removed = false;
            for k in keys_of(host) {
                removed |= auths.remove(&k).is_some();
            }
            removed
        }
        _ => false,
    };
    if removed {
        write_config(path, config)?;
    }
    Ok(removed)
}

/// `v` with every object's keys sorted (Go marshals maps so).
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let b: BTreeMap<String, Value> = m.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            Value::Object(b.into_iter().collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        v => v,
    }
}

/// Sorted keys, tab indentation, mode 0600, temporary file then rename (ORAS's file store).
fn write_config(path: &Path, config: Map<String, Value>) -> Result<(), Error> {
    let sorted: BTreeMap<String, Value> = config.into_iter().map(|(k, v)| (k, sorted(v))).collect();
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"\t");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&sorted, &mut ser).map_err(|e| Error::Credentials {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(Error::io("creating", dir))?;
    let tmp = dir.join(format!(".config.json.tmp-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let mut f = opts.open(&tmp)?;
        f.write_all(&out)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io("writing", path)(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn login_writes_helms_format_and_lookup_reads_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let helm = dir.path().join("registry/config.json");
        std::fs::create_dir_all(helm.parent().unwrap()).unwrap();
        std::fs::write(
            &helm,
            r#"{"auths":{"other:1":{"auth":"eDp5"}},"credsStoreX":"keep"}"#,
        )
        .unwrap();
        let c = Credential {
            username: "u".into(),
            password: "p:w".into(),
        };
        login(&helm, "127.0.0.1:5000", &c).unwrap();
        let text = std::fs::read_to_string(&helm).unwrap();
        assert_eq!(
            text,
            "{\n\t\"auths\": {\n\t\t\"127.0.0.1:5000\": {\n\t\t\t\"auth\": \"dTpwOnc=\"\n\t\t},\n\t\t\"other:1\": {\n\t\t\t\"auth\": \"eDp5\"\n\t\t}\n\t},\n\t\"credsStoreX\": \"keep\"\n}"
        );
        let files = CredentialFiles {
            helm: helm.clone(),
            docker: None,
        };
        assert_eq!(files.lookup("127.0.0.1:5000").unwrap(), Some(c));
        assert!(logout(&helm, "127.0.0.1:5000").unwrap());
        assert_eq!(files.lookup("127.0.0.1:5000").unwrap(), None);
        assert!(!logout(&helm, "127.0.0.1:5000").unwrap());
    }

    #[test]
    fn docker_config_is_the_fallback_incl_https_keys_and_username_fields() {
        let dir = tempfile::tempdir().unwrap();
        let docker = dir.path().join("config.json");
        std::fs::write(
            &docker,
            r#"{"auths":{"https://r.example":{"username":"a","password":"b"}}}"#,
        )
        .unwrap();
        let files = CredentialFiles {
            helm: dir.path().join("missing.json"),
            docker: Some(docker),
        };
        let c = files.lookup("r.example").unwrap().unwrap();
        assert_eq!((c.username.as_str(), c.password.as_str()), ("a", "b"));
        assert_eq!(files.lookup("other.example").unwrap(), None);
    }
}
