//! The processes the kit starts for a test (Flux's and Argo CD's controllers, the test servers):
//! spawned with their output in a log file and killed with the thread that started them, on
//! free loopback ports (started again when another process took one), probed over plain HTTP
//! until they answer or read for the address they print; their logs' tails, and their working
//! directory kept for inspection when the test failed.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::Error;

/// Starts `bin` with `args` and `env`, its output to `log`, killed when the thread that starts
/// it ends (`setpriv --pdeathsig KILL`, when present), so a test binary that dies leaves none
/// behind (a plain child would go on watching the plane). Helm's environment (`HELM_*` homes,
/// driver and namespace) is not passed on.
pub(crate) fn spawn_logged(
    bin: &Path,
    args: &[String],
    env: &[(&str, std::ffi::OsString)],
    log: &Path,
) -> Result<Child, Error> {
    let file = File::create(log).map_err(|source| Error::Io {
        what: "creating",
        path: log.to_path_buf(),
        source,
    })?;
    let stderr = file.try_clone().map_err(|source| Error::Io {
        what: "opening",
        path: log.to_path_buf(),
        source,
    })?;
    let setpriv = Path::new("/usr/bin/setpriv");
    let mut cmd = if setpriv.exists() {
        let mut c = Command::new(setpriv);
        c.args(["--pdeathsig", "KILL", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("HELM_CACHE_HOME")
        .env_remove("HELM_CONFIG_HOME")
        .env_remove("HELM_DATA_HOME")
        .env_remove("HELM_DRIVER")
        .env_remove("HELM_NAMESPACE")
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(stderr));
    cmd.spawn().map_err(|source| Error::Io {
        what: "starting",
        path: bin.to_path_buf(),
        source,
    })
}

/// Starts `cmd` with its stdout piped and reads the first line a test server prints,
/// `listening on HOST:PORT`. Returns the child and that address, or (`Err`) the line it printed
/// instead; the child is still the caller's to keep or kill.
pub(crate) fn spawn_listening(cmd: &mut Command) -> Result<(Child, Result<String, String>), Error> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|source| Error::Io {
            what: "starting",
            path: PathBuf::from(cmd.get_program()),
            source,
        })?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut line = String::new();
    let _ = BufReader::new(stdout).read_line(&mut line);
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .filter(|h| h.parse::<std::net::SocketAddr>().is_ok())
        .map(str::to_string)
        .ok_or(line);
    Ok((child, addr))
}

/// Runs `spawn` (which starts processes on ports from [`free_ports`]) until it does not fail
/// for an address already in use, three times at most: ports are chosen free and then released,
/// so another process may take one before the process binds it.
pub(crate) async fn retry_port_clash<T, F, Fut>(mut spawn: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        match spawn().await {
            Err(e) if attempt < 3 && e.to_string().contains("address already in use") => continue,
            other => return other,
        }
    }
}

/// A new temporary directory `PREFIX…` with the subdirectories `subdirs`.
pub(crate) fn work_dir(prefix: &str, subdirs: &[&str]) -> Result<tempfile::TempDir, Error> {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|source| Error::Io {
            what: "creating a temporary directory",
            path: std::env::temp_dir(),
            source,
        })?;
    for sub in subdirs {
        let d = dir.path().join(sub);
        std::fs::create_dir_all(&d).map_err(|source| Error::Io {
            what: "creating",
            path: d.clone(),
            source,
        })?;
    }
    Ok(dir)
}

/// The last `lines` lines of each of `logs`, headed by the file's path.
pub(crate) fn log_tails(logs: &[PathBuf], lines: usize) -> String {
    let mut out = String::new();
    for log in logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        let tail = &all[all.len().saturating_sub(lines)..];
        out.push_str(&format!(
            "--- {} (last {} lines)\n",
            log.display(),
            tail.len()
        ));
        for line in tail {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// What a GitOps engine's test processes leave when they are gone (`name`: `Flux`, `Argo CD`),
/// dropped with the test: when it passed, the finalizers of its `kinds` in `namespace` released
/// (nothing else would remove them, and the namespace would stay Terminating; its deletion
/// then removes the objects); when it failed, the last lines of its logs (`tails`) shown and
/// its working directory `dir` kept.
pub(crate) fn finish(
    name: &str,
    plane: &crate::ControlPlane,
    namespace: &str,
    kinds: &'static [(&'static str, &'static str, &'static str)],
    dir: &mut Option<tempfile::TempDir>,
    tails: impl FnOnce() -> String,
) {
    if !std::thread::panicking() {
        if let Err(e) = crate::tooling::release_finalizers(plane, namespace, kinds) {
            eprintln!(
                "kubepkg-testkit: could not remove {name}'s finalizers in namespace {namespace}: {e}"
            );
        }
    } else {
        let kept = dir.take().map(|d| d.keep());
        eprintln!(
            "kubepkg-testkit: {name} for namespace {namespace} logged:\n{}",
            tails()
        );
        if let Some(path) = kept {
            eprintln!(
                "kubepkg-testkit: keeping {name}'s logs and files in {}",
                path.display()
            );
        }
    }
}

/// `N` distinct free loopback ports (held together while chosen, so they differ).
pub(crate) fn free_ports<const N: usize>() -> Result<[u16; N], Error> {
    let io = |source| Error::Io {
        what: "finding a free port on",
        path: PathBuf::from("127.0.0.1"),
        source,
    };
    let listeners = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(io)?;
    let mut ports = [0u16; N];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener.local_addr().map_err(io)?.port();
    }
    Ok(ports)
}

/// `GET <path>` (e.g. `/healthz`) on this loopback port answers 200.
pub(crate) fn answers_ok(port: u16, path: &str) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
        .is_err()
    {
        return false;
    }
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200")
}

/// What shows that a started process serves.
pub(crate) enum Probe {
    /// `GET <path>` on this loopback port answers 200.
    Http(u16, &'static str),
    /// Something accepts connections at this address.
    Listening(String),
}

impl Probe {
    fn ok(&self) -> bool {
        match self {
            Probe::Http(port, path) => answers_ok(*port, path),
            Probe::Listening(addr) => TcpStream::connect(addr.as_str()).is_ok(),
        }
    }
}

/// Waits until every probe of `waiting` (named) holds, for at most `limit`; fails early, naming
/// it, when one of `children` exits, and after `limit` naming the probes that never held
/// (`not <state> after …`).
pub(crate) async fn wait_started(
    children: &mut [(&str, &mut Child)],
    mut waiting: Vec<(&str, Probe)>,
    limit: Duration,
    state: &str,
) -> Result<(), String> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        for (name, child) in children.iter_mut() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("{name} exited while starting ({status})"));
            }
        }
        waiting.retain(|(_, probe)| !probe.ok());
        if waiting.is_empty() {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            let names: Vec<&str> = waiting.iter().map(|(n, _)| *n).collect();
            return Err(format!("not {state} after {limit:?}: {}", names.join(", ")));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
