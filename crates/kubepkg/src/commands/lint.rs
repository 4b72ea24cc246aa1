//! `kubepkg lint PATH...`: each path is a package (a directory with kubepkg.yaml: the package
//! checks, then Helm's chart rules for each component's chart), a chart directory or a chart
//! archive (Helm's chart rules with `helm lint`'s output and exit codes), or neither (one line,
//! exit 1). The rules live in `kubepkg_lint`.

use std::path::Path;

use anyhow::{Result, bail};
use kubepkg_lint::chart::Target;
use kubepkg_lint::report::{Entry, EntryKind, LintReport};
use kubepkg_lint::{LintOptions, lint_path};

use crate::cli::LintArgs;
use crate::exit::Exit;
use crate::format::Format;
use crate::settings::Settings;

pub fn run(args: LintArgs, settings: &Settings) -> Result<Exit> {
    let kube_version = match &args.kube_version {
        None => None,
        Some(v) => Some(
            kubepkg_chart::objects::KubeVersion::parse(v)
                .map_err(|e| anyhow::anyhow!("invalid kube version '{v}': {e}"))?,
        ),
    };
    let opts = LintOptions {
        strict: args.strict,
        namespace: args
            .namespace
            .clone()
            .unwrap_or_else(|| settings.offline_namespace()),
        kube_version,
        skip_schema_validation: args.skip_schema_validation,
    };
    // Refuse what is neither a package nor a chart before linting anything.
    for p in &args.paths {
        if let Target::Neither(_) = Target::of(Path::new(p)) {
            bail!(
                "{p} is neither a package nor a chart: it has no kubepkg.yaml and no Chart.yaml (and is not a .tgz chart archive)"
            );
        }
    }
    let mut paths: Vec<String> = args.paths.clone();
    if args.with_subcharts {
        for p in &args.paths {
            subcharts(&Path::new(p).join("charts"), &mut paths);
        }
    }
    let values = args.values.options();
    let mut report = LintReport {
        entries: Vec::new(),
        strict: args.strict,
        quiet: args.quiet,
    };
    for p in &paths {
        match Target::of(Path::new(p)) {
            Target::Package(dir) => {
                let user = package_values(&args)?;
                let pl = kubepkg_lint::package::lint_package(&dir, Some(&user), &opts);
                report.entries.push(Entry {
                    kind: EntryKind::Package,
                    path: p.clone(),
                    messages: pl.package.messages,
                    error: None,
                });
                for c in pl.charts {
                    report
                        .entries
                        .push(Entry::new(EntryKind::Chart, &c.path, c.result));
                }
            }
            _ => {
                let user = values.merge().map_err(|e| anyhow::anyhow!("{e}"))?;
                report
                    .entries
                    .push(Entry::new(EntryKind::Chart, p, lint_path(p, &user, &opts)));
            }
        }
    }
    let outcome = if args.output == Format::Json {
        report.json()
    } else {
        report.text()
    };
    print!("{}", outcome.stdout);
    match outcome.failure {
        Some(summary) => Err(anyhow::anyhow!(summary)),
        None => Ok(Exit::Succeeded),
    }
}

/// For a package, `-f`/`--set` name a component first (`web.replicas=2`), as `plan` reads
/// them.
/// The values flags as a package reads them (keys start with the component name): the one
/// reader of package values flags, `package::user_values`.
fn package_values(args: &LintArgs) -> Result<kubepkg_model::values::UserValues> {
    let v = &args.values;
    super::package::user_values(&crate::cli::PackageValuesFlags {
        values: v.values.clone(),
        set: v.set.clone(),
        set_string: v.set_string.clone(),
        set_json: v.set_json.clone(),
        set_file: v.set_file.clone(),
        values_once: Vec::new(),
        set_once: Vec::new(),
        set_json_once: Vec::new(),
    })
}

/// `--with-subcharts`: every chart directory and archive under `charts/`, as Helm walks it.
fn subcharts(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let s = path.display().to_string();
        if path.is_dir() {
            if path.join("Chart.yaml").is_file() {
                out.push(s);
            }
            subcharts(&path, out);
        } else if s.ends_with(".tgz") || s.ends_with(".tar.gz") {
            out.push(s);
        }
    }
}
