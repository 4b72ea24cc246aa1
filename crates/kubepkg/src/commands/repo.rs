//! `kubepkg repo add|update|list|remove`, `kubepkg search repo` and `kubepkg dependency
//! update|build|list` (over `kubepkg_dependency`): Helm's chart repository
//! verbs over `kubepkg_repo`, on the same `repositories.yaml` and cache as `helm`, printing what
//! Helm prints (messages on standard output, index warnings on standard error).

use std::io::Read as _;

use anyhow::{Result, bail};
use kubepkg_release::output::{self, Format, table};
use serde_json::json;

use crate::cli::{DependencyCommand, RepoAddArgs, RepoCommand, SearchCommand};
use crate::exit::Exit;
use crate::settings::Settings;

fn paths(settings: &Settings) -> kubepkg_repo::Paths {
    kubepkg_source::repo::repo_paths(&settings.paths)
}

fn limits() -> Result<kubepkg_repo::Limits> {
    Ok(kubepkg_repo::Limits::from_env(|v| std::env::var(v).ok())?)
}

fn warn(skipped: &[kubepkg_repo::Skipped]) {
    for s in skipped {
        eprintln!("{s}");
    }
}

pub async fn run(command: RepoCommand, settings: &Settings) -> Result<Exit> {
    let paths = paths(settings);
    match command {
        RepoCommand::Add(args) => add(*args, &paths).await,
        RepoCommand::Update(args) => {
            let updated =
                kubepkg_repo::update(&paths, &args.names, args.timeout, limits()?).await?;
            println!("Hang tight while we grab the latest from your chart repositories...");
            let mut failed = Vec::new();
            for u in updated {
                match u.result {
                    Ok(skipped) => {
                        warn(&skipped);
                        println!(
                            "...Successfully got an update from the {:?} chart repository",
                            u.name
                        );
                    }
                    Err(e) => {
                        println!(
                            "...Unable to get an update from the {:?} chart repository ({}):\n\t{}",
                            u.name,
                            u.url,
                            kubepkg_engine::error::report(&e)
                        );
                        failed.push(u.url);
                    }
                }
            }
            if !failed.is_empty() {
                return Err(kubepkg_repo::RepoError::UpdateFailed(failed).into());
            }
            println!("Update Complete. ⎈Happy Helming!⎈");
            Ok(Exit::Succeeded)
        }
        RepoCommand::List(args) => {
            let format = args.output.helm();
            let file = kubepkg_repo::RepoFile::load(&paths.repository_config).unwrap_or_default();
            if file.repositories.is_empty() && format == Format::Table {
                eprintln!("no repositories to show");
                return Ok(Exit::Succeeded);
            }
            match format {
                Format::Table => {
                    let mut rows = Vec::new();
                    if !args.no_headers {
                        rows.push(vec!["NAME".to_string(), "URL".to_string()]);
                    }
                    rows.extend(
                        file.repositories
                            .iter()
                            .map(|e| vec![e.name.clone(), e.url.clone()]),
                    );
                    print!("{}", table::uitable(&rows));
                }
                _ => {
                    let list: Vec<_> = file
                        .repositories
                        .iter()
                        .map(|e| json!({"name": e.name, "url": e.url}))
                        .collect();
                    print_structured(format, &serde_json::Value::Array(list))?;
                }
            }
            Ok(Exit::Succeeded)
        }
        RepoCommand::Remove(args) => {
            let file = kubepkg_repo::RepoFile::load(&paths.repository_config);
            if file.map_or(true, |f| f.repositories.is_empty()) {
                return Err(kubepkg_repo::RepoError::NoneConfigured.into());
            }
            for name in &args.names {
                kubepkg_repo::remove(&paths, name)?;
                println!("{name:?} has been removed from your repositories");
            }
            Ok(Exit::Succeeded)
        }
    }
}

async fn add(args: RepoAddArgs, paths: &kubepkg_repo::Paths) -> Result<Exit> {
    let mut password = args.password;
    if !args.username.is_empty() && password.is_empty() {
        if !args.password_stdin {
            bail!(
                "repository {:?}: --username needs --password or --password-stdin (kubepkg does not prompt)",
                args.name
            );
        }
        let mut input = String::new();
        std::io::stdin().read_to_string(&mut input)?;
        password = input
            .strip_suffix('\n')
            .unwrap_or(&input)
            .trim_end_matches('\r')
            .to_string();
    }
    let entry = kubepkg_repo::Entry {
        name: args.name.clone(),
        url: args.url,
        username: args.username,
        password,
        cert_file: args.cert_file,
        key_file: args.key_file,
        ca_file: args.ca_file,
        insecure_skip_tls_verify: args.insecure_skip_tls_verify,
        pass_credentials_all: args.pass_credentials,
    };
    let added = kubepkg_repo::add(paths, entry, args.force_update, args.timeout, limits()?).await?;
    match added {
        kubepkg_repo::Added::Added(skipped) => {
            warn(&skipped);
            println!("{:?} has been added to your repositories", args.name);
        }
        kubepkg_repo::Added::AlreadyThere => {
            println!(
                "{:?} already exists with the same configuration, skipping",
                args.name
            );
        }
    }
    Ok(Exit::Succeeded)
}

fn print_structured(format: Format, v: &serde_json::Value) -> Result<()> {
    match format {
        Format::Yaml => print!("{}", output::yaml(v)?),
        _ => print!("{}", output::json_line(v)),
    }
    Ok(())
}

/// `kubepkg search repo`.
pub fn search(command: SearchCommand, settings: &Settings) -> Result<Exit> {
    let SearchCommand::Repo(args) = command;
    let format = args.output.helm();
    let paths = paths(settings);
    let file = kubepkg_repo::RepoFile::load(&paths.repository_config);
    let repositories = match file {
        Ok(f) if !f.repositories.is_empty() => f.repositories,
        _ => return Err(kubepkg_repo::RepoError::NoneConfigured.into()),
    };
    let mut indexes = Vec::new();
    for entry in repositories {
        match kubepkg_repo::load_cached_index(&paths, &entry.name) {
            Ok(loaded) => {
                warn(&loaded.skipped);
                indexes.push((entry.name, loaded.index));
            }
            Err(e) => eprintln!(
                "level=WARN msg=\"repo is corrupt or missing\" repo={} error={}",
                kubepkg_repo::index::logfmt(&entry.name),
                kubepkg_repo::index::logfmt(&kubepkg_engine::error::report(&e))
            ),
        }
    }
    let query = kubepkg_repo::search::Query {
        keyword: (!args.keyword.is_empty()).then(|| args.keyword.join(" ")),
        regexp: args.regexp,
        versions: args.versions,
        devel: args.devel,
        version: Some(args.version.clone()).filter(|v| !v.is_empty()),
    };
    let hits = kubepkg_repo::search::search(&indexes, &query)?;
    if hits.is_empty() && args.fail_on_no_result {
        bail!("no results found");
    }
    match format {
        Format::Table => {
            if hits.is_empty() {
                println!("No results found");
                return Ok(Exit::Succeeded);
            }
            let mut rows = vec![vec![
                "NAME".to_string(),
                "CHART VERSION".to_string(),
                "APP VERSION".to_string(),
                "DESCRIPTION".to_string(),
            ]];
            for h in &hits {
                let md = &h.chart.metadata;
                rows.push(vec![
                    h.name.clone(),
                    md.version.clone(),
                    md.app_version.clone(),
                    md.description.clone(),
                ]);
            }
            print!("{}", table::uitable_max_width(&rows, args.max_col_width));
        }
        _ => {
            let list: Vec<_> = hits
                .iter()
                .map(|h| {
                    let md = &h.chart.metadata;
                    json!({
                        "name": h.name,
                        "version": md.version,
                        "app_version": md.app_version,
                        "description": md.description,
                    })
                })
                .collect();
            print_structured(format, &serde_json::Value::Array(list))?;
        }
    }
    Ok(Exit::Succeeded)
}

/// Helm's `sourceDateEpochFromEnv`: `SOURCE_DATE_EPOCH` (seconds) when set and not empty.
fn source_date_epoch() -> Result<Option<i64>> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) if !text.is_empty() => {
            let epoch: i64 = text
                .parse()
                .map_err(|e| anyhow::anyhow!("invalid SOURCE_DATE_EPOCH: {e}"))?;
            if epoch < 0 {
                bail!("invalid SOURCE_DATE_EPOCH: must not be negative");
            }
            Ok(Some(epoch))
        }
        _ => Ok(None),
    }
}

/// `kubepkg dependency update|build|list`.
pub async fn dependency(command: DependencyCommand, settings: &Settings) -> Result<Exit> {
    let options = |args: &crate::cli::DependencyArgs| -> Result<kubepkg_dependency::Options> {
        Ok(kubepkg_dependency::Options {
            paths: paths(settings),
            limits: limits()?,
            skip_refresh: args.skip_refresh,
            registry: Some(kubepkg_source::oci::client(
                &args.access.options(),
                &settings.paths,
            )?),
            source_date_epoch: source_date_epoch()?,
        })
    };
    let mut say = |line: String| println!("{line}");
    match command {
        DependencyCommand::Update(args) => {
            kubepkg_dependency::update(&args.chart, &options(&args)?, &mut say).await?
        }
        DependencyCommand::Build(args) => {
            kubepkg_dependency::build(&args.chart, &options(&args)?, &mut say).await?
        }
        DependencyCommand::List(args) => print!("{}", kubepkg_dependency::list(&args.chart)?),
    }
    Ok(Exit::Succeeded)
}
