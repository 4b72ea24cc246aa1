//! `kubepkg push CHART.tgz oci://HOST/REPO`: a chart archive into a registry with Helm's layout
//! (`kubepkg_oci::chart`), so `helm pull` gets the same archive byte for byte; prints what
//! `helm push` prints; `--sign KEY` then signs the pushed digest (`commands/sign.rs`).

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use kubepkg_chart::metadata::Metadata;
use serde_json::{Map, Value};

use super::runtime;
use crate::cli::PushArgs;
use crate::settings::Settings;

pub fn run(args: PushArgs, settings: &Settings) -> Result<ExitCode> {
    let raw =
        std::fs::read(&args.chart).with_context(|| format!("reading {}", args.chart.display()))?;
    let origin = args.chart.display().to_string();
    let chart = kubepkg_chart::chart::load_archive(&raw, &origin)?;
    let repo = kubepkg_oci::Reference::parse(&args.remote)?;
    if repo.tag.is_some() || repo.digest.is_some() {
        bail!(
            "{}: push into a repository without a tag or digest; the chart's version is the tag",
            args.remote
        );
    }
    let key = args
        .sign
        .sign
        .as_deref()
        .map(super::sign::signing_key)
        .transpose()?;
    let meta = chart_meta(&chart.metadata);
    let prov_path = args.chart.with_extension("tgz.prov");
    let prov = std::fs::read(&prov_path).ok();
    let client = kubepkg_source::oci::client(&args.access.options(), &settings.paths)?;
    let rt = runtime()?;
    let pushed = rt.block_on(kubepkg_oci::chart::push(
        &client,
        &repo,
        &raw,
        &meta,
        prov.as_deref(),
    ))?;
    let shown = pushed.reference.to_string();
    println!(
        "Pushed: {}",
        shown.trim_start_matches(kubepkg_oci::reference::SCHEME)
    );
    println!("Digest: {}", pushed.digest);
    if let Some(key) = &key {
        rt.block_on(super::sign::sign_digest(
            &client,
            &pushed.reference,
            &pushed.digest,
            key,
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What the push needs from `Chart.yaml`: its JSON (the manifest's config, as Helm's
/// `json.Marshal(chart.Metadata)`) and the manifest annotations.
pub(crate) fn chart_meta(m: &Metadata) -> kubepkg_oci::chart::ChartMeta {
    let maintainers: Vec<(&str, &str)> = m
        .maintainers
        .iter()
        .flatten()
        .map(|x| (x.name.as_str(), x.email.as_str()))
        .collect();
    let annotations = kubepkg_oci::chart::oci_annotations(
        &kubepkg_oci::chart::AnnotationSource {
            name: &m.name,
            version: &m.version,
            description: &m.description,
            home: &m.home,
            sources: &m.sources,
            maintainers,
            chart_annotations: m.annotations.as_ref(),
        },
        None,
    );
    kubepkg_oci::chart::ChartMeta {
        name: m.name.clone(),
        version: m.version.clone(),
        config_json: metadata_json(m),
        annotations,
    }
}

/// `Chart.yaml` as Go's `encoding/json` writes `chart.Metadata`: its field order, `omitempty`
/// fields left out when empty, and `<`, `>`, `&` escaped as Go does.
pub(crate) fn metadata_json(m: &Metadata) -> Vec<u8> {
    let mut o = Map::new();
    let s = |o: &mut Map<String, Value>, k: &str, v: &str, omit: bool| {
        if !(omit && v.is_empty()) {
            o.insert(k.into(), Value::String(v.into()));
        }
    };
    let list = |o: &mut Map<String, Value>, k: &str, v: &[String]| {
        if !v.is_empty() {
            o.insert(
                k.into(),
                Value::Array(v.iter().cloned().map(Value::String).collect()),
            );
        }
    };
    s(&mut o, "name", &m.name, false);
    s(&mut o, "home", &m.home, true);
    list(&mut o, "sources", &m.sources);
    s(&mut o, "version", &m.version, false);
    s(&mut o, "description", &m.description, true);
    list(&mut o, "keywords", &m.keywords);
    if !m.maintainers.is_empty() {
        let ms = m
            .maintainers
            .iter()
            .map(|x| match x {
                None => Value::Null,
                Some(x) => {
                    let mut e = Map::new();
                    s(&mut e, "name", &x.name, false);
                    s(&mut e, "email", &x.email, true);
                    s(&mut e, "url", &x.url, true);
                    Value::Object(e)
                }
            })
            .collect();
        o.insert("maintainers".into(), Value::Array(ms));
    }
    s(&mut o, "icon", &m.icon, true);
    s(&mut o, "apiVersion", &m.api_version, false);
    s(&mut o, "condition", &m.condition, true);
    s(&mut o, "tags", &m.tags, true);
    s(&mut o, "appVersion", &m.app_version, true);
    if m.deprecated {
        o.insert("deprecated".into(), Value::Bool(true));
    }
    if let Some(a) = m.annotations.as_ref().filter(|a| !a.is_empty()) {
        let sorted: BTreeMap<&String, &String> = a.iter().collect();
        let a = sorted
            .into_iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        o.insert("annotations".into(), Value::Object(a));
    }
    s(&mut o, "kubeVersion", &m.kube_version, true);
    if !m.dependencies.is_empty() {
        let ds = m
            .dependencies
            .iter()
            .map(|d| match d {
                None => Value::Null,
                Some(d) => {
                    let mut e = Map::new();
                    s(&mut e, "name", &d.name, false);
                    s(&mut e, "version", &d.version, true);
                    s(&mut e, "repository", &d.repository, false);
                    s(&mut e, "condition", &d.condition, true);
                    list(&mut e, "tags", &d.tags);
                    if d.enabled {
                        e.insert("enabled".into(), Value::Bool(true));
                    }
                    s(&mut e, "alias", &d.alias, true);
                    Value::Object(e)
                }
            })
            .collect();
        o.insert("dependencies".into(), Value::Array(ds));
    }
    s(&mut o, "type", &m.chart_type, true);
    let text = Value::Object(o).to_string();
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .into_bytes()
}
