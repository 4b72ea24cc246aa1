//! Glue shared by the release verbs: connecting to the cluster, rendering a chart into a
//! [`Rendered`] release, converting values and printing releases as Helm prints them.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use kubepkg_chart::{TemplateOptions, ValueOptions};
use kubepkg_kube::{Cluster, ClusterOptions};
use kubepkg_release::action::{Options, Releases, Rendered};
use kubepkg_release::record::{self, Release};
use kubepkg_release::storage::{ConfigMapDriver, SecretDriver};
use serde_json::{Map, Value};

use crate::cli::{ClusterArgs, OperationArgs, ValuesArgs};

/// A tokio runtime for one command.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Connects as Helm would: `-n`, else `$HELM_NAMESPACE`, else the context's namespace.
pub async fn connect(args: &ClusterArgs) -> Result<Cluster> {
    let namespace = args.namespace.clone().or_else(|| {
        std::env::var("HELM_NAMESPACE")
            .ok()
            .filter(|s| !s.is_empty())
    });
    let opts = ClusterOptions {
        kubeconfig: args.kubeconfig.clone(),
        context: args.kube_context.clone(),
        namespace,
    };
    Ok(Cluster::connect(&opts).await?)
}

/// Release storage as `$HELM_DRIVER` selects it (secret by default, configmap supported).
pub enum AnyDriver {
    Secret(SecretDriver),
    ConfigMap(ConfigMapDriver),
}

/// Runs `$body` with `rel` bound to a `Releases` over the selected driver.
macro_rules! with_releases {
    ($cluster:expr, $ns:expr, |$rel:ident| $body:expr) => {
        match crate::commands::releases::driver($cluster, $ns)? {
            crate::commands::releases::AnyDriver::Secret(d) => {
                let $rel = kubepkg_release::action::Releases::new($cluster, d, $ns.unwrap_or(""));
                $body
            }
            crate::commands::releases::AnyDriver::ConfigMap(d) => {
                let $rel = kubepkg_release::action::Releases::new($cluster, d, $ns.unwrap_or(""));
                $body
            }
        }
    };
}
pub(crate) use with_releases;

/// The storage driver named by `$HELM_DRIVER`, bound to `namespace` (`None`: all).
pub fn driver(cluster: &Cluster, namespace: Option<&str>) -> Result<AnyDriver> {
    let name = std::env::var("HELM_DRIVER")
        .unwrap_or_default()
        .to_lowercase();
    match name.as_str() {
        "" | "secret" | "secrets" => Ok(AnyDriver::Secret(SecretDriver::new(
            cluster.client.clone(),
            namespace,
        ))),
        "configmap" | "configmaps" => Ok(AnyDriver::ConfigMap(ConfigMapDriver::new(
            cluster.client.clone(),
            namespace,
        ))),
        other => anyhow::bail!(
            "HELM_DRIVER={other:?} is not supported by kubepkg (use secret or configmap)"
        ),
    }
}

/// Shows progress lines on standard error.
pub fn with_progress<D: kubepkg_release::Driver>(mut r: Releases<'_, D>) -> Releases<'_, D> {
    r.progress = Box::new(|line| eprintln!("{line}"));
    r
}

/// A Go duration (`5m0s`, `90s`, `1h`, `300ms`).
pub fn parse_duration(s: &str) -> Result<Duration> {
    let mut total = 0f64;
    let mut rest = s.trim();
    if rest.is_empty() {
        anyhow::bail!("invalid duration {s:?}");
    }
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| anyhow::anyhow!("invalid duration {s:?}: missing unit"))?;
        let n: f64 = rest[..num_end]
            .parse()
            .with_context(|| format!("invalid duration {s:?}"))?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            u => anyhow::bail!("invalid duration {s:?}: unknown unit {u:?}"),
        };
        total += n * factor;
        rest = &rest[unit_end..];
    }
    Ok(Duration::from_secs_f64(total))
}

/// Operation options from the flags.
pub fn options(cluster: &ClusterArgs, op: &OperationArgs) -> Result<Options> {
    Ok(Options {
        wait: op.wait,
        timeout: parse_duration(&op.timeout)?,
        no_hooks: op.no_hooks,
        wait_lock: !cluster.no_wait_lock,
        description: op.description.clone(),
        ..Default::default()
    })
}

/// kubepkg values → JSON.
pub fn to_json(v: &kubepkg_value::Value) -> Result<Value> {
    let text = kubepkg_yaml::json::to_json(v).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(serde_json::from_str(&text)?)
}

/// JSON → kubepkg values.
pub fn from_json(v: &Value) -> Result<kubepkg_value::Value> {
    kubepkg_yaml::json::from_json(&v.to_string()).map_err(|e| anyhow::anyhow!("{e}"))
}

/// The user values from the flags, as a JSON map.
pub fn user_values(v: &ValuesArgs) -> Result<Map<String, Value>> {
    let opts = value_options(v);
    let merged = opts.merge().map_err(|e| anyhow::anyhow!("{e}"))?;
    match to_json(&merged)? {
        Value::Object(m) => Ok(m),
        _ => Ok(Map::new()),
    }
}

fn value_options(v: &ValuesArgs) -> ValueOptions {
    ValueOptions {
        value_files: v.values.iter().map(Into::into).collect(),
        json_values: v.set_json.clone(),
        values: v.set.clone(),
        string_values: v.set_string.clone(),
        file_values: v.set_file.clone(),
        literal_values: v.set_literal.clone(),
    }
}

/// Helm's `CoalesceTables(dst, src)`: keys of `dst` win, maps merge recursively.
pub fn coalesce(mut dst: Map<String, Value>, src: &Map<String, Value>) -> Map<String, Value> {
    for (k, sv) in src {
        match dst.get_mut(k) {
            None => {
                dst.insert(k.clone(), sv.clone());
            }
            Some(Value::Object(dm)) => {
                if let Value::Object(sm) = sv {
                    let merged = coalesce(std::mem::take(dm), sm);
                    *dm = merged;
                }
            }
            Some(_) => {}
        }
    }
    dst
}

/// Renders `chart_path` with `config` for release `name` in `namespace`.
pub fn render(
    chart_path: &str,
    name: &str,
    namespace: &str,
    config: Map<String, Value>,
    last_revision: Option<u64>,
) -> Result<(Rendered, Vec<String>)> {
    let is_upgrade = last_revision.is_some();
    let chart = kubepkg_chart::load(Path::new(chart_path)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let record_chart = record_chart(&chart)?;
    let crds: Vec<String> = chart
        .crd_objects(chart.name())
        .into_iter()
        .map(|(n, d)| format!("---\n# Source: {n}\n{}\n", String::from_utf8_lossy(&d)))
        .collect();
    let user = from_json(&Value::Object(config.clone()))?;
    let opts = TemplateOptions {
        release_name: name.to_string(),
        chart: chart_path.into(),
        namespace: namespace.to_string(),
        is_upgrade,
        revision: Some(last_revision.map_or(1, |r| r as i64 + 1)),
        ..Default::default()
    };
    let caps = kubepkg_chart::objects::Capabilities::new(None, &[]);
    let out = kubepkg_chart::render_release(chart, &user, &opts, &caps)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let hooks = out
        .hooks
        .into_iter()
        .map(|h| record::Hook {
            name: h.name,
            kind: h.kind,
            path: h.path,
            manifest: h.manifest,
            events: h
                .events
                .iter()
                .filter_map(|e| record::HookEvent::from_annotation(e))
                .collect(),
            weight: h.weight,
            delete_policies: h
                .delete_policies
                .iter()
                .map(|p| record::HookDeletePolicy::parse(p))
                .collect(),
            output_log_policies: h
                .output_log_policies
                .iter()
                .map(|p| record::HookOutputLogPolicy::parse(p))
                .collect(),
            ..Default::default()
        })
        .collect();
    Ok((
        Rendered {
            chart: record_chart,
            config,
            manifest: out.manifest,
            hooks,
            notes: out.notes,
        },
        crds,
    ))
}

/// The chart as Helm stores it in a release (top chart only, as Helm).
pub fn record_chart(c: &kubepkg_chart::Chart) -> Result<record::Chart> {
    let m = &c.metadata;
    let dep = |d: &kubepkg_chart::metadata::Dependency| -> Result<record::Dependency> {
        Ok(record::Dependency {
            name: d.name.clone(),
            version: d.version.clone(),
            repository: d.repository.clone(),
            condition: d.condition.clone(),
            tags: d.tags.clone(),
            enabled: d.enabled,
            import_values: d.import_values.iter().map(to_json).collect::<Result<_>>()?,
            alias: d.alias.clone(),
            extra: Map::new(),
        })
    };
    let metadata = record::Metadata {
        name: m.name.clone(),
        home: m.home.clone(),
        sources: m.sources.clone(),
        version: m.version.clone(),
        description: m.description.clone(),
        keywords: m.keywords.clone(),
        maintainers: m
            .maintainers
            .iter()
            .flatten()
            .map(|x| record::Maintainer {
                name: x.name.clone(),
                email: x.email.clone(),
                url: x.url.clone(),
            })
            .collect(),
        icon: m.icon.clone(),
        api_version: m.api_version.clone(),
        condition: m.condition.clone(),
        tags: m.tags.clone(),
        app_version: m.app_version.clone(),
        deprecated: m.deprecated,
        annotations: m.annotations.clone().unwrap_or_default(),
        kube_version: m.kube_version.clone(),
        dependencies: m
            .dependencies
            .iter()
            .flatten()
            .map(dep)
            .collect::<Result<_>>()?,
        chart_type: m.chart_type.clone(),
        extra: Map::new(),
    };
    let lock = match &c.lock {
        Some(l) => Some(record::Lock {
            generated: Value::String(l.generated.clone()),
            digest: l.digest.clone(),
            dependencies: Some(
                l.dependencies
                    .iter()
                    .flatten()
                    .map(dep)
                    .collect::<Result<_>>()?,
            ),
        }),
        None => None,
    };
    let file = |f: &kubepkg_chart::ChartFile| record::File {
        name: f.name.clone(),
        data: f.data.to_vec(),
        modtime: None,
    };
    Ok(record::Chart {
        metadata: Some(metadata),
        lock,
        templates: Some(c.templates.iter().map(file).collect()),
        values: match to_json(&c.values)? {
            Value::Object(m) => Some(m),
            _ => Some(Map::new()),
        },
        schema: c.schema.as_ref().map(|s| s.to_vec()),
        files: Some(c.files.iter().map(file).collect()),
        ..Default::default()
    })
}

/// Go's `time.ANSIC` in local time, as Helm prints LAST DEPLOYED.
pub fn ansic(t: Option<jiff::Timestamp>) -> String {
    match t {
        Some(t) => t
            .to_zoned(jiff::tz::TimeZone::system())
            .strftime("%a %b %e %H:%M:%S %Y")
            .to_string(),
        None => String::new(),
    }
}

/// Prints a release as `helm install/upgrade/status` do.
pub fn print_release(r: &Release, output: &str) -> Result<()> {
    match output {
        "json" => println!(
            "{}",
            String::from_utf8(kubepkg_release::codec::to_json(r)?)?
        ),
        "yaml" => {
            let v: Value = serde_json::from_slice(&kubepkg_release::codec::to_json(r)?)?;
            print!(
                "{}",
                kubepkg_yaml::to_yaml(&from_json(&v)?).map_err(|e| anyhow::anyhow!("{e}"))?
            );
        }
        _ => {
            let info = r.info.clone().unwrap_or_default();
            println!("NAME: {}", r.name);
            println!("LAST DEPLOYED: {}", ansic(info.last_deployed));
            println!("NAMESPACE: {}", r.namespace);
            println!("STATUS: {}", info.status);
            println!("REVISION: {}", r.version);
            let tests: Vec<&record::Hook> = r
                .hooks
                .iter()
                .filter(|h| h.events.contains(&record::HookEvent::Test))
                .collect();
            if tests.is_empty() {
                println!("TEST SUITE: None");
            } else {
                for h in tests {
                    println!("TEST SUITE:     {}", h.name);
                    println!("Last Started:   {}", ansic(h.last_run.started_at));
                    println!("Last Completed: {}", ansic(h.last_run.completed_at));
                    println!("Phase:          {}", h.last_run.phase);
                }
            }
            if !info.notes.is_empty() {
                println!("NOTES:\n{}", info.notes.trim_end());
            }
        }
    }
    Ok(())
}
