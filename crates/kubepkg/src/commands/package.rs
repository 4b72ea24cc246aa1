//! The package verbs: `plan`, `apply`, `values`, the package meaning of the bare verbs
//! `status|history|rollback|uninstall` and `list --packages` ([`resolve`] decides which meaning
//! NAME takes), and their `package …` aliases. Thin: read flags, load the package, call
//! `kubepkg_engine::ops`, print.
//!
//! Exit codes: [`crate::exit::Exit`], from the outcome of a run or the kind of error.

use std::path::Path;
use std::time::Duration;

use crate::present::plan::render_styled;
use crate::present::report::{history_text, list_text, revision_text, status_text};
use crate::scratch::Scratch;
use anyhow::{Context, Result};
use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_engine::store::RevisionStore;
use kubepkg_engine::{Backend, BackendConfig, ChartRepository};
use kubepkg_engine::{Instance, KubeCluster, ops};
use kubepkg_model::Backend as Kind;
use kubepkg_model::Package;
use kubepkg_model::values::{UserValues, ValuesError, render_explain, values_yaml};
use kubepkg_package::revision_values::dropped_values_notice as dropped_values;
use kubepkg_progress::{Event, Message, Sink};

use super::print_structured;
use crate::cli::{
    ApplyArgs, BackendArgs, PackageCommand, PackageInputArgs, PackageSourceArgs, PackageValuesArgs,
    PackageValuesFlags, PlanArgs, TargetArgs,
};
use crate::error::CliError;
use crate::exit::Exit;
use crate::format::Format;
use crate::progress::Printer;
use crate::settings::Settings;

/// A loaded package and the scratch directory an archive was extracted into.
pub(super) struct Loaded {
    pub(super) package: Package,
    /// Removed when the package is dropped.
    _scratch: Scratch,
}

/// Loads the package `path` names; an `oci://` reference is first pulled into the cache
/// (`package_oci::locate`) and its resolved tag and digest kept as the package's source; a
/// `git+…` source is fetched into the cache ([`kubepkg_source::package::fetch_git`], with
/// `--username`/`--password`) and its branch or tag and commit kept so.
pub(super) async fn load(
    path: &Path,
    oci: &PackageSourceArgs,
    settings: &Settings,
) -> Result<Loaded, CliError> {
    if let Some(text) = path.to_str().filter(|p| kubepkg_git::GitSource::is_git(p)) {
        return load_git(text, oci, settings).await;
    }
    let reference = path.to_str().filter(|p| kubepkg_oci::reference::is_oci(p));
    let Some(reference) = reference else {
        if !oci.verify.verify_keys.is_empty() {
            return Err(kubepkg_source::SourceError::VerifyNeedsOci {
                reference: path.display().to_string(),
            }
            .into());
        }
        return load_local(path, &oci.access.options(), settings).await;
    };
    let located = super::package_oci::locate(
        reference,
        oci.version.as_deref(),
        &oci.access,
        &oci.verify,
        settings,
    )
    .await?;
    let mut loaded = load_local(&located.path, &oci.access.options(), settings).await?;
    let resolved = kubepkg_oci::Reference::parse(&located.origin.reference)
        .map_err(|e| CliError::Failed(e.into()))?;
    loaded.package.source = Some(kubepkg_model::manifest::PackageSource {
        reference: resolved.repository_url(),
        tag: resolved.tag.clone().unwrap_or_default(),
        digest: located.origin.digest.clone().unwrap_or_default(),
    });
    Ok(loaded)
}

/// A `git+…` package: its ref resolved, its directory fetched into the cache, then loaded.
async fn load_git(
    text: &str,
    oci: &PackageSourceArgs,
    settings: &Settings,
) -> Result<Loaded, CliError> {
    let refuse = |flag: &str| {
        Err(CliError::Failed(anyhow::anyhow!(
            "{flag} is for oci:// packages; a Git source takes its ref from the URL (?ref=, ?branch=, ?tag=, ?semver=, ?commit=)"
        )))
    };
    if oci.version.is_some() {
        return refuse("--version");
    }
    if !oci.verify.verify_keys.is_empty() {
        return refuse("--verify-key");
    }
    let source = kubepkg_git::GitSource::parse(text).map_err(kubepkg_source::SourceError::from)?;
    let auth = match (&oci.access.username, &oci.access.password) {
        (Some(username), password) => kubepkg_git::Auth::Basic {
            username: username.clone(),
            password: password.clone().unwrap_or_default(),
        },
        (None, Some(_)) => {
            return Err(CliError::Failed(anyhow::anyhow!(
                "--password needs --username"
            )));
        }
        (None, None) => kubepkg_git::Auth::None,
    };
    let checkout =
        kubepkg_source::package::fetch_git(&source, auth, &oci.access.options(), &settings.paths)
            .await?;
    let scratch = scratch_dir()?;
    match kubepkg_source::package::load_checkout(
        &source,
        &checkout,
        scratch.path(),
        &oci.access.options(),
        &settings.paths,
    )
    .await
    {
        Ok(package) => Ok(Loaded {
            package,
            _scratch: scratch,
        }),
        Err(e) => Err(e.into()),
    }
}

/// A new scratch directory ([`Scratch`]: removed on drop, and by a later kubepkg if this process
/// is killed).
pub(super) fn scratch_dir() -> Result<Scratch, CliError> {
    Ok(Scratch::new().with_context(|| {
        format!(
            "creating a scratch directory in {}",
            std::env::temp_dir().display()
        )
    })?)
}

/// The CLI's side of the one package loader ([`kubepkg_source::package::load`], the
/// controller's too): a scratch directory for an archive, Helm's paths and flags.
async fn load_local(
    path: &Path,
    options: &kubepkg_source::SourceOptions,
    settings: &Settings,
) -> Result<Loaded, CliError> {
    let scratch = scratch_dir()?;
    match kubepkg_source::package::load(path, scratch.path(), options, &settings.paths).await {
        Ok(package) => Ok(Loaded {
            package,
            _scratch: scratch,
        }),
        Err(e) => Err(e.into()),
    }
}

/// `--post-renderer`: the plugin post-renders every component (hooks included), after the
/// component's own post-renderers; the one render path applies them.
fn post_render_all(
    package: &mut Package,
    flags: &crate::cli::PostRendererArgs,
    settings: &Settings,
) -> Result<(), CliError> {
    let extra = flags
        .resolve(&settings.paths.plugins)
        .map_err(CliError::Failed)?;
    if extra.is_empty() {
        return Ok(());
    }
    for c in &mut package.components {
        c.post_renderers = c.post_renderers.then(&extra);
    }
    Ok(())
}

/// Each values file of `files`, in order, added with `add` (`-f`, `--values-once`).
fn add_files(
    u: &mut UserValues,
    files: &[String],
    add: fn(&mut UserValues, &str, &str) -> Result<(), ValuesError>,
) -> Result<()> {
    for f in files {
        // The one reader of values files (size cap, Helm's refusal of invalid UTF-8).
        let text = kubepkg_chart::values::read_values_text(f)?;
        add(u, f, &text)?;
    }
    Ok(())
}

/// Each of `lines`, in order, added with `add` (`--set` and its kin).
fn add_lines(
    u: &mut UserValues,
    lines: &[String],
    add: fn(&mut UserValues, &str) -> Result<(), ValuesError>,
) -> Result<()> {
    for line in lines {
        add(u, line)?;
    }
    Ok(())
}

pub(super) fn user_values(flags: &PackageValuesFlags) -> Result<UserValues> {
    let mut u = UserValues::new();
    add_files(&mut u, &flags.values, UserValues::add_file)?;
    add_lines(&mut u, &flags.set, UserValues::add_set)?;
    add_lines(&mut u, &flags.set_string, UserValues::add_set_string)?;
    add_lines(&mut u, &flags.set_json, UserValues::add_set_json)?;
    // Helm's readFile: `-` is standard input, anything else a local file. Package values are
    // recorded as JSON text in the revision, which holds no invalid UTF-8: such a file is
    // refused (Helm would keep the raw bytes; replacing them would change the value silently).
    let read = |path: &str| -> std::result::Result<String, String> {
        let bytes = kubepkg_chart::values::read_values_file(path).map_err(|e| e.to_string())?;
        String::from_utf8(bytes).map_err(|e| {
            format!(
                "{path} is not UTF-8 text (invalid byte at offset {}): package values are kept as text; encode binary content (e.g. base64) and decode it in the template with b64dec",
                e.utf8_error().valid_up_to()
            )
        })
    };
    for s in &flags.set_file {
        u.add_set_file(s, &read)?;
    }
    add_files(&mut u, &flags.values_once, UserValues::add_file_once)?;
    add_lines(&mut u, &flags.set_once, UserValues::add_set_once)?;
    add_lines(&mut u, &flags.set_json_once, UserValues::add_set_json_once)?;
    Ok(u)
}

/// Says (as progress) which values of the deployed revision this apply does not keep (never
/// silently: Helm's upgrade reuses or drops them without a word).
async fn warn_dropped_values(kc: &KubeCluster, instance: Instance<'_>, user: &UserValues) {
    if let Ok(h) = kc.store.history(instance.name, instance.namespace).await
        && let Some(d) = h.deployed()
        && let Some(notice) = dropped_values(d, user)
    {
        kc.report(&Event::message(None, Message::ValuesNotKept { notice }));
    }
}

async fn connect(settings: &Settings, timeout: Duration, sink: Sink) -> Result<KubeCluster> {
    let kube = settings.connect().await?;
    let caps: ClusterCapabilities = ops::capabilities(&kube).await;
    let mut kc = KubeCluster::with_sink(kube, caps, timeout, sink);
    kc.wait_lock = settings.wait_lock;
    Ok(kc)
}

/// The plan against the cluster (`plan --cluster`, `apply --dry-run`), with where live
/// objects drifted from the deployed revision (a drift check that cannot run is a warning).
pub(super) async fn cluster_plan(
    kc: &KubeCluster,
    package: &kubepkg_model::Package,
    instance: Instance<'_>,
    user: &UserValues,
) -> Result<kubepkg_package::plan::Plan, CliError> {
    let mut plan = ops::prepare(kc, package, instance, user).await?.plan;
    match ops::drift(kc, instance).await {
        Ok(drift) => plan.drift = drift,
        Err(e) => plan.warnings.push(format!(
            "cannot compare the live objects with the deployed revision: {e}"
        )),
    }
    Ok(plan)
}

/// `--backend flux|argocd`: the backend pushing to `--chart-repository` with the registry
/// flags; neither for the helm backend. Each flag is refused where its backend is not selected.
fn backend(
    args: &BackendArgs,
    oci: &PackageSourceArgs,
    settings: &Settings,
) -> Result<Backend, CliError> {
    let refuse = |m: String| Err(CliError::Failed(anyhow::anyhow!(m)));
    if args.backend != Kind::Argocd {
        if let Some(n) = &args.argocd_namespace {
            return refuse(format!(
                "--argocd-namespace {n}: only --backend argocd makes Applications"
            ));
        }
        if let Some(p) = &args.argocd_project {
            return refuse(format!(
                "--argocd-project {p}: only --backend argocd makes Applications"
            ));
        }
    }
    let Some(puller) = args.backend.chart_puller() else {
        if let Some(r) = &args.chart_repository {
            return refuse(format!(
                "--chart-repository {r}: only --backend flux or argocd pushes charts to a repository"
            ));
        }
        return Ok(Backend::helm());
    };
    let Some(repository) = args.chart_repository.clone() else {
        return refuse(format!(
            "--backend {} needs --chart-repository oci://HOST/PATH: the registry each component's chart is pushed to and {puller} pulls it from",
            args.backend
        ));
    };
    let client = kubepkg_source::oci::client(&oci.access.options(), &settings.paths)
        .map_err(|e| CliError::Failed(e.into()))?;
    Ok(Backend::configure(BackendConfig {
        kind: args.backend,
        chart_repository: Some(ChartRepository {
            url: repository,
            insecure: oci.access.plain_http,
            secret_ref: None,
            client,
        }),
        argocd_namespace: args.argocd_namespace.clone(),
        argocd_project: args.argocd_project.clone(),
        // The CLI's identity (or its --kube-as-user) applies; helm-controller acts as its own.
        service_account: None,
    }))
}

/// The backend objects of a plan (`--backend flux|argocd`), against the live ones when
/// connected.
async fn add_backend_objects(
    plan: &mut kubepkg_package::plan::Plan,
    backend: &Backend,
    kc: Option<&KubeCluster>,
    package: &Package,
    user: &UserValues,
    timeout: Duration,
) -> Result<(), CliError> {
    let client = kc.map(|k| &k.kube.client);
    backend
        .plan(client, package, user, plan, timeout)
        .await
        .map_err(kubepkg_engine::EngineError::from)?;
    Ok(())
}

/// What `plan` and `apply` start from: the package loaded and post-rendered, the user's values,
/// the backend configuration.
async fn prepare(
    input: &PackageInputArgs,
    backend_args: &BackendArgs,
    settings: &Settings,
) -> Result<(Loaded, UserValues, Backend), CliError> {
    let mut loaded = load(&input.package, &input.oci, settings).await?;
    post_render_all(&mut loaded.package, &input.post_render, settings)?;
    let user = user_values(&input.values)?;
    let backend = backend(backend_args, &input.oci, settings)?;
    Ok((loaded, user, backend))
}

/// `kubepkg plan NAME PACKAGE`.
pub async fn plan(args: PlanArgs, settings: &Settings) -> Result<Exit, CliError> {
    let (loaded, user, backend) = prepare(&args.input, &args.backend, settings).await?;
    let timeout = args.timeout;
    let mut plan = if args.with_cluster {
        async {
            let kc = connect(settings, timeout, Printer::text().sink()).await?;
            let ns = kc.kube.namespace.clone();
            let instance = Instance {
                name: &args.input.name,
                namespace: &ns,
            };
            warn_dropped_values(&kc, instance, &user).await;
            let mut plan = cluster_plan(&kc, &loaded.package, instance, &user).await?;
            add_backend_objects(
                &mut plan,
                &backend,
                Some(&kc),
                &loaded.package,
                &user,
                timeout,
            )
            .await?;
            Ok::<_, CliError>(plan)
        }
        .await?
    } else {
        let ns = settings.offline_namespace();
        let instance = Instance {
            name: &args.input.name,
            namespace: &ns,
        };
        let mut plan = ops::plan_offline(&loaded.package, instance, &user)?;
        add_backend_objects(&mut plan, &backend, None, &loaded.package, &user, timeout).await?;
        plan
    };
    if args.show_secrets {
        plan.reveal_secrets();
    }
    if args.output == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&plan).map_err(anyhow::Error::from)?
        );
    } else {
        let palette = settings.terminal.stdout;
        print!("{}", render_styled(&plan, !args.no_diff, palette));
    }
    Ok(Exit::Succeeded)
}

/// `kubepkg apply NAME PACKAGE`.
pub async fn apply(args: ApplyArgs, settings: &Settings) -> Result<Exit, CliError> {
    let (loaded, user, backend) = prepare(&args.input, &args.backend, settings).await?;
    let timeout = args.timeout;
    let printer = Printer::new(args.output, args.progress.progress, &settings.terminal);
    let mut kc = connect(settings, timeout, printer.sink()).await?;
    let shown = backend.clone();
    kc.backend = backend;
    if let Some(t) = args.requirements_timeout {
        kc.requirements_timeout = t;
    }
    let ns = kc.kube.namespace.clone();
    let instance = Instance {
        name: &args.input.name,
        namespace: &ns,
    };
    if let Some(object) = ops::managing_object(&kc, instance).await? {
        if !args.force {
            return Err(kubepkg_engine::EngineError::Managed {
                name: args.input.name.clone(),
                namespace: ns.clone(),
                object,
            }
            .into());
        }
        if !args.dry_run {
            ops::suspend_object(&kc, instance).await?;
            kc.report(&Event::message(
                None,
                Message::PackageObjectSuspended { object },
            ));
        }
    }
    warn_dropped_values(&kc, instance, &user).await;
    if args.dry_run {
        let mut plan = cluster_plan(&kc, &loaded.package, instance, &user).await?;
        add_backend_objects(
            &mut plan,
            &shown,
            Some(&kc),
            &loaded.package,
            &user,
            timeout,
        )
        .await?;
        if args.show_secrets {
            plan.reveal_secrets();
        }
        if printer.is_json() {
            println!(
                "{}",
                serde_json::to_string(&plan).map_err(anyhow::Error::from)?
            );
        } else {
            printer.finish(false);
            print!("{}", render_styled(&plan, true, settings.terminal.stdout));
        }
        return Ok(Exit::Succeeded);
    }
    let options = ops::ApplyOptions {
        timeout,
        allow_downgrade: args.allow_downgrade,
        allow_unsafe_crd_changes: args.allow_unsafe_crd_changes,
    };
    let (outcome, _plan) = ops::apply(&mut kc, &loaded.package, instance, &user, options).await?;
    Ok(printer.outcome(&outcome)?)
}

/// `kubepkg values NAME`.
pub async fn values(args: PackageValuesArgs, settings: &Settings) -> Result<Exit> {
    let kc = connect(settings, Duration::from_secs(60), Printer::text().sink()).await?;
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
    Ok(Exit::Succeeded)
}

/// `kubepkg package …`: always the package meaning of NAME.
pub async fn run(cmd: PackageCommand, settings: &Settings) -> Result<Exit> {
    let cmd = match cmd {
        // Offline: no cluster connection.
        PackageCommand::Lock(a) => return lock(&a.package, &a.access, settings).await,
        PackageCommand::Push(a) => return super::package_oci::push(*a, settings).await,
        PackageCommand::Pull(a) => return super::package_oci::pull(*a, settings).await,
        PackageCommand::Pack(a) => return super::package_pack::run(*a),
        PackageCommand::Save(a) => return super::package_archive::save(*a, settings).await,
        PackageCommand::Load(a) => return super::package_archive::load(*a, settings).await,
        PackageCommand::Status(a) => Online::Status(a),
        PackageCommand::History(a) => Online::History(a),
        PackageCommand::Rollback(a) => Online::Rollback(a),
        PackageCommand::Uninstall(a) => Online::Uninstall(a),
        PackageCommand::List(a) => Online::List(a),
    };
    let kube = settings.connect().await?;
    match cmd {
        Online::Status(a) => status(&kube, &a.name, a.revision, a.output).await,
        Online::History(a) => history(&kube, &a.name, a.output).await,
        Online::Rollback(a) => {
            let printer = Printer::new(a.output, a.progress.progress, &settings.terminal);
            rollback(&kube, &a.name, a.revision, a.force, a.timeout, &printer).await
        }
        Online::Uninstall(a) => {
            let printer = Printer::new(a.output, a.progress.progress, &settings.terminal);
            uninstall(&kube, &a.name, a.keep_history, a.timeout, &printer).await
        }
        Online::List(a) => list(&kube, a.all_namespaces, a.output).await,
    }
}

/// The `package` verbs that talk to the cluster.
enum Online {
    Status(crate::cli::PackageQueryArgs),
    History(crate::cli::PackageQueryArgs),
    Rollback(crate::cli::PackageRollbackArgs),
    Uninstall(crate::cli::PackageUninstallArgs),
    List(crate::cli::PackageListArgs),
}

/// `kubepkg package lock [PACKAGE]`: writes `kubepkg.lock` next to `kubepkg.yaml`.
async fn lock(
    dir: &Path,
    access: &crate::cli::RegistryAccessArgs,
    settings: &Settings,
) -> Result<Exit> {
    let package = kubepkg_model::source::load_dir(dir)?;
    let lock = kubepkg_source::package::lock(&package, &access.options(), &settings.paths).await?;
    lock.write(&package.root)?;
    for (name, c) in &lock.components {
        println!(
            "{name}: {} {} ({}) from {}",
            c.name, c.version, c.digest, c.repository
        );
    }
    Ok(Exit::Succeeded)
}

/// Whether NAME means a package for a bare verb (`status`, `history`, `rollback`,
/// `uninstall`): `--release` says no, `--package` says yes (and fails when there is no such
/// package), otherwise yes exactly when the namespace holds revision records of a package NAME.
pub async fn resolve(kube: &kubepkg_kube::Cluster, name: &str, target: TargetArgs) -> Result<bool> {
    if target.release {
        return Ok(false);
    }
    let found = !RevisionStore::new(kube.client.clone())
        .history(name, &kube.namespace)
        .await?
        .revisions
        .is_empty();
    if !found && let Some(t) = ops::remote_target(kube, name).await {
        anyhow::bail!(
            "package {name:?} is applied by the kubepkg controller in another cluster, {} (Package {}/{name}, kubeconfig Secret {}): its revisions and components are there; run this against that cluster (--kubeconfig or --kube-context)",
            t.server,
            kube.namespace,
            t.kube_config
        );
    }
    if target.package && !found {
        anyhow::bail!(
            "package {name:?} not found in namespace {:?} (no package revision records); \
             without --package, {name:?} is taken as a Helm release",
            kube.namespace
        );
    }
    Ok(found)
}

/// Writes `v` in the requested format: json (one line), yaml, or `text` when table/text.
fn cluster(kube: &kubepkg_kube::Cluster, timeout: Duration, sink: Sink) -> KubeCluster {
    KubeCluster::with_sink(kube.clone(), ClusterCapabilities::default(), timeout, sink)
}

fn instance<'a>(name: &'a str, kube: &'a kubepkg_kube::Cluster) -> Instance<'a> {
    Instance {
        name,
        namespace: &kube.namespace,
    }
}

/// `kubepkg status NAME` of a package: the latest revision and each component's live state.
pub async fn status(
    kube: &kubepkg_kube::Cluster,
    name: &str,
    revision: Option<u64>,
    output: Format,
) -> Result<Exit> {
    let kc = cluster(kube, Duration::from_secs(60), Printer::text().sink());
    if let Some(n) = revision {
        let h = ops::history(&kc, instance(name, kube)).await?;
        let rev = h.get(n).cloned().ok_or_else(|| {
            anyhow::anyhow!("package {name} has no revision {n}; see `kubepkg history {name}`")
        })?;
        let v = serde_json::json!({"revision": rev});
        print_structured(v, output, || revision_text(&rev))?;
        return Ok(Exit::Succeeded);
    }
    let (rev, states) = ops::status(&kc, instance(name, kube)).await?;
    let v = serde_json::json!({"revision": rev, "components": states});
    print_structured(v, output, || status_text(&rev, &states))?;
    Ok(Exit::Succeeded)
}

/// `kubepkg history NAME` of a package, oldest first.
pub async fn history(kube: &kubepkg_kube::Cluster, name: &str, output: Format) -> Result<Exit> {
    let kc = cluster(kube, Duration::from_secs(60), Printer::text().sink());
    let h = ops::history(&kc, instance(name, kube)).await?;
    print_structured(serde_json::to_value(&h.revisions)?, output, || {
        history_text(&h)
    })?;
    Ok(Exit::Succeeded)
}

/// `kubepkg list --packages`: the latest revision of each package.
pub async fn list(
    kube: &kubepkg_kube::Cluster,
    all_namespaces: bool,
    output: Format,
) -> Result<Exit> {
    let kc = cluster(kube, Duration::from_secs(60), Printer::text().sink());
    let all = kc
        .store
        .list_latest(if all_namespaces {
            None
        } else {
            Some(&kube.namespace)
        })
        .await?;
    print_structured(serde_json::to_value(&all)?, output, || list_text(&all))?;
    Ok(Exit::Succeeded)
}

/// `kubepkg rollback NAME [REVISION]` of a package.
pub async fn rollback(
    kube: &kubepkg_kube::Cluster,
    name: &str,
    revision: Option<u64>,
    force: bool,
    timeout: Duration,
    printer: &Printer,
) -> Result<Exit> {
    let caps = ops::capabilities(kube).await;
    let mut kc = KubeCluster::with_sink(kube.clone(), caps, timeout, printer.sink());
    let outcome = ops::rollback(&mut kc, instance(name, kube), revision, force, timeout).await?;
    printer.outcome(&outcome)
}

/// `kubepkg uninstall NAME` of a package: components in reverse order.
pub async fn uninstall(
    kube: &kubepkg_kube::Cluster,
    name: &str,
    keep_history: bool,
    timeout: Duration,
    printer: &Printer,
) -> Result<Exit> {
    let mut kc = cluster(kube, timeout, printer.sink());
    let done = ops::uninstall(&mut kc, instance(name, kube), keep_history, timeout).await?;
    printer.uninstalled(name, &done, keep_history);
    Ok(Exit::Succeeded)
}
