//! `kubepkg dashboard`: serves `kubepkg_dashboard` on this machine with the user's kubeconfig,
//! context, namespace and identity (the settings every cluster verb connects with), prints the
//! URL, optionally opens it in a browser, and runs until interrupted.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::Result;
use kubepkg_dashboard::{Dashboard, Scope};

use crate::cli::DashboardArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: DashboardArgs, settings: &Settings) -> Result<Exit> {
    let cluster = settings.connect().await?;
    let scope = if args.all_namespaces {
        Scope::All
    } else {
        Scope::Namespace(cluster.namespace.clone())
    };
    let shown = match &scope {
        Scope::Namespace(n) => format!("namespace {n}"),
        Scope::All => "all namespaces".to_string(),
    };
    let serving = kubepkg_dashboard::serve(
        Dashboard::new(cluster, scope).with_planner(super::spec_plan::dashboard_planner()),
        SocketAddr::new(args.address, args.port),
    )
    .await?;
    let url = match serving.address {
        SocketAddr::V6(a) => format!("http://[{}]:{}/", a.ip(), a.port()),
        SocketAddr::V4(a) => format!("http://{a}/"),
    };
    println!("kubepkg dashboard of {shown}: {url} (Ctrl-C to stop)");
    let _ = std::io::stdout().flush();
    if args.open {
        open(&url);
    }
    tokio::select! {
        () = serving.wait() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(Exit::Succeeded)
}

/// Opens `url` with `$BROWSER`, else the desktop's opener; says so when there is none.
fn open(url: &str) {
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".to_string()
            } else {
                "xdg-open".to_string()
            }
        });
    let started = std::process::Command::new(&opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        eprintln!("kubepkg dashboard: --open: cannot start {opener} ({e}); open {url} yourself");
    }
}
