//! Shared by the corpus runner, the function-list test and the corpus benchmark: loading the
//! corpus (`testdata/template-corpus/*.jsonl`, format in its README), rendering a case the way
//! Helm's `Engine.Render` does (values read as Helm reads them, the same top-level data, Helm's
//! parse order, every non-partial file executed, `<no value>` scrubbed), and the shape checks for
//! nondeterministic functions.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use kubepkg_template::{Templates, Value, helm};

/// The chart every case is a template of, and the release it is rendered for.
pub const CHART: &str = "corpus";
pub const RELEASE: &str = "corpus-release";
pub const NAMESPACE: &str = "default";

/// One corpus case: inputs and Helm's recorded result.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub group: String,
    pub templates: BTreeMap<String, String>,
    pub values: String,
    pub check: String,
    pub expected: Outcome,
}

/// What rendering a case produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The rendered bytes of `main.tpl`.
    Output(Vec<u8>),
    /// Rendering failed: Helm's reformatted error and text/template's raw error.
    Error { helm: String, go: String },
    /// The values file could not be read.
    ValuesError(String),
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/template-corpus")
}

/// The corpus files to run: `$KUBEPKG_CORPUS` (a colon-separated list of files; relative paths
/// are taken from the workspace root) or every `*.jsonl` in the corpus directory.
/// The corpus cases we knowingly do not match yet (`known-gaps.txt`: a name per line, `#` starts a
/// comment giving the reason).
#[allow(dead_code)]
pub fn known_gaps() -> std::collections::BTreeSet<String> {
    let path = corpus_dir().join("known-gaps.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

pub fn corpus_files() -> Vec<PathBuf> {
    if let Ok(list) = std::env::var("KUBEPKG_CORPUS") {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        return list
            .split(':')
            .filter(|s| !s.is_empty())
            .map(|s| root.join(s))
            .collect();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("testdata/template-corpus is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

fn str_field(obj: &serde_json::Map<String, serde_json::Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(|v| v.as_str()).map(str::to_string)
}

/// Parse one corpus file. Malformed lines are reported with file and line.
pub fn load_cases(file: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", file.display(), i + 1);
        let json: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}: {e}", at()))?;
        let obj = json
            .as_object()
            .ok_or_else(|| format!("{}: not an object", at()))?;
        let name = str_field(obj, "name").ok_or_else(|| format!("{}: no name", at()))?;
        let templates = obj
            .get("templates")
            .and_then(|t| t.as_object())
            .ok_or_else(|| format!("{}: no templates", at()))?
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect();
        let expected = if let Some(e) = str_field(obj, "values_error") {
            Outcome::ValuesError(e)
        } else if let Some(helm) = str_field(obj, "error") {
            let go = str_field(obj, "go_error")
                .ok_or_else(|| format!("{}: error without go_error", at()))?;
            Outcome::Error { helm, go }
        } else if let Some(out) = str_field(obj, "output") {
            Outcome::Output(out.into_bytes())
        } else if let Some(b) = str_field(obj, "output_b64") {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| format!("{}: output_b64: {e}", at()))?;
            Outcome::Output(bytes)
        } else {
            return Err(format!(
                "{}: case {name} has no recorded result (run oracle/regen.sh)",
                at()
            ));
        };
        cases.push(Case {
            group: name.split('/').next().unwrap_or("").to_string(),
            name,
            templates,
            values: str_field(obj, "values").unwrap_or_default(),
            check: str_field(obj, "check").unwrap_or_else(|| "exact".into()),
            expected,
        });
    }
    Ok(cases)
}

fn map(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    Value::map(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// `.Chart` as Helm 4 builds it for the corpus chart (`structToMap` of the metadata, plus `IsRoot`).
fn chart_value() -> Value {
    let empty_list = || Value::list(Vec::new());
    map([
        ("APIVersion", Value::str("v2")),
        ("Annotations", Value::Nil),
        ("AppVersion", Value::str("")),
        ("Condition", Value::str("")),
        ("Dependencies", empty_list()),
        ("Deprecated", Value::Bool(false)),
        ("Description", Value::str("")),
        ("Home", Value::str("")),
        ("Icon", Value::str("")),
        ("IsRoot", Value::Bool(true)),
        ("Keywords", empty_list()),
        ("KubeVersion", Value::str("")),
        ("Maintainers", empty_list()),
        ("Name", Value::str(CHART)),
        ("Sources", empty_list()),
        ("Tags", Value::str("")),
        ("Type", Value::str("")),
        ("Version", Value::str("0.1.0")),
    ])
}

/// Helm's `common.Values` (the type of `.Values` and `.Template`) over these entries.
fn helm_values(v: Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.with_type(kubepkg_value::MapType::HelmValues)),
        other => other,
    }
}

/// The top-level object `helm template` hands to every template of a first install.
fn top_value(values: Value) -> Value {
    map([
        ("Values", helm_values(values)),
        ("Chart", chart_value()),
        (
            "Release",
            map([
                ("Name", Value::str(RELEASE)),
                ("Namespace", Value::str(NAMESPACE)),
                ("IsUpgrade", Value::Bool(false)),
                ("IsInstall", Value::Bool(true)),
                ("Revision", Value::Int(1)),
                ("Service", Value::str("Helm")),
            ]),
        ),
        ("Capabilities", Value::Nil),
        ("Files", Value::map(BTreeMap::new())),
        ("Subcharts", Value::map(BTreeMap::new())),
    ])
}

/// A fresh engine with Helm's functions, configured as Helm's `Engine` (missingkey=zero,
/// not lint mode, no cluster).
pub fn engine() -> Templates {
    let mut t = Templates::with_funcs(kubepkg_funcs::helm_table());
    t.enable_helm(None, false);
    t
}

/// Render a case as Helm's `Engine.Render` does.
pub fn render(case: &Case) -> Outcome {
    let values = match kubepkg_yaml::read_values(&case.values) {
        Ok(v) => v,
        Err(e) => return Outcome::ValuesError(e.to_string()),
    };
    let top = top_value(values);
    let mut t = engine();
    let mut names: Vec<String> = case
        .templates
        .keys()
        .map(|f| format!("{CHART}/templates/{f}"))
        .collect();
    helm::sort_templates(&mut names);
    for (name, file) in names
        .iter()
        .map(|n| (n, &n[CHART.len() + "/templates/".len()..]))
    {
        if let Err(e) = t.parse(name, &case.templates[file]) {
            return Outcome::Error {
                helm: helm::parse_error_text(name, &e),
                go: e.message.clone(),
            };
        }
    }
    let main = format!("{CHART}/templates/main.tpl");
    let mut out = Vec::new();
    for name in &names {
        if name.rsplit('/').next().is_some_and(|b| b.starts_with('_')) {
            continue;
        }
        if let Value::Map(m) = &top {
            kubepkg_value::map_write(m).insert(
                "Template".into(),
                helm_values(map([
                    ("Name", Value::str(name)),
                    ("BasePath", Value::str(format!("{CHART}/templates"))),
                ])),
            );
        }
        match t.execute_bytes(name, &top) {
            Ok(bytes) => {
                if *name == main {
                    out = helm::scrub_no_value_bytes(bytes);
                }
            }
            Err(e) => {
                return Outcome::Error {
                    helm: helm::exec_error_text(name, &e),
                    go: e.message().to_string(),
                };
            }
        }
    }
    Outcome::Output(out)
}

/// Whether `got` satisfies the case: byte-for-byte equality for `exact`, the shape rule
/// otherwise. `Err` explains the difference.
pub fn verify(case: &Case, got: &Outcome) -> Result<(), String> {
    if case.check == "exact" {
        return match (&case.expected, got) {
            (Outcome::ValuesError(_), Outcome::ValuesError(_)) => Ok(()),
            (a, b) if a == b => Ok(()),
            (want, got) => Err(format!("want {}\n      got  {}", show(want), show(got))),
        };
    }
    match got {
        Outcome::Output(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            check_shape(&case.check, &text)
                .map_err(|e| format!("{}: {e}\n      got  {}", case.check, show(got)))
        }
        other => Err(format!("{}: want output, got {}", case.check, show(other))),
    }
}

pub fn show(o: &Outcome) -> String {
    fn cut(s: &str) -> String {
        let s: String = s.chars().take(400).collect();
        format!("{s:?}")
    }
    match o {
        Outcome::Output(b) => format!("output {}", cut(&String::from_utf8_lossy(b))),
        Outcome::Error { helm, go } => format!("error {} / go_error {}", cut(helm), cut(go)),
        Outcome::ValuesError(e) => format!("values_error {}", cut(e)),
    }
}

/// The shape rules documented in testdata/template-corpus/README.md.
pub fn check_shape(check: &str, out: &str) -> Result<(), String> {
    if let Some(pattern) = check.strip_prefix("shape:regex:") {
        let re = regex::Regex::new(&format!(r"\A(?:{pattern})\z")).map_err(|e| e.to_string())?;
        return if re.is_match(out) {
            Ok(())
        } else {
            Err("output does not match".into())
        };
    }
    if let Some(types) = check.strip_prefix("shape:pem:") {
        let want: Vec<&str> = types.split(';').collect();
        return pem_blocks(out, &want).map(|_| ());
    }
    if check == "shape:certchain" {
        let blocks = pem_blocks(out, &["CERTIFICATE", "CERTIFICATE"])?;
        return verify_signed_by(&blocks[0], &blocks[1]);
    }
    Err(format!("unknown check {check:?}"))
}

/// Split `out` into exactly the PEM blocks `want` (by type, in order) and parse each as its type.
fn pem_blocks(out: &str, want: &[&str]) -> Result<Vec<Vec<u8>>, String> {
    let mut rest = out.trim();
    let mut ders = Vec::new();
    for (i, typ) in want.iter().enumerate() {
        let begin = format!("-----BEGIN {typ}-----");
        let end = format!("-----END {typ}-----");
        let body = rest
            .strip_prefix(&begin)
            .ok_or_else(|| format!("PEM block {} is not {typ}", i + 1))?;
        let stop = body
            .find(&end)
            .ok_or_else(|| format!("PEM block {} has no END", i + 1))?;
        let b64: String = body[..stop].split_whitespace().collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| format!("PEM block {}: {e}", i + 1))?;
        parse_der(typ, &der).map_err(|e| format!("PEM block {} ({typ}): {e}", i + 1))?;
        ders.push(der);
        rest = body[stop + end.len()..].trim_start();
    }
    if !rest.trim().is_empty() {
        return Err(format!("trailing data after {} PEM blocks", want.len()));
    }
    Ok(ders)
}

/// Whether a DER decoding succeeded, with the decoder's message when it did not.
fn parsed<T, E: std::fmt::Display>(decoded: Result<T, E>) -> Result<(), String> {
    decoded.map(|_| ()).map_err(|e| e.to_string())
}

fn parse_der(typ: &str, der: &[u8]) -> Result<(), String> {
    use der::{Decode as _, Tagged as _};
    match typ {
        "CERTIFICATE" => parsed(x509_cert::Certificate::from_der(der)),
        "RSA PRIVATE KEY" => {
            use rsa::pkcs1::DecodeRsaPrivateKey as _;
            parsed(rsa::RsaPrivateKey::from_pkcs1_der(der))
        }
        // Sprig's `ecdsa` keys are P-256.
        "EC PRIVATE KEY" => parsed(p256::SecretKey::from_sec1_der(der)),
        "PRIVATE KEY" => {
            use ed25519_dalek::pkcs8::DecodePrivateKey as _;
            parsed(ed25519_dalek::SigningKey::from_pkcs8_der(der))
        }
        // A DSA key is the DER SEQUENCE of six INTEGERs (version, p, q, g, y, x).
        "DSA PRIVATE KEY" => der::asn1::Any::from_der(der)
            .map_err(|e| e.to_string())
            .and_then(|any| {
                if any.tag() == der::Tag::Sequence {
                    Ok(())
                } else {
                    Err("not a SEQUENCE".into())
                }
            }),
        other => Err(format!("unknown PEM type {other}")),
    }
}

/// The leaf's signature verifies with the CA's public key (RSA PKCS#1 v1.5 with SHA-256, what
/// Sprig's RSA CAs sign with).
fn verify_signed_by(leaf_der: &[u8], ca_der: &[u8]) -> Result<(), String> {
    use der::{Decode as _, Encode as _};
    use rsa::pkcs1v15::{Signature, VerifyingKey};
    use rsa::pkcs8::DecodePublicKey as _;
    use rsa::signature::Verifier as _;
    let leaf = x509_cert::Certificate::from_der(leaf_der).map_err(|e| e.to_string())?;
    let ca = x509_cert::Certificate::from_der(ca_der).map_err(|e| e.to_string())?;
    const SHA256_WITH_RSA: &str = "1.2.840.113549.1.1.11";
    if leaf.signature_algorithm.oid.to_string() != SHA256_WITH_RSA {
        return Err(format!(
            "leaf signed with {}, want sha256WithRSAEncryption",
            leaf.signature_algorithm.oid
        ));
    }
    let spki = ca
        .tbs_certificate
        .subject_public_key_info
        .to_der()
        .map_err(|e| e.to_string())?;
    let key = rsa::RsaPublicKey::from_public_key_der(&spki).map_err(|e| e.to_string())?;
    let tbs = leaf.tbs_certificate.to_der().map_err(|e| e.to_string())?;
    let sig = Signature::try_from(leaf.signature.raw_bytes()).map_err(|e| e.to_string())?;
    VerifyingKey::<sha2::Sha256>::new(key)
        .verify(&tbs, &sig)
        .map_err(|e| format!("leaf signature does not verify with the CA key: {e}"))?;
    if leaf.tbs_certificate.issuer != ca.tbs_certificate.subject {
        return Err("leaf issuer is not the CA subject".into());
    }
    Ok(())
}
