//! Client certificates (`--cert-file`/`--key-file`) against the real CNCF distribution registry
//! started with `http.tls.clientcas` (`kubepkg_testkit::registry`, `with_client_certs`: every
//! connection must present a certificate the registry's CA signed), with the real `helm` v4 as
//! the oracle: without a certificate every verb is refused with one line saying one is
//! required; with one, `push`, `pull`, `template`, `registry login`, `package push/pull` work
//! and `helm` reads what kubepkg pushed (and the reverse); a key of another certificate, half a
//! pair, and a certificate of another CA are one-line errors naming the files.

use kubepkg_testkit::registry::{Registry, RegistryOptions};

use crate::oci::{Env, error_line};
use crate::support::ok;

/// `--ca-file CA --cert-file CERT --key-file KEY` of `reg`.
fn tls_flags(reg: &Registry) -> Vec<String> {
    let (cert, key) = reg.client_cert().unwrap();
    vec![
        "--ca-file".into(),
        reg.ca_file().unwrap().display().to_string(),
        "--cert-file".into(),
        cert.display().to_string(),
        "--key-file".into(),
        key.display().to_string(),
    ]
}

fn with<'a>(args: &[&'a str], extra: &'a [String]) -> Vec<&'a str> {
    args.iter()
        .copied()
        .chain(extra.iter().map(String::as_str))
        .collect()
}

const REQUIRED: &str = "the registry requires a client certificate (TLS alert CertificateRequired); give --cert-file and --key-file";

#[test]
fn a_registry_requiring_client_certificates_refuses_without_one_and_serves_with_one() {
    let env = Env::new();
    let reg = Registry::start(RegistryOptions::tls().with_client_certs()).unwrap();
    let ca = reg.ca_file().unwrap().display().to_string();
    let tls = tls_flags(&reg);
    let chart = env.chart("certapp", "1.0.0");
    let chart_arg = chart.to_str().unwrap();
    let repo = reg.oci("c");
    let r = reg.oci("c/certapp");

    // Without a client certificate: refused, one line, saying what to give.
    let e = error_line(env.kubepkg(&["push", chart_arg, &repo, "--ca-file", &ca]));
    assert!(
        e.starts_with(&format!(
            "{r}:1.0.0: cannot reach https://{}/v2/",
            reg.host()
        )) && e.ends_with(REQUIRED),
        "{e}"
    );
    // helm is refused too (the registry's own refusal, not kubepkg's).
    let helm = env.helm(&["push", chart_arg, &repo, "--ca-file", &ca]);
    assert!(!helm.status.success());
    assert!(
        String::from_utf8_lossy(&helm.stderr).contains("certificate required"),
        "{}",
        String::from_utf8_lossy(&helm.stderr)
    );

    // With one: kubepkg pushes, helm pulls the same bytes and renders what kubepkg renders.
    ok(env.kubepkg(&with(&["push", chart_arg, &repo], &tls)));
    std::fs::create_dir_all(env.path("h")).unwrap();
    ok(env.helm(&with(&["pull", &r, "--version", "1.0.0", "-d", "h"], &tls)));
    assert_eq!(
        std::fs::read(env.path("h/certapp-1.0.0.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );
    let template = ["template", "t", &r, "--version", "1.0.0"];
    let theirs = ok(env.helm(&with(&template, &tls)));
    assert_eq!(ok(env.kubepkg(&with(&template, &tls))), theirs);

    // helm pushes another version; kubepkg pulls it byte for byte.
    let other = env.chart("certapp", "1.1.0");
    ok(env.helm(&with(&["push", other.to_str().unwrap(), &repo], &tls)));
    ok(env.kubepkg(&with(&["pull", &r, "--version", "1.1.0", "-d", "k"], &tls)));
    assert_eq!(
        std::fs::read(env.path("k/certapp-1.1.0.tgz")).unwrap(),
        std::fs::read(&other).unwrap()
    );

    // Every verb that reads the registry is refused the same way without the certificate,
    // and writes nothing.
    let pull = error_line(env.kubepkg(&[
        "pull",
        &r,
        "--version",
        "1.1.0",
        "-d",
        "none",
        "--ca-file",
        &ca,
    ]));
    assert!(pull.ends_with(REQUIRED), "{pull}");
    let t = error_line(env.kubepkg(&["template", "t", &r, "--version", "1.0.0", "--ca-file", &ca]));
    assert!(t.ends_with(REQUIRED), "{t}");
    assert!(!env.path("none").exists());

    // A package: pushed and pulled with the certificate, byte for byte.
    let pkg = env.web_package("certpkg", "1.0.0");
    let e = error_line(env.kubepkg(&[
        "package",
        "push",
        pkg.to_str().unwrap(),
        &repo,
        "--ca-file",
        &ca,
    ]));
    assert!(e.ends_with(REQUIRED), "{e}");
    ok(env.kubepkg(&with(
        &["package", "push", pkg.to_str().unwrap(), &repo],
        &tls,
    )));
    ok(env.kubepkg(&with(
        &[
            "package",
            "pull",
            &reg.oci("c/certpkg"),
            "--version",
            "1.0.0",
            "-d",
            "p",
        ],
        &tls,
    )));
    let pulled = std::fs::read(env.path("p/certpkg-1.0.0.tgz")).unwrap();
    let mut names = Vec::new();
    let mut a = tar::Archive::new(flate2::read::GzDecoder::new(&pulled[..]));
    for e in a.entries().unwrap() {
        names.push(e.unwrap().path().unwrap().display().to_string());
    }
    assert!(
        names.contains(&"certpkg/kubepkg.yaml".to_string()),
        "{names:?}"
    );
}

#[test]
fn registry_login_with_a_client_certificate_and_the_refusals_name_the_files() {
    let env = Env::new();
    let reg = Registry::start(
        RegistryOptions::tls()
            .with_client_certs()
            .with_user("alice", "s3cret"),
    )
    .unwrap();
    let ca = reg.ca_file().unwrap().display().to_string();
    let (cert, key) = reg.client_cert().unwrap();
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    let tls = tls_flags(&reg);
    let host = reg.host();
    let login = ["registry", "login", &host, "-u", "alice", "-p", "s3cret"];

    let e = error_line(env.kubepkg(&with(&login, &[String::from("--ca-file"), ca.clone()])));
    assert!(e.ends_with(REQUIRED), "{e}");
    assert_eq!(ok(env.kubepkg(&with(&login, &tls))), "Login Succeeded\n");
    // helm's login with the same certificate agrees; both logins serve a push and a pull.
    let out = env.helm(&with(&login, &tls));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let chart = env.chart("loginapp", "0.1.0");
    ok(env.kubepkg(&with(
        &["push", chart.to_str().unwrap(), &reg.oci("c")],
        &tls,
    )));
    std::fs::create_dir_all(env.path("h")).unwrap();
    ok(env.helm(&with(
        &[
            "pull",
            &reg.oci("c/loginapp"),
            "--version",
            "0.1.0",
            "-d",
            "h",
        ],
        &tls,
    )));
    assert_eq!(
        std::fs::read(env.path("h/loginapp-0.1.0.tgz")).unwrap(),
        std::fs::read(&chart).unwrap()
    );

    let r = reg.oci("c/loginapp");
    let pull = |extra: &[&str]| {
        let mut args = vec![
            "pull",
            r.as_str(),
            "--version",
            "0.1.0",
            "-d",
            "out",
            "--ca-file",
            ca.as_str(),
        ];
        args.extend_from_slice(extra);
        error_line(env.kubepkg(&args))
    };
    // A key of another certificate (the registry's own serving key).
    let other_key = reg
        .scratch()
        .join("pki/server-key.pem")
        .display()
        .to_string();
    assert_eq!(
        pull(&["--cert-file", &cert, "--key-file", &other_key]),
        format!(
            "client certificate {cert} and key {other_key}: the key does not match the certificate; give the key the certificate was made for"
        )
    );
    // Half a pair.
    assert_eq!(
        pull(&["--cert-file", &cert]),
        format!(
            "client certificate: the certificate {cert} is given without a key file (--key-file); a client certificate needs both files"
        )
    );
    assert_eq!(
        pull(&["--key-file", &key]),
        format!(
            "client certificate: the key {key} is given without a certificate file (--cert-file); a client certificate needs both files"
        )
    );
    // A certificate that another CA signed: the registry refuses it (Go's unknown-CA alert).
    let stranger = Registry::start(RegistryOptions::tls()).unwrap();
    let (their_cert, their_key) = stranger.client_cert().unwrap();
    let their_cert = their_cert.display().to_string();
    let e = pull(&[
        "--cert-file",
        &their_cert,
        "--key-file",
        their_key.to_str().unwrap(),
    ]);
    assert!(
        e.starts_with(&format!("{r}:0.1.0: cannot reach https://{host}/v2/"))
            && e.ends_with(&format!(
                "the registry refused the client certificate {their_cert} (TLS alert UnknownCA); give one signed by a CA the registry trusts"
            )),
        "{e}"
    );
    // A file that is no certificate.
    let e = pull(&[
        "--cert-file",
        &ca.replace("ca.pem", "nope.pem"),
        "--key-file",
        &key,
    ]);
    assert!(
        e.starts_with("can't create TLS config for client: reading the client certificate ")
            && e.contains("nope.pem"),
        "{e}"
    );
    assert!(!env.path("out").exists(), "nothing written");
}
