//! `kubepkg controller`: runs `kubepkg_controller` with the flags resolved into its config,
//! logging to standard error as text or JSON.

use std::net::SocketAddr;

use anyhow::{Context, Result};

use crate::cli::ControllerArgs;
use crate::exit::Exit;
use crate::settings::Settings;

/// `:8080` → all interfaces, port 8080; `0` → off.
fn address(flag: &str, text: &str) -> Result<Option<SocketAddr>> {
    if text == "0" {
        return Ok(None);
    }
    let full = if text.starts_with(':') {
        format!("0.0.0.0{text}")
    } else {
        text.to_string()
    };
    full.parse()
        .map(Some)
        .with_context(|| format!("{flag} {text:?}: expected HOST:PORT, :PORT or 0"))
}

pub async fn run(args: ControllerArgs, settings: &Settings) -> Result<Exit> {
    let metrics_address = address("--metrics-bind-address", &args.metrics_address)?;
    let probe_address = address("--health-probe-bind-address", &args.probe_address)?;
    let dashboard_address = address("--dashboard-bind-address", &args.dashboard_address)?;
    // `KUBEPKG_LOG` takes tracing's filter directives (`debug`, `info,kube_runtime=debug`; a target is matched as a prefix).
    let directives = std::env::var("KUBEPKG_LOG")
        .unwrap_or_else(|_| "info,kube_client=warn,kube_runtime=warn".into());
    let filter = tracing_subscriber::EnvFilter::try_new(&directives)
        .with_context(|| format!("KUBEPKG_LOG={directives:?}: not a log filter"))?;
    {
        use tracing_subscriber::Layer as _;
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        let log = tracing_subscriber::fmt::layer()
            // Colour as decided at start-up (`crate::terminal`: NO_COLOR, --no-color, a terminal).
            .with_ansi(settings.terminal.stderr.is_colour())
            .with_writer(std::io::stderr);
        let log = if args.log_format == "json" {
            log.json().with_filter(filter).boxed()
        } else {
            log.with_filter(filter).boxed()
        };
        // `--debug`: every request too, whatever `KUBEPKG_LOG` filters (crate::debug).
        let trail = settings.debug.then(crate::debug::layer);
        tracing_subscriber::registry().with(log).with(trail).init();
    }
    let config = kubepkg_controller::Config {
        namespaces: args.watch_namespaces,
        label_selector: args.watch_label_selector.filter(|s| !s.trim().is_empty()),
        concurrency: args.concurrency.max(1),
        metrics_address,
        probe_address,
        leader_elect: args.leader_elect,
        leader_election_namespace: args
            .leader_election_namespace
            .or_else(|| std::env::var("POD_NAMESPACE").ok())
            .unwrap_or_else(|| "kubepkg-system".into()),
        default_timeout: args.timeout,
        default_interval: args.interval,
        default_service_account: args.default_service_account.filter(|n| !n.is_empty()),
        no_cross_namespace_refs: args.no_cross_namespace_refs,
        ..Default::default()
    };
    let cluster = settings.connect().await?;
    if let Some(address) = dashboard_address {
        // One watched namespace is the dashboard's; otherwise all, each user seeing theirs.
        let scope = match config.namespaces.as_slice() {
            [one] => kubepkg_dashboard::Scope::Namespace(one.clone()),
            _ => kubepkg_dashboard::Scope::All,
        };
        let dashboard = kubepkg_dashboard::Dashboard::for_users(cluster.clone(), scope)
            .with_planner(super::spec_plan::dashboard_planner());
        let serving = kubepkg_dashboard::serve(dashboard, address).await?;
        tracing::info!(bound = %serving.address, "serving the dashboard");
        tokio::spawn(serving.wait());
    }
    kubepkg_controller::run(cluster, config).await?;
    Ok(Exit::Succeeded)
}
