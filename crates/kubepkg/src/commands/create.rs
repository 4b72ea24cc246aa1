//! `kubepkg create NAME`: a new package directory NAME — `kubepkg.yaml` with one component
//! and its chart under `charts/NAME`, the chart exactly as `helm create` writes it — or, with
//! `--chart`, the bare chart (`helm create NAME`, byte for byte). NAME may be a path whose
//! last element is the name, as in Helm. A directory that exists and is not empty is refused
//! (exit 1); Helm's messages for invalid names.

use std::path::Path;

use anyhow::{Context, Result, bail};
use kubepkg_chart::create;

use crate::cli::CreateArgs;
use crate::exit::Exit;

pub fn run(args: CreateArgs) -> Result<Exit> {
    let target = Path::new(&args.name);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| args.name.clone());
    println!("Creating {}", args.name);
    create::validate_name(&name)?;
    if args.chart {
        create::create(&name, target)?;
        return Ok(Exit::Succeeded);
    }
    if !is_dns_label(&name) {
        bail!(
            "package name {name:?} is not valid: a package name is a DNS-1123 label; use lowercase letters, digits and '-', starting and ending with a letter or digit (at most 63)"
        );
    }
    create::check_target(target)?;
    create::create(&name, &target.join("charts").join(&name))?;
    let manifest = target.join(kubepkg_model::manifest::MANIFEST_FILE);
    std::fs::write(&manifest, package_manifest(&name))
        .with_context(|| format!("writing {}", manifest.display()))?;
    Ok(Exit::Succeeded)
}

fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// The new package's `kubepkg.yaml` (docs/kubepkg-yaml.md).
fn package_manifest(name: &str) -> String {
    format!(
        "# The package {name}: its components, each a Helm chart (docs/kubepkg-yaml.md).\n\
         package:\n  \
           name: {name}\n  \
           version: 0.1.0\n  \
           rollback:\n    \
             safe: true   # this version changes no data: the versions before it may run again\n\
         components:\n\
         - name: {name}\n  \
           path: charts/{name}\n"
    )
}
