//! Remote `$ref`s of `values.schema.json`: `kubepkg template` against what the real `helm
//! template` v4.3.1 answered for the same chart (`testdata/helm-reference/schema-refs/`,
//! recorded by `tools/helm-ref/schema_refs.py`), with the referenced documents served by a
//! loopback HTTP server of this test. Also: a document fetched once is served from the disk
//! cache while the server is gone.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/helm-reference/schema-refs")
}

/// A loopback HTTP/1.1 server answering GETs for the files of `docs/` (404 for others), one
/// connection at a time, each closed after its answer. Counts the requests it answered.
struct Server {
    base: String,
    requests: Arc<AtomicUsize>,
    stop: Arc<Mutex<bool>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(docs: BTreeMap<String, Vec<u8>>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(Mutex::new(false));
        let (count, stopped) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if *stopped.lock().unwrap() {
                    return;
                }
                let Ok(mut conn) = conn else { continue };
                let mut reader = BufReader::new(conn.try_clone().expect("clone"));
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                loop {
                    let mut header = String::new();
                    match reader.read_line(&mut header) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if header == "\r\n" => break,
                        Ok(_) => {}
                    }
                }
                let path = request_line.split(' ').nth(1).unwrap_or("/");
                let answer = match docs.get(path.trim_start_matches('/')) {
                    Some(body) => [
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes(),
                        body.clone(),
                    ]
                    .concat(),
                    None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_vec(),
                };
                count.fetch_add(1, Ordering::SeqCst);
                let _ = conn.write_all(&answer);
            }
        });
        Server {
            base,
            requests,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        *self.stop.lock().unwrap() = true;
        // Wake the accept loop so it sees the flag and drops the listener.
        let _ = std::net::TcpStream::connect(self.base.trim_start_matches("http://"));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn docs() -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(reference_dir().join("docs"))
        .expect("docs")
        .map(|e| {
            let p = e.expect("entry").path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read doc"))
        })
        .collect()
}

/// The chart of the references with its schema's `{base}` and `{name_ref}` filled in.
fn write_chart(dir: &Path, base: &str, name_ref: &str) -> PathBuf {
    let src = reference_dir().join("chart");
    let chart = dir.join("chart");
    std::fs::create_dir_all(chart.join("templates")).expect("mkdir");
    for f in ["Chart.yaml", "values.yaml", "templates/cm.yaml"] {
        std::fs::copy(src.join(f), chart.join(f)).expect("copy chart file");
    }
    let schema = std::fs::read_to_string(src.join("values.schema.json.in")).expect("schema");
    std::fs::write(
        chart.join("values.schema.json"),
        schema
            .replace("{base}", base)
            .replace("{name_ref}", name_ref),
    )
    .expect("write schema");
    chart
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn kubepkg(chart: &Path, args: &[&str], cache: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["template", "rel"])
        .arg(chart)
        .args(args)
        .env("KUBEPKG_SCHEMA_CACHE", cache)
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .env_remove("HELM_NAMESPACE")
        .output()
        .expect("run kubepkg");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Lines sorted: Go's validator reports violations in a random order.
fn sorted_lines(s: &str) -> Vec<&str> {
    let mut l: Vec<&str> = s.lines().collect();
    l.sort_unstable();
    l
}

#[test]
fn remote_schema_refs_match_helm() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server = Server::start(docs());
    // A port nothing listens on, for the `down` scenarios.
    let down = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", l.local_addr().expect("addr"))
    };
    let scenarios = std::fs::read_to_string(reference_dir().join("scenarios.tsv")).expect("tsv");
    let mut failures = Vec::new();
    let mut n = 0;
    for line in scenarios.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let (id, name_ref, state) = (f[0], f[1], f[2]);
        let args: Vec<&str> = f
            .get(3)
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default();
        let base = if state == "up" { &server.base } else { &down };
        let dir = tmp.path().join(id);
        let chart = write_chart(&dir, base, name_ref);
        // Each scenario has a cache of its own: nothing is served from an earlier one.
        let got = kubepkg(&chart, &args, &dir.join("cache"));
        let want = |ext: &str| {
            std::fs::read_to_string(reference_dir().join(format!("{id}.{ext}")))
                .expect("reference")
                .replace("{base}", base)
                .replace("{addr}", base.trim_start_matches("http://"))
                .replace("{chart}", &chart.display().to_string())
        };
        let want_ok = want("exit").trim() == "0";
        n += 1;
        if got.ok != want_ok {
            failures.push(format!(
                "{id}: helm ok={want_ok}, kubepkg ok={}: {}",
                got.ok, got.stderr
            ));
        } else if got.stdout != want("stdout") {
            failures.push(format!(
                "{id}: stdout differs\n--- helm\n{}\n--- kubepkg\n{}",
                want("stdout"),
                got.stdout
            ));
        } else if sorted_lines(&got.stderr) != sorted_lines(&want("stderr")) {
            failures.push(format!(
                "{id}: stderr differs\n--- helm\n{}\n--- kubepkg\n{}",
                want("stderr"),
                got.stderr
            ));
        }
    }
    assert!(n >= 5, "too few scenarios: {n}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn fetched_documents_are_served_from_the_disk_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("cache");
    let server = Server::start(docs());
    let chart = write_chart(tmp.path(), &server.base, "name.json");
    let args = ["--set", "port=200", "--set", "name=ab"];
    let first = kubepkg(&chart, &args, &cache);
    assert!(first.ok, "{}", first.stderr);
    let fetched = server.requests.load(Ordering::SeqCst);
    assert!(fetched >= 2, "both documents fetched: {fetched}");
    drop(server);
    let again = kubepkg(&chart, &args, &cache);
    assert!(again.ok, "served from the cache: {}", again.stderr);
    assert_eq!(again.stdout, first.stdout);
    // Without the cache the server's absence shows as Helm's error.
    let off = kubepkg(&chart, &args, Path::new("off"));
    assert!(!off.ok);
    assert!(
        off.stderr.contains("failing loading \"") && off.stderr.contains("connection refused"),
        "{}",
        off.stderr
    );
}
