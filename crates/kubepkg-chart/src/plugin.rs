//! Helm 4's plugins, as far as kubepkg uses them: finding and reading `plugin.yaml` in Helm's
//! plugins directories (`HELM_PLUGINS`), `plugin list`, and running a `postrenderer/v1`
//! plugin with the `subprocess` runtime. Follows Helm's `internal/plugin` (v4.3.1): `loader.go`
//! (`LoadAll`, `FindPlugin`), `metadata_v1.go` and `metadata_legacy.go` (the two `plugin.yaml`
//! forms), `subprocess_commands.go` (`platformCommand` chosen by OS and architecture, `$VAR`
//! expanded) and `runtime_subprocess.go` (the manifests on standard input, the result on
//! standard output, `HELM_PLUGIN_NAME` and `HELM_PLUGIN_DIR` in the environment).
//!
//! The `extism/v1` runtime (a WebAssembly module run by Extism) is read and listed but not run:
//! [`PostRendererPlugin::find`] refuses such a plugin by name (docs/cli.md says why).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use kubepkg_value::Value;

/// The type name of a post-renderer plugin.
pub const POSTRENDERER_V1: &str = "postrenderer/v1";

/// A plugin read from `<dir>/plugin.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    /// The plugin's directory (`HELM_PLUGIN_DIR`).
    pub dir: PathBuf,
    pub name: String,
    pub version: String,
    /// `cli/v1`, `getter/v1`, `postrenderer/v1`, …
    pub plugin_type: String,
    /// `v1`, or `legacy` for a `plugin.yaml` without `apiVersion`.
    pub api_version: String,
    /// `subprocess` or `extism/v1`.
    pub runtime: String,
    pub source_url: String,
    /// The runtime's `platformCommand` entries (subprocess runtime).
    pub platform_command: Vec<PlatformCommand>,
}

/// One `platformCommand` entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlatformCommand {
    pub os: String,
    pub arch: String,
    pub command: String,
    pub args: Vec<String>,
}

/// Why plugins could not be found, read or run. The texts are Helm's where Helm has one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// No plugin of that name and type in the plugins directories.
    #[error("plugin: {{Name:{name} Type:{plugin_type}}} not found")]
    NotFound { name: String, plugin_type: String },
    /// Two plugins in the plugins directories have the same name.
    #[error("two plugins claim the name {name:?} at {first:?} and {second:?}")]
    Duplicate {
        name: String,
        first: PathBuf,
        second: PathBuf,
    },
    /// A `plugin.yaml` that does not read as a plugin.
    #[error("failed to load plugin {dir:?}: {message}")]
    Load { dir: PathBuf, message: String },
    /// A plugin whose runtime kubepkg cannot run.
    #[error(
        "plugin {name:?} uses the {runtime:?} runtime, which kubepkg does not run (only \"subprocess\" plugins): use helm for it, or a subprocess plugin"
    )]
    Runtime { name: String, runtime: String },
    /// No `platformCommand` entry applies to this OS and architecture.
    #[error("failed to prepare plugin command: no plugin command is applicable")]
    NoCommand,
    /// The command could not be started or its output not read.
    #[error("failed to invoke post-renderer plugin {name:?}: {command}: {source}")]
    Start {
        name: String,
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// The command exited with a non-zero status (Helm's text, then the status and what the
    /// plugin wrote on standard error, which Helm's CLI drops).
    #[error(
        "failed to invoke post-renderer plugin {name:?}: plugin {name:?} exited with error ({status}){}",
        if stderr.is_empty() { String::new() } else { format!(": {stderr}") }
    )]
    Exit {
        name: String,
        status: String,
        stderr: String,
    },
    /// The plugin printed nothing but white space.
    #[error("post-renderer {name:?} produced empty output")]
    Empty { name: String },
}

/// Every plugin in `dirs` (Helm's `FindPlugins`): for each directory, its `*/plugin.yaml` in
/// name order. A `plugin.yaml` that does not load is skipped with a warning (returned), as Helm
/// logs and ignores it; two plugins of one name in one directory are an error.
pub fn find_plugins(dirs: &[PathBuf]) -> Result<(Vec<Plugin>, Vec<String>), PluginError> {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.join("plugin.yaml").is_file())
            .collect();
        subdirs.sort();
        let mut in_dir: Vec<Plugin> = Vec::new();
        for sub in subdirs {
            match load_dir(&sub) {
                Ok(p) => in_dir.push(p),
                Err(e) => warnings.push(format!(
                    "failed to load plugin (ignoring) plugin_yaml={} error={e}",
                    sub.join("plugin.yaml").display()
                )),
            }
        }
        for (i, p) in in_dir.iter().enumerate() {
            if let Some(first) = in_dir[..i].iter().find(|q| q.name == p.name) {
                return Err(PluginError::Duplicate {
                    name: p.name.clone(),
                    first: first.dir.clone(),
                    second: p.dir.clone(),
                });
            }
        }
        found.extend(in_dir);
    }
    Ok((found, warnings))
}

/// Reads `<dir>/plugin.yaml` (Helm's `LoadDir`).
pub fn load_dir(dir: &Path) -> Result<Plugin, PluginError> {
    let file = dir.join("plugin.yaml");
    let load = |message: String| PluginError::Load {
        dir: dir.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(&file).map_err(|e| {
        load(format!(
            "failed to read plugin at {:?}: {e}",
            file.display()
        ))
    })?;
    let text = kubepkg_yaml::text(&bytes).map_err(|e| load(e.go_text()))?;
    let doc = kubepkg_yaml::from_yaml_map(text).map_err(|e| load(e.go_text()))?;
    let Value::Map(m) = &doc else {
        return Err(load("plugin.yaml is not a mapping".into()));
    };
    let m = kubepkg_value::map_read(m).clone();
    let string = |k: &str| -> String {
        match m.get(k) {
            Some(Value::String(s)) => s.to_string(),
            Some(Value::Nil) | None => String::new(),
            Some(other) => kubepkg_yaml::json::to_json(other).unwrap_or_default(),
        }
    };
    let api_version = string("apiVersion");
    let name = string("name");
    let valid_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if api_version.is_empty() {
        // A legacy plugin: a CLI plugin (or a getter with `downloaders`), always a subprocess.
        if !valid_name {
            return Err(load(format!(
                "invalid plugin name {name:?}: must contain only a-z, A-Z, 0-9, _ and -"
            )));
        }
        let downloaders = matches!(m.get("downloaders"), Some(Value::List(l, _)) if !l.is_empty());
        let mut platform_command = platform_commands(m.get("platformCommand"));
        if platform_command.is_empty() && !string("command").is_empty() {
            platform_command.push(PlatformCommand {
                command: string("command"),
                ..Default::default()
            });
        }
        return Ok(Plugin {
            dir: dir.to_path_buf(),
            name,
            version: string("version"),
            plugin_type: if downloaders { "getter/v1" } else { "cli/v1" }.into(),
            api_version: "legacy".into(),
            runtime: "subprocess".into(),
            source_url: String::new(),
            platform_command,
        });
    }
    if api_version != "v1" {
        return Err(load(format!("invalid plugin apiVersion: {api_version:?}")));
    }
    const KNOWN: [&str; 8] = [
        "apiVersion",
        "name",
        "type",
        "runtime",
        "version",
        "sourceURL",
        "config",
        "runtimeConfig",
    ];
    if let Some(k) = m.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(load(format!(
            "yaml: unmarshal errors:\n  field {k} not found in type plugin.MetadataV1"
        )));
    }
    if !valid_name {
        return Err(load("invalid plugin `name`".into()));
    }
    let version = string("version");
    if version.is_empty() {
        return Err(load("plugin `version` is required".into()));
    }
    if !kubepkg_semver::is_strict_new_version(&version) {
        return Err(load(format!(
            "invalid plugin `version` {version:?}: must be valid semver"
        )));
    }
    let plugin_type = string("type");
    if plugin_type.is_empty() {
        return Err(load("`type` missing".into()));
    }
    let runtime = string("runtime");
    if runtime.is_empty() {
        return Err(load("`runtime` missing".into()));
    }
    if !["test/v1", "cli/v1", "getter/v1", POSTRENDERER_V1].contains(&plugin_type.as_str()) {
        return Err(load(format!("unknown plugin type {plugin_type:?}")));
    }
    if plugin_type == POSTRENDERER_V1
        && let Some(Value::Map(c)) = m.get("config")
        && let Some(k) = kubepkg_value::map_read(c).keys().next()
    {
        return Err(load(format!(
            "yaml: unmarshal errors:\n  field {k} not found in type schema.ConfigPostRendererV1"
        )));
    }
    let platform_command = match runtime.as_str() {
        "subprocess" => match m.get("runtimeConfig") {
            Some(Value::Map(rc)) => {
                platform_commands(kubepkg_value::map_read(rc).get("platformCommand"))
            }
            _ => Vec::new(),
        },
        "extism/v1" => Vec::new(),
        other => {
            return Err(load(format!("unsupported plugin runtime type: {other:?}")));
        }
    };
    Ok(Plugin {
        dir: dir.to_path_buf(),
        name,
        version,
        plugin_type,
        api_version,
        runtime,
        source_url: string("sourceURL"),
        platform_command,
    })
}

fn platform_commands(v: Option<&Value>) -> Vec<PlatformCommand> {
    let Some(Value::List(items, _)) = v else {
        return Vec::new();
    };
    let text = |m: &std::collections::BTreeMap<String, Value>, k: &str| match m.get(k) {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    };
    items
        .iter()
        .filter_map(|i| match i {
            Value::Map(m) => {
                let m = kubepkg_value::map_read(m).clone();
                let args = match m.get("args") {
                    Some(Value::List(a, _)) => a
                        .iter()
                        .map(|x| match x {
                            Value::String(s) => s.to_string(),
                            other => kubepkg_yaml::json::to_json(other).unwrap_or_default(),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                Some(PlatformCommand {
                    os: text(&m, "os"),
                    arch: text(&m, "arch"),
                    command: text(&m, "command"),
                    args,
                })
            }
            _ => None,
        })
        .collect()
}

/// Go's `runtime.GOOS` and `runtime.GOARCH` for this build.
fn go_platform() -> (&'static str, &'static str) {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    (os, arch)
}

/// Helm's `getPlatformCommand`: an entry for this OS and architecture, else the first for this
/// OS without an architecture, else the first without either.
fn platform_command(cmds: &[PlatformCommand]) -> Option<(Vec<String>, Vec<String>)> {
    let (os, arch) = go_platform();
    let split = |c: &PlatformCommand| c.command.split(' ').map(str::to_string).collect();
    let mut chosen: Option<&PlatformCommand> = None;
    let mut found_os = false;
    for c in cmds {
        if c.os.eq_ignore_ascii_case(os) && c.arch.eq_ignore_ascii_case(arch) {
            return Some((split(c), c.args.clone()));
        }
        if (!c.os.is_empty() && !c.os.eq_ignore_ascii_case(os)) || !c.arch.is_empty() {
            continue;
        }
        if !found_os && !c.os.is_empty() && c.os.eq_ignore_ascii_case(os) {
            chosen = Some(c);
            found_os = true;
        } else if chosen.is_none() {
            chosen = Some(c);
        }
    }
    chosen.map(|c| (split(c), c.args.clone()))
}

/// Go's `os.Expand` with a lookup: `$NAME`, `${NAME}` and the one-character special names.
fn expand(s: &str, lookup: &dyn Fn(&str) -> String) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != '$' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        if c == '{' {
            match b[i + 2..].iter().position(|&x| x == '}') {
                Some(0) => {
                    // `${}`: Go drops the bad syntax.
                    i += 3;
                }
                Some(n) => {
                    let name: String = b[i + 2..i + 2 + n].iter().collect();
                    out.push_str(&lookup(&name));
                    i += 3 + n;
                }
                None => {
                    // No closing brace: Go drops the `${` and goes on.
                    i += 2;
                }
            }
        } else if "*#$@!?-".contains(c) || c.is_ascii_digit() {
            out.push_str(&lookup(&c.to_string()));
            i += 2;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == '_') {
                j += 1;
            }
            let name: String = b[i + 1..j].iter().collect();
            out.push_str(&lookup(&name));
            i = j;
        } else {
            // `$` followed by anything else is kept as is.
            out.push('$');
            i += 1;
        }
    }
    out
}

/// A `postrenderer/v1` plugin and the arguments to give it (`--post-renderer NAME
/// --post-renderer-args ARG…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostRendererPlugin {
    pub plugin: Plugin,
    pub args: Vec<String>,
}

impl PostRendererPlugin {
    /// Helm's `NewPostRendererPlugin`: the `postrenderer/v1` plugin `name` in `dirs`.
    pub fn find(dirs: &[PathBuf], name: &str, args: &[String]) -> Result<Self, PluginError> {
        let (plugins, _) = find_plugins(dirs)?;
        let plugin = plugins
            .into_iter()
            .find(|p| p.name == name && p.plugin_type == POSTRENDERER_V1)
            .ok_or_else(|| PluginError::NotFound {
                name: name.to_string(),
                plugin_type: POSTRENDERER_V1.to_string(),
            })?;
        if plugin.runtime != "subprocess" {
            return Err(PluginError::Runtime {
                name: plugin.name,
                runtime: plugin.runtime,
            });
        }
        Ok(PostRendererPlugin {
            plugin,
            args: args.to_vec(),
        })
    }

    /// Runs the plugin on `manifests` (Helm's `postRendererPlugin.Run`): the manifests on its
    /// standard input, its standard output the result. A non-zero exit and an empty answer are
    /// errors naming the plugin.
    pub fn run(&self, manifests: &str) -> Result<String, PluginError> {
        let p = &self.plugin;
        let (parts, args) = platform_command(&p.platform_command).ok_or(PluginError::NoCommand)?;
        if parts.first().is_none_or(|c| c.is_empty()) {
            return Err(PluginError::NoCommand);
        }
        let dir = p.dir.display().to_string();
        let lookup = |k: &str| -> String {
            match k {
                "HELM_PLUGIN_NAME" => p.name.clone(),
                "HELM_PLUGIN_DIR" => dir.clone(),
                _ => std::env::var(k).unwrap_or_default(),
            }
        };
        let main = expand(&parts[0], &lookup);
        let mut argv: Vec<String> = parts[1..].iter().map(|a| expand(a, &lookup)).collect();
        argv.extend(args.iter().map(|a| expand(a, &lookup)));
        argv.extend(self.args.iter().cloned());
        let start = |source| PluginError::Start {
            name: p.name.clone(),
            command: main.clone(),
            source,
        };
        let mut child = Command::new(&main)
            .args(&argv)
            .env("HELM_PLUGIN_NAME", &p.name)
            .env("HELM_PLUGIN_DIR", &p.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(start)?;
        let mut stdin = child.stdin.take();
        let input = manifests.as_bytes().to_vec();
        // Written from a thread, as Go's goroutine does, so a plugin that answers before it has
        // read everything cannot block us; a plugin that stops reading is not an error.
        let writer = std::thread::spawn(move || {
            if let Some(s) = stdin.as_mut() {
                let _ = s.write_all(&input);
            }
            drop(stdin);
        });
        let out = child.wait_with_output().map_err(start)?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(PluginError::Exit {
                name: p.name.clone(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.trim().is_empty() {
            return Err(PluginError::Empty {
                name: p.name.clone(),
            });
        }
        Ok(text)
    }
}

/// Helm's `plugin list` status of a plugin's signature: where Helm installs plugins (`data`
/// is `<data home>/plugins`), a link is `local dev`; an installed plugin without its
/// `NAME-VERSION.tgz.prov` is `unsigned`; one with it `signed (not verified by kubepkg)`;
/// anything else `unknown`.
pub fn provenance(data_plugins: &Path, p: &Plugin) -> &'static str {
    let dir = data_plugins.join(&p.name);
    let Ok(meta) = std::fs::symlink_metadata(&dir) else {
        return "unknown";
    };
    if meta.file_type().is_symlink() {
        return "local dev";
    }
    let tarball = data_plugins.join(format!("{}-{}.tgz", p.name, p.version));
    let prov = data_plugins.join(format!("{}-{}.tgz.prov", p.name, p.version));
    if tarball.is_file() && prov.is_file() {
        "signed (not verified by kubepkg)"
    } else {
        "unsigned"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_follows_go() {
        let look = |k: &str| match k {
            "A" => "x".to_string(),
            _ => String::new(),
        };
        assert_eq!(expand("${A}/run $A-$B $$ $", &look), "x/run x-  $");
    }

    #[test]
    fn platform_command_prefers_os_and_arch() {
        let (os, arch) = go_platform();
        let cmds = vec![
            PlatformCommand {
                command: "any".into(),
                ..Default::default()
            },
            PlatformCommand {
                os: os.into(),
                command: "os".into(),
                ..Default::default()
            },
            PlatformCommand {
                os: os.into(),
                arch: arch.into(),
                command: "both a".into(),
                ..Default::default()
            },
        ];
        assert_eq!(platform_command(&cmds).unwrap().0, vec!["both", "a"]);
        assert_eq!(platform_command(&cmds[..2]).unwrap().0, vec!["os"]);
        assert_eq!(platform_command(&cmds[..1]).unwrap().0, vec!["any"]);
    }
}
