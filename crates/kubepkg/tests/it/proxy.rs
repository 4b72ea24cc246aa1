//! `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` through a real proxy (Debian's `tinyproxy`,
//! `kubepkg_testkit::proxy`): chart repositories over HTTP (absolute-form requests) and HTTPS
//! (`CONNECT` tunnels), and the remote `$ref`s of `values.schema.json`, which go through the
//! same client. The servers listen on this machine's outward address, since loopback requests
//! are never proxied (Go's rule, and kubepkg's). The proof that a request went through the
//! proxy is the proxy's own log; the proof that the variable is honoured is that a dead proxy
//! makes the same command fail, and that `NO_PROXY` then makes it work again. OCI registries
//! are reached the same way: the real distribution registry on the outward address, over TLS
//! with a client certificate and the bearer-token flow, through a `CONNECT` tunnel.

use std::path::Path;
use std::process::{Command, Output};

use kubepkg_testkit::chart_repo::{ChartRepo, ChartSpec, ServeOptions, build_repository};
use kubepkg_testkit::helm_binary;
use kubepkg_testkit::proxy::HttpProxy;
use kubepkg_testkit::registry::{Registry, RegistryOptions};

use crate::support::{helm_home, ok};

/// A closed loopback port: a proxy that is not there.
const DEAD_PROXY: &str = "http://127.0.0.1:1";

fn kubepkg(home: &Path, args: &[&str], proxy: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    helm_home(c.args(args), home).env("KUBEPKG_SCHEMA_CACHE", "off");
    for v in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "REQUEST_METHOD",
    ] {
        c.env_remove(v);
    }
    for (k, v) in proxy {
        c.env(k, v);
    }
    c
}

/// `kubepkg repo update` with `var` naming a dead proxy fails, naming the repository's `host`.
fn update_fails_through_dead_proxy(home: &Path, var: &str, host: &str) {
    let stderr = failed(
        kubepkg(home, &["repo", "update"], &[(var, DEAD_PROXY)])
            .output()
            .unwrap(),
    );
    assert!(stderr.contains(host), "{stderr}");
}

fn failed(out: Output) -> String {
    assert!(
        !out.status.success(),
        "succeeded:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// Chart `app` 0.1.0 packaged by the real helm into `dir`, with the repository's index.
fn app_chart(dir: &Path) {
    build_repository(
        &helm_binary("v4.3.1").expect("helm oracle"),
        dir,
        &[ChartSpec::new("app", "0.1.0")],
    )
    .expect("helm package/repo index");
}

fn repository(options: ServeOptions) -> (tempfile::TempDir, ChartRepo) {
    let dir = tempfile::tempdir().unwrap();
    app_chart(dir.path());
    let server = ChartRepo::serve(
        dir.path(),
        ServeOptions {
            outward: true,
            ..options
        },
    )
    .expect("chart repository server");
    (dir, server)
}

fn host_of(url: &str) -> &str {
    url.split_once("://").unwrap().1.trim_end_matches('/')
}

#[test]
fn an_http_repository_is_reached_through_http_proxy_and_around_it_with_no_proxy() {
    let proxy = HttpProxy::start().expect("tinyproxy");
    let (_dir, repo) = repository(ServeOptions::default());
    let home = tempfile::tempdir().unwrap();
    let host = host_of(repo.url()).to_string();
    let through = [("HTTP_PROXY", proxy.url())];
    let through: Vec<(&str, &str)> = through.iter().map(|(k, v)| (*k, v.as_str())).collect();

    ok(
        kubepkg(home.path(), &["repo", "add", "r", repo.url()], &through)
            .output()
            .unwrap(),
    );
    let dest = home.path().join("pulled");
    ok(kubepkg(
        home.path(),
        &[
            "pull",
            "r/app",
            "--version",
            "0.1.0",
            "-d",
            dest.to_str().unwrap(),
        ],
        &through,
    )
    .output()
    .unwrap());
    assert!(dest.join("app-0.1.0.tgz").exists());
    let log = proxy.log();
    for path in ["index.yaml", "app-0.1.0.tgz"] {
        assert!(
            log.contains(&format!("GET http://{host}/{path}")),
            "the proxy did not forward GET {path}:\n{log}"
        );
    }

    // The variable is what decides: a dead proxy fails the same command, and the repository
    // sees nothing of it...
    let before = repo.requests();
    update_fails_through_dead_proxy(home.path(), "http_proxy", &host);
    assert_eq!(repo.requests(), before, "a request went around the proxy");
    // ...and NO_PROXY naming the host's address sends it directly again.
    let ip = host.split(':').next().unwrap();
    ok(kubepkg(
        home.path(),
        &["repo", "update"],
        &[("HTTP_PROXY", DEAD_PROXY), ("NO_PROXY", ip)],
    )
    .output()
    .unwrap());
    assert!(repo.requests() > before);
}

#[test]
fn an_https_repository_is_reached_through_a_connect_tunnel() {
    let proxy = HttpProxy::start().expect("tinyproxy");
    let (_dir, repo) = repository(ServeOptions {
        tls: true,
        ..ServeOptions::default()
    });
    let home = tempfile::tempdir().unwrap();
    let host = host_of(repo.url()).to_string();
    let ca = repo.ca_file().unwrap().to_str().unwrap().to_string();
    let url = proxy.url();
    ok(kubepkg(
        home.path(),
        &["repo", "add", "s", repo.url(), "--ca-file", &ca],
        &[("HTTPS_PROXY", &url), ("HTTP_PROXY", DEAD_PROXY)],
    )
    .output()
    .unwrap());
    let log = proxy.log();
    assert!(
        log.contains(&format!("CONNECT {host}")),
        "no CONNECT {host} in the proxy's log:\n{log}"
    );
    update_fails_through_dead_proxy(home.path(), "HTTPS_PROXY", &host);
}

/// A chart pulled from a registry through `HTTPS_PROXY`: a `CONNECT` tunnel to the registry
/// (and to its token endpoint), TLS inside it with the registry's CA and a client certificate,
/// bearer-token authentication; the chart arrives byte for byte. A dead proxy fails the same
/// pull with the registry named, and `NO_PROXY` naming the registry's address bypasses it.
#[test]
fn an_oci_registry_is_reached_through_a_connect_tunnel_and_no_proxy_bypasses_it() {
    let proxy = HttpProxy::start().expect("tinyproxy");
    let reg = Registry::start(
        RegistryOptions::tls()
            .with_client_certs()
            .with_user("alice", "s3cret")
            .with_token()
            .outward(),
    )
    .expect("registry on the outward address");
    let host = reg.host();
    assert!(!host.starts_with("127."), "{host}");
    let home = tempfile::tempdir().unwrap();
    let ca = reg.ca_file().unwrap().display().to_string();
    let (cert, key) = reg.client_cert().unwrap();
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    let access = [
        "--ca-file",
        ca.as_str(),
        "--cert-file",
        cert.as_str(),
        "--key-file",
        key.as_str(),
        "--username",
        "alice",
        "--password",
        "s3cret",
    ];
    let args = |verb: &[&str]| -> Vec<String> {
        verb.iter()
            .chain(access.iter())
            .map(|s| s.to_string())
            .collect()
    };
    let run = |a: &[String], vars: &[(&str, &str)]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        kubepkg(home.path(), &a, vars).output().unwrap()
    };

    // The chart goes in directly (no proxy variable set).
    let charts = tempfile::tempdir().unwrap();
    app_chart(charts.path());
    let chart = charts.path().join("app-0.1.0.tgz");
    let mut push = vec![
        "push".to_string(),
        chart.display().to_string(),
        reg.oci("c"),
    ];
    push.extend(args(&[]));
    ok(run(&push, &[]));
    assert!(
        !proxy.log().contains(&host),
        "the push went through the proxy"
    );

    let r = reg.oci("c/app");
    let dest = home.path().join("pulled");
    let mut pull = args(&["pull"]);
    pull.extend([
        r.clone(),
        "--version".into(),
        "0.1.0".into(),
        "-d".into(),
        dest.display().to_string(),
    ]);
    let url = proxy.url();
    ok(run(
        &pull,
        &[("HTTPS_PROXY", &url), ("HTTP_PROXY", DEAD_PROXY)],
    ));
    assert_eq!(
        std::fs::read(dest.join("app-0.1.0.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );
    let log = proxy.log();
    assert!(
        log.contains(&format!("CONNECT {host}")),
        "no CONNECT {host} in the proxy's log:\n{log}"
    );

    // A dead proxy: the same pull fails naming the registry...
    std::fs::remove_dir_all(&dest).unwrap();
    let stderr = failed(run(&pull, &[("HTTPS_PROXY", DEAD_PROXY)]));
    assert!(stderr.contains(&host), "{stderr}");
    assert!(!dest.exists());
    // ...and NO_PROXY naming the registry's address goes around it (every blob fetched again).
    std::fs::remove_dir_all(home.path().join("kubepkg")).unwrap();
    let ip = host.rsplit_once(':').unwrap().0;
    ok(run(&pull, &[("HTTPS_PROXY", DEAD_PROXY), ("NO_PROXY", ip)]));
    assert_eq!(
        std::fs::read(dest.join("app-0.1.0.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );
}

#[test]
fn a_schema_reference_is_fetched_through_the_proxy() {
    let proxy = HttpProxy::start().expect("tinyproxy");
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(
        docs.path().join("replicas.json"),
        r#"{"type": "object", "properties": {"replicas": {"type": "integer"}}}"#,
    )
    .unwrap();
    let server = ChartRepo::serve(
        docs.path(),
        ServeOptions {
            outward: true,
            ..ServeOptions::default()
        },
    )
    .expect("document server");
    let chart = tempfile::tempdir().unwrap();
    let c = chart.path();
    kubepkg_testkit::charts::write_chart(
        c,
        "s",
        "0.1.0",
        &[
            ("values.yaml", "replicas: \"two\"\n"),
            (
                "values.schema.json",
                &format!(r#"{{"$ref": "{}/replicas.json"}}"#, server.url()),
            ),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata: {r: {{ .Values.replicas | quote }}}\n",
            ),
        ],
    );
    let home = tempfile::tempdir().unwrap();
    let url = proxy.url();
    // The document arrived through the proxy: the schema it holds refuses the string.
    let stderr = failed(
        kubepkg(
            home.path(),
            &["template", "s", c.to_str().unwrap()],
            &[("HTTP_PROXY", &url)],
        )
        .output()
        .unwrap(),
    );
    assert!(stderr.contains("replicas"), "{stderr}");
    let host = host_of(server.url());
    assert!(
        proxy
            .log()
            .contains(&format!("GET http://{host}/replicas.json")),
        "{}",
        proxy.log()
    );
    ok(kubepkg(
        home.path(),
        &["template", "s", c.to_str().unwrap(), "--set", "replicas=2"],
        &[("HTTP_PROXY", &url)],
    )
    .output()
    .unwrap());
}

#[test]
fn a_proxy_variable_kubepkg_cannot_use_is_one_clear_line() {
    let home = tempfile::tempdir().unwrap();
    let stderr = failed(
        kubepkg(
            home.path(),
            &["repo", "add", "x", "https://charts.invalid"],
            &[("HTTPS_PROXY", "socks5://127.0.0.1:1080")],
        )
        .output()
        .unwrap(),
    );
    // One line, Helm's wording of an unreachable repository, then what is wrong and what to do.
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.trim_end().ends_with(
            "HTTPS_PROXY=\"socks5://127.0.0.1:1080\" is not a proxy kubepkg can use: socks5:// \
             proxies are not supported, only http://; set it to http://HOST:PORT (or unset it)"
        ),
        "{stderr}"
    );
}

/// A kubeconfig cluster with `proxy-url` (kubectl's field): the API connection of a cluster
/// verb goes through that proxy in a `CONNECT` tunnel — the loopback API server of the local
/// plane included, as client-go does with `proxy-url` — and kubectl's through the same. The
/// proof is the proxy's log (a tunnel to the server for each command), and that with the proxy
/// stopped the same command fails. Without `proxy-url`, `HTTPS_PROXY` is read as Go reads it:
/// a dead proxy there does not stop a loopback server from being reached directly.
#[tokio::test]
async fn a_kubeconfig_proxy_url_takes_the_cluster_connection_through_the_proxy() {
    let ns = kubepkg_testkit::TestNamespace::new("kubeconfig-proxy-url")
        .await
        .unwrap();
    let proxy = HttpProxy::start().expect("tinyproxy");
    let original = std::fs::read_to_string(ns.plane().kubeconfig()).unwrap();
    let server_line = original
        .lines()
        .find(|l| l.trim_start().starts_with("server: "))
        .expect("a server in the plane's kubeconfig")
        .to_string();
    let indent = &server_line[..server_line.len() - server_line.trim_start().len()];
    let server = server_line.trim_start().trim_start_matches("server: ");
    let authority = server
        .trim_start_matches("https://")
        .trim_end_matches('/')
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let proxied = dir.path().join("kubeconfig");
    std::fs::write(
        &proxied,
        original.replace(
            &server_line,
            &format!("{server_line}\n{indent}proxy-url: {}", proxy.url()),
        ),
    )
    .unwrap();
    let list = |kubeconfig: &Path, env: &[(&str, &str)]| {
        let mut c = kubepkg(dir.path(), &["list", "-n", ns.name(), "--kubeconfig"], env);
        c.arg(kubeconfig).env_remove("KUBECONFIG");
        c.output().unwrap()
    };
    let tunnels = |log: &str| {
        log.lines()
            .filter(|l| l.contains(&format!("CONNECT {authority}")))
            .count()
    };

    ok(list(&proxied, &[]));
    let after_kubepkg = tunnels(&proxy.log());
    assert!(
        after_kubepkg >= 1,
        "no CONNECT {authority} in the proxy's log:\n{}",
        proxy.log()
    );

    // kubectl follows the same field through the same proxy.
    let kubectl = ns.plane().state_dir().join("bin/kubectl");
    ok(Command::new(&kubectl)
        .args(["--kubeconfig"])
        .arg(&proxied)
        .args(["get", "namespace", ns.name(), "-o", "name"])
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .output()
        .unwrap());
    assert!(
        tunnels(&proxy.log()) > after_kubepkg,
        "kubectl's request did not go through the proxy:\n{}",
        proxy.log()
    );

    // Without `proxy-url`, a dead HTTPS_PROXY does not matter for a loopback server (Go's rule).
    ok(list(
        ns.plane().kubeconfig(),
        &[("HTTPS_PROXY", DEAD_PROXY)],
    ));

    // The proxy is what carries the connection: stopped, the same command fails.
    drop(proxy);
    let stderr = failed(list(&proxied, &[]));
    assert!(stderr.starts_with("Error: "), "{stderr}");
}
