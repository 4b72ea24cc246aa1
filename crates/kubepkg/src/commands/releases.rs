//! Glue shared by the release verbs: connecting to the cluster, rendering a chart into a
//! release payload (through `kubepkg_engine::chart`, the one conversion), reading
//! `--dry-run`, and printing releases as Helm prints them.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use kubepkg_chart::ValueOptions;
use kubepkg_engine::chart::{
    ClusterCapabilities, ComponentRelease, ReleaseTarget, release_payload,
};
use kubepkg_kube::{Cluster, ClusterOptions};
use kubepkg_release::action::{Options, Releases};
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

/// JSON → kubepkg values.
pub fn from_json(v: &Value) -> Result<kubepkg_value::Value> {
    kubepkg_yaml::json::from_json(&v.to_string()).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Prints `v` as Helm's `-o json` (one line) or `-o yaml` does.
pub fn print_json_or_yaml(output: &str, v: &Value) -> Result<()> {
    if output == "json" {
        println!("{v}");
    } else {
        print!(
            "{}",
            kubepkg_yaml::to_yaml(&from_json(v)?).map_err(|e| anyhow::anyhow!("{e}"))?
        );
    }
    Ok(())
}

/// The user values from the flags, as a JSON map (Go number types kept in memory).
pub fn user_values(v: &ValuesArgs) -> Result<Map<String, Value>> {
    let opts = value_options(v);
    let merged = opts.merge().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(kubepkg_engine::chart::user_values(&merged))
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

/// Renders `chart_path` with `config` for release `name` in `namespace` (the shared
/// conversion of `kubepkg_engine::chart`).
pub fn payload(
    chart_path: &str,
    name: &str,
    namespace: &str,
    config: &Map<String, Value>,
    last_revision: Option<u64>,
    caps: &ClusterCapabilities,
) -> Result<ComponentRelease> {
    let target = ReleaseTarget {
        release: name,
        namespace,
        last_revision,
    };
    Ok(release_payload(
        Path::new(chart_path),
        target,
        config,
        caps,
    )?)
}

/// `--dry-run` as Helm reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRunMode {
    /// Render only (an install needs no cluster at all, as Helm 4).
    Client,
    /// Render with the cluster's capabilities and validate on the server.
    Server,
}

/// Helm 4's reading: `client` (also the bare flag and a true boolean), `server`; `none` and
/// a false boolean mean no dry run.
pub fn dry_run_mode(flag: Option<&str>) -> Result<Option<DryRunMode>> {
    match flag {
        None | Some("none" | "0" | "f" | "F" | "FALSE" | "false" | "False") => Ok(None),
        Some("client" | "1" | "t" | "T" | "TRUE" | "true" | "True") => Ok(Some(DryRunMode::Client)),
        Some("server") => Ok(Some(DryRunMode::Server)),
        Some(v) => anyhow::bail!(
            "invalid dry-run value ({v:?}). Must be \"none\", \"server\", or \"client\""
        ),
    }
}

/// Helm's warning when a dry run meets a chart with `crds/`.
pub const DRY_RUN_CRDS_WARNING: &str = "level=WARN msg=\"This chart or one of its subcharts contains CRDs. Rendering may fail or contain inaccuracies.\"";

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
            if info.description.eq_ignore_ascii_case("Dry run complete") {
                println!("HOOKS:");
                for h in &r.hooks {
                    println!("---\n# Source: {}\n{}", h.path, h.manifest);
                }
                println!("MANIFEST:\n{}", r.manifest);
            }
            if !info.notes.is_empty() {
                println!("NOTES:\n{}", info.notes.trim());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dry_run_values_read_as_helm_4() {
        assert_eq!(dry_run_mode(None).unwrap(), None);
        assert_eq!(dry_run_mode(Some("none")).unwrap(), None);
        assert_eq!(dry_run_mode(Some("false")).unwrap(), None);
        assert_eq!(
            dry_run_mode(Some("client")).unwrap(),
            Some(DryRunMode::Client)
        );
        assert_eq!(
            dry_run_mode(Some("true")).unwrap(),
            Some(DryRunMode::Client)
        );
        assert_eq!(
            dry_run_mode(Some("server")).unwrap(),
            Some(DryRunMode::Server)
        );
        let err = dry_run_mode(Some("sever")).unwrap_err().to_string();
        assert_eq!(
            err,
            r#"invalid dry-run value ("sever"). Must be "none", "server", or "client""#
        );
    }
}
