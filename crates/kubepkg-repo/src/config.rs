//! Helm's `repositories.yaml` (`repo.File`): read as `yaml.Unmarshal` reads it (unknown fields
//! ignored) and written as `yaml.Marshal` writes it (keys sorted, every field present), mode
//! 0600 when it is created, its directory created 0755; writers hold Helm's lock file
//! (`repositories.lock` next to it, `flock`), so `helm repo add` and `kubepkg repo add` running
//! at once do not lose an entry.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use kubepkg_value::{Value, map_read};

/// One repository (Helm's `repo.Entry`; field names are Helm's YAML keys).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub url: String,
    pub username: String,
    pub password: String,
    pub cert_file: String,
    pub key_file: String,
    pub ca_file: String,
    pub insecure_skip_tls_verify: bool,
    pub pass_credentials_all: bool,
}

/// `repositories.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    pub api_version: String,
    /// As read (Go writes a `time.Time` back in the same RFC 3339 form); Go's zero time when
    /// the file did not exist, as Helm writes it.
    pub generated: String,
    pub repositories: Vec<Entry>,
}

impl Default for RepoFile {
    fn default() -> Self {
        RepoFile {
            api_version: String::new(),
            generated: "0001-01-01T00:00:00Z".into(),
            repositories: Vec::new(),
        }
    }
}

/// Why `repositories.yaml` could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("couldn't load repositories file ({})", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", .path.display())]
    Yaml {
        path: PathBuf,
        #[source]
        source: kubepkg_yaml::YamlError,
    },
    #[error(
        "{}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go struct field {field} of type {want}",
        .path.display()
    )]
    Type {
        path: PathBuf,
        got: &'static str,
        field: String,
        want: &'static str,
    },
    #[error("writing {}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ConfigError {
    /// The file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ConfigError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

impl RepoFile {
    /// Reads `path` (Helm's `repo.LoadFile`).
    pub fn load(path: &Path) -> Result<RepoFile, ConfigError> {
        let bytes = std::fs::read(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        RepoFile::parse(&bytes, path)
    }

    /// Reads `path`, an absent file being an empty one (what `helm repo add` does).
    pub fn load_or_default(path: &Path) -> Result<RepoFile, ConfigError> {
        match RepoFile::load(path) {
            Err(e) if e.is_not_found() => Ok(RepoFile::default()),
            other => other,
        }
    }

    fn parse(bytes: &[u8], path: &Path) -> Result<RepoFile, ConfigError> {
        let yaml = |source| ConfigError::Yaml {
            path: path.to_path_buf(),
            source,
        };
        let text = kubepkg_yaml::text(bytes).map_err(yaml)?;
        let doc = kubepkg_yaml::from_yaml_str(text).map_err(yaml)?;
        let ty = |got, field: &str, want| ConfigError::Type {
            path: path.to_path_buf(),
            got,
            field: field.to_string(),
            want,
        };
        let mut file = RepoFile::default();
        let top = match &doc {
            Value::Nil => return Ok(file),
            Value::Map(m) => map_read(m).clone(),
            other => return Err(ty(kind(other), "File", "repo.File")),
        };
        let s =
            |m: &BTreeMap<String, Value>, key: &str, field: &str| -> Result<String, ConfigError> {
                match lookup(m, key) {
                    None | Some(Value::Nil) => Ok(String::new()),
                    Some(v) => v
                        .as_str()
                        .map(str::to_string)
                        .ok_or_else(|| ty(kind(v), field, "string")),
                }
            };
        let b =
            |m: &BTreeMap<String, Value>, key: &str, field: &str| -> Result<bool, ConfigError> {
                match lookup(m, key) {
                    None | Some(Value::Nil) => Ok(false),
                    Some(Value::Bool(b)) => Ok(*b),
                    Some(v) => Err(ty(kind(v), field, "bool")),
                }
            };
        file.api_version = s(&top, "apiVersion", "File.apiVersion")?;
        let generated = s(&top, "generated", "File.generated")?;
        if !generated.is_empty() {
            file.generated = generated;
        }
        match lookup(&top, "repositories") {
            None | Some(Value::Nil) => {}
            Some(Value::List(items, _)) => {
                for item in items.iter() {
                    let m = match item {
                        // A null entry: Helm keeps a nil pointer, which its writers skip.
                        Value::Nil => continue,
                        Value::Map(m) => map_read(m).clone(),
                        other => return Err(ty(kind(other), "File.repositories", "repo.Entry")),
                    };
                    let f = |k: &str| format!("File.repositories.{k}");
                    file.repositories.push(Entry {
                        name: s(&m, "name", &f("name"))?,
                        url: s(&m, "url", &f("url"))?,
                        username: s(&m, "username", &f("username"))?,
                        password: s(&m, "password", &f("password"))?,
                        cert_file: s(&m, "certFile", &f("certFile"))?,
                        key_file: s(&m, "keyFile", &f("keyFile"))?,
                        ca_file: s(&m, "caFile", &f("caFile"))?,
                        insecure_skip_tls_verify: b(
                            &m,
                            "insecure_skip_tls_verify",
                            &f("insecure_skip_tls_verify"),
                        )?,
                        pass_credentials_all: b(
                            &m,
                            "pass_credentials_all",
                            &f("pass_credentials_all"),
                        )?,
                    });
                }
            }
            Some(other) => return Err(ty(kind(other), "File.repositories", "[]*repo.Entry")),
        }
        Ok(file)
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.repositories.iter().find(|e| e.name == name)
    }

    /// Replaces the entry of the same name, or appends (Helm's `File.Update`).
    pub fn update(&mut self, entry: Entry) {
        match self.repositories.iter_mut().find(|e| e.name == entry.name) {
            Some(e) => *e = entry,
            None => self.repositories.push(entry),
        }
    }

    /// Removes the entry `name`; whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.repositories.len();
        self.repositories.retain(|e| e.name != name);
        before != self.repositories.len()
    }

    /// The file's text, as `sigs.k8s.io/yaml.Marshal` writes Helm's struct.
    pub fn to_yaml(&self) -> String {
        let entry = |e: &Entry| {
            Value::map(BTreeMap::from([
                ("name".into(), Value::str(&e.name)),
                ("url".into(), Value::str(&e.url)),
                ("username".into(), Value::str(&e.username)),
                ("password".into(), Value::str(&e.password)),
                ("certFile".into(), Value::str(&e.cert_file)),
                ("keyFile".into(), Value::str(&e.key_file)),
                ("caFile".into(), Value::str(&e.ca_file)),
                (
                    "insecure_skip_tls_verify".into(),
                    Value::Bool(e.insecure_skip_tls_verify),
                ),
                (
                    "pass_credentials_all".into(),
                    Value::Bool(e.pass_credentials_all),
                ),
            ]))
        };
        let top = BTreeMap::from([
            ("apiVersion".into(), Value::str(&self.api_version)),
            ("generated".into(), Value::str(&self.generated)),
            (
                "repositories".into(),
                Value::list(self.repositories.iter().map(entry).collect()),
            ),
        ]);
        // Strings, booleans and lists of maps: nothing go-yaml's emitter can refuse.
        kubepkg_yaml::to_yaml(&Value::map(top)).unwrap_or_default()
    }

    /// Writes the file as Helm's `File.WriteFile(path, 0600)`: its directory made 0755, the
    /// file created 0600 (an existing file keeps its mode).
    pub fn write(&self, path: &Path) -> Result<(), ConfigError> {
        let err = |source| ConfigError::Write {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            create_dir(dir).map_err(err)?;
        }
        let mut f = open_private(path, true).map_err(err)?;
        f.write_all(self.to_yaml().as_bytes()).map_err(err)?;
        Ok(())
    }
}

/// Holds Helm's lock of `repositories.yaml` (`repositories.lock` beside it) until dropped.
#[derive(Debug)]
pub struct RepoFileLock {
    _file: std::fs::File,
}

impl RepoFileLock {
    /// Takes the lock Helm's `repo add` takes (`flock` on `NAME.lock`), waiting for it.
    pub fn acquire(repo_file: &Path) -> Result<RepoFileLock, ConfigError> {
        let lock_path = match (repo_file.extension(), repo_file.file_stem()) {
            (Some(_), Some(stem)) => {
                repo_file.with_file_name(format!("{}.lock", stem.to_string_lossy()))
            }
            _ => PathBuf::from(format!("{}.lock", repo_file.display())),
        };
        let err = |source| ConfigError::Write {
            path: lock_path.clone(),
            source,
        };
        if let Some(dir) = lock_path.parent() {
            create_dir(dir).map_err(err)?;
        }
        let file = open_private(&lock_path, false).map_err(err)?;
        file.lock().map_err(err)?;
        Ok(RepoFileLock { _file: file })
    }
}

fn open_private(path: &Path, truncate: bool) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(truncate);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        o.mode(0o600);
    }
    o.open(path)
}

/// `os.MkdirAll(dir, 0755)`.
pub(crate) fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        b.mode(0o755);
    }
    b.create(dir)
}

fn lookup<'a>(m: &'a BTreeMap<String, Value>, key: &str) -> Option<&'a Value> {
    m.get(key).or_else(|| {
        m.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "bool",
        Value::String(_) => "string",
        Value::List(..) => "array",
        Value::Map(_) => "object",
        _ => "number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `helm repo add r http://127.0.0.1:18999` writes into a fresh configuration.
    const HELM_WROTE: &str = r#"apiVersion: ""
generated: "0001-01-01T00:00:00Z"
repositories:
- caFile: ""
  certFile: ""
  insecure_skip_tls_verify: false
  keyFile: ""
  name: r
  pass_credentials_all: false
  password: ""
  url: http://127.0.0.1:18999
  username: ""
"#;

    #[test]
    fn the_file_round_trips_byte_for_byte() {
        let f = RepoFile::parse(HELM_WROTE.as_bytes(), Path::new("r.yaml")).unwrap();
        assert_eq!(f.repositories[0].url, "http://127.0.0.1:18999");
        assert_eq!(f.to_yaml(), HELM_WROTE);
        let mut fresh = RepoFile::default();
        fresh.update(Entry {
            name: "r".into(),
            url: "http://127.0.0.1:18999".into(),
            ..Entry::default()
        });
        assert_eq!(fresh.to_yaml(), HELM_WROTE);
    }

    #[test]
    fn written_private_and_locked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cfg/repositories.yaml");
        let _lock = RepoFileLock::acquire(&path).unwrap();
        RepoFile::default().write(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(dir.path().join("cfg/repositories.lock").exists());
        assert!(
            RepoFile::load(&dir.path().join("none"))
                .unwrap_err()
                .is_not_found()
        );
    }
}
