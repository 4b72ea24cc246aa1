//! Packages without the network they came from, against real registries (two per test where a
//! package moves), the loopback chart repository and the real `helm` v4: `package save` →
//! `package load` between registries (the same manifest digest, the cosign signature tag
//! carried along, `apply` from the mirror), refusals of tampered, linked and oversized layout
//! tars; `chart:` and `path: oci://…` components locked, vendored by `package push` and
//! installed with the chart repository and registry gone and the caches emptied; `oci://`
//! Chart.yaml dependencies giving the `charts/` and `Chart.lock` that `helm dependency update`
//! gives.

use std::io::Read as _;
use std::path::Path;
use std::process::Command;

use kubepkg_testkit::chart_repo::{ChartRepo, ChartSpec, ServeOptions, build_repository};
use kubepkg_testkit::registry::{Registry, RegistryOptions};

use crate::oci::{Env, error_line};
use crate::support::{assert_same_lock, files, ok};

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let sum = sha2::Sha256::digest(bytes);
    format!(
        "sha256:{}",
        sum.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A registry client of the sandbox (plain HTTP), for looking at what a registry holds.
fn client(env: &Env) -> kubepkg_oci::Client {
    kubepkg_oci::Client::new(kubepkg_oci::ClientOptions {
        plain_http: true,
        insecure_skip_tls_verify: false,
        ca_file: None,
        cert_file: None,
        key_file: None,
        credentials: kubepkg_oci::CredentialFiles {
            helm: env.path("config/registry/config.json"),
            docker: None,
        },
        credential: None,
        cache: kubepkg_oci::Cache::new(env.path("inspect-cache")),
        limits: kubepkg_oci::Limits::default(),
    })
    .unwrap()
}

fn reference(s: &str) -> kubepkg_oci::Reference {
    kubepkg_oci::Reference::parse(s).unwrap()
}

/// The entries of an uncompressed tar, read with the `tar` crate (not kubepkg's reader).
fn tar_entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut a = tar::Archive::new(bytes);
    a.entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().display().to_string();
            let mut data = Vec::new();
            e.read_to_end(&mut data).unwrap();
            (name, data)
        })
        .collect()
}

fn write_tar(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in entries {
        let mut h = tar::Header::new_ustar();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        b.append_data(&mut h, name, &data[..]).unwrap();
    }
    std::fs::write(path, b.into_inner().unwrap()).unwrap();
}

/// Pushes a cosign-style signature manifest (cosign's simple-signing layer and annotations)
/// for `digest` into `repo` at `sha256-<hex>.sig`; returns its bytes.
async fn push_signature(c: &kubepkg_oci::Client, repo: &str, digest: &str) -> Vec<u8> {
    let tag = format!("{}.sig", digest.replacen(':', "-", 1));
    let r = reference(repo).with_tag(&tag);
    {
        let payload = serde_json::to_vec(&serde_json::json!({
            "critical": {
                "identity": {"docker-reference": repo.trim_start_matches("oci://")},
                "image": {"docker-manifest-digest": digest},
                "type": "cosign container image signature"
            },
            "optional": null
        }))
        .unwrap();
        let layer = c
            .push_blob(
                &r,
                "application/vnd.dev.cosign.simplesigning.v1+json",
                &payload,
            )
            .await
            .unwrap();
        let config = c
            .push_blob(
                &r,
                "application/vnd.oci.image.config.v1+json",
                br#"{"architecture":"","config":{},"created":"0001-01-01T00:00:00Z","history":[{"created":"0001-01-01T00:00:00Z"}],"os":"","rootfs":{"type":"layers","diff_ids":[]}}"#,
            )
            .await
            .unwrap();
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": config,
            "layers": [{
                "mediaType": layer.media_type,
                "digest": layer.digest,
                "size": layer.size,
                "annotations": {"dev.cosignproject.cosign/signature": "MEUCIQDfake"}
            }]
        });
        let bytes = serde_json::to_vec(&manifest).unwrap();
        c.push_manifest(&r, "application/vnd.oci.image.manifest.v1+json", &bytes)
            .await
            .unwrap();
        bytes
    }
}

/// A package `webshop` 1.0.0 of one simulated Deployment chart, pushed to `reg`; its digest.
fn push_webshop(env: &Env, reg: &Registry) -> String {
    env.push_package(&env.web_package("webshop", "1.0.0"), reg)
}

/// `package save` of webshop 1.0.0 from `reg` to `tar` in the sandbox: its output.
fn save_webshop(env: &Env, reg: &Registry, tar: &str) -> String {
    ok(env.kubepkg(&[
        "package",
        "save",
        &reg.oci("pkgs/webshop"),
        "--version",
        "1.0.0",
        "-o",
        tar,
        "--plain-http",
    ]))
}

/// `package load` of `tar` into `reg`'s `mirror` in the sandbox: its output.
fn load_into_mirror(env: &Env, tar: &str, reg: &Registry) -> String {
    ok(env.kubepkg(&["package", "load", tar, &reg.oci("mirror"), "--plain-http"]))
}

/// The entries of the image layout tar `tar` of the sandbox (read with the `tar` crate) and its
/// index, checked: `oci-layout` and `index.json` first, then blobs each named by its SHA-256;
/// the index's first manifest is `digest`, tagged 1.0.0.
fn saved_layout(env: &Env, tar: &str, digest: &str) -> (Vec<(String, Vec<u8>)>, serde_json::Value) {
    let entries = tar_entries(&std::fs::read(env.path(tar)).unwrap());
    let names: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(names[..2], ["oci-layout", "index.json"], "{names:?}");
    let layout: serde_json::Value = serde_json::from_slice(&entries[0].1).unwrap();
    assert_eq!(layout, serde_json::json!({"imageLayoutVersion": "1.0.0"}));
    for (name, data) in &entries[2..] {
        let hex = name.strip_prefix("blobs/sha256/").expect(name);
        assert_eq!(sha256(data), format!("sha256:{hex}"), "{name}");
    }
    let index: serde_json::Value = serde_json::from_slice(&entries[1].1).unwrap();
    let first = &index["manifests"][0];
    assert_eq!(first["digest"], digest, "{index}");
    assert_eq!(
        first["annotations"]["org.opencontainers.image.ref.name"],
        "1.0.0"
    );
    (entries, index)
}

/// `apply shop oci://B/mirror/webshop --version 1.0.0` in `ns` installs, and the package's
/// status records that source at `digest`.
fn apply_from_mirror(env: &Env, ns: &kubepkg_testkit::TestNamespace, b: &Registry, digest: &str) {
    let r = b.oci("mirror/webshop");
    ok(env.on(
        ns,
        &[
            "apply",
            "shop",
            &r,
            "--version",
            "1.0.0",
            "--plain-http",
            "--timeout",
            "90s",
        ],
    ));
    let status = ok(env.on(ns, &["package", "status", "shop"]));
    assert!(
        status.contains(&format!("SOURCE: {r}:1.0.0@{digest}")),
        "{status}"
    );
}

/// `package save` from registry A (with a signature there), registry A stopped, `package load`
/// into registry B: B serves the same manifest (same digest) and the same signature manifest
/// under the same tag; the tar is an OCI image layout whose every blob is named by its
/// SHA-256; `apply NAME oci://B/…` installs the package and records B as its source.
#[tokio::test]
async fn a_package_saved_from_one_registry_loads_into_another_with_its_signature_and_installs() {
    let ns = kubepkg_testkit::TestNamespace::fresh("airgap").await;
    let env = Env::new();
    let a = Registry::start(RegistryOptions::plain()).unwrap();
    let b = Registry::start(RegistryOptions::plain()).unwrap();
    let digest = push_webshop(&env, &a);
    let c = client(&env);
    let signature = push_signature(&c, &a.oci("pkgs/webshop"), &digest).await;
    let sig_tag = format!("{}.sig", digest.replacen(':', "-", 1));

    let out = save_webshop(&env, &a, "webshop.tar");
    assert_eq!(
        out,
        format!(
            "Saved: {}/pkgs/webshop:1.0.0 to webshop.tar\nDigest: {digest}\nWith: {sig_tag}\n",
            a.host()
        )
    );

    // The image layout, read with the tar crate: every blob named by its digest, index.json
    // naming the package and its signature by tag.
    let (entries, index) = saved_layout(&env, "webshop.tar", &digest);
    let names: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    let manifests = index["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 2, "{index}");
    assert_eq!(
        manifests[0]["artifactType"],
        "application/vnd.kubepkg.package.v1"
    );
    assert_eq!(manifests[1]["digest"], sha256(&signature).as_str());
    assert_eq!(
        manifests[1]["annotations"]["org.opencontainers.image.ref.name"],
        sig_tag.as_str()
    );
    // package manifest + config + kubepkg.yaml + chart + archive; signature + config + layer.
    assert_eq!(entries.len() - 2, 8, "{names:?}");

    // Without the source registry.
    drop(a);
    let out = load_into_mirror(&env, "webshop.tar", &b);
    assert_eq!(
        out,
        format!(
            "Pushed: {h}/mirror/webshop:1.0.0\nDigest: {digest}\nWith: {h}/mirror/webshop:{sig_tag}\n",
            h = b.host()
        )
    );
    let m = c
        .pull_manifest(&reference(&b.oci("mirror/webshop:1.0.0")))
        .await
        .unwrap();
    let sig = c
        .pull_manifest(&reference(&b.oci(&format!("mirror/webshop:{sig_tag}"))))
        .await
        .unwrap();
    assert_eq!(m.digest, digest, "the mirror serves the same manifest");
    assert_eq!(sig.bytes, signature, "and the same signature");

    apply_from_mirror(&env, &ns, &b, &digest);
}

/// `package save DIR -o pkg.tar` of a local package, with no registry at all: the tar is an
/// OCI image layout (read with the `tar` crate) of the artifact `package push` sends for the
/// same directory (the same config and layers, byte for byte; only `created` differs);
/// `package load` puts it into a registry under the package's version with the saved digest,
/// and `apply NAME oci://…` installs it from there. A `--version` or a path that is not there
/// is refused in one line and writes nothing.
#[tokio::test]
async fn a_local_package_saved_to_a_tar_loads_into_a_registry_and_installs() {
    let ns = kubepkg_testkit::TestNamespace::fresh("savelocal").await;
    let env = Env::new();
    let dir = env.web_package("webshop", "1.0.0");
    let d = dir.to_str().unwrap();
    let out = ok(env.kubepkg(&["package", "save", d, "-o", "local.tar"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], format!("Saved: webshop 1.0.0 ({d}) to local.tar"));
    let digest = lines[1].strip_prefix("Digest: ").expect(&out).to_string();

    let (entries, index) = saved_layout(&env, "local.tar", &digest);
    let names: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    let blob = |digest: &str| -> Vec<u8> {
        let name = format!("blobs/sha256/{}", digest.trim_start_matches("sha256:"));
        entries
            .iter()
            .find(|e| e.0 == name)
            .unwrap_or_else(|| panic!("{name} missing: {names:?}"))
            .1
            .clone()
    };
    let manifests = index["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 1, "no signature: {index}");
    let saved: serde_json::Value = serde_json::from_slice(&blob(&digest)).unwrap();
    // manifest + config + kubepkg.yaml + chart + archive
    assert_eq!(entries.len() - 2, 5, "{names:?}");

    // The artifact `package push` sends for the same directory: same config and layers.
    let a = Registry::start(RegistryOptions::plain()).unwrap();
    let pushed_digest = push_webshop(&env, &a);
    let c = client(&env);
    let pushed = c
        .pull_manifest(&reference(&a.oci("pkgs/webshop:1.0.0")))
        .await
        .unwrap();
    assert_eq!(pushed.digest, pushed_digest);
    let pushed: serde_json::Value = serde_json::from_slice(&pushed.bytes).unwrap();
    assert_eq!(saved["config"], pushed["config"]);
    assert_eq!(saved["layers"], pushed["layers"]);
    assert_eq!(saved["artifactType"], pushed["artifactType"]);
    let without_created = |v: &serde_json::Value| {
        let mut a = v["annotations"].clone();
        a.as_object_mut()
            .unwrap()
            .remove("org.opencontainers.image.created");
        a
    };
    assert_eq!(without_created(&saved), without_created(&pushed));
    drop(a);

    // Into a registry, then installed from it.
    let b = Registry::start(RegistryOptions::plain()).unwrap();
    let out = load_into_mirror(&env, "local.tar", &b);
    assert_eq!(
        out,
        format!(
            "Pushed: {}/mirror/webshop:1.0.0\nDigest: {digest}\n",
            b.host()
        )
    );
    let m = c
        .pull_manifest(&reference(&b.oci("mirror/webshop:1.0.0")))
        .await
        .unwrap();
    assert_eq!(m.digest, digest, "the registry serves the saved manifest");
    apply_from_mirror(&env, &ns, &b, &digest);

    // Refusals: one line each, no file written.
    assert_eq!(
        error_line(env.kubepkg(&["package", "save", d, "--version", "1.0.0", "-o", "v.tar"])),
        format!(
            "{d}: --version 1.0.0 is for a package in a registry (oci://…); a local package is saved at the version its kubepkg.yaml names"
        )
    );
    assert_eq!(
        error_line(env.kubepkg(&["package", "save", "./nope", "-o", "n.tar"])),
        "./nope: no such package directory or archive; give a package directory, a package .tgz or oci://HOST/REPO/NAME"
    );
    assert!(!env.path("v.tar").exists() && !env.path("n.tar").exists());
}

/// A layout tar with a changed blob is refused naming both digests, one with a link or an
/// entry above the blob cap is refused by the archive reader, a tar that is not a layout is
/// named so; in each case nothing reaches the target registry.
#[test]
fn tampered_linked_oversized_and_foreign_tars_are_refused_and_nothing_is_pushed() {
    let env = Env::new();
    let a = Registry::start(RegistryOptions::plain()).unwrap();
    let b = Registry::start(RegistryOptions::plain()).unwrap();
    push_webshop(&env, &a);
    save_webshop(&env, &a, "good.tar");
    let entries = tar_entries(&std::fs::read(env.path("good.tar")).unwrap());
    let load = |file: &str, vars: &[(&str, &str)]| {
        error_line(env.kubepkg_with(
            &["package", "load", file, &b.oci("mirror"), "--plain-http"],
            vars,
        ))
    };

    // One blob's bytes changed (the largest: the package archive).
    let mut tampered = entries.clone();
    let i = (2..tampered.len())
        .max_by_key(|&i| tampered[i].1.len())
        .unwrap();
    tampered[i].1[100] ^= 0xff;
    let (name, bytes) = tampered[i].clone();
    write_tar(&env.path("tampered.tar"), &tampered);
    assert_eq!(
        load("tampered.tar", &[]),
        format!(
            "tampered.tar: {name}: digest mismatch: expected sha256:{}, got {}; the archive is damaged or was altered, nothing was pushed",
            name.trim_start_matches("blobs/sha256/"),
            sha256(&bytes)
        )
    );

    // A symbolic link among the blobs.
    let mut builder = tar::Builder::new(Vec::new());
    for (name, data) in &entries {
        let mut h = tar::Header::new_ustar();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut h, name, &data[..]).unwrap();
    }
    let mut h = tar::Header::new_ustar();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    h.set_mode(0o777);
    builder
        .append_link(&mut h, "blobs/sha256/link", "/etc/passwd")
        .unwrap();
    std::fs::write(env.path("linked.tar"), builder.into_inner().unwrap()).unwrap();
    assert_eq!(
        load("linked.tar", &[]),
        "linked.tar: package archive contains a link (blobs/sha256/link); links are not allowed in packages; nothing was pushed"
    );

    // An entry above the blob cap.
    let e = load("good.tar", &[("KUBEPKG_OCI_MAX_BLOB_BYTES", "1000")]);
    assert!(
        e.starts_with("good.tar: file blobs/sha256/")
            && e.ends_with(
                " is larger than the maximum file size 1000; raise KUBEPKG_OCI_MAX_BLOB_BYTES if it is expected; nothing was pushed"
            ),
        "{e}"
    );

    // A tar that is no image layout.
    write_tar(
        &env.path("foreign.tar"),
        &[("hello.txt".to_string(), b"hi".to_vec())],
    );
    assert_eq!(
        load("foreign.tar", &[]),
        "foreign.tar: it has no oci-layout file; it is not an OCI image layout (make one with `kubepkg package save`)"
    );

    let c = client(&env);
    let tags = runtime().block_on(c.list_tags(&reference(&b.oci("mirror/webshop"))));
    assert!(
        matches!(tags, Err(kubepkg_oci::Error::NotFound { .. })),
        "nothing pushed: {tags:?}"
    );
}

/// A package of upstream charts — `chart:` from the loopback chart repository and `path:
/// oci://…` from a registry, each with a constraint — locked (versions chosen as the oracles
/// choose them, digests of the archives helm made), a lock that no longer matches refused
/// saying what to run, then pushed: the chart repository and the chart registry stopped and
/// every local cache emptied, `apply NAME oci://…` still installs both charts.
#[tokio::test]
async fn upstream_charts_are_locked_vendored_by_push_and_install_with_their_sources_gone() {
    let ns = kubepkg_testkit::TestNamespace::fresh("vendor").await;
    let env = Env::new();
    let repo_dir = tempfile::tempdir().unwrap();
    build_repository(
        &env.helm,
        repo_dir.path(),
        &[
            ChartSpec::new("app", "0.2.0"),
            ChartSpec::new("app", "0.2.5"),
            ChartSpec::new("app", "0.3.0"),
        ],
    )
    .expect("helm package/repo index");
    let repo = ChartRepo::serve(repo_dir.path(), ServeOptions::default()).unwrap();
    let charts = Registry::start(RegistryOptions::plain()).unwrap();
    let packages = Registry::start(RegistryOptions::plain()).unwrap();
    let mut web = std::collections::BTreeMap::new();
    for v in ["1.0.0", "1.2.0", "2.0.0"] {
        let tgz = env.chart("web", v);
        ok(env.helm(&[
            "push",
            tgz.to_str().unwrap(),
            &charts.oci("charts"),
            "--plain-http",
        ]));
        web.insert(v, sha256(&std::fs::read(&tgz).unwrap()));
    }
    let pkg = env.path("upstream");
    std::fs::create_dir_all(&pkg).unwrap();
    let manifest = |web_version: &str| {
        format!(
            "package:\n  name: upstream\n  version: 1.0.0\ncomponents:\n- name: db\n  chart: {{repository: \"{}\", name: app, version: \"~0.2.0\"}}\n- name: web\n  path: {}\n  version: \"{web_version}\"\n  install:\n    dependsOn: [db]\n",
            repo.url(),
            charts.oci("charts/web")
        )
    };
    std::fs::write(pkg.join("kubepkg.yaml"), manifest("1.x")).unwrap();
    let dir = pkg.to_str().unwrap();

    let push = || {
        env.kubepkg(&[
            "package",
            "push",
            dir,
            &packages.oci("pkgs"),
            "--plain-http",
        ])
    };
    let e = error_line(push());
    assert!(
        e.contains("kubepkg.lock has no entry") && e.ends_with("run 'kubepkg package lock'"),
        "push of an unlocked package: {e}"
    );
    let out = ok(env.kubepkg(&["package", "lock", dir, "--plain-http"]));
    let app = sha256(&std::fs::read(repo_dir.path().join("app-0.2.5.tgz")).unwrap());
    assert_eq!(
        out,
        format!(
            "db: app 0.2.5 ({app}) from {}\nweb: web 1.2.0 ({}) from {}\n",
            repo.url(),
            web["1.2.0"],
            charts.oci("charts")
        )
    );

    // The lock no longer matches kubepkg.yaml: refused before anything is rendered.
    std::fs::write(pkg.join("kubepkg.yaml"), manifest("2.x")).unwrap();
    let e = error_line(env.kubepkg(&["plan", "upstream", dir, "--plain-http"]));
    assert_eq!(
        e,
        format!(
            "component web: kubepkg.lock has web 1.2.0 of {c}, but kubepkg.yaml asks for web 2.x of {c}; run 'kubepkg package lock'",
            c = charts.oci("charts")
        )
    );
    std::fs::write(pkg.join("kubepkg.yaml"), manifest("1.x")).unwrap();

    let out = ok(push());
    assert!(out.contains("/pkgs/upstream:1.0.0"), "{out}");
    // The artifact's chart layers are the locked archives.
    let c = client(&env);
    let m = c
        .pull_manifest(&reference(&packages.oci("pkgs/upstream:1.0.0")))
        .await
        .unwrap();
    let m: serde_json::Value = serde_json::from_slice(&m.bytes).unwrap();
    let chart_layers: Vec<&str> = m["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["mediaType"] == "application/vnd.cncf.helm.chart.content.v1.tar+gzip")
        .map(|l| l["digest"].as_str().unwrap())
        .collect();
    assert_eq!(chart_layers, [app.as_str(), web["1.2.0"].as_str()]);

    drop(repo);
    drop(charts);
    std::fs::remove_dir_all(env.path("kubepkg")).unwrap();
    let _ = std::fs::remove_dir_all(env.path("cache"));

    ok(env.on(
        &ns,
        &[
            "apply",
            "up",
            &packages.oci("pkgs/upstream"),
            "--version",
            "1.0.0",
            "--plain-http",
            "--timeout",
            "3m",
        ],
    ));
    let mut list = Command::new(&env.helm);
    env.env(&mut list);
    list.args(["list", "-n", ns.name(), "-o", "json"])
        .env("KUBECONFIG", ns.plane().kubeconfig());
    let v: serde_json::Value = serde_json::from_str(&ok(list.output().unwrap())).unwrap();
    let mut installed: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["chart"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    installed.sort();
    assert_eq!(
        installed,
        [
            ("up-db".to_string(), "app-0.2.5".to_string()),
            ("up-web".to_string(), "web-1.2.0".to_string())
        ]
    );
}

/// `dependency update` of Chart.yaml dependencies from a registry (a constraint and an exact
/// version) gives the `charts/` and `Chart.lock` the real `helm dependency update` gives for
/// the same chart; `dependency build` from either lock downloads the same archives.
#[test]
fn oci_dependencies_give_the_charts_and_lock_helm_gives() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    for (name, v) in [
        ("app", "0.1.0"),
        ("app", "0.2.5"),
        ("app", "1.0.0"),
        ("db", "3.1.0"),
    ] {
        let tgz = env.chart(name, v);
        ok(env.helm(&[
            "push",
            tgz.to_str().unwrap(),
            &reg.oci("charts"),
            "--plain-http",
        ]));
    }
    let deps = format!(
        "dependencies:\n- name: app\n  version: \"^0.2.0\"\n  repository: {r}\n- name: db\n  version: 3.1.0\n  repository: {r}\n",
        r = reg.oci("charts")
    );
    let parent = |which: &str| {
        let dir = env.path(which);
        std::fs::create_dir_all(&dir).unwrap();
        let chart = dir.join("parent");
        ok(env.helm(&["create", chart.to_str().unwrap()]));
        let y = chart.join("Chart.yaml");
        let mut text = std::fs::read_to_string(&y).unwrap();
        text.push_str(&deps);
        std::fs::write(&y, text).unwrap();
        chart
    };
    let ours = parent("ours");
    let theirs = parent("theirs");
    ok(env.kubepkg(&[
        "dependency",
        "update",
        ours.to_str().unwrap(),
        "--plain-http",
    ]));
    ok(env.helm(&[
        "dependency",
        "update",
        theirs.to_str().unwrap(),
        "--plain-http",
    ]));
    let our_files = files(&ours.join("charts"));
    assert_eq!(
        our_files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["app-0.2.5.tgz", "db-3.1.0.tgz"]
    );
    assert!(
        our_files == files(&theirs.join("charts")),
        "charts/ differs"
    );
    assert_same_lock(&ours, &theirs);

    // Each tool builds from the other's lock.
    std::fs::copy(theirs.join("Chart.lock"), ours.join("Chart.lock")).unwrap();
    std::fs::remove_dir_all(ours.join("charts")).unwrap();
    ok(env.kubepkg(&[
        "dependency",
        "build",
        ours.to_str().unwrap(),
        "--plain-http",
    ]));
    assert!(
        files(&ours.join("charts")) == our_files,
        "build gives the same charts"
    );
}
