//! The package verbs: `plan`, `apply`, `values` and `package status|history|rollback|
//! uninstall|list`. Thin: read flags, load the package, call `kubepkg_engine::ops`, print.
//!
//! Exit codes (also for scripts): 0 succeeded (or nothing to change), 1 error before anything
//! changed, 2 usage, 3 upgrade failed and rolled back, 4 `UpgradeFailed` (fix forward),
//! 5 `InstallFailed` (state kept), 6 `RequirementsNotMet`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_engine::cluster::LineSink;
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_package::Package;
use kubepkg_package::plan::render_text;
use kubepkg_package::report::{history_text, outcome_text, status_text};
use kubepkg_package::values::{UserValues, render_explain, values_yaml};

use super::releases;
use crate::cli::{
    ApplyArgs, ClusterArgs, PackageCommand, PackageValuesArgs, PackageValuesFlags, PlanArgs,
};

/// A loaded package and the scratch directory an archive was extracted into.
struct Loaded {
    package: Package,
    scratch: std::path::PathBuf,
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn load(path: &Path) -> Result<Loaded> {
    let scratch = std::env::temp_dir().join(format!(
        "kubepkg-{}-{}",
        std::process::id(),
        jiff::Timestamp::now().as_nanosecond()
    ));
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("creating scratch directory {}", scratch.display()))?;
    let package = kubepkg_package::source::load(path, &scratch).map_err(|e| {
        let _ = std::fs::remove_dir_all(&scratch);
        anyhow::anyhow!("{e}")
    })?;
    Ok(Loaded { package, scratch })
}

fn user_values(flags: &PackageValuesFlags) -> Result<UserValues> {
    let mut u = UserValues::new();
    for f in &flags.values {
        let text = if f == "-" {
            std::io::read_to_string(std::io::stdin()).context("reading values from stdin")?
        } else {
            std::fs::read_to_string(f).with_context(|| format!("reading values file {f}"))?
        };
        u.add_file(f, &text)?;
    }
    for s in &flags.set {
        u.add_set(s)?;
    }
    for s in &flags.set_string {
        u.add_set_string(s)?;
    }
    Ok(u)
}

fn stderr_sink() -> LineSink {
    Arc::new(|line: &str| eprintln!("{line}"))
}

async fn connect(args: &ClusterArgs, timeout: Duration, sink: LineSink) -> Result<KubeCluster> {
    let kube = releases::connect(args).await?;
    let caps: ClusterCapabilities = ops::capabilities(&kube).await;
    Ok(KubeCluster::new(kube, caps, timeout, sink))
}

fn code(n: i32) -> ExitCode {
    ExitCode::from(u8::try_from(n).unwrap_or(1))
}

/// `kubepkg plan NAME PACKAGE`.
pub fn plan(args: PlanArgs) -> Result<ExitCode> {
    let loaded = load(&args.package)?;
    let user = user_values(&args.values)?;
    let plan = if args.with_cluster {
        releases::runtime()?.block_on(async {
            let kc = connect(&args.cluster, Duration::from_secs(600), stderr_sink()).await?;
            let ns = kc.kube.namespace.clone();
            let instance = Instance {
                name: &args.name,
                namespace: &ns,
            };
            anyhow::Ok(
                ops::prepare(&kc, &loaded.package, instance, &user)
                    .await?
                    .plan,
            )
        })?
    } else {
        let ns = args
            .cluster
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_string());
        let instance = Instance {
            name: &args.name,
            namespace: &ns,
        };
        ops::plan_offline(&loaded.package, instance, &user)?
    };
    if args.output == "json" {
        println!("{}", serde_json::to_string_pretty(&plan)?);
    } else {
        print!("{}", render_text(&plan, !args.no_diff));
    }
    Ok(ExitCode::SUCCESS)
}

/// `kubepkg apply NAME PACKAGE`.
pub fn apply(args: ApplyArgs) -> Result<ExitCode> {
    let loaded = load(&args.package)?;
    let user = user_values(&args.values)?;
    let timeout = releases::parse_duration(&args.timeout)?;
    let json = args.output == "json";
    releases::runtime()?.block_on(async {
        let sink: LineSink = if json {
            Arc::new(|_: &str| {})
        } else {
            stderr_sink()
        };
        let mut kc = connect(&args.cluster, timeout, sink).await?;
        if let Some(t) = &args.requirements_timeout {
            kc.requirements_timeout = releases::parse_duration(t)?;
        }
        let ns = kc.kube.namespace.clone();
        let instance = Instance {
            name: &args.name,
            namespace: &ns,
        };
        if args.dry_run {
            let p = ops::prepare(&kc, &loaded.package, instance, &user).await?;
            print!("{}", render_text(&p.plan, true));
            return Ok(ExitCode::SUCCESS);
        }
        let (outcome, _plan) =
            ops::apply(&mut kc, &loaded.package, instance, &user, timeout).await?;
        if json {
            let v = serde_json::json!({"events": kc.events, "outcome": outcome});
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            print!("{}", outcome_text(&outcome));
        }
        Ok(code(outcome.reason.exit_code()))
    })
}

/// `kubepkg values NAME`.
pub fn values(args: PackageValuesArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let kc = connect(&args.cluster, Duration::from_secs(60), stderr_sink()).await?;
        let ns = kc.kube.namespace.clone();
        let instance = Instance {
            name: &args.name,
            namespace: &ns,
        };
        let (rev, comps) = ops::values(&kc, instance, args.revision).await?;
        println!(
            "# package {} {} revision {}",
            rev.package, rev.version, rev.revision
        );
        for (name, eff) in comps {
            if args.component.as_ref().is_some_and(|c| *c != name) {
                continue;
            }
            if args.explain {
                print!("{}", render_explain(&name, &eff));
            } else {
                println!("{name}:");
                for line in values_yaml(&eff.values).lines() {
                    println!("  {line}");
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `kubepkg package …`.
pub fn run(cmd: PackageCommand) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        match cmd {
            PackageCommand::Status(a) => {
                let kc = connect(&a.cluster, Duration::from_secs(60), stderr_sink()).await?;
                let ns = kc.kube.namespace.clone();
                let (rev, states) = ops::status(
                    &kc,
                    Instance {
                        name: &a.name,
                        namespace: &ns,
                    },
                )
                .await?;
                if a.output == "json" {
                    let v = serde_json::json!({"revision": rev, "components": states});
                    println!("{}", serde_json::to_string_pretty(&v)?);
                } else {
                    print!("{}", status_text(&rev, &states));
                }
                Ok(ExitCode::SUCCESS)
            }
            PackageCommand::History(a) => {
                let kc = connect(&a.cluster, Duration::from_secs(60), stderr_sink()).await?;
                let ns = kc.kube.namespace.clone();
                let h = ops::history(
                    &kc,
                    Instance {
                        name: &a.name,
                        namespace: &ns,
                    },
                )
                .await?;
                if a.output == "json" {
                    println!("{}", serde_json::to_string_pretty(&h.revisions)?);
                } else {
                    print!("{}", history_text(&h));
                }
                Ok(ExitCode::SUCCESS)
            }
            PackageCommand::Rollback(a) => {
                let timeout = releases::parse_duration(&a.timeout)?;
                let mut kc = connect(&a.cluster, timeout, stderr_sink()).await?;
                let ns = kc.kube.namespace.clone();
                let instance = Instance {
                    name: &a.name,
                    namespace: &ns,
                };
                let outcome =
                    ops::rollback(&mut kc, instance, a.revision, a.force, timeout).await?;
                print!("{}", outcome_text(&outcome));
                Ok(code(outcome.reason.exit_code()))
            }
            PackageCommand::Uninstall(a) => {
                let timeout = releases::parse_duration(&a.timeout)?;
                let mut kc = connect(&a.cluster, timeout, stderr_sink()).await?;
                let ns = kc.kube.namespace.clone();
                let instance = Instance {
                    name: &a.name,
                    namespace: &ns,
                };
                ops::uninstall(&mut kc, instance, a.keep_history, timeout).await?;
                println!("package {} uninstalled", a.name);
                Ok(ExitCode::SUCCESS)
            }
            PackageCommand::List(a) => {
                let kc = connect(&a.cluster, Duration::from_secs(60), stderr_sink()).await?;
                let ns = kc.kube.namespace.clone();
                let all = kc
                    .store
                    .list_latest(if a.all_namespaces { None } else { Some(&ns) })
                    .await?;
                if a.output == "json" {
                    println!("{}", serde_json::to_string_pretty(&all)?);
                } else {
                    print!("{}", kubepkg_package::report::list_text(&all));
                }
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}
