//! Charts and packages in OCI registries, against the real CNCF distribution registry
//! (`kubepkg_testkit::registry`) and the real `helm` v4: interop in both directions, logins
//! and Docker credentials, TLS options, the cache, and every refusal's one-line message
//! (with nothing cached or written).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kubepkg_testkit::helm_binary;
use kubepkg_testkit::registry::{Registry, RegistryOptions};

use crate::support::ok;

/// A sandbox: Helm's config and cache, kubepkg's cache and Docker's config in a temporary
/// directory, so logins and caches are the test's own.
pub(crate) struct Env {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) helm: PathBuf,
}

impl Env {
    pub(crate) fn new() -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
            helm: helm_binary("v4.3.1").expect("helm oracle"),
        }
    }

    pub(crate) fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    /// A package directory `pkg-NAME-VERSION` of one component `web`
    /// ([`kubepkg_testkit::charts::web_package`]).
    pub(crate) fn web_package(&self, name: &str, version: &str) -> PathBuf {
        let dir = self.path(&format!("pkg-{name}-{version}"));
        kubepkg_testkit::charts::web_package(&dir, name, version);
        dir
    }

    /// `package push DIR oci://REG/pkgs --plain-http`: the digest pushed.
    pub(crate) fn push_package(&self, dir: &Path, reg: &Registry) -> String {
        digest_of(&ok(self.kubepkg(&[
            "package",
            "push",
            dir.to_str().unwrap(),
            &reg.oci("pkgs"),
            "--plain-http",
        ])))
    }

    /// `kubepkg push ARTIFACT TO --plain-http`: a chart archive or a package pushed to `TO`.
    pub(crate) fn push(&self, artifact: &Path, to: &str) -> Output {
        self.push_with(artifact, to, &["--plain-http"])
    }

    /// `kubepkg push ARTIFACT TO FLAGS…`.
    pub(crate) fn push_with(&self, artifact: &Path, to: &str, flags: &[&str]) -> Output {
        let push = ["push", artifact.to_str().unwrap(), to];
        self.kubepkg(&[&push[..], flags].concat())
    }

    /// `kubepkg pull REFERENCE --version VERSION --plain-http -d DEST EXTRA…`.
    pub(crate) fn pull(
        &self,
        reference: &str,
        version: &str,
        dest: &str,
        extra: &[&str],
    ) -> Output {
        let pull = [reference, "--version", version, "--plain-http", "-d", dest];
        self.kubepkg(&[&["pull"][..], &pull, extra].concat())
    }

    pub(crate) fn env(&self, c: &mut Command) {
        c.current_dir(self.dir.path())
            .env("HOME", self.path("home"));
        crate::support::helm_home(c, self.dir.path())
            .env("DOCKER_CONFIG", self.path("docker"))
            .env_remove("HELM_REGISTRY_CONFIG")
            .env_remove("KUBEPKG_OCI_MAX_BLOB_BYTES")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("KUBECONFIG");
    }

    pub(crate) fn kubepkg(&self, args: &[&str]) -> Output {
        self.kubepkg_with(args, &[])
    }

    /// `kubepkg` with extra environment variables.
    pub(crate) fn kubepkg_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
        c.args(args);
        self.env(&mut c);
        for (k, v) in vars {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    /// `kubepkg` against the test's namespace of the control plane, with this sandbox.
    pub(crate) fn on(&self, ns: &kubepkg_testkit::TestNamespace, args: &[&str]) -> Output {
        let mut c = crate::support::kubepkg(ns, args);
        self.env(&mut c);
        c.output().unwrap()
    }

    pub(crate) fn helm(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.helm);
        c.args(args);
        self.env(&mut c);
        c.output().unwrap()
    }

    /// A chart made by `helm create NAME` at `version`, packaged by `helm package`.
    pub(crate) fn chart(&self, name: &str, version: &str) -> PathBuf {
        let src = self.path(&format!("src-{name}-{version}"));
        std::fs::create_dir_all(&src).unwrap();
        ok(self.helm(&["create", src.join(name).to_str().unwrap()]));
        let chart_yaml = src.join(name).join("Chart.yaml");
        let text = std::fs::read_to_string(&chart_yaml).unwrap();
        std::fs::write(
            &chart_yaml,
            text.replace("version: 0.1.0", &format!("version: {version}")),
        )
        .unwrap();
        let out = self.path("charts");
        std::fs::create_dir_all(&out).unwrap();
        ok(self.helm(&[
            "package",
            src.join(name).to_str().unwrap(),
            "-d",
            out.to_str().unwrap(),
        ]));
        out.join(format!("{name}-{version}.tgz"))
    }

    /// The files of kubepkg's OCI cache (entries and anything else left there).
    pub(crate) fn cache_files(&self) -> Vec<String> {
        let root = self.path("kubepkg");
        let prefix = root.display().to_string();
        crate::support::walk(&root)
            .into_iter()
            .map(|f| {
                f.display()
                    .to_string()
                    .trim_start_matches(&prefix)
                    .to_string()
            })
            .collect()
    }
}

/// The digest a push printed (its `Digest: ` line).
pub(crate) fn digest_of(push_stdout: &str) -> String {
    push_stdout
        .lines()
        .find_map(|l| l.strip_prefix("Digest: "))
        .expect("a Digest: line")
        .to_string()
}

/// The `Error: …` line of a failed command (exactly one line).
#[track_caller]
pub(crate) fn error_line(out: Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    lines[0]
        .strip_prefix("Error: ")
        .unwrap_or(lines[0])
        .to_string()
}

#[test]
fn helm_push_then_kubepkg_pull_and_template_render_what_helm_renders_and_a_second_pull_transfers_no_blob()
 {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain().with_user("alice", "s3cret")).unwrap();
    let chart = env.chart("web", "1.2.3");
    // helm's login is kubepkg's login (Helm's registry config).
    ok(env.helm(&[
        "registry",
        "login",
        &reg.host(),
        "-u",
        "alice",
        "-p",
        "s3cret",
        "--plain-http",
    ]));
    let pushed = env.helm(&[
        "push",
        chart.to_str().unwrap(),
        &reg.oci("charts"),
        "--plain-http",
    ]);
    let pushed = String::from_utf8_lossy(&pushed.stderr).to_string() + &ok(pushed);
    let digest = digest_of(&pushed);

    let r = reg.oci("charts/web");
    ok(env.pull(&r, "1.2.3", "pulled", &[]));
    assert_eq!(
        std::fs::read(env.path("pulled/web-1.2.3.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );

    // The blobs are cached by digest: the same digest again downloads none.
    let blobs = reg.requests_matching("GET /v2/charts/web/blobs/");
    assert_eq!(blobs, 2, "config and chart layer, once");
    ok(env.pull(&r, "1.2.3", "again", &["--untar"]));
    assert!(env.path("again/web/Chart.yaml").is_file());
    let template = [
        "template",
        "rel",
        r.as_str(),
        "--version",
        "^1.2",
        "--plain-http",
        "--set",
        "replicaCount=3",
    ];
    let ours = ok(env.kubepkg(&template));
    assert_eq!(reg.requests_matching("GET /v2/charts/web/blobs/"), blobs);

    // By digest, from the cache (the manifest Helm wrote has no mediaType field): no request.
    let by_digest = format!("{r}@{digest}");
    let all = reg.requests_matching("/v2/charts/web/");
    ok(env.kubepkg(&["pull", &by_digest, "--plain-http", "-d", "by-digest"]));
    assert_eq!(
        std::fs::read(env.path("by-digest/web-1.2.3.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );
    assert_eq!(reg.requests_matching("/v2/charts/web/"), all);

    let theirs = ok(env.helm(&template));
    assert_eq!(ours, theirs);
    assert!(ours.contains("replicas: 3"));
}

#[test]
fn kubepkg_push_then_helm_pull_is_byte_identical_with_bearer_tokens_and_kubepkgs_login() {
    let env = Env::new();
    let reg =
        Registry::start(RegistryOptions::plain().with_user("bob", "pw").with_token()).unwrap();
    let chart = env.chart("api", "0.3.0+build.7");
    let no_login = env.push(&chart, &reg.oci("charts"));
    assert_eq!(
        error_line(no_login),
        format!(
            "authentication required for {}:0.3.0_build.7: run `kubepkg registry login {}`",
            reg.oci("charts/api"),
            reg.host()
        )
    );
    let bad = env.kubepkg(&[
        "registry",
        "login",
        &reg.host(),
        "-u",
        "bob",
        "-p",
        "wrong",
        "--plain-http",
    ]);
    assert!(error_line(bad).contains("refused the username or password"));
    assert!(
        !env.path("config/registry/config.json").exists(),
        "a failed login records nothing"
    );

    let mut login = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    login.args([
        "registry",
        "login",
        &reg.host(),
        "-u",
        "bob",
        "--password-stdin",
        "--plain-http",
    ]);
    env.env(&mut login);
    login
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = login.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"pw\n").unwrap();
    drop(child.stdin.take());
    assert_eq!(ok(child.wait_with_output().unwrap()), "Login Succeeded\n");

    let pushed = ok(env.push(&chart, &reg.oci("charts")));
    assert!(
        pushed.starts_with(&format!(
            "Pushed: {}/charts/api:0.3.0_build.7\nDigest: sha256:",
            reg.host()
        )),
        "{pushed}"
    );

    // helm uses kubepkg's login, gets the same archive, and renders from the registry.
    std::fs::create_dir_all(env.path("by-helm")).unwrap();
    let api = reg.oci("charts/api");
    let helm_pull = [
        "pull",
        api.as_str(),
        "--version",
        "0.3.0+build.7",
        "--plain-http",
        "-d",
        "by-helm",
    ];
    ok(env.helm(&helm_pull));
    assert_eq!(
        std::fs::read(env.path("by-helm/api-0.3.0+build.7.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );
    let template = [
        "template",
        "x",
        api.as_str(),
        "--version",
        "0.3.0+build.7",
        "--plain-http",
    ];
    let theirs = ok(env.helm(&template));
    let ours = ok(env.kubepkg(&template));
    assert_eq!(ours, theirs);

    // The same chart pushed by helm: the same config and layer blobs (same digests).
    ok(env.helm(&[
        "push",
        chart.to_str().unwrap(),
        &reg.oci("by-helm"),
        "--plain-http",
    ]));
    let manifest = |repo: &str| -> serde_json::Value {
        let client = client(&env, &reg, None);
        let r =
            kubepkg_oci::Reference::parse(&reg.oci(&format!("{repo}/api:0.3.0_build.7"))).unwrap();
        let m = runtime().block_on(client.pull_manifest(&r)).unwrap();
        serde_json::from_slice(&m.bytes).unwrap()
    };
    let (a, b) = (manifest("charts"), manifest("by-helm"));
    assert_eq!(a["config"], b["config"]);
    assert_eq!(a["layers"], b["layers"]);
    assert_eq!(a.get("mediaType"), b.get("mediaType"));
    let keys = |v: &serde_json::Value| {
        v["annotations"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&a), keys(&b));

    ok(env.kubepkg(&["registry", "logout", &reg.host()]));
    let out = env.helm(&helm_pull);
    assert!(!out.status.success(), "helm sees the logout too");
}

#[test]
fn credentials_from_a_docker_config_file() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain().with_user("carol", "pa:ss")).unwrap();
    let chart = env.chart("db", "2.0.0");
    std::fs::create_dir_all(env.path("docker")).unwrap();
    // "carol:pa:ss" in base64, under the https:// key form Docker also writes.
    std::fs::write(
        env.path("docker/config.json"),
        format!(
            r#"{{"auths":{{"https://{}":{{"auth":"Y2Fyb2w6cGE6c3M="}}}}}}"#,
            reg.host()
        ),
    )
    .unwrap();
    ok(env.push(&chart, &reg.oci("c")));
    ok(env.pull(&reg.oci("c/db"), "2.0.0", "out", &[]));
    assert!(env.path("out/db-2.0.0.tgz").is_file());
}

#[test]
fn tls_with_ca_file_insecure_skip_verify_and_the_plain_http_hints() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::tls()).unwrap();
    let ca = reg.ca_file().unwrap();
    let ca = ca.to_str().unwrap();
    let chart = env.chart("tlsapp", "1.0.0");
    ok(env.push_with(&chart, &reg.oci("c"), &["--ca-file", ca]));
    let r = reg.oci("c/tlsapp");

    let untrusted = error_line(env.kubepkg(&["pull", &r, "--version", "1.0.0", "-d", "out"]));
    assert!(
        untrusted.starts_with(&format!(
            "{r}:1.0.0: cannot reach https://{}/v2/",
            reg.host()
        )),
        "{untrusted}"
    );
    assert!(
        untrusted.ends_with("; for a private CA give --ca-file (or --insecure-skip-tls-verify)"),
        "{untrusted}"
    );
    assert!(!env.path("out").exists());

    ok(env.kubepkg(&[
        "pull",
        &r,
        "--version",
        "1.0.0",
        "--ca-file",
        ca,
        "-d",
        "out",
    ]));
    ok(env.kubepkg(&[
        "template",
        "t",
        &r,
        "--version",
        "1.0.0",
        "--insecure-skip-tls-verify",
    ]));
    // helm reads what kubepkg pushed over TLS with the same CA.
    std::fs::create_dir_all(env.path("h")).unwrap();
    ok(env.helm(&["pull", &r, "--version", "1.0.0", "--ca-file", ca, "-d", "h"]));
    assert_eq!(
        std::fs::read(env.path("h/tlsapp-1.0.0.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );

    let plain = error_line(env.kubepkg(&["pull", &r, "--version", "1.0.0", "--plain-http"]));
    assert!(
        plain.starts_with(&format!(
            "{r}:1.0.0: the registry answered 400 to GET /v2/c/tlsapp/manifests/1.0.0"
        )),
        "{plain}"
    );

    let plain_reg = Registry::start(RegistryOptions::plain()).unwrap();
    let https_to_plain =
        error_line(env.kubepkg(&["pull", &plain_reg.oci("c/x"), "--version", "1.0.0"]));
    assert!(
        https_to_plain.ends_with("; for a registry without TLS give --plain-http"),
        "{https_to_plain}"
    );
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A registry client of the test (for setting up artifacts kubepkg must refuse).
pub(crate) fn client(
    env: &Env,
    reg: &Registry,
    credential: Option<(&str, &str)>,
) -> kubepkg_oci::Client {
    kubepkg_oci::Client::new(kubepkg_oci::ClientOptions {
        plain_http: reg.ca_file().is_none(),
        insecure_skip_tls_verify: false,
        ca_file: reg.ca_file(),
        // Presented only to a registry that asks for one.
        cert_file: reg.client_cert().map(|c| c.0),
        key_file: reg.client_cert().map(|c| c.1),
        credentials: kubepkg_oci::CredentialFiles {
            helm: env.path("config/registry/config.json"),
            docker: None,
        },
        credential: credential.map(|(u, p)| kubepkg_oci::Credential {
            username: u.into(),
            password: p.into(),
        }),
        cache: kubepkg_oci::Cache::new(env.path("setup-cache")),
        limits: kubepkg_oci::Limits::default(),
    })
    .unwrap()
}

#[test]
fn refusals_are_one_line_naming_the_reference_and_nothing_is_cached_or_written() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain().with_user("dan", "right")).unwrap();
    let chart = env.chart("app", "1.0.0");
    let login = ["--plain-http", "--username", "dan", "--password", "right"];
    ok(env.push_with(&chart, &reg.oci("c"), &login));
    let r = reg.oci("c/app");
    let host = reg.host();

    // Wrong password (401).
    let e = error_line(env.kubepkg(&[
        "pull",
        &r,
        "--version",
        "1.0.0",
        "--plain-http",
        "--username",
        "dan",
        "--password",
        "wrong",
    ]));
    assert_eq!(
        e,
        format!(
            "authentication denied for {r}:1.0.0: check the credentials, or run `kubepkg registry login {host}`"
        )
    );
    ok(env.kubepkg(&[
        "registry",
        "login",
        &host,
        "-u",
        "dan",
        "-p",
        "right",
        "--plain-http",
    ]));

    // An unknown tag, and a constraint no tag matches.
    let e = error_line(env.kubepkg(&["pull", &r, "--version", "9.9.9", "--plain-http"]));
    assert_eq!(
        e,
        format!("{r}:9.9.9: not found in the registry; check the repository name and the version")
    );
    let e = error_line(env.kubepkg(&["template", "x", &r, "--version", ">=2 <3", "--plain-http"]));
    assert_eq!(
        e,
        format!("{r}: no tag matches version \">=2 <3\" (tags: 1.0.0); pick one of them")
    );

    // A container image where a chart is expected.
    let c = client(&env, &reg, Some(("dan", "right")));
    let image = kubepkg_oci::Reference::parse(&reg.oci("c/nginx:1.0.0")).unwrap();
    runtime().block_on(async {
        let config = c
            .push_blob(
                &image,
                "application/vnd.oci.image.config.v1+json",
                br#"{"architecture":"amd64","os":"linux"}"#,
            )
            .await
            .unwrap();
        let layer = c
            .push_blob(
                &image,
                "application/vnd.oci.image.layer.v1.tar+gzip",
                b"not really a layer",
            )
            .await
            .unwrap();
        let m = kubepkg_oci::manifest::ImageManifest {
            schema_version: 2,
            media_type: Some(kubepkg_oci::manifest::OCI_MANIFEST.into()),
            artifact_type: None,
            config,
            layers: vec![layer],
            annotations: Default::default(),
        };
        c.push_manifest(
            &image,
            kubepkg_oci::manifest::OCI_MANIFEST,
            &serde_json::to_vec(&m).unwrap(),
        )
        .await
        .unwrap();
    });
    let e = error_line(env.pull(&reg.oci("c/nginx"), "1.0.0", "img", &[]));
    assert_eq!(
        e,
        format!(
            "{}:1.0.0 is a container image (config media type application/vnd.oci.image.config.v1+json), not a Helm chart; check the reference",
            reg.oci("c/nginx")
        )
    );
    assert!(!env.path("img").exists());
    assert!(
        env.cache_files().is_empty(),
        "nothing cached: {:?}",
        env.cache_files()
    );

    // A tampered blob in the registry's storage: the digest check names both digests.
    let layer = {
        let m = runtime()
            .block_on(
                c.pull_manifest(&kubepkg_oci::Reference::parse(&format!("{r}:1.0.0")).unwrap()),
            )
            .unwrap();
        let (_, layer) =
            kubepkg_oci::chart::chart_layers(&kubepkg_oci::Reference::parse(&r).unwrap(), &m)
                .unwrap();
        layer.digest
    };
    let hex = layer.trim_start_matches("sha256:");
    let data = reg.storage_dir().join(format!(
        "docker/registry/v2/blobs/sha256/{}/{hex}/data",
        &hex[..2]
    ));
    let mut bytes = std::fs::read(&data).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let tampered = kubepkg_oci::cache::sha256_digest(&bytes);
    std::fs::write(&data, &bytes).unwrap();
    let e = error_line(env.pull(&r, "1.0.0", "tampered", &[]));
    assert_eq!(
        e,
        format!(
            "{r}:1.0.0: digest mismatch: expected {layer}, got {tampered}; the registry's copy is damaged, nothing was cached"
        )
    );
    assert!(!env.path("tampered").exists());
    assert!(
        env.cache_files()
            .iter()
            .all(|f| !f.contains(hex) && !f.contains("/charts/") && !f.contains(".tmp")),
        "{:?}",
        env.cache_files()
    );
}

#[test]
fn a_package_pushed_then_pulled_is_byte_identical_and_its_charts_are_helm_chart_layers() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    let pkg = package_archive(&env, "shopfront", "1.4.2");
    let out = ok(env.kubepkg(&[
        "package",
        "push",
        pkg.to_str().unwrap(),
        &reg.oci("pkgs"),
        "--plain-http",
    ]));
    assert!(
        out.starts_with(&format!("Pushed: {}/pkgs/shopfront:1.4.2\n", reg.host())),
        "{out}"
    );
    for (version, repository) in [("1.9.0", "pkgs/shopfront"), ("2.0.0", "pkgs")] {
        let archive = package_archive(&env, "shopfront", version);
        ok(env.kubepkg(&[
            "package",
            "push",
            archive.to_str().unwrap(),
            &reg.oci(repository),
            "--plain-http",
        ]));
    }

    let shopfront = reg.oci("pkgs/shopfront");
    let pull = |version: &str| {
        ok(env.kubepkg(&[
            "package",
            "pull",
            &shopfront,
            "--version",
            version,
            "--plain-http",
            "-d",
            "got",
        ]))
    };
    pull("1.4.2");
    assert_eq!(
        std::fs::read(env.path("got/shopfront-1.4.2.tgz")).unwrap(),
        std::fs::read(&pkg).unwrap()
    );
    let out = pull(">=1.4 <2");
    assert!(out.contains("shopfront:1.9.0"), "{out}");

    let c = client(&env, &reg, None);
    let m = runtime()
        .block_on(c.pull_manifest(
            &kubepkg_oci::Reference::parse(&reg.oci("pkgs/shopfront:1.4.2")).unwrap(),
        ))
        .unwrap();
    let m: serde_json::Value = serde_json::from_slice(&m.bytes).unwrap();
    assert_eq!(m["artifactType"], "application/vnd.kubepkg.package.v1");
    assert_eq!(
        m["config"]["mediaType"],
        "application/vnd.kubepkg.package.config.v1+json"
    );
    let types: Vec<&str> = m["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["mediaType"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "application/vnd.kubepkg.package.manifest.v1+yaml",
            "application/vnd.cncf.helm.chart.content.v1.tar+gzip",
            "application/vnd.kubepkg.package.v1.tar+gzip"
        ]
    );
    assert_eq!(
        m["layers"][1]["annotations"]["dev.kubepkg.component"],
        "web"
    );
    assert_eq!(
        m["annotations"]["org.opencontainers.image.version"],
        "1.4.2"
    );
    assert!(m["annotations"]["org.opencontainers.image.created"].is_string());

    // A chart where a package is expected.
    let chart = env.chart("lonely", "1.0.0");
    ok(env.push(&chart, &reg.oci("pkgs")));
    let e = error_line(env.kubepkg(&[
        "package",
        "pull",
        &reg.oci("pkgs/lonely"),
        "--version",
        "1.0.0",
        "--plain-http",
    ]));
    assert_eq!(
        e,
        format!(
            "{}:1.0.0 is a Helm chart (install it with `kubepkg install`), not a kubepkg package; check the reference",
            reg.oci("pkgs/lonely")
        )
    );
}

/// A package archive `NAME-VERSION.tgz` of one component `web` (a `helm create` chart,
/// vendored as a directory).
pub(crate) fn package_archive_in(dir: &Path, helm: &Path, name: &str, version: &str) -> PathBuf {
    let root = dir.join(format!("pkgsrc-{name}-{version}")).join(name);
    std::fs::create_dir_all(root.join("charts")).unwrap();
    let st = Command::new(helm)
        .args(["create", root.join("charts/web").to_str().unwrap()])
        .env("HELM_CONFIG_HOME", dir.join("config"))
        .output()
        .unwrap();
    assert!(st.status.success());
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!(
            "package:\n  name: {name}\n  version: {version}\ncomponents:\n  - name: web\n    path: charts/web\n"
        ),
    )
    .unwrap();
    let out = dir.join(format!("{name}-{version}.tgz"));
    let bytes = kubepkg_testkit::package_archive(root.parent().unwrap()).unwrap();
    std::fs::write(&out, bytes).unwrap();
    out
}

fn package_archive(env: &Env, name: &str, version: &str) -> PathBuf {
    package_archive_in(env.dir.path(), &env.helm, name, version)
}

/// `kubepkg package push` of a directory at three versions, then `apply NAME oci://… --version
/// '>=1.0 <2'` on the control plane: 1.5.0 is installed, and the revision records the
/// reference, tag and digest, shown by `status` and `history`; a constraint matching nothing
/// applies nothing.
#[tokio::test]
async fn apply_from_a_registry_with_a_constraint_records_the_resolved_tag_and_digest() {
    let ns = kubepkg_testkit::TestNamespace::fresh("oci-apply").await;
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain().with_user("ops", "pw")).unwrap();
    ok(env.kubepkg(&[
        "registry",
        "login",
        &reg.host(),
        "-u",
        "ops",
        "-p",
        "pw",
        "--plain-http",
    ]));
    let mut digests = std::collections::BTreeMap::new();
    for v in ["1.0.0", "1.5.0", "2.0.0"] {
        let dir = env.web_package("webshop", v);
        digests.insert(v, env.push_package(&dir, &reg));
    }
    let r = reg.oci("pkgs/webshop");
    let kube = |args: &[&str]| env.on(&ns, args);

    let nothing = kube(&[
        "apply",
        "shop",
        &r,
        "--version",
        ">=3",
        "--plain-http",
        "--timeout",
        "60s",
    ]);
    assert_eq!(
        error_line(nothing),
        format!(
            "{r}: no tag matches version \">=3\" (tags: 1.0.0, 1.5.0, 2.0.0); pick one of them"
        )
    );
    let (_, hist, _) = crate::support::run_command(&mut {
        let mut c = crate::support::kubepkg(&ns, &["package", "history", "shop"]);
        env.env(&mut c);
        c
    });
    assert!(!hist.contains("webshop"), "nothing applied: {hist}");

    let plan = ok(kube(&[
        "plan",
        "shop",
        &r,
        "--version",
        ">=1.0 <2",
        "--plain-http",
    ]));
    assert!(plan.contains("1.5.0"), "{plan}");
    ok(kube(&[
        "apply",
        "shop",
        &r,
        "--version",
        ">=1.0 <2",
        "--plain-http",
        "--timeout",
        "60s",
    ]));

    let status = ok(kube(&["package", "status", "shop"]));
    let expected = format!("SOURCE: {r}:1.5.0@{}", digests["1.5.0"]);
    assert!(status.contains(&expected), "{status}");
    assert!(status.contains("PACKAGE: webshop 1.5.0"), "{status}");
    let history = ok(kube(&["package", "history", "shop"]));
    assert!(
        history.lines().next().unwrap().ends_with("SOURCE"),
        "{history}"
    );
    assert!(
        history.contains(&format!("{r}:1.5.0@{}", digests["1.5.0"])),
        "{history}"
    );
    let (json, source) =
        crate::support::status_and_source(&ok(kube(&["package", "status", "shop", "-o", "json"])));
    assert_eq!(
        source,
        Some(serde_json::json!({"reference": r, "tag": "1.5.0", "digest": digests["1.5.0"]})),
        "{json}"
    );

    // By digest: the cached package is used as is (no request at all for the manifest).
    let before = reg.requests_matching("/v2/pkgs/webshop/");
    let by_digest = format!("@{}", digests["2.0.0"]);
    let plan = [
        "plan",
        "shop",
        r.as_str(),
        "--version",
        by_digest.as_str(),
        "--plain-http",
    ];
    ok(kube(&plan));
    let after = reg.requests_matching("/v2/pkgs/webshop/");
    assert!(after > before, "2.0.0 was not pulled before");
    ok(kube(&plan));
    assert_eq!(
        reg.requests_matching("/v2/pkgs/webshop/"),
        after,
        "a digest in the cache transfers nothing"
    );
}

#[test]
fn a_blob_above_the_size_cap_is_refused_before_it_is_read_and_the_variable_raises_the_cap() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    let chart = env.chart("big", "1.0.0");
    let size = std::fs::metadata(&chart).unwrap().len();
    ok(env.push(&chart, &reg.oci("c")));
    let r = reg.oci("c/big");
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    c.args([
        "pull",
        &r,
        "--version",
        "1.0.0",
        "--plain-http",
        "-d",
        "out",
    ]);
    env.env(&mut c);
    let e = error_line(
        c.env("KUBEPKG_OCI_MAX_BLOB_BYTES", "1000")
            .output()
            .unwrap(),
    );
    assert_eq!(
        e,
        format!(
            "{r}:1.0.0: blob of {size} bytes is above the limit of 1000 bytes; raise KUBEPKG_OCI_MAX_BLOB_BYTES if it is expected"
        )
    );
    assert!(!env.path("out").exists());
    assert_eq!(
        reg.requests_matching("GET /v2/c/big/blobs/sha256"),
        1,
        "only the small config was fetched"
    );
    ok(c.env("KUBEPKG_OCI_MAX_BLOB_BYTES", (size + 1).to_string())
        .output()
        .unwrap());
    assert!(env.path("out/big-1.0.0.tgz").is_file());
}

/// `kubepkg install` and `upgrade` of a chart from a registry on the control plane: the release
/// is Helm's (`helm status` and `helm get values` read it), at the version `--version` resolved.
#[tokio::test]
async fn install_and_upgrade_from_a_registry_make_helm_releases() {
    let ns = kubepkg_testkit::TestNamespace::fresh("oci-install").await;
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    for v in ["1.0.0", "1.1.0"] {
        let chart = env.chart("site", v);
        ok(env.push(&chart, &reg.oci("c")));
    }
    let r = reg.oci("c/site");
    let kube = |args: &[&str]| env.on(&ns, args);
    let helm = |args: &[&str]| {
        let mut c = kubepkg_testkit::helm_command(&env.helm, &ns, args);
        env.env(&mut c);
        c.env("KUBECONFIG", ns.plane().kubeconfig());
        c.output().unwrap()
    };
    ok(kube(&[
        "install",
        "site",
        &r,
        "--version",
        "1.0.0",
        "--plain-http",
    ]));
    let list = |helm_out: Output| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(&ok(helm_out)).unwrap();
        v[0].clone()
    };
    let v = list(helm(&["list", "-o", "json"]));
    assert_eq!(v["status"], "deployed");
    assert_eq!(v["chart"], "site-1.0.0");
    ok(kube(&[
        "upgrade",
        "site",
        &r,
        "--version",
        "~1.1",
        "--plain-http",
        "--set",
        "replicaCount=2",
    ]));
    let v = list(helm(&["list", "-o", "json"]));
    assert_eq!(v["chart"], "site-1.1.0");
    assert_eq!(v["revision"], "2");
    assert!(ok(helm(&["get", "values", "site"])).contains("replicaCount: 2"));
}
