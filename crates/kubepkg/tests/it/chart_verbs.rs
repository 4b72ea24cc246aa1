//! The chart verbs against the real `helm` (v4.3.1, built by `tools/helm-ref/install-helm.sh`):
//! `lint` over the whole chart corpus (`testdata/charts/{helm,modules,synthetic}`, with and
//! without `--strict`: the same stdout, stderr and exit code, normalised only where Helm is not
//! deterministic — see `testdata/helm-reference/lint-exceptions.txt`), `create --chart`
//! (byte-identical files and modes), `show chart|values|readme|crds|all` and `package pack`
//! (the same archive entries, order, modes and contents). Plus kubepkg's own package lint
//! (each warning, each refusal), bad input, and insta snapshots of `lint` and `create`.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{helm_home, repo, run_command};

fn helm() -> PathBuf {
    kubepkg_testkit::helm_binary("v4.3.1").expect("build helm v4.3.1")
}

/// The real `helm` for offline verbs: its homes in `home`, no colour, no namespace from the
/// calling environment.
fn helm_cmd(helm: &Path, home: &Path, args: &[&str]) -> Command {
    let mut c = kubepkg_testkit::helm_offline(helm, args);
    helm_home(&mut c, home)
        .env("NO_COLOR", "1")
        .env_remove("HELM_KUBECONTEXT");
    c
}

fn kubepkg_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    c.args(args)
        .env("NO_COLOR", "1")
        .env_remove("HELM_NAMESPACE")
        .env_remove("HELM_DRIVER")
        .env_remove("HELM_KUBECONTEXT");
    c
}

fn charts_root() -> PathBuf {
    repo().join("testdata/charts")
}

/// Every chart of the corpus, as a path under `testdata/charts/`: directories with a
/// Chart.yaml (subcharts too) and chart archives.
fn corpus() -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let r = format!("{rel}/{name}");
            let p = e.path();
            if p.is_dir() {
                if p.join("Chart.yaml").exists() {
                    out.push(r.clone());
                }
                walk(&p, &r, out);
            } else if name.ends_with(".tgz") || name.ends_with(".tar.gz") {
                out.push(r);
            }
        }
    }
    let mut out = Vec::new();
    for top in ["helm", "modules", "synthetic"] {
        walk(&charts_root().join(top), top, &mut out);
    }
    out
}

/// The charts `lint-exceptions.txt` leaves out, with the reason.
fn exceptions() -> BTreeMap<String, String> {
    std::fs::read_to_string(repo().join("testdata/helm-reference/lint-exceptions.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .map(|(id, why)| (id.to_string(), why.to_string()))
        .collect()
}

/// Masks the scratch directory an archive is unpacked into (`…/helm-lint123/NAME`,
/// `…/kubepkg-lint-1-2/NAME`) and sorts the subchart lists Helm prints in Go map order.
fn normalise_lint_stdout(s: &str) -> String {
    s.lines()
        .map(|l| {
            let mut l = l.to_string();
            for marker in ["/helm-lint", "/kubepkg-lint-"] {
                if let Some(i) = l.find(marker) {
                    let start = l[..i].rfind(' ').map_or(0, |s| s + 1);
                    let end = l[i + 1..].find('/').map_or(l.len(), |e| i + 1 + e);
                    l.replace_range(start..end, "SCRATCH");
                }
            }
            if let Some(i) = l.find("missing these dependencies: ") {
                let at = i + "missing these dependencies: ".len();
                let mut names: Vec<&str> = l[at..].split(',').collect();
                names.sort_unstable();
                l = format!("{}{}", &l[..at], names.join(","));
            }
            l
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Helm's log lines come in Go map order: compared as sorted lines.
fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn lint_matches_helm_lint_on_the_corpus() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    let skip = exceptions();
    let charts = corpus();
    assert!(charts.len() > 300, "the corpus has {} charts", charts.len());
    let mut compared = 0;
    let mut failures = Vec::new();
    for chart in &charts {
        if skip.contains_key(chart) {
            continue;
        }
        for strict in [false, true] {
            let mut args = vec!["lint", chart.as_str()];
            if strict {
                args.push("--strict");
            }
            let h = run_command(helm_cmd(&helm, home.path(), &args).current_dir(charts_root()));
            let k = run_command(kubepkg_cmd(&args).current_dir(charts_root()));
            compared += 1;
            if h.0 != k.0
                || normalise_lint_stdout(&h.1) != normalise_lint_stdout(&k.1)
                || sorted_lines(&h.2) != sorted_lines(&k.2)
            {
                failures.push(format!(
                    "{}\n--- helm (exit {})\n{}{}\n--- kubepkg (exit {})\n{}{}",
                    args.join(" "),
                    h.0,
                    h.1,
                    h.2,
                    k.0,
                    k.1,
                    k.2
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} lint runs differ from helm:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn lint_values_flags_reach_the_rules_as_in_helm() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    let chart = "helm/pkg/action/testdata/charts/chart-with-schema-negative";
    for extra in [
        vec!["--set", "age=10"],
        vec!["--set", "employmentInfo.salary=1", "--strict"],
        vec!["--skip-schema-validation"],
        vec![
            "-f",
            "helm/pkg/action/testdata/charts/chart-with-schema/values.yaml",
        ],
    ] {
        let mut args = vec!["lint", chart];
        args.extend(extra);
        let h = run_command(helm_cmd(&helm, home.path(), &args).current_dir(charts_root()));
        let k = run_command(kubepkg_cmd(&args).current_dir(charts_root()));
        assert_eq!(h, k, "{}", args.join(" "));
    }
}

#[test]
fn lint_of_a_malformed_chart_yaml_says_what_helm_says() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("broken");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: broken: yes\nversion: 1.0.0\n",
    )
    .unwrap();
    let args = ["lint", "broken"];
    let h = run_command(helm_cmd(&helm, home.path(), &args).current_dir(dir.path()));
    let k = run_command(kubepkg_cmd(&args).current_dir(dir.path()));
    assert_eq!(h.0, 1);
    assert_eq!(
        (h.0, normalise_lint_stdout(&h.1), h.2),
        (k.0, normalise_lint_stdout(&k.1), k.2)
    );
}

#[test]
fn lint_refuses_a_path_that_is_neither_a_package_nor_a_chart() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let (code, out, err) = run_command(kubepkg_cmd(&["lint", "empty"]).current_dir(dir.path()));
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert_eq!(
        err,
        "Error: empty is neither a package nor a chart: it has no kubepkg.yaml and no Chart.yaml (and is not a .tgz chart archive)\n"
    );
    let (code, _, err) = run_command(kubepkg_cmd(&["lint", "nope"]).current_dir(dir.path()));
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn lint_json_is_structured() {
    let (code, out, err) = run_command(
        kubepkg_cmd(&[
            "lint",
            "helm/pkg/chart/v2/lint/rules/testdata/badchartfile",
            "-o",
            "json",
        ])
        .current_dir(charts_root()),
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(err, "Error: 1 chart(s) linted, 1 chart(s) failed\n");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["linted"], 1);
    assert_eq!(v["failed"], 1);
    let r = &v["results"][0];
    assert_eq!(r["kind"], "chart");
    assert_eq!(r["failed"], true);
    assert_eq!(r["messages"][0]["severity"], "error");
    assert_eq!(r["messages"][0]["path"], "Chart.yaml");
    assert_eq!(r["messages"][0]["text"], "name is required");
}

/// Every file under `dir`: relative path → (mode, bytes); directories with their mode.
fn tree(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (u32, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let md = std::fs::metadata(&p).unwrap();
            let mode = md.permissions().mode() & 0o7777;
            if md.is_dir() {
                out.insert(format!("{rel}/"), (mode, Vec::new()));
                walk(root, &p, out);
            } else {
                out.insert(rel, (mode, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn create_chart_writes_what_helm_create_writes() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    for name in ["foo", "my-app.v2", "sub/dir-chart"] {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        if let Some((parent, _)) = name.split_once('/') {
            std::fs::create_dir(a.path().join(parent)).unwrap();
            std::fs::create_dir(b.path().join(parent)).unwrap();
        }
        let h = run_command(helm_cmd(&helm, home.path(), &["create", name]).current_dir(a.path()));
        let k = run_command(kubepkg_cmd(&["create", "--chart", name]).current_dir(b.path()));
        assert_eq!(h, k, "create {name}");
        let (ht, kt) = (tree(a.path()), tree(b.path()));
        assert_eq!(
            ht.keys().collect::<Vec<_>>(),
            kt.keys().collect::<Vec<_>>(),
            "create {name}: file lists"
        );
        for (path, (mode, bytes)) in &ht {
            let (kmode, kbytes) = &kt[path];
            assert_eq!(mode, kmode, "{path}: mode");
            assert!(bytes == kbytes, "{path}: contents differ");
        }
    }
}

#[test]
fn create_refuses_bad_names_as_helm_does() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["foo$bar", "white space"] {
        let h =
            run_command(helm_cmd(&helm, home.path(), &["create", name]).current_dir(dir.path()));
        let k = run_command(kubepkg_cmd(&["create", "--chart", name]).current_dir(dir.path()));
        assert_eq!(h.0, 1);
        assert_eq!(h, k, "create {name}");
    }
}

#[test]
fn create_writes_a_package_with_helms_chart() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let (code, out, err) = run_command(kubepkg_cmd(&["create", "shop"]).current_dir(b.path()));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "Creating shop\n", "")
    );
    run_command(helm_cmd(&helm, home.path(), &["create", "shop"]).current_dir(a.path()));
    assert_eq!(
        tree(&a.path().join("shop")),
        tree(&b.path().join("shop/charts/shop"))
    );
    let manifest = std::fs::read_to_string(b.path().join("shop/kubepkg.yaml")).unwrap();
    assert!(
        manifest.contains("name: shop\n  version: 0.1.0\n"),
        "{manifest}"
    );
    assert!(manifest.contains("path: charts/shop\n"), "{manifest}");
    // The new package passes its own lint (the chart's only finding is Helm's icon INFO).
    let (code, out, err) =
        run_command(kubepkg_cmd(&["lint", "shop", "--strict"]).current_dir(b.path()));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out,
        "==> Linting shop\n\n==> Linting shop/charts/shop\n[INFO] Chart.yaml: icon is recommended\n\n1 package(s) and 1 chart(s) linted, 0 failed\n"
    );
}

#[test]
fn create_into_a_non_empty_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    std::fs::write(dir.path().join("taken/notes.txt"), "mine").unwrap();
    for args in [vec!["create", "taken"], vec!["create", "--chart", "taken"]] {
        let (code, out, err) = run_command(kubepkg_cmd(&args).current_dir(dir.path()));
        assert_eq!(code, 1);
        assert_eq!(out, "Creating taken\n");
        assert_eq!(
            err,
            "Error: taken already exists and is not empty; create writes into a new or empty directory only\n"
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path().join("taken")).unwrap().count(),
        1,
        "nothing was written"
    );
}

#[test]
fn create_output_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let mut out = String::new();
    for args in [
        vec!["create", "web"],
        vec!["create", "--chart", "api"],
        vec!["create", "--chart", "bad$name"],
        vec!["create", "web"],
        vec!["create", "Web_Pkg"],
    ] {
        let (code, stdout, stderr) = run_command(kubepkg_cmd(&args).current_dir(dir.path()));
        out.push_str(&format!(
            "$ kubepkg {}\nexit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}\n",
            args.join(" ")
        ));
    }
    insta::assert_snapshot!("create_messages", out);
}

/// Charts `show` and `package pack` are compared on: plain, with CRDs and a README, with a
/// subchart, archived, apiVersion v1 with requirements.yaml, with a schema.
const SHOW_CHARTS: &[&str] = &[
    "helm/pkg/cmd/testdata/testcharts/alpine",
    "helm/pkg/cmd/testdata/testcharts/chart-with-only-crds",
    "helm/pkg/cmd/testdata/testcharts/chart-with-subchart-notes",
    "helm/pkg/cmd/testdata/testcharts/chart-with-schema",
    "helm/pkg/cmd/testdata/testcharts/reqtest",
    "modules/github.com_bitnami-labs_sealed-secrets__helm_sealed-secrets",
    "modules/github.com_fluxcd_flagger__charts_flagger",
    "synthetic/values",
];

#[test]
fn show_prints_what_helm_show_prints() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    let mut charts: Vec<&str> = SHOW_CHARTS.to_vec();
    charts.push("helm/pkg/cmd/testdata/testcharts/compressedchart-0.1.0.tgz");
    charts.push("modules/github.com_aws_amazon-vpc-cni-k8s__charts_aws-vpc-cni");
    for chart in charts {
        for part in ["chart", "values", "readme", "crds", "all"] {
            let args = ["show", part, chart];
            let h = run_command(helm_cmd(&helm, home.path(), &args).current_dir(charts_root()));
            let k = run_command(kubepkg_cmd(&args).current_dir(charts_root()));
            assert_eq!(h.0, 0, "helm {}: {}", args.join(" "), h.2);
            assert!(
                h == k,
                "{}:\n--- helm\n{}{}\n--- kubepkg\n{}{}",
                args.join(" "),
                h.1,
                h.2,
                k.1,
                k.2
            );
        }
    }
}

/// An archive's entries: (name, mode, contents), in order.
fn entries(path: &Path) -> Vec<(String, u32, Vec<u8>)> {
    let raw = std::fs::read(path).unwrap();
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(&raw[..]));
    let mut out = Vec::new();
    for e in ar.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().display().to_string();
        let mode = e.header().mode().unwrap();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut data).unwrap();
        out.push((name, mode, data));
    }
    out
}

#[test]
fn package_pack_writes_the_archive_helm_package_writes() {
    let helm = helm();
    let home = tempfile::tempdir().unwrap();
    for chart in SHOW_CHARTS {
        for extra in [vec![], vec!["--version", "9.8.7", "--app-version", "2.0"]] {
            let a = tempfile::tempdir().unwrap();
            let b = tempfile::tempdir().unwrap();
            let mut hargs = vec!["package", chart, "-d"];
            let ad = a.path().display().to_string();
            hargs.push(&ad);
            hargs.extend(extra.iter().copied());
            let mut kargs = vec!["package", "pack", chart, "-d"];
            let bd = b.path().display().to_string();
            kargs.push(&bd);
            kargs.extend(extra.iter().copied());
            let h = run_command(helm_cmd(&helm, home.path(), &hargs).current_dir(charts_root()));
            let k = run_command(kubepkg_cmd(&kargs).current_dir(charts_root()));
            assert_eq!(h.0, 0, "{}: {}", hargs.join(" "), h.2);
            assert_eq!(
                (h.0, h.1.replace(&ad, "DEST"), h.2),
                (k.0, k.1.replace(&bd, "DEST"), k.2)
            );
            let file = h.1.trim().rsplit('/').next().unwrap().to_string();
            let (he, ke) = (
                entries(&a.path().join(&file)),
                entries(&b.path().join(&file)),
            );
            // Helm writes the subcharts in its loader's map order, which changes from run to
            // run (`reqtest`: reqsubchart2, reqsubchart3, reqsubchart once, sorted the next
            // time): the chart's own entries are compared in order, each subchart's entries in
            // order, the subcharts as a set.
            let names = |e: &[(String, u32, Vec<u8>)]| {
                let mut own = Vec::new();
                let mut subcharts: std::collections::BTreeMap<String, Vec<(String, u32)>> =
                    Default::default();
                for (name, mode, _) in e {
                    let sub = name
                        .split_once("/charts/")
                        .and_then(|(_, rest)| rest.split_once('/'))
                        .map(|(sub, _)| sub.to_string());
                    match sub {
                        Some(sub) => subcharts
                            .entry(sub)
                            .or_default()
                            .push((name.clone(), *mode)),
                        None => own.push((name.clone(), *mode)),
                    }
                }
                (own, subcharts)
            };
            assert_eq!(
                names(&he),
                names(&ke),
                "{chart}: entries (names, order, modes)"
            );
            for x in &he {
                let y = ke.iter().find(|y| y.0 == x.0).expect("the same entries");
                assert!(
                    x.2 == y.2,
                    "{chart}: {} differs:\n{}\n---\n{}",
                    x.0,
                    String::from_utf8_lossy(&x.2),
                    String::from_utf8_lossy(&y.2)
                );
            }
        }
    }
}

#[test]
fn package_pack_of_a_package_writes_the_push_archive() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    run_command(kubepkg_cmd(&["create", "shop"]).current_dir(dir.path()));
    let od = out.path().display().to_string();
    let (code, stdout, err) =
        run_command(kubepkg_cmd(&["package", "pack", "shop", "-d", &od]).current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        stdout,
        format!("Successfully packaged package and saved it to: {od}/shop-0.1.0.tgz\n")
    );
    let names: Vec<String> = entries(&out.path().join("shop-0.1.0.tgz"))
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert!(
        names.contains(&"shop/kubepkg.yaml".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"shop/charts/shop/Chart.yaml".to_string()),
        "{names:?}"
    );
    // The archive is a package the loader reads.
    let (code, _, err) = run_command(kubepkg_cmd(&["lint", "shop"]).current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
}

/// A package in `dir/pkg` with `manifest` and a chart `web` of `templates`.
fn package(dir: &Path, manifest: &str, templates: &[(&str, &str)]) {
    let chart = dir.join("pkg/web");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(dir.join("pkg/kubepkg.yaml"), manifest).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 1.0.0\nicon: https://example.com/icon.png\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "{}\n").unwrap();
    for (name, text) in templates {
        std::fs::write(chart.join("templates").join(name), text).unwrap();
    }
}

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata: {}\n";
const WIDGET: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";

fn lint_package(
    manifest: &str,
    templates: &[(&str, &str)],
    extra: &[&str],
) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path(), manifest, templates);
    let mut args = vec!["lint", "pkg"];
    args.extend(extra);
    run_command(kubepkg_cmd(&args).current_dir(dir.path()))
}

const GOOD: &str = "package:\n  name: shop\n  version: 1.0.0\n  rollback: {safe: true}\ncomponents:\n- name: web\n  path: web\n";

#[test]
fn package_lint_passes_a_good_package() {
    let (code, out, err) = lint_package(GOOD, &[("cm.yaml", CONFIGMAP)], &["--strict"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(
        out,
        "==> Linting pkg\n\n==> Linting pkg/web\n\n1 package(s) and 1 chart(s) linted, 0 failed\n"
    );
}

#[test]
fn package_lint_warns_when_rollback_safe_is_missing() {
    let m = GOOD.replace("  rollback: {safe: true}\n", "");
    let (code, out, _) = lint_package(&m, &[("cm.yaml", CONFIGMAP)], &[]);
    assert_eq!(code, 0);
    assert!(
        out.contains("[WARNING] kubepkg.yaml: package.rollback.safe is not set"),
        "{out}"
    );
    let (code, _, err) = lint_package(&m, &[("cm.yaml", CONFIGMAP)], &["--strict"]);
    assert_eq!(
        (code, err.as_str()),
        (1, "Error: 1 package(s) and 1 chart(s) linted, 1 failed\n")
    );
}

#[test]
fn package_lint_warns_about_custom_resources_without_ready_when() {
    let (code, out, _) = lint_package(GOOD, &[("cm.yaml", CONFIGMAP), ("w.yaml", WIDGET)], &[]);
    assert_eq!(code, 0);
    assert!(
        out.contains("[WARNING] kubepkg.yaml: component \"web\": its chart creates custom resources (example.com/v1 Widget) and the component has no readyWhen"),
        "{out}"
    );
    let ready = GOOD.replace(
        "  path: web\n",
        "  path: web\n  install:\n    readyWhen:\n    - {apiVersion: example.com/v1, kind: Widget, name: w, condition: Ready}\n",
    );
    let (code, out, _) = lint_package(
        &ready,
        &[("cm.yaml", CONFIGMAP), ("w.yaml", WIDGET)],
        &["--strict"],
    );
    assert_eq!(code, 0, "{out}");
}

#[test]
fn package_lint_warns_about_a_pre_upgrade_hook_without_a_job() {
    let m = GOOD.replace(
        "  path: web\n",
        "  path: web\n  install: {phase: PreUpgrade}\n",
    );
    let (code, out, _) = lint_package(&m, &[("cm.yaml", CONFIGMAP)], &[]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "[WARNING] kubepkg.yaml: component \"web\": a PreUpgrade hook whose chart has no Job"
        ),
        "{out}"
    );
}

#[test]
fn package_lint_reports_every_refusal_of_the_loader() {
    let bad = "package:\n  name: Shop\n  version: one\ncomponents:\n- name: web\n  path: web\n  install: {dependsOn: [nope]}\n";
    let (code, out, err) = lint_package(bad, &[("cm.yaml", CONFIGMAP)], &[]);
    assert_eq!(code, 1);
    assert_eq!(err, "Error: 1 package(s) and 0 chart(s) linted, 1 failed\n");
    assert!(out.matches("[ERROR] kubepkg.yaml:").count() >= 2, "{out}");
    let unknown = GOOD.replace("components:", "extra: 1\ncomponents:");
    let (code, out, _) = lint_package(&unknown, &[("cm.yaml", CONFIGMAP)], &[]);
    assert_eq!(code, 1);
    assert!(out.contains("[ERROR] kubepkg.yaml: line"), "{out}");
}

#[test]
fn lint_of_a_bad_package_snapshot() {
    let m = "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n- name: web\n  path: web\n- name: migrate\n  path: web\n  install: {phase: PreUpgrade}\n";
    let (code, out, err) = lint_package(
        m,
        &[
            ("w.yaml", WIDGET),
            (
                "deploy.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template: {}\n",
            ),
        ],
        &[],
    );
    insta::assert_snapshot!(
        "lint_bad_package",
        format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}")
    );
    let bad = "package:\n  name: Shop\n  version: one\ncomponents:\n- name: web\n  path: nowhere\n";
    let (code, out, err) = lint_package(bad, &[], &[]);
    insta::assert_snapshot!(
        "lint_invalid_package",
        format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}")
    );
}
