//! Helm's conventions and the everyday verbs around them, held to real Helm where Helm has the
//! same thing: `completion` (the shells of `helm completion`; bash completing release and
//! package names, namespaces and contexts from the cluster), `env` (the values `helm env`
//! prints for the same environment), `KUBECONFIG` with several files and `HELM_KUBECONTEXT`
//! (both programs reach the same cluster), `--debug`'s request trail, `version -o json`, and
//! clap's suggestions for a misspelt verb or flag.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{kubepkg, ok, run_command};
use kubepkg_testkit::charts::{deploy_chart, package};
use kubepkg_testkit::{TestNamespace, helm_binary};

fn helm() -> PathBuf {
    helm_binary("v4.3.1").expect("helm oracle")
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    for var in [
        "KUBECONFIG",
        "HELM_DRIVER",
        "HELM_NAMESPACE",
        "HELM_KUBECONTEXT",
        "HELM_DEBUG",
    ] {
        c.env_remove(var);
    }
    c
}

/// The words bash offers after `line` (the last word is the one being completed), from the
/// script `kubepkg completion bash` prints, run by a real bash.
fn bash_complete(line: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let script = ok(bin().args(["completion", "bash"]).output().unwrap());
    assert!(
        script.contains("complete "),
        "not a bash registration:\n{script}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kubepkg.bash");
    std::fs::write(&file, script).unwrap();
    let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let driver = format!(
        "source {file}\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         COMP_TYPE=9\n\
         _clap_complete_kubepkg kubepkg \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        file = file.display(),
        words = words.join(" "),
    );
    let mut c = Command::new("bash");
    c.arg("-c").arg(driver);
    for var in ["KUBECONFIG", "HELM_NAMESPACE", "HELM_KUBECONTEXT"] {
        c.env_remove(var);
    }
    c.envs(env.iter().copied());
    let out = ok(c.output().unwrap());
    out.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// [`bash_complete`] without the flags clap offers beside values when nothing is typed yet.
pub(crate) fn values(line: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    bash_complete(line, env)
        .into_iter()
        .filter(|w| !w.starts_with('-'))
        .collect()
}

#[tokio::test]
async fn bash_completes_verbs_releases_packages_namespaces_and_contexts() {
    let ns = TestNamespace::new("completion").await.unwrap();
    let work = tempfile::tempdir().unwrap();
    deploy_chart(&work.path().join("chart"), "web", "1.0.0");
    let chart = work.path().join("chart").display().to_string();
    ok(kubepkg(&ns, &["install", "cart", &chart]).output().unwrap());
    let pkg = work.path().join("pkg");
    package(
        &pkg,
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: web\n    path: web\n",
        &["web"],
        &[],
    );
    let pkg = pkg.display().to_string();
    ok(kubepkg(&ns, &["apply", "shop", &pkg]).output().unwrap());
    let kubeconfig = ns.plane().kubeconfig().display().to_string();
    let env = [("KUBECONFIG", kubeconfig.as_str())];

    // Verbs and the shells of `completion`, from the command definition.
    assert_eq!(bash_complete(&["kubepkg", "stat"], &env), ["status"]);
    let shells: Vec<String> = bash_complete(&["kubepkg", "completion", ""], &env)
        .into_iter()
        .filter(|w| !w.starts_with('-'))
        .collect();
    assert_eq!(shells, ["bash", "zsh", "fish", "powershell"]);
    // `helm completion` offers the same four shells.
    let helm_help = ok(Command::new(helm())
        .args(["completion", "--help"])
        .output()
        .unwrap());
    let mut helm_shells: Vec<&str> = helm_help
        .split("Available Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .map_while(|l| {
            l.strip_prefix("  ")
                .and_then(|l| l.split_whitespace().next())
        })
        .collect();
    helm_shells.sort();
    let mut ours = shells.clone();
    ours.sort();
    assert_eq!(ours, helm_shells);

    // NAME of a bare verb: the namespace's packages and releases (the package's component
    // release `shop-web` included); of a package verb: packages only.
    let n = ns.name();
    assert_eq!(
        values(&["kubepkg", "status", "-n", n, ""], &env),
        ["cart", "shop", "shop-web"]
    );
    assert_eq!(
        values(&["kubepkg", "history", "--namespace", n, "sh"], &env),
        ["shop", "shop-web"]
    );
    assert_eq!(
        values(&["kubepkg", "package", "status", "-n", n, ""], &env),
        ["shop"]
    );
    assert_eq!(
        values(&["kubepkg", "get", "values", "-n", n, "c"], &env),
        ["cart"]
    );
    // HELM_NAMESPACE is the namespace when -n is not on the line, as for every verb.
    assert_eq!(
        values(
            &["kubepkg", "uninstall", "ca"],
            &[("KUBECONFIG", kubeconfig.as_str()), ("HELM_NAMESPACE", n)]
        ),
        ["cart"]
    );
    // -n: the cluster's namespaces.
    let namespaces = values(&["kubepkg", "list", "-n", ""], &env);
    for expected in ["default", "kube-system", n] {
        assert!(namespaces.iter().any(|x| x == expected), "{namespaces:?}");
    }
    // --kube-context: the kubeconfig's contexts (the line's --kubeconfig counts).
    assert_eq!(
        values(
            &[
                "kubepkg",
                "list",
                "--kubeconfig",
                &kubeconfig,
                "--kube-context",
                ""
            ],
            &[]
        ),
        ["kubepkg-testenv"]
    );
    // A cluster that never answers: a server that takes every connection, holds it open and
    // says nothing. The completer asks it (the connection shows that), gives up by itself (its
    // budget: nothing here answers or closes, so returning at all is the giving up) and offers
    // nothing.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("https://{}", silent.local_addr().unwrap());
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in silent.incoming() {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            held.push(conn);
        }
    });
    let dead = write_kubeconfig(work.path(), "silent", &server, "default");
    assert!(
        values(
            &["kubepkg", "status", ""],
            &[("KUBECONFIG", dead.to_str().unwrap())]
        )
        .is_empty()
    );
    assert!(
        asked.load(std::sync::atomic::Ordering::SeqCst) >= 1,
        "the completer asked the silent cluster"
    );
}

#[test]
fn every_shell_gets_a_registration_script_and_an_unknown_shell_is_refused() {
    for (shell, marker) in [
        ("bash", "complete "),
        ("zsh", "compdef"),
        (
            "fish",
            "complete --keep-order --exclusive --command kubepkg",
        ),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = ok(bin().args(["completion", shell]).output().unwrap());
        assert!(script.contains(marker), "{shell}:\n{script}");
        assert!(script.contains("KUBEPKG_COMPLETE"), "{shell}:\n{script}");
    }
    let (code, stdout, stderr) = run_command(bin().args(["completion", "tcsh"]));
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("invalid value 'tcsh'") && stderr.contains("bash, zsh, fish, powershell"),
        "{stderr}"
    );
}

/// A kubeconfig with one context `name` (cluster and user of the same name, no credentials).
fn write_kubeconfig(dir: &Path, name: &str, server: &str, namespace: &str) -> PathBuf {
    let path = dir.join(format!("{name}.kubeconfig"));
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: {name}\n  cluster:\n    server: {server}\n\
             contexts:\n- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\n    namespace: {namespace}\n\
             current-context: {name}\nusers:\n- name: {name}\n  user: {{}}\n"
        ),
    )
    .unwrap();
    path
}

/// The `NAME="value"` lines of `env` as pairs.
fn env_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn env_prints_what_helm_env_prints_for_the_same_environment() {
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = write_kubeconfig(home.path(), "ctx", "https://127.0.0.1:1", "from-context");
    let cases: Vec<Vec<(&str, String)>> = vec![
        vec![],
        vec![
            ("HELM_NAMESPACE", "shop".into()),
            ("HELM_KUBECONTEXT", "ctx".into()),
            ("HELM_DEBUG", "true".into()),
            (
                "HELM_KUBEASUSER",
                "system:serviceaccount:shop:deployer".into(),
            ),
            ("HELM_KUBEASGROUPS", "dev,ops".into()),
            (
                "XDG_CONFIG_HOME",
                home.path().join("xdg-config").display().to_string(),
            ),
            (
                "XDG_CACHE_HOME",
                home.path().join("xdg-cache").display().to_string(),
            ),
            (
                "XDG_DATA_HOME",
                home.path().join("xdg-data").display().to_string(),
            ),
        ],
        vec![
            ("HELM_CONFIG_HOME", "/etc/helm-config".into()),
            ("HELM_CACHE_HOME", "/var/cache/helm".into()),
            ("HELM_REPOSITORY_CONFIG", "/r/repos.yaml".into()),
            ("HELM_REGISTRY_CONFIG", "/r/registry.json".into()),
            ("HELM_REPOSITORY_CACHE", "/r/cache".into()),
            ("HELM_DATA_HOME", "/d/helm".into()),
            ("HELM_PLUGINS", "/p/one:/p/two".into()),
        ],
    ];
    for extra in cases {
        let run = |program: &Path| {
            let mut c = Command::new(program);
            c.arg("env")
                .env_clear()
                .env("HOME", home.path())
                .env("PATH", std::env::var_os("PATH").unwrap_or_default());
            c.env("KUBECONFIG", &kubeconfig);
            for (k, v) in &extra {
                c.env(k, v);
            }
            env_lines(&ok(c.output().unwrap()))
        };
        let ours = run(Path::new(env!("CARGO_BIN_EXE_kubepkg")));
        let helms = run(&helm());
        let mut compared = 0;
        for (key, value) in &ours {
            if let Some((_, helm_value)) = helms.iter().find(|(k, _)| k == key) {
                assert_eq!(value, helm_value, "{key} with {extra:?}");
                compared += 1;
            } else {
                assert!(
                    ["HELM_DRIVER", "KUBEPKG_CACHE_DIR"].contains(&key.as_str()),
                    "{key} is not a variable helm env prints"
                );
            }
        }
        assert_eq!(compared, 12, "{ours:?}");
        // Sorted by name, as helm env.
        let keys: Vec<&String> = ours.iter().map(|(k, _)| k).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }
    // One variable's value alone.
    let out = ok(bin()
        .args(["env", "HELM_NAMESPACE"])
        .env("HELM_NAMESPACE", "solo")
        .output()
        .unwrap());
    assert_eq!(out, "solo\n");
}

#[tokio::test]
async fn several_kubeconfig_files_and_helm_kubecontext_reach_the_same_cluster_as_helm() {
    let ns = TestNamespace::new("kubeconfigs").await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The first file's context is current and unreachable; the plane's context is in the second.
    let dead = write_kubeconfig(dir.path(), "dead", "https://127.0.0.1:1", "default");
    let list = format!("{}:{}", dead.display(), ns.plane().kubeconfig().display());
    let work = tempfile::tempdir().unwrap();
    deploy_chart(&work.path().join("chart"), "web", "1.0.0");
    ok(kubepkg(
        &ns,
        &[
            "install",
            "merged",
            &work.path().join("chart").display().to_string(),
        ],
    )
    .output()
    .unwrap());
    for how in [
        vec!["--kube-context", "kubepkg-testenv"],
        vec![], // HELM_KUBECONTEXT below
    ] {
        let names = |program: &Path| {
            let mut c = Command::new(program);
            c.args(["list", "-q", "-n", ns.name()])
                .args(&how)
                .env("KUBECONFIG", &list)
                .env_remove("HELM_NAMESPACE")
                .env_remove("HELM_DRIVER")
                .env("HELM_CONFIG_HOME", dir.path().join("helm-config"))
                .env("HELM_CACHE_HOME", dir.path().join("helm-cache"));
            if how.is_empty() {
                c.env("HELM_KUBECONTEXT", "kubepkg-testenv");
            }
            ok(c.output().unwrap())
        };
        let ours = names(Path::new(env!("CARGO_BIN_EXE_kubepkg")));
        assert_eq!(ours, "merged\n");
        assert_eq!(ours, names(&helm()));
    }
    // Without a context choice, the first file's current context is used: unreachable.
    let (code, _, stderr) = run_command(
        bin()
            .args(["list", "-n", ns.name()])
            .env("KUBECONFIG", &list),
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("Connection refused")
            && stderr.contains("The Kubernetes API server at https://127.0.0.1:1 did not answer"),
        "{stderr}"
    );
}

#[tokio::test]
async fn debug_prints_every_request_with_its_status_and_time() {
    let ns = TestNamespace::new("debug-trail").await.unwrap();
    let trail = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = kubepkg(&ns, args);
        c.envs(env.iter().copied());
        let out = c.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("debug: "))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let lines = trail(&["list", "--debug"], &[]);
    let secrets = format!("/api/v1/namespaces/{}/secrets?", ns.name());
    let line = lines
        .iter()
        .find(|l| l.contains(&secrets))
        .unwrap_or_else(|| panic!("no request for release Secrets in {lines:?}"));
    // `debug: GET https://127.0.0.1:PORT/api/v1/namespaces/NS/secrets?labelSelector=… 200 (N ms)`
    let rest = line.strip_prefix("debug: GET https://127.0.0.1:").unwrap();
    assert!(rest.contains("labelSelector=owner%3Dhelm"), "{line}");
    let (_, outcome) = rest.rsplit_once(' ').unwrap();
    assert!(outcome.ends_with(')'), "{line}");
    assert!(rest.contains(" 200 ("), "{line}");
    // $HELM_DEBUG=true does the same; without either, nothing.
    assert!(!trail(&["list"], &[("HELM_DEBUG", "true")]).is_empty());
    assert!(trail(&["list"], &[]).is_empty());
    assert!(trail(&["list"], &[("HELM_DEBUG", "false")]).is_empty());
}

#[test]
fn version_prints_text_short_json_and_yaml() {
    let v = format!("v{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        ok(bin().arg("version").output().unwrap()),
        format!("kubepkg {v}\n")
    );
    assert_eq!(
        ok(bin().args(["version", "--short"]).output().unwrap()),
        format!("{v}\n")
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(bin().args(["version", "-o", "json"]).output().unwrap())).unwrap();
    assert_eq!(json["version"], v.as_str());
    let yaml = ok(bin().args(["version", "-o", "yaml"]).output().unwrap());
    assert!(yaml.contains(&format!("version: {v}")), "{yaml}");
    // An unknown format is a usage error, clap naming the formats there are.
    let (code, _, stderr) = run_command(bin().args(["version", "-o", "xml"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("invalid value 'xml' for '--output <OUTPUT>'")
            && stderr.contains("[possible values: table, text, json, yaml]"),
        "{stderr}"
    );
}

#[test]
fn misspelt_verbs_and_flags_get_a_suggestion() {
    for (args, tip) in [
        (
            &["stauts", "web"][..],
            "tip: a similar subcommand exists: 'status'",
        ),
        (
            &["-n", "shop", "stauts"][..],
            "tip: a similar subcommand exists: 'status'",
        ),
        (
            &["list", "--namspace", "x"][..],
            "tip: a similar argument exists: '--namespace'",
        ),
        (
            &["package", "hisory"][..],
            "tip: a similar subcommand exists: 'history'",
        ),
    ] {
        let (code, stdout, stderr) = run_command(bin().args(args));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(tip), "{args:?}: {stderr}");
    }
}
