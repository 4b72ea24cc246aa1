//! Cosign signatures of charts and packages in a real registry (the CNCF distribution registry
//! of `kubepkg_testkit::registry`), with the real `cosign` v2 CLI as signer and verifier oracle
//! (`kubepkg_testkit::cosign`, key-based, offline): what cosign signs kubepkg verifies and
//! installs, what kubepkg signs `cosign verify` accepts, and unsigned, foreign-key, copied and
//! wrong-password cases are refused with one line, nothing cached or applied.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use kubepkg_testkit::cosign::Cosign;
use kubepkg_testkit::registry::{Registry, RegistryOptions};

use crate::oci::{Env, client, digest_of, error_line, runtime};
use crate::support::ok;

const PASSWORD: &str = "correct horse";

/// `kubepkg VERB… ARTIFACT TO --plain-http --sign KEY` ([`kubepkg_pw`]): `push` of a chart
/// archive or `package push` of a package directory, signed with `key`.
fn push_signed(
    env: &Env,
    verb: &[&str],
    artifact: &Path,
    to: &str,
    key: &Path,
    password: Option<&str>,
) -> Output {
    let args = [artifact.to_str().unwrap(), to, "--plain-http", "--sign"];
    let args = [verb, &args, &[key.to_str().unwrap()]].concat();
    kubepkg_pw(env, &args, password)
}

/// `kubepkg ARGS` in `env`'s sandbox with `COSIGN_PASSWORD` set to `password` (or unset, with
/// no standard input).
fn kubepkg_pw(env: &Env, args: &[&str], password: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    c.args(args).stdin(Stdio::null());
    env.env(&mut c);
    c.env_remove("COSIGN_PASSWORD");
    if let Some(p) = password {
        c.env("COSIGN_PASSWORD", p);
    }
    c.output().unwrap()
}

/// `cosign verify --key PUB HOST/REPO@DIGEST` (no transparency log): its output.
fn cosign_verify(cosign: &Cosign, public: &Path, image: &str) -> Output {
    cosign
        .run(&[
            "verify",
            "--key",
            public.to_str().unwrap(),
            "--insecure-ignore-tlog=true",
            "--allow-http-registry",
            image,
        ])
        .unwrap()
}

/// A key pair made by the real `cosign generate-key-pair` in `env`'s directory.
fn key_pair(env: &Env, cosign: &Cosign, prefix: &str) -> (PathBuf, PathBuf) {
    cosign
        .generate_key_pair(env.dir.path(), prefix)
        .expect("cosign generate-key-pair")
}

/// `ARGS` of version 1.0.0 from the plain-HTTP test registry, verified with public key `key`.
fn verifying<'a>(args: &[&'a str], key: &'a str) -> Vec<&'a str> {
    [
        args,
        &["--version", "1.0.0", "--plain-http", "--verify-key", key],
    ]
    .concat()
}

/// Signed with the real `cosign sign --key`, a chart and a package are verified by kubepkg
/// (`--verify-key`) and rendered, pulled, installed and applied; the simple-signing payload
/// cosign uploaded is byte for byte the one kubepkg writes for the same digest.
#[tokio::test]
async fn signed_with_cosign_kubepkg_verifies_renders_and_installs() {
    let ns = kubepkg_testkit::TestNamespace::fresh("sig-install").await;
    let env = Env::new();
    let cosign = Cosign::new(PASSWORD).unwrap();
    let (key, public) = key_pair(&env, &cosign, "cosign");
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    let chart = env.chart("web", "1.0.0");
    let digest = digest_of(&ok(env.push(&chart, &reg.oci("charts"))));
    let image = format!("{}/charts/web@{digest}", reg.host());
    cosign.sign(&key, &image).expect("cosign sign");

    // cosign's payload is the one kubepkg writes; its signature verifies with our key type.
    let c = client(&env, &reg, None);
    let r = kubepkg_oci::Reference::parse(&reg.oci("charts/web")).unwrap();
    let tag = kubepkg_cosign::signature_tag(&digest).unwrap();
    let sig = c.pull_manifest(&r.with_tag(&tag)).await.unwrap();
    let image_manifest = sig.image().expect("an image manifest");
    assert_eq!(image_manifest.layers.len(), 1);
    let layer = &image_manifest.layers[0];
    assert_eq!(layer.media_type, kubepkg_cosign::SIMPLE_SIGNING_MEDIA_TYPE);
    let payload = c.pull_blob(&r, layer).await.unwrap();
    let config = c.pull_blob(&r, &image_manifest.config).await.unwrap();
    assert_eq!(
        String::from_utf8(config).unwrap(),
        String::from_utf8(kubepkg_oci::signature::config_json(&image_manifest.layers)).unwrap(),
        "the signature image's config is the one cosign writes"
    );
    assert_eq!(
        image_manifest.config.media_type,
        kubepkg_oci::signature::CONFIG_MEDIA_TYPE
    );
    let ours = kubepkg_cosign::Payload::new(&format!("{}/charts/web", reg.host()), &digest);
    assert_eq!(
        String::from_utf8(payload.clone()).unwrap(),
        String::from_utf8(ours.to_bytes()).unwrap()
    );
    let pem = std::fs::read(&public).unwrap();
    let key_of_cosign = kubepkg_cosign::PublicKey::from_pem(&pem, "cosign.pub").unwrap();
    assert!(key_of_cosign.verifies(
        &payload,
        &layer.annotations[kubepkg_cosign::SIGNATURE_ANNOTATION]
    ));

    let r = reg.oci("charts/web");
    let public_s = public.to_str().unwrap();
    let verified = ok(env.kubepkg(&verifying(&["template", "web", &r], public_s)));
    let unverified =
        ok(env.kubepkg(&["template", "web", &r, "--version", "1.0.0", "--plain-http"]));
    assert!(verified.contains("kind: Deployment"), "{verified}");
    assert_eq!(verified, unverified);
    let shown = ok(env.kubepkg(&verifying(&["show", "chart", &r], public_s)));
    assert!(shown.contains("name: web"), "{shown}");
    let dest = env.path("pulled");
    let dest_s = dest.to_str().unwrap();
    let tagged = format!("{r}:1.0.0");
    ok(env.kubepkg(&[
        "pull",
        &tagged,
        "--plain-http",
        "--verify-key",
        public_s,
        "-d",
        dest_s,
    ]));
    assert_eq!(
        std::fs::read(dest.join("web-1.0.0.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );

    let kube = |args: &[&str]| {
        let mut c = crate::support::kubepkg(&ns, args);
        env.env(&mut c);
        c.output().unwrap()
    };
    ok(kube(&verifying(&["install", "web", &r], public_s)));
    let list = ok(kube(&["list", "-o", "json"]));
    assert!(list.contains("\"chart\":\"web-1.0.0\""), "{list}");

    // A package, signed by cosign, applied with --verify-key.
    let dir = env.web_package("shop", "1.0.0");
    let pkg_digest = env.push_package(&dir, &reg);
    cosign
        .sign(&key, &format!("{}/pkgs/shop@{pkg_digest}", reg.host()))
        .expect("cosign sign");
    let p = reg.oci("pkgs/shop");
    ok(kube(&verifying(
        &["apply", "shop", &p, "--timeout", "60s"],
        public_s,
    )));
    let status = ok(kube(&["package", "status", "shop"]));
    assert!(
        status.contains(&format!("SOURCE: {p}:1.0.0@{pkg_digest}")),
        "{status}"
    );
    let pulled = env.path("pkg-pulled");
    let pulled_s = pulled.to_str().unwrap();
    ok(env.kubepkg(&verifying(
        &["package", "pull", &p, "-d", pulled_s],
        public_s,
    )));
    assert!(pulled.join("shop-1.0.0.tgz").is_file());
}

/// What kubepkg signs (`push --sign`, `package push --sign`, `sign --key`, with cosign's
/// encrypted key or an unencrypted openssl key) the real `cosign verify --key` accepts, naming
/// the digest; a second key adds a second signature, and signing again adds nothing.
#[test]
fn signed_by_kubepkg_cosign_verify_accepts() {
    let env = Env::new();
    let cosign = Cosign::new(PASSWORD).unwrap();
    let (key, public) = key_pair(&env, &cosign, "cosign");
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    let chart = env.chart("web", "1.0.0");
    let key_s = key.to_str().unwrap();
    let out = ok(push_signed(
        &env,
        &["push"],
        &chart,
        &reg.oci("charts"),
        &key,
        Some(PASSWORD),
    ));
    let digest = digest_of(&out);
    let hex = digest.trim_start_matches("sha256:");
    assert!(
        out.contains(&format!("Signed: {}/charts/web@{digest}\n", reg.host())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Signature: {}/charts/web:sha256-{hex}.sig\n",
            reg.host()
        )),
        "{out}"
    );
    let image = format!("{}/charts/web@{digest}", reg.host());
    let accepted = |public: &Path| {
        let v = cosign_verify(&cosign, public, &image);
        assert!(
            v.status.success(),
            "cosign verify {}: {}{}",
            public.display(),
            String::from_utf8_lossy(&v.stdout),
            String::from_utf8_lossy(&v.stderr)
        );
        let claims: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
        let digests: Vec<&str> = claims
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                c["critical"]["image"]["docker-manifest-digest"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        assert!(
            !digests.is_empty() && digests.iter().all(|d| *d == digest),
            "{claims}"
        );
    };
    accepted(&public);

    // `kubepkg sign` by tag with a second (unencrypted, openssl-made) key: a second layer;
    // cosign accepts either key.
    let plain_key = env.path("plain.key");
    let plain_pub = env.path("plain.pub");
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    openssl(&[
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-out",
        plain_key.to_str().unwrap(),
    ]);
    openssl(&[
        "pkey",
        "-in",
        plain_key.to_str().unwrap(),
        "-pubout",
        "-out",
        plain_pub.to_str().unwrap(),
    ]);
    let out = ok(kubepkg_pw(
        &env,
        &[
            "sign",
            &format!("{}:1.0.0", reg.oci("charts/web")),
            "--key",
            plain_key.to_str().unwrap(),
            "--plain-http",
        ],
        None,
    ));
    assert!(
        out.contains(&format!("Signed: {}/charts/web@{digest}", reg.host())),
        "{out}"
    );
    accepted(&plain_pub);
    accepted(&public);
    let c = client(&env, &reg, None);
    let sig_ref =
        kubepkg_oci::Reference::parse(&format!("{}:sha256-{hex}.sig", reg.oci("charts/web")))
            .unwrap();
    let layers = |c: &kubepkg_oci::Client| {
        runtime()
            .block_on(c.pull_manifest(&sig_ref))
            .unwrap()
            .image()
            .unwrap()
            .layers
            .len()
    };
    assert_eq!(layers(&c), 2);
    let again = ok(kubepkg_pw(
        &env,
        &[
            "sign",
            &format!("{}@{digest}", reg.oci("charts/web")),
            "--key",
            key_s,
            "--plain-http",
        ],
        Some(PASSWORD),
    ));
    assert!(again.contains("(already there)"), "{again}");
    assert_eq!(layers(&c), 2, "the same signature is not added twice");
    // kubepkg verifies with either key too.
    let r = reg.oci("charts/web");
    for k in [&public, &plain_pub] {
        ok(env.kubepkg(&verifying(&["template", "web", &r], k.to_str().unwrap())));
    }

    // A package.
    let dir = env.web_package("shop", "2.0.0");
    let out = ok(push_signed(
        &env,
        &["package", "push"],
        &dir,
        &reg.oci("pkgs"),
        &key,
        Some(PASSWORD),
    ));
    let pkg = format!("{}/pkgs/shop@{}", reg.host(), digest_of(&out));
    let v = cosign_verify(&cosign, &public, &pkg);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
}

/// Unsigned, signed by another key, a signature copied from another artifact, a wrong
/// password, unusable key files and `--verify-key` on a local chart: each one line naming
/// the reference (or file) and what is wrong; no chart or package is cached or written, and a
/// push whose key does not open pushes nothing.
#[test]
fn unsigned_foreign_copied_and_wrong_password_are_refused_and_nothing_is_cached() {
    let env = Env::new();
    let cosign = Cosign::new(PASSWORD).unwrap();
    let (key, public) = key_pair(&env, &cosign, "cosign");
    let (other_key, _) = key_pair(&env, &cosign, "other");
    let reg = Registry::start(RegistryOptions::plain()).unwrap();
    let public_s = public.to_str().unwrap();
    let push = |version: &str| {
        let chart = env.chart("web", version);
        digest_of(&ok(env.push(&chart, &reg.oci("charts"))))
    };
    let a = push("1.0.0");
    let b = push("1.1.0");
    let r = reg.oci("charts/web");
    let template = |version: &str, key: &str| {
        env.kubepkg(&[
            "template",
            "web",
            &r,
            "--version",
            version,
            "--plain-http",
            "--verify-key",
            key,
        ])
    };
    let tag_of = |d: &str| format!("sha256-{}.sig", d.trim_start_matches("sha256:"));
    let no_chart_cached = |when: &str| {
        let files = env.cache_files();
        assert!(
            !files
                .iter()
                .any(|f| f.contains("/charts/") || f.contains(a.trim_start_matches("sha256:"))),
            "{when}: nothing of the chart is cached: {files:?}"
        );
    };

    assert_eq!(
        error_line(template("1.0.0", public_s)),
        format!(
            "{r}:1.0.0@{a}: not signed: the repository has no cosign signature tag {}; sign it (`kubepkg sign` or `cosign sign --key`) or check the reference",
            tag_of(&a)
        )
    );
    no_chart_cached("unsigned");
    let dest = env.path("pulled");
    let pulled = env.kubepkg(&[
        "pull",
        &format!("{r}:1.0.0"),
        "--plain-http",
        "--verify-key",
        public_s,
        "-d",
        dest.to_str().unwrap(),
    ]);
    assert!(error_line(pulled).contains("not signed"));
    assert!(!dest.join("web-1.0.0.tgz").exists(), "nothing written");

    // Signed with another key.
    cosign
        .sign(&other_key, &format!("{}/charts/web@{a}", reg.host()))
        .expect("cosign sign");
    assert_eq!(
        error_line(template("1.0.0", public_s)),
        format!(
            "{r}:1.0.0@{a}: signature refused: {}: none of its 1 signature verifies with {public_s}; it was signed with another key, or altered",
            tag_of(&a)
        )
    );
    no_chart_cached("another key");

    // B's valid signature copied to A's signature tag.
    cosign
        .sign(&key, &format!("{}/charts/web@{b}", reg.host()))
        .expect("cosign sign");
    let c = client(&env, &reg, None);
    let rr = kubepkg_oci::Reference::parse(&r).unwrap();
    let b_sig = runtime()
        .block_on(c.pull_manifest(&rr.with_tag(&tag_of(&b))))
        .unwrap();
    runtime()
        .block_on(c.push_manifest(&rr.with_tag(&tag_of(&a)), &b_sig.media_type, &b_sig.bytes))
        .unwrap();
    assert_eq!(
        error_line(template("1.0.0", public_s)),
        format!(
            "{r}:1.0.0@{a}: signature refused: {} verifies with {public_s} but signs {b}, not this artifact; a signature copied from another artifact is refused",
            tag_of(&a)
        )
    );
    no_chart_cached("copied signature");
    // B itself is accepted.
    ok(template("1.1.0", public_s));

    // A wrong password (and none at all): nothing is pushed.
    let chart = env.chart("web", "1.2.0");
    for password in [Some("wrong"), None] {
        let out = push_signed(&env, &["push"], &chart, &reg.oci("charts"), &key, password);
        assert_eq!(
            error_line(out),
            format!(
                "{}: wrong password: the key does not decrypt with it; set COSIGN_PASSWORD to the password the key was made with",
                key.display()
            )
        );
    }
    let tags = runtime().block_on(c.list_tags(&rr)).unwrap();
    assert!(
        !tags.contains(&"1.2.0".to_string()),
        "nothing pushed: {tags:?}"
    );

    // Unusable key files.
    assert_eq!(
        error_line(template("1.1.0", chart.to_str().unwrap())),
        format!(
            "{}: not a PEM key file; give a public key (PEM PUBLIC KEY, cosign.pub) as `cosign generate-key-pair` writes it",
            chart.display()
        )
    );
    let missing = env.path("missing.pub");
    assert!(
        error_line(template("1.1.0", missing.to_str().unwrap())).starts_with(&format!(
            "reading the verification key {}: ",
            missing.display()
        ))
    );
    // The private key where the public one belongs.
    assert!(error_line(template("1.1.0", key.to_str().unwrap())).contains("is not a public key"));

    // --verify-key on something that is not in a registry.
    let local = |verb: &str, name: &str, path: &Path| {
        error_line(env.kubepkg(&[verb, name, path.to_str().unwrap(), "--verify-key", public_s]))
    };
    assert_eq!(
        local("template", "web", &chart),
        format!(
            "{}: --verify-key checks cosign signatures of oci:// artifacts, and this is not one; leave out --verify-key or give an oci:// reference",
            chart.display()
        )
    );

    // An unsigned package: package pull and plan refuse it, nothing written.
    let dir = env.web_package("shop", "1.0.0");
    let pkg_digest = env.push_package(&dir, &reg);
    let p = reg.oci("pkgs/shop");
    let dest = env.path("pkg-pulled");
    let d = dest.to_str().unwrap();
    let out = env.kubepkg(&verifying(&["package", "pull", &p, "-d", d], public_s));
    assert_eq!(
        error_line(out),
        format!(
            "{p}:1.0.0@{pkg_digest}: not signed: the repository has no cosign signature tag {}; sign it (`kubepkg sign` or `cosign sign --key`) or check the reference",
            tag_of(&pkg_digest)
        )
    );
    assert!(!dest.join("shop-1.0.0.tgz").exists());
    let plan = env.kubepkg(&verifying(&["plan", "shop", &p], public_s));
    assert!(error_line(plan).contains("not signed"));
    assert!(
        !env.cache_files().iter().any(|f| f.contains("/packages/")),
        "no package cached: {:?}",
        env.cache_files()
    );
    assert!(
        local("plan", "shop", &dir)
            .contains("--verify-key checks cosign signatures of oci:// artifacts")
    );
}
