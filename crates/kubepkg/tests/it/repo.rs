//! Helm chart repositories end to end, against a real one: a static `index.yaml` and archives
//! made by the real `helm package` / `helm repo index`, served on loopback over HTTP or HTTPS
//! (`kubepkg_testkit::chart_repo`), with the real `helm` v4 as the oracle. Repositories added by
//! either tool are used by the other (same `repositories.yaml`, same cache files); `search repo`,
//! `repo list/update/remove` print what helm prints; `template REPO/CHART` renders what
//! `helm template` renders, with the same version chosen for each constraint; credentials,
//! `--ca-file` and `--insecure-skip-tls-verify` work; bad input is a one-line error and leaves
//! nothing written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kubepkg_testkit::chart_repo::{ChartRepo, ChartSpec, ServeOptions, build_repository};
use kubepkg_testkit::helm_binary;

use crate::support::{assert_same_lock, blocking_namespace, files, helm_home, ok, walk};

fn helm_path() -> PathBuf {
    helm_binary("v4.3.1").expect("helm oracle")
}

/// One user's Helm configuration and caches (and kubepkg's cache), shared by both tools.
struct Home {
    dir: tempfile::TempDir,
    helm: PathBuf,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
            helm: helm_path(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn env(&self, c: &mut Command) {
        helm_home(c, self.path())
            .env_remove("KUBEPKG_MAX_REPO_INDEX")
            .env_remove("KUBEPKG_MAX_CHART_DOWNLOAD")
            .env_remove("HELM_DRIVER")
            .env_remove("HELM_NAMESPACE");
    }

    fn kubepkg(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
        c.args(args);
        self.env(&mut c);
        c
    }

    fn helm(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.helm);
        c.args(args);
        self.env(&mut c);
        c
    }

    /// `kubepkg ARGS`, which must succeed: its standard output.
    fn kubepkg_ok(&self, args: &[&str]) -> String {
        ok(self.kubepkg(args).output().unwrap())
    }

    /// `helm ARGS`, which must succeed: its standard output.
    fn helm_ok(&self, args: &[&str]) -> String {
        ok(self.helm(args).output().unwrap())
    }

    /// Asserts that `kubepkg ARGS` prints what `helm ARGS` prints, both succeeding.
    #[track_caller]
    fn assert_same(&self, args: &[&str]) {
        assert_eq!(self.kubepkg_ok(args), self.helm_ok(args), "{args:?}");
    }

    fn repositories_yaml(&self) -> PathBuf {
        self.path().join("config/repositories.yaml")
    }

    fn cache(&self) -> PathBuf {
        self.path().join("cache/repository")
    }
}

/// The one-line error of a failed command (the text after `Error: `).
#[track_caller]
fn error(out: Output) -> String {
    assert!(
        !out.status.success(),
        "succeeded:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Error: "))
        .collect();
    assert_eq!(lines.len(), 1, "one error line expected:\n{stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "only the error line expected:\n{stderr}"
    );
    lines[0].trim_start_matches("Error: ").to_string()
}

/// `from` replaced by `to` in the Chart.yaml of both `charts`.
fn replace_in_chart_yaml(charts: [&Path; 2], from: &str, to: &str) {
    for chart in charts {
        let y = chart.join("Chart.yaml");
        let text = std::fs::read_to_string(&y).unwrap().replace(from, to);
        std::fs::write(&y, text).unwrap();
    }
}

/// [`blocking_namespace`] and the path of its control plane's kubeconfig.
fn namespace(
    test: &str,
) -> (
    tokio::runtime::Runtime,
    kubepkg_testkit::TestNamespace,
    String,
) {
    let (rt, ns) = blocking_namespace(test);
    let kubeconfig = ns.plane().kubeconfig().to_str().unwrap().to_string();
    (rt, ns, kubeconfig)
}

const VERSIONS: &[&str] = &["0.1.0", "0.2.0", "0.2.5", "1.0.0", "1.1.0-rc.1"];

fn charts() -> Vec<ChartSpec> {
    let mut specs: Vec<ChartSpec> = VERSIONS.iter().map(|v| ChartSpec::new("app", v)).collect();
    specs.push(ChartSpec {
        description: Some("A small web server for nginx fans".into()),
        ..ChartSpec::new("web", "3.0.0")
    });
    specs
}

fn repository(options: ServeOptions) -> (tempfile::TempDir, ChartRepo) {
    let dir = tempfile::tempdir().unwrap();
    build_repository(&helm_path(), dir.path(), &charts()).expect("helm package/repo index");
    let server = ChartRepo::serve(dir.path(), options).expect("chart repository server");
    (dir, server)
}

/// [`repository`] with default options, and a [`Home`] whose helm added it as `r`.
fn added_repository() -> (tempfile::TempDir, ChartRepo, Home) {
    let (dir, repo) = repository(ServeOptions::default());
    let home = Home::new();
    home.helm_ok(&["repo", "add", "r", repo.url()]);
    (dir, repo, home)
}

#[test]
fn a_repository_added_with_helm_is_used_by_kubepkg() {
    let (_dir, repo, home) = added_repository();

    for args in [
        &["repo", "list"][..],
        &["repo", "list", "-o", "json"],
        &["repo", "list", "-o", "yaml"],
        &["search", "repo"],
        &["search", "repo", "app"],
        &["search", "repo", "nginx"],
        &["search", "repo", "APP", "--versions"],
        &["search", "repo", "--devel"],
        &["search", "repo", "app", "--version", "^0.2", "--versions"],
        &["search", "repo", "--regexp", "^w.b", "-o", "json"],
        &["search", "repo", "-l", "-o", "yaml"],
        &["search", "repo", "nothing-like-this"],
        &["search", "repo", "--max-col-width", "8"],
    ] {
        home.assert_same(args);
    }

    // The same version is chosen for every constraint, so the same manifests are rendered.
    for version in [
        None,
        Some("0.2.0"),
        Some("^0.2"),
        Some("~0.2.0"),
        Some(">=0.1 <1"),
        Some("1.x"),
        Some("1.1.0-rc.1"),
    ] {
        let mut args = vec!["template", "x", "r/app"];
        if let Some(v) = version {
            args.extend(["--version", v]);
        }
        let ours = home.kubepkg_ok(&args);
        assert_eq!(ours, home.helm_ok(&args), "{args:?}");
        assert!(!ours.is_empty());
    }
    let devel = ["template", "x", "r/app", "--devel"];
    let ours = home.kubepkg_ok(&devel);
    assert!(ours.contains("app-1.1.0-rc.1"), "{ours}");
    assert_eq!(ours, home.helm_ok(&devel));

    // `--repo URL` and an archive URL work without any repository entry.
    let by_url = [
        "template",
        "x",
        "app",
        "--repo",
        repo.url(),
        "--version",
        "0.1.0",
    ];
    home.assert_same(&by_url);
    let archive = format!("{}/app-0.2.5.tgz", repo.url());
    let by_archive = ["template", "x", archive.as_str()];
    home.assert_same(&by_archive);
}

#[test]
fn a_repository_added_with_kubepkg_is_used_by_helm_and_the_files_are_helms() {
    let (_dir, repo) = repository(ServeOptions::default());
    let ours = Home::new();
    let theirs = Home::new();
    let added = ok(ours
        .kubepkg(&["repo", "add", "r", repo.url()])
        .output()
        .unwrap());
    assert_eq!(
        added,
        ok(theirs
            .helm(&["repo", "add", "r", repo.url()])
            .output()
            .unwrap())
    );
    // Byte for byte the files helm writes, with helm's modes.
    for (file, mode) in [
        (ours.repositories_yaml(), 0o600),
        (ours.cache().join("r-index.yaml"), 0o644),
        (ours.cache().join("r-charts.txt"), 0o644),
    ] {
        let twin = theirs.path().join(file.strip_prefix(ours.path()).unwrap());
        let (a, b) = (std::fs::read(&file).unwrap(), std::fs::read(&twin).unwrap());
        if file.ends_with("r-charts.txt") {
            // Helm writes the names in Go's random map order.
            let sorted = |b: &[u8]| {
                let mut l: Vec<String> = String::from_utf8_lossy(b)
                    .lines()
                    .map(String::from)
                    .collect();
                l.sort();
                l
            };
            assert_eq!(sorted(&a), sorted(&b));
        } else {
            assert_eq!(
                String::from_utf8_lossy(&a),
                String::from_utf8_lossy(&b),
                "{}",
                file.display()
            );
        }
        use std::os::unix::fs::PermissionsExt as _;
        let m = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(m, mode, "{}", file.display());
    }
    // helm reads what kubepkg wrote.
    assert_eq!(
        ok(ours.helm(&["repo", "list"]).output().unwrap()),
        ok(ours.kubepkg(&["repo", "list"]).output().unwrap())
    );
    let args = ["template", "x", "r/app", "--version", "<1"];
    assert_eq!(
        ok(ours.helm(&args).output().unwrap()),
        ok(ours.kubepkg(&args).output().unwrap())
    );
    // The same entry again is skipped; another URL under the name is refused, as by helm.
    let again = ["repo", "add", "r", repo.url()];
    assert_eq!(
        ok(ours.kubepkg(&again).output().unwrap()),
        ok(ours.helm(&again).output().unwrap())
    );
    let other = format!("{}/", repo.url());
    let clash = ["repo", "add", "r", other.as_str()];
    assert_eq!(
        error(ours.kubepkg(&clash).output().unwrap()),
        error(ours.helm(&clash).output().unwrap())
    );
    ok(ours
        .kubepkg(&["repo", "add", "r", &other, "--force-update"])
        .output()
        .unwrap());
    assert!(ok(ours.helm(&["repo", "list"]).output().unwrap()).contains(&other));

    // update and remove print helm's texts.
    assert_eq!(
        ok(ours.kubepkg(&["repo", "update"]).output().unwrap()),
        ok(ours.helm(&["repo", "update"]).output().unwrap())
    );
    assert_eq!(
        error(ours.kubepkg(&["repo", "update", "nope"]).output().unwrap()),
        error(ours.helm(&["repo", "update", "nope"]).output().unwrap())
    );
    assert_eq!(
        error(ours.kubepkg(&["repo", "remove", "nope"]).output().unwrap()),
        error(ours.helm(&["repo", "remove", "nope"]).output().unwrap())
    );
    assert_eq!(
        ok(ours.kubepkg(&["repo", "remove", "r"]).output().unwrap()),
        "\"r\" has been removed from your repositories\n"
    );
    assert!(!ours.cache().join("r-index.yaml").exists());
    assert!(!ours.cache().join("r-charts.txt").exists());
    assert_eq!(
        error(ours.kubepkg(&["repo", "remove", "r"]).output().unwrap()),
        "no repositories configured"
    );
    assert_eq!(
        error(ours.kubepkg(&["search", "repo"]).output().unwrap()),
        error(ours.helm(&["search", "repo"]).output().unwrap())
    );
}

#[test]
fn charts_are_downloaded_once_and_pulled_as_helm_pulls_them() {
    let (_dir, repo) = repository(ServeOptions::default());
    let home = Home::new();
    home.kubepkg_ok(&["repo", "add", "r", repo.url()]);
    let out = home.path().join("out");
    home.kubepkg_ok(&[
        "pull",
        "r/app",
        "--version",
        "0.2.0",
        "-d",
        out.to_str().unwrap(),
    ]);
    let pulled = std::fs::read(out.join("app-0.2.0.tgz")).unwrap();
    assert_eq!(
        pulled,
        std::fs::read(repo.root().join("app-0.2.0.tgz")).unwrap()
    );
    // A second use of the same digest is served from kubepkg's cache: no request at all.
    let before = repo.requests();
    home.kubepkg_ok(&["template", "x", "r/app", "--version", "0.2.0"]);
    assert_eq!(repo.requests(), before);
    // --untar unpacks it as helm does.
    home.kubepkg_ok(&["pull", "r/app", "--untar", "-d", out.to_str().unwrap()]);
    assert!(out.join("app/Chart.yaml").exists());
}

#[test]
fn basic_auth_is_sent_and_a_wrong_password_is_one_line() {
    let (_dir, repo) = repository(ServeOptions {
        basic_auth: Some(("alice".into(), "s3cret".into())),
        ..ServeOptions::default()
    });
    let home = Home::new();
    let index = format!("{}/index.yaml", repo.url());
    let expected = format!(
        "looks like \"{}\" is not a valid chart repository or cannot be reached: failed to fetch {index} : 401 Unauthorized",
        repo.url()
    );
    assert_eq!(
        error(
            home.kubepkg(&["repo", "add", "r", repo.url()])
                .output()
                .unwrap()
        ),
        expected
    );
    // `repo add r URL` as alice with `password`.
    let add_as_alice = |password| {
        [
            "repo",
            "add",
            "r",
            repo.url(),
            "--username",
            "alice",
            "--password",
            password,
        ]
    };
    let wrong = add_as_alice("wrong");
    assert_eq!(error(home.kubepkg(&wrong).output().unwrap()), expected);
    assert_eq!(error(home.helm(&wrong).output().unwrap()), expected);
    assert!(!home.repositories_yaml().exists(), "nothing written");

    home.kubepkg_ok(&add_as_alice("s3cret"));
    // Chart downloads carry the repository's credentials too; helm agrees.
    let args = ["template", "x", "r/app"];
    home.assert_same(&args);
}

#[test]
fn https_with_a_ca_file_or_insecure_skip_tls_verify() {
    let (_dir, repo) = repository(ServeOptions {
        tls: true,
        ..ServeOptions::default()
    });
    let ca = repo.ca_file().unwrap().to_str().unwrap().to_string();
    let home = Home::new();
    let refused = error(
        home.kubepkg(&["repo", "add", "r", repo.url()])
            .output()
            .unwrap(),
    );
    assert!(
        refused.starts_with(&format!(
            "looks like \"{}\" is not a valid chart repository or cannot be reached: Get \"{}/index.yaml\"",
            repo.url(),
            repo.url()
        )) && refused.contains("UnknownIssuer"),
        "{refused}"
    );
    home.kubepkg_ok(&["repo", "add", "r", repo.url(), "--ca-file", &ca]);
    home.kubepkg_ok(&[
        "repo",
        "add",
        "insecure",
        repo.url(),
        "--insecure-skip-tls-verify",
    ]);
    for chart in ["app", "web"] {
        let from_ca = format!("r/{chart}");
        let theirs = home.helm_ok(&["template", "x", &from_ca]);
        assert_eq!(home.kubepkg_ok(&["template", "x", &from_ca]), theirs);
        // Helm 4 ignores an entry's insecure_skip_tls_verify when it downloads the archive
        // (only the index honours it); kubepkg honours it for both.
        let insecure = format!("insecure/{chart}");
        assert_eq!(home.kubepkg_ok(&["template", "x", &insecure]), theirs);
    }
    // --ca-file on the command line reaches an HTTPS repository given by --repo.
    let args = [
        "template",
        "x",
        "web",
        "--repo",
        repo.url(),
        "--ca-file",
        &ca,
    ];
    home.assert_same(&args);
}

#[test]
fn redirects_are_followed() {
    let (_dir, repo) = repository(ServeOptions::default());
    let home = Home::new();
    let url = format!("{}/redirect", repo.url());
    home.kubepkg_ok(&["repo", "add", "r", &url]);
    let args = ["template", "x", "r/web"];
    home.assert_same(&args);
}

#[test]
fn bad_input_is_a_one_line_error_and_nothing_is_written() {
    let (dir, repo) = repository(ServeOptions::default());
    let home = Home::new();

    // Unknown repository, missing chart, missing version: helm's texts, `kubepkg` in the hint.
    home.kubepkg_ok(&["repo", "add", "r", repo.url()]);
    for args in [
        &["template", "x", "nope/app"][..],
        &["template", "x", "r/nochart"],
        &["template", "x", "r/app", "--version", "9.9.9"],
        &["template", "x", "r/app", "--version", ">5"],
    ] {
        assert_eq!(
            error(home.kubepkg(args).output().unwrap()),
            error(home.helm(args).output().unwrap())
                .replace("'helm repo update'", "'kubepkg repo update'"),
            "{args:?}"
        );
    }

    // An unreachable URL.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let fresh = Home::new();
    let e = error(
        fresh
            .kubepkg(&["repo", "add", "gone", &closed])
            .output()
            .unwrap(),
    );
    assert!(
        e.starts_with(&format!(
            "looks like \"{closed}\" is not a valid chart repository or cannot be reached: Get \"{closed}/index.yaml\""
        )),
        "{e}"
    );
    assert!(!fresh.repositories_yaml().exists());

    // An index that does not parse: helm's text, nothing cached.
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(
        broken.path().join("index.yaml"),
        "apiVersion: v1\nentries: [\n",
    )
    .unwrap();
    let broken_repo = ChartRepo::serve(broken.path(), ServeOptions::default()).unwrap();
    let args = ["repo", "add", "broken", broken_repo.url()];
    assert_eq!(
        error(fresh.kubepkg(&args).output().unwrap()),
        error(fresh.helm(&args).output().unwrap())
    );
    assert!(!fresh.cache().join("broken-index.yaml").exists());
    std::fs::write(
        broken.path().join("index.yaml"),
        "apiVersion: v1\nsurprise: 1\n",
    )
    .unwrap();
    assert_eq!(
        error(fresh.kubepkg(&args).output().unwrap()),
        error(fresh.helm(&args).output().unwrap())
    );

    // An index over the size limit names the limit and its variable.
    let e = error(
        home.kubepkg(&["repo", "update"])
            .env("KUBEPKG_MAX_REPO_INDEX", "100")
            .output()
            .unwrap(),
    );
    assert_eq!(
        e,
        format!(
            "failed to update the following repositories: [{}]",
            repo.url()
        )
    );
    let out = home
        .kubepkg(&["repo", "add", "big", repo.url()])
        .env("KUBEPKG_MAX_REPO_INDEX", "100")
        .output()
        .unwrap();
    assert!(error(out).ends_with(
        "is larger than 100 bytes, kubepkg's limit; set KUBEPKG_MAX_REPO_INDEX=BYTES to raise it"
    ));

    // An archive that no longer matches the index's digest is refused and not cached.
    let archive = dir.path().join("app-0.1.0.tgz");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&archive, bytes).unwrap();
    let e = error(
        home.kubepkg(&["template", "x", "r/app", "--version", "0.1.0"])
            .output()
            .unwrap(),
    );
    assert!(
        e.starts_with(&format!(
            "downloading r/app: {}/app-0.1.0.tgz: the archive's sha256 is ",
            repo.url()
        )) && e.contains("but the repository index says"),
        "{e}"
    );
    let cached: Vec<_> = walk(&home.path().join("kubepkg"));
    assert!(
        cached
            .iter()
            .all(|p| !p.to_string_lossy().contains("app-0.1.0")),
        "{cached:?}"
    );
}

#[test]
fn install_from_a_repository_then_helm_status() {
    let (_dir, _repo, home) = added_repository();
    let (_rt, ns, kubeconfig) = namespace("repo-install");
    let mut install = home.kubepkg(&[
        "install",
        "web",
        "r/app",
        "--version",
        "~0.2.0",
        "-n",
        ns.name(),
        "--kubeconfig",
        &kubeconfig,
    ]);
    install.env_remove("KUBECONFIG");
    ok(install.output().unwrap());
    let mut status = home.helm(&["status", "web", "-n", ns.name(), "-o", "json"]);
    status.env("KUBECONFIG", &kubeconfig);
    let v: serde_json::Value = serde_json::from_str(&ok(status.output().unwrap())).unwrap();
    assert_eq!(v["info"]["status"], "deployed");
    let mut list = home.helm(&["list", "-n", ns.name(), "-o", "json"]);
    list.env("KUBECONFIG", &kubeconfig);
    let v: serde_json::Value = serde_json::from_str(&ok(list.output().unwrap())).unwrap();
    assert_eq!(v[0]["chart"], "app-0.2.5", "{v}");
}

/// A chart made by `helm create` in `dir` with `dependencies` appended to its Chart.yaml.
fn parent_chart(home: &Home, dir: &Path, dependencies: &str) -> PathBuf {
    let chart = dir.join("parent");
    home.helm_ok(&["create", chart.to_str().unwrap()]);
    let chart_yaml = chart.join("Chart.yaml");
    let mut text = std::fs::read_to_string(&chart_yaml).unwrap();
    text.push_str(dependencies);
    std::fs::write(&chart_yaml, text).unwrap();
    chart
}

#[test]
fn dependency_update_writes_the_charts_and_lock_helm_writes() {
    let (_dir, repo, home) = added_repository();
    let (_dir2, unmanaged) = repository(ServeOptions::default());
    let deps = format!(
        "dependencies:\n- name: app\n  version: \"^0.2.0\"\n  repository: \"@r\"\n- name: app\n  alias: old\n  version: 0.1.0\n  repository: {}/\n- name: web\n  version: \">=1.0.0\"\n  repository: {}\n",
        repo.url(),
        unmanaged.url()
    );
    let ours_dir = tempfile::tempdir().unwrap();
    let theirs_dir = tempfile::tempdir().unwrap();
    let ours = parent_chart(&home, ours_dir.path(), &deps);
    let theirs = parent_chart(&home, theirs_dir.path(), &deps);

    let our_out = home.kubepkg_ok(&["dependency", "update", ours.to_str().unwrap()]);
    let their_out = home.helm_ok(&["dependency", "update", theirs.to_str().unwrap()]);
    assert_eq!(our_out, their_out);
    assert_eq!(files(&ours.join("charts")), files(&theirs.join("charts")));
    let our_lock = assert_same_lock(&ours, &theirs);
    assert!(our_lock.contains("version: 0.2.5"), "{our_lock}");

    // build needs every repository of the lock configured, as helm's does.
    let build =
        |c: &Path| ["dependency", "build", c.to_str().unwrap(), "--skip-refresh"].map(String::from);
    assert_eq!(
        error(
            home.kubepkg(&build(&theirs).each_ref().map(|s| s.as_str()))
                .output()
                .unwrap()
        ),
        error(
            home.helm(&build(&ours).each_ref().map(|s| s.as_str()))
                .output()
                .unwrap()
        )
        .replace("'helm repo add'", "'kubepkg repo add'")
    );
    home.helm_ok(&["repo", "add", "u", unmanaged.url()]);
    // Each tool builds from the other's lock; list prints the same table.
    for (tool, chart) in [("kubepkg", &theirs), ("helm", &ours)] {
        std::fs::remove_dir_all(chart.join("charts")).unwrap();
        let args = [
            "dependency",
            "build",
            chart.to_str().unwrap(),
            "--skip-refresh",
        ];
        let out = if tool == "kubepkg" {
            home.kubepkg(&args).output().unwrap()
        } else {
            home.helm(&args).output().unwrap()
        };
        ok(out);
    }
    assert_eq!(files(&ours.join("charts")), files(&theirs.join("charts")));
    let list = |c: &Path| ["dependency", "list", c.to_str().unwrap()].map(String::from);
    let our_list = home.kubepkg_ok(&list(&ours).each_ref().map(|s| s.as_str()));
    let their_list = home.helm_ok(&list(&ours).each_ref().map(|s| s.as_str()));
    assert_eq!(our_list, their_list);

    // A second update with nothing changed leaves the lock as it was (its digest is the same).
    home.kubepkg_ok(&[
        "dependency",
        "update",
        ours.to_str().unwrap(),
        "--skip-refresh",
    ]);
    assert_eq!(
        std::fs::read_to_string(ours.join("Chart.lock")).unwrap(),
        our_lock
    );

    // A lock out of sync with Chart.yaml is refused by build, as by helm.
    replace_in_chart_yaml([&ours, &theirs], "^0.2.0", "^0.1.0");
    assert_eq!(
        error(
            home.kubepkg(&["dependency", "build", ours.to_str().unwrap()])
                .output()
                .unwrap()
        ),
        error(
            home.helm(&["dependency", "build", theirs.to_str().unwrap()])
                .output()
                .unwrap()
        )
        .replace("'helm dependency update'", "'kubepkg dependency update'")
    );
}

#[test]
fn dependency_errors_are_helms() {
    let (_dir, _repo, home) = added_repository();
    let work = tempfile::tempdir().unwrap();
    for (i, deps) in [
        "dependencies:\n- name: app\n  version: 9.9.9\n  repository: \"@r\"\n".to_string(),
        "dependencies:\n- name: app\n  version: 1.0.0\n  repository: stable\n".to_string(),
        "dependencies:\n- name: nochart\n  version: 1.0.0\n  repository: \"@r\"\n".to_string(),
    ]
    .iter()
    .enumerate()
    {
        let dir = work.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let chart = parent_chart(&home, &dir, deps);
        let args = [
            "dependency",
            "update",
            chart.to_str().unwrap(),
            "--skip-refresh",
        ];
        let ours = home.kubepkg(&args).output().unwrap();
        let theirs = home.helm(&args).output().unwrap();
        assert!(!ours.status.success() && !theirs.status.success());
        let text = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(
            text(&ours),
            text(&theirs).replace("'helm repo add'", "'kubepkg repo add'"),
            "{deps}"
        );
        assert!(!chart.join("Chart.lock").exists());
    }
}

/// `repository: file://…` dependencies: `dependency update` locks and packs the local chart
/// exactly as the real `helm dependency update` does — the same output lines, the same
/// `charts/` bytes (Helm's archive: Go's tar and gzip, file times, a nested subchart, a name
/// longer than a tar name field) and the same lock, with the files' own times and with
/// `SOURCE_DATE_EPOCH`; `dependency build` rebuilds the same bytes from either tool's lock.
#[test]
fn file_dependencies_are_packed_as_helm_packs_them() {
    let home = Home::new();
    let work = tempfile::tempdir().unwrap();
    let sub = work.path().join("sub");
    home.helm_ok(&["create", sub.to_str().unwrap()]);
    home.helm_ok(&["create", sub.join("charts/inner").to_str().unwrap()]);
    let deep = sub.join(format!("files/{}/{}.txt", "d".repeat(70), "f".repeat(40)));
    std::fs::create_dir_all(deep.parent().unwrap()).unwrap();
    std::fs::write(
        &deep,
        "a file whose archive name needs the tar prefix field\n",
    )
    .unwrap();
    let deps = format!(
        "dependencies:\n- name: sub\n  version: \">=0.1.0\"\n  repository: file://../../sub\n- name: sub\n  alias: again\n  version: 0.1.0\n  repository: \"file://{}/\"\n",
        sub.display()
    );
    let side = |name: &str| {
        let dir = work.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        parent_chart(&home, &dir, &deps)
    };
    let (ours, theirs) = (side("ours"), side("theirs"));
    let update = |c: &Path| ["dependency", "update", c.to_str().unwrap()].map(String::from);
    let run = |tool: &str, args: &[String], epoch: Option<&str>| {
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let mut c = if tool == "kubepkg" {
            home.kubepkg(&args)
        } else {
            home.helm(&args)
        };
        match epoch {
            Some(e) => c.env("SOURCE_DATE_EPOCH", e),
            None => c.env_remove("SOURCE_DATE_EPOCH"),
        };
        ok(c.output().unwrap())
    };
    for epoch in [None, Some("1700000000")] {
        for chart in [&ours, &theirs] {
            let _ = std::fs::remove_dir_all(chart.join("charts"));
            let _ = std::fs::remove_file(chart.join("Chart.lock"));
        }
        let our_out = run("kubepkg", &update(&ours), epoch);
        let their_out = run("helm", &update(&theirs), epoch);
        assert_eq!(our_out, their_out, "SOURCE_DATE_EPOCH={epoch:?}");
        let our_charts = files(&ours.join("charts"));
        assert_eq!(
            our_charts
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>(),
            ["sub-0.1.0.tgz"]
        );
        assert!(
            our_charts == files(&theirs.join("charts")),
            "the packed subchart differs from helm's (SOURCE_DATE_EPOCH={epoch:?})"
        );
        let our_lock = assert_same_lock(&ours, &theirs);
        assert!(
            our_lock.contains("repository: file://../../sub\n  version: 0.1.0"),
            "{our_lock}"
        );
    }

    // build packs the same bytes again, from its own lock and from helm's.
    let build = |c: &Path| ["dependency", "build", c.to_str().unwrap()].map(String::from);
    std::fs::copy(theirs.join("Chart.lock"), ours.join("Chart.lock")).unwrap();
    for chart in [&ours, &theirs] {
        std::fs::remove_dir_all(chart.join("charts")).unwrap();
    }
    let our_out = run("kubepkg", &build(&ours), None);
    let their_out = run("helm", &build(&theirs), None);
    assert_eq!(our_out, their_out);
    assert!(files(&ours.join("charts")) == files(&theirs.join("charts")));

    // A constraint the local chart does not meet is refused as helm refuses it.
    replace_in_chart_yaml([&ours, &theirs], "\">=0.1.0\"", "\">=2.0.0\"");
    let e = error(
        home.kubepkg(&update(&ours).each_ref().map(|s| s.as_str()))
            .output()
            .unwrap(),
    );
    let h = error(
        home.helm(&update(&theirs).each_ref().map(|s| s.as_str()))
            .output()
            .unwrap(),
    );
    assert_eq!(e, h.replace("'helm", "'kubepkg"));
}

/// A `file://` path that does not exist, or holds no chart, is a one-line error naming the
/// dependency and the path (relative paths resolved from the chart directory); nothing is
/// written.
#[test]
fn file_dependency_errors_name_the_dependency_and_the_path() {
    let home = Home::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("empty")).unwrap();
    for (deps, expected) in [
        (
            "dependencies:\n- name: app\n  version: 1.0.0\n  repository: file://../nope\n",
            format!(
                "dependency \"app\" (file://../nope): directory {} not found",
                work.path().join("nope").display()
            ),
        ),
        (
            "dependencies:\n- name: empty\n  version: 1.0.0\n  repository: file://../empty\n",
            format!(
                "dependency \"empty\" (file://../empty): {} is not a chart: Chart.yaml file is missing",
                work.path().join("empty").display()
            ),
        ),
    ] {
        let dir = tempfile::tempdir_in(work.path()).unwrap();
        let chart = parent_chart(&home, dir.path(), deps);
        // The chart directory is `<work>/<tmp>/parent`: `..` is `<work>/<tmp>`, so point the
        // dependency one level further up.
        let y = chart.join("Chart.yaml");
        let text = std::fs::read_to_string(&y)
            .unwrap()
            .replace("file://../", "file://../../");
        std::fs::write(&y, text).unwrap();
        let expected = expected.replace("file://../", "file://../../");
        for verb in ["update", "build"] {
            let e = error(
                home.kubepkg(&["dependency", verb, chart.to_str().unwrap()])
                    .output()
                    .unwrap(),
            );
            assert_eq!(e, expected, "dependency {verb}");
            assert!(!chart.join("Chart.lock").exists());
            assert!(!chart.join("charts").read_dir().unwrap().any(|_| true));
        }
        // helm refuses it too.
        let theirs = home
            .helm(&["dependency", "update", chart.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(!theirs.status.success());
    }
}

#[test]
fn a_package_of_repository_charts_is_locked_and_installs_with_the_repository_gone() {
    let (_dir, repo) = repository(ServeOptions::default());
    let home = Home::new();
    let pkg = tempfile::tempdir().unwrap();
    let manifest = |version: &str| {
        format!(
            "package:\n  name: upstream\n  version: 1.0.0\ncomponents:\n- name: web\n  chart: {{repository: \"{}\", name: app, version: \"{version}\"}}\n  values: {{replicaCount: 2}}\n",
            repo.url()
        )
    };
    std::fs::write(pkg.path().join("kubepkg.yaml"), manifest("~0.2.0")).unwrap();
    let dir = pkg.path().to_str().unwrap();

    // Not locked yet: refused before anything is rendered, saying what to run.
    let e = error(home.kubepkg(&["plan", "upstream", dir]).output().unwrap());
    assert!(
        e.contains("component web: kubepkg.lock has no entry for its chart")
            && e.ends_with("run 'kubepkg package lock'"),
        "{e}"
    );
    let out = home.kubepkg_ok(&["package", "lock", dir]);
    let digest = kubepkg_digest(&repo.root().join("app-0.2.5.tgz"));
    assert_eq!(
        out,
        format!("web: app 0.2.5 ({digest}) from {}\n", repo.url())
    );
    let lock = std::fs::read_to_string(pkg.path().join("kubepkg.lock")).unwrap();
    assert!(
        lock.contains("version: \"0.2.5\"") && lock.contains(&digest),
        "{lock}"
    );

    // A constraint the locked version no longer meets is refused.
    std::fs::write(pkg.path().join("kubepkg.yaml"), manifest("^1.0.0")).unwrap();
    let e = error(home.kubepkg(&["plan", "upstream", dir]).output().unwrap());
    assert!(e.contains("kubepkg.lock has app 0.2.5 of"), "{e}");
    std::fs::write(pkg.path().join("kubepkg.yaml"), manifest("~0.2.0")).unwrap();

    // With the repository gone, the locked chart comes from kubepkg's cache.
    drop(repo);
    let (_rt, ns, kubeconfig) = namespace("repo-locked");
    let mut apply = home.kubepkg(&[
        "apply",
        "upstream",
        dir,
        "-n",
        ns.name(),
        "--kubeconfig",
        &kubeconfig,
        "--timeout",
        "3m",
    ]);
    apply.env_remove("KUBECONFIG");
    ok(apply.output().unwrap());
    let mut list = home.helm(&["list", "-n", ns.name(), "-o", "json"]);
    list.env("KUBECONFIG", &kubeconfig);
    let v: serde_json::Value = serde_json::from_str(&ok(list.output().unwrap())).unwrap();
    assert_eq!(v[0]["chart"], "app-0.2.5", "{v}");
}

fn kubepkg_digest(path: &Path) -> String {
    use sha2::Digest as _;
    let sum = sha2::Sha256::digest(std::fs::read(path).unwrap());
    format!(
        "sha256:{}",
        sum.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// An HTTPS repository that requires a client certificate its CA signed: `repo add` without
/// one is refused saying a client certificate is required (helm is refused at the same URL);
/// `repo add --cert-file --key-file --ca-file` writes the `repositories.yaml` helm writes for
/// the same flags (`certFile`, `keyFile`, `caFile`), and later pulls and renders use the stored
/// files without any flag, rendering what helm renders from its own entry.
#[test]
fn client_certificates_are_stored_by_repo_add_as_helm_stores_them_and_used_on_later_pulls() {
    let (dir, repo) = repository(ServeOptions {
        tls: true,
        client_certs: true,
        ..ServeOptions::default()
    });
    let ca = repo.ca_file().unwrap().to_str().unwrap().to_string();
    let (cert, key) = repo.client_cert().unwrap();
    let (cert, key) = (
        cert.to_str().unwrap().to_string(),
        key.to_str().unwrap().to_string(),
    );
    let ours = Home::new();
    let theirs = Home::new();

    let refused = error(
        ours.kubepkg(&["repo", "add", "r", repo.url(), "--ca-file", &ca])
            .output()
            .unwrap(),
    );
    assert_eq!(
        refused,
        format!(
            "looks like \"{u}\" is not a valid chart repository or cannot be reached: Get \"{u}/index.yaml\": the server requires a client certificate (TLS alert CertificateRequired); give --cert-file and --key-file",
            u = repo.url()
        )
    );
    let helm_refused = error(
        theirs
            .helm(&["repo", "add", "r", repo.url(), "--ca-file", &ca])
            .output()
            .unwrap(),
    );
    assert!(
        helm_refused.contains("certificate required"),
        "{helm_refused}"
    );
    assert!(!ours.repositories_yaml().exists(), "nothing written");

    let add = [
        "repo",
        "add",
        "r",
        repo.url(),
        "--ca-file",
        &ca,
        "--cert-file",
        &cert,
        "--key-file",
        &key,
    ];
    assert_eq!(
        ok(ours.kubepkg(&add).output().unwrap()),
        ok(theirs.helm(&add).output().unwrap())
    );
    let yaml = std::fs::read_to_string(ours.repositories_yaml()).unwrap();
    assert_eq!(
        yaml,
        std::fs::read_to_string(theirs.repositories_yaml()).unwrap()
    );
    assert!(
        yaml.contains(&format!("certFile: {cert}")) && yaml.contains(&format!("keyFile: {key}")),
        "{yaml}"
    );

    // Later commands take the files from the entry: no TLS flag given.
    for args in [
        &["template", "x", "r/app"][..],
        &["template", "x", "r/web", "--version", "3.0.0"],
    ] {
        assert_eq!(
            ok(ours.kubepkg(args).output().unwrap()),
            ok(theirs.helm(args).output().unwrap()),
            "{args:?}"
        );
    }
    ok(ours.kubepkg(&["repo", "update"]).output().unwrap());
    let dest = ours.path().join("pulled");
    ok(ours
        .kubepkg(&[
            "pull",
            "r/app",
            "--version",
            "0.2.5",
            "-d",
            dest.to_str().unwrap(),
        ])
        .output()
        .unwrap());
    assert_eq!(
        std::fs::read(dest.join("app-0.2.5.tgz")).unwrap(),
        std::fs::read(dir.path().join("app-0.2.5.tgz")).unwrap()
    );
    // And the repository helm added is used by kubepkg as it is.
    assert_eq!(
        ok(theirs
            .kubepkg(&["template", "x", "r/app"])
            .output()
            .unwrap()),
        ok(theirs.helm(&["template", "x", "r/app"]).output().unwrap())
    );
}
