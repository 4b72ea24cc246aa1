//! Install, upgrade, roll back, uninstall and test one release on a real cluster, with
//! Helm's lifecycle (statuses, descriptions, what is superseded when), Helm's hooks and
//! Helm's storage, under a per-release Lease so a dead operation never blocks the next.
//!
//! Input is plain data ([`Rendered`]): the chart as stored in the release, the user-supplied
//! values, the rendered manifest, hooks and notes. Rendering happens elsewhere.

pub mod hooks;
pub mod lock;

use std::time::Duration;

use kubepkg_kube::manifest::{self, ManifestObject};
use kubepkg_kube::ownership::Owner;
use kubepkg_kube::{Applier, ApplyOptions, Cluster, KubeError, ObjectRef, wait};
use kubepkg_progress::{Message, PendingObject};
use serde_json::{Map, Value};

use crate::record::{Chart, Hook, HookEvent, Info, Release, Status};
use crate::storage::{Driver, Store};
use lock::ReleaseLock;

/// Errors of release operations.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error(transparent)]
    Store(#[from] crate::Error),
    #[error(transparent)]
    Cluster(#[from] KubeError),
    #[error("invalid manifest: {0}")]
    Manifest(String),
    /// Helm's message for install over an existing release.
    #[error("cannot re-use a name that is still in use")]
    NameInUse { name: String },
    #[error("release: not found")]
    NotFound { name: String },
    #[error("release {name:?} has no revision {revision}")]
    NoRevision { name: String, revision: u64 },
    #[error("release {name}: {message}")]
    InvalidState { name: String, message: String },
    /// Another live kubepkg process holds the release's lease.
    #[error(
        "another operation on release {release:?} is in progress (held by {holder}); retry later, or drop --no-wait-lock to wait for it"
    )]
    Locked { release: String, holder: String },
    /// A hook failed; `log` holds the failed Job/Pod's log when the hook was kept.
    #[error("{event} hook {path} failed: {reason}{}", if log.is_empty() { String::new() } else { format!("\n{log}") })]
    HookFailed {
        event: String,
        path: String,
        reason: String,
        log: String,
    },
    /// The operation failed and the release was recorded as failed.
    #[error("{description}")]
    Failed {
        description: String,
        #[source]
        cause: Box<ActionError>,
    },
}

impl ActionError {
    /// The operation failed (`cause`) and the release was recorded with `description`.
    fn failed(description: String, cause: ActionError) -> Self {
        ActionError::Failed {
            description,
            cause: Box::new(cause),
        }
    }
}

/// A rendered chart ready to become a revision.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub chart: Chart,
    /// User-supplied values (stored as `config`).
    pub config: Map<String, Value>,
    pub manifest: String,
    pub hooks: Vec<Hook>,
    pub notes: String,
}

/// How [`Releases::dry_run`] runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct DryRun<'a> {
    /// An upgrade (else an install).
    pub upgrade: bool,
    /// `upgrade --install`: an install when the release does not exist.
    pub install_if_missing: bool,
    /// `--dry-run=server`: validate against the cluster (else render only).
    pub server: bool,
    /// The chart's `crds/` documents (their kinds are not installed by a dry run).
    pub crds: &'a str,
}

/// Options shared by the operations (Helm's flags).
#[derive(Debug, Clone)]
pub struct Options {
    pub wait: bool,
    pub timeout: Duration,
    /// `--atomic` / `--rollback-on-failure`: undo a failed install/upgrade.
    pub atomic: bool,
    pub take_ownership: bool,
    pub no_hooks: bool,
    /// Wait for a live concurrent operation (false: `--no-wait-lock`).
    pub wait_lock: bool,
    pub description: Option<String>,
    pub max_history: usize,
    pub create_namespace: bool,
    /// Uninstall: keep the records as `uninstalled`.
    pub keep_history: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            wait: false,
            timeout: Duration::from_secs(300),
            atomic: false,
            take_ownership: false,
            no_hooks: false,
            wait_lock: true,
            description: None,
            max_history: crate::storage::DEFAULT_MAX_HISTORY,
            create_namespace: false,
            keep_history: false,
        }
    }
}

impl Options {
    /// `--description`, else the operation's own (`Install complete`, …).
    fn description_or(&self, default: &str) -> String {
        self.description
            .clone()
            .unwrap_or_else(|| default.to_string())
    }
}

/// Release operations in one namespace.
pub struct Releases<'a, D: Driver> {
    pub cluster: &'a Cluster,
    pub store: Store<D>,
    pub namespace: String,
    /// Live progress (what is being done, what is not ready yet and why), as typed messages
    /// about this release; the caller says which component they are about, if any.
    pub progress: Box<dyn Fn(Message) + Send + Sync + 'a>,
}

/// Helm marks a revision superseded keeping its description.
fn supersede(r: &mut Release) {
    r.info.get_or_insert_with(Info::default).status = Status::Superseded;
}

fn now() -> jiff::Timestamp {
    jiff::Timestamp::now()
}

fn crds_of(objects: &[ManifestObject]) -> Vec<&ManifestObject> {
    objects
        .iter()
        .filter(|o| o.id.kind == "CustomResourceDefinition")
        .collect()
}

fn parse_manifest(m: &str) -> Result<Vec<ManifestObject>, ActionError> {
    manifest::parse(m).map_err(|e| ActionError::Manifest(e.to_string()))
}

impl<'a, D: Driver> Releases<'a, D> {
    pub fn new(cluster: &'a Cluster, driver: D, namespace: &str) -> Self {
        Releases {
            cluster,
            store: Store::new(driver),
            namespace: namespace.to_string(),
            progress: Box::new(|_| {}),
        }
    }

    fn applier(&self, name: &str, opts: &Options) -> Applier<'a> {
        Applier::new(
            self.cluster,
            Owner {
                release: name.to_string(),
                namespace: self.namespace.clone(),
            },
            ApplyOptions {
                take_ownership: opts.take_ownership,
                crd_timeout: opts.timeout,
                ..Default::default()
            },
        )
    }

    /// Takes the release's lease, then recovers a revision a dead holder left pending.
    async fn lock(&self, name: &str, opts: &Options) -> Result<ReleaseLock, ActionError> {
        let progress = &self.progress;
        let lock = lock::acquire(
            self.cluster.client.clone(),
            &self.namespace,
            name,
            opts.wait_lock,
            opts.timeout,
            |holder| {
                progress(Message::ReleaseLeaseWait {
                    release: name.to_string(),
                    holder: holder.to_string(),
                })
            },
        )
        .await?;
        // What was read before the Lease was ours may have changed since.
        self.store.driver.forget(name);
        if let Err(e) = self.recover(name).await {
            lock.release().await;
            return Err(e);
        }
        Ok(lock)
    }

    /// Ends a locked operation, on every exit path: a revision it left pending (its last
    /// record write failed even after the client's retries) is marked failed, then the lease
    /// is freed. No `pending-*` record and no lease outlive a process that ends normally.
    async fn unlock<T>(
        &self,
        name: &str,
        lock: ReleaseLock,
        result: Result<T, ActionError>,
    ) -> Result<T, ActionError> {
        if let Err(e) = &result {
            self.settle(name, e).await;
        }
        lock.release().await;
        result
    }

    /// Marks every revision still pending after `error` ended the operation failed: the
    /// lease is held, so no one is working on them (tried a few times: the record is worth
    /// more than a prompt exit).
    async fn settle(&self, name: &str, error: &ActionError) {
        let description = match error {
            ActionError::Failed { description, .. } => description.clone(),
            other => format!("Release {name:?} failed: {other}"),
        };
        let mut rounds = kubepkg_kube::retry::Settle::default();
        while rounds.next().await {
            let history = match self.store.history(name).await {
                Ok(h) => h,
                // No answer at all (twice): the next operation recovers what is pending.
                Err(e) if kubepkg_kube::is_unreachable_api(&e) && rounds.unanswered() => return,
                Err(_) => continue,
            };
            let mut settled = true;
            for mut r in history.into_iter().filter(|r| r.status().is_pending()) {
                r.set_status(Status::Failed, description.clone());
                settled &= self.store.update(&r).await.is_ok();
            }
            if settled {
                return;
            }
        }
    }

    /// Marks a `pending-*` latest revision failed: we hold the lease, so whoever wrote it
    /// is no longer working on it (it died, or was a Helm process that crashed).
    pub async fn recover(&self, name: &str) -> Result<Option<Release>, ActionError> {
        let Some(mut last) = self.store.last(name).await? else {
            return Ok(None);
        };
        let status = last.status();
        if !status.is_pending() {
            return Ok(None);
        }
        let msg = format!(
            "{status} interrupted: the process running it stopped before finishing; marked failed by kubepkg"
        );
        (self.progress)(Message::RecoveringRelease {
            release: name.to_string(),
            revision: last.version,
            description: msg.clone(),
        });
        last.set_status(Status::Failed, msg);
        self.store.update(&last).await?;
        Ok(Some(last))
    }

    async fn ensure_namespace(&self) -> Result<(), ActionError> {
        use k8s_openapi::api::core::v1::Namespace;
        let api: kube::Api<Namespace> = kube::Api::all(self.cluster.client.clone());
        let ns = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}});
        api.patch(
            &self.namespace,
            &kube::api::PatchParams::apply(kubepkg_kube::apply::FIELD_MANAGER),
            &kube::api::Patch::Apply(&ns),
        )
        .await
        .map_err(|e| {
            ActionError::Cluster(KubeError::refused(
                "create namespace",
                self.namespace.clone(),
                e,
            ))
        })?;
        Ok(())
    }

    /// Applies `objects`, prunes what left since `previous`, waits when asked. A first
    /// install (nothing `previous`) checked the ownership of all `objects` before recording
    /// its pending revision; anything else has it checked here.
    async fn deploy(
        &self,
        applier: &Applier<'_>,
        previous: Option<&[ManifestObject]>,
        objects: &[ManifestObject],
        opts: &Options,
    ) -> Result<(), ActionError> {
        let applied = applier.apply_all(objects, previous.is_none()).await?;
        let previous = previous.unwrap_or_default();
        let (deleted, kept) = applier.prune(previous, &applied).await?;
        self.report_each(&deleted, |object| Message::Deleted { object });
        self.report_each(&kept, |object| Message::Kept { object });
        if opts.wait {
            let progress = &self.progress;
            wait::wait_ready(self.cluster, &applied, opts.timeout, |pending| {
                progress(Message::WaitingForObjects {
                    pending: pending
                        .iter()
                        .map(|(id, r)| PendingObject {
                            object: id.to_string(),
                            reason: r.reason.clone(),
                            message: r.message.clone(),
                        })
                        .collect(),
                });
            })
            .await?;
        }
        Ok(())
    }

    /// Records `release` with its outcome: `status` and `description`.
    async fn record(
        &self,
        release: &mut Release,
        status: Status,
        description: String,
    ) -> Result<(), ActionError> {
        release.set_status(status, description);
        self.store.update(release).await?;
        Ok(())
    }

    /// Reports each object of `ids` on the progress line as the message `message` makes of it.
    fn report_each(&self, ids: &[impl std::fmt::Display], message: impl Fn(String) -> Message) {
        for id in ids {
            (self.progress)(message(id.to_string()));
        }
    }

    /// Records `release` deployed, with `description`, and returns it.
    async fn record_deployed(
        &self,
        mut release: Release,
        description: String,
    ) -> Result<Release, ActionError> {
        self.record(&mut release, Status::Deployed, description)
            .await?;
        Ok(release)
    }

    /// Records `release` failed, with `description`, and gives the description back.
    async fn record_failed(
        &self,
        release: &mut Release,
        description: String,
    ) -> Result<String, ActionError> {
        self.record(release, Status::Failed, description.clone())
            .await?;
        Ok(description)
    }

    /// Runs the revision `release` as Helm does for an install, an upgrade and a rollback: the
    /// hooks of the first event of `hooks`, the apply of `objects` (pruning what of `previous`
    /// they no longer hold; `None`: an install, nothing to prune), then the hooks of the second.
    async fn run_revision(
        &self,
        applier: &Applier<'_>,
        release: &mut Release,
        (pre, post): (HookEvent, HookEvent),
        previous: Option<&[ManifestObject]>,
        objects: &[ManifestObject],
        opts: &Options,
    ) -> Result<(), ActionError> {
        self.run_hooks(applier, release, pre, opts).await?;
        self.deploy(applier, previous, objects, opts).await?;
        self.run_hooks(applier, release, post, opts).await
    }

    /// Records that the latest revision of `name` did not become ready, as Helm records an
    /// install, upgrade or rollback whose `--wait` failed: the revision `failed` (`Upgrade
    /// "name" failed: reason`; `Release …` for an install, `Rollback …` for a rollback) and the
    /// revision it superseded `deployed` again, since Helm supersedes only on success. Nothing
    /// changes when the latest revision is not deployed.
    pub async fn fail_unready(
        &self,
        name: &str,
        reason: &str,
        opts: &Options,
    ) -> Result<(), ActionError> {
        let lock = self.lock(name, opts).await?;
        let result = self.fail_unready_locked(name, reason).await;
        self.unlock(name, lock, result).await
    }

    async fn fail_unready_locked(&self, name: &str, reason: &str) -> Result<(), ActionError> {
        let mut history = self.store.history(name).await?;
        let Some(mut unready) = history.pop() else {
            return Ok(());
        };
        if unready.status() != Status::Deployed {
            return Ok(());
        }
        let description = unready.info.as_ref().map_or("", |i| i.description.as_str());
        let (operation, supersedes) = if description.starts_with("Rollback") {
            ("Rollback", true)
        } else if description == "Install complete" {
            ("Release", false)
        } else {
            ("Upgrade", true)
        };
        unready.set_status(
            Status::Failed,
            format!("{operation} {name:?} failed: {reason}"),
        );
        self.store.update(&unready).await?;
        let superseded = history
            .into_iter()
            .rev()
            .find(|r| r.status() == Status::Superseded);
        if let Some(mut previous) = superseded.filter(|_| supersedes) {
            previous.info.get_or_insert_with(Info::default).status = Status::Deployed;
            self.store.update(&previous).await?;
        }
        Ok(())
    }

    /// Marks `current` superseded when it is the deployed revision (Helm keeps its description).
    async fn supersede_if_deployed(&self, mut current: Release) -> Result<(), ActionError> {
        if current.status() == Status::Deployed {
            supersede(&mut current);
            self.store.update(&current).await?;
        }
        Ok(())
    }

    async fn run_hooks(
        &self,
        applier: &Applier<'_>,
        release: &mut Release,
        event: HookEvent,
        opts: &Options,
    ) -> Result<(), ActionError> {
        if opts.no_hooks {
            return Ok(());
        }
        let mut hooks = std::mem::take(&mut release.hooks);
        let r = hooks::run(applier, &mut hooks, event, opts.timeout, &*self.progress).await;
        release.hooks = hooks;
        r
    }

    /// `helm install`.
    pub async fn install(
        &self,
        name: &str,
        rendered: Rendered,
        opts: &Options,
    ) -> Result<Release, ActionError> {
        crate::storage::validate_name(name)?;
        let objects = parse_manifest(&rendered.manifest)?;
        // The release's Lease lives in the namespace: create it first (`--create-namespace`).
        if opts.create_namespace {
            self.ensure_namespace().await?;
        }
        let lock = self.lock(name, opts).await?;
        let result = self.install_locked(name, rendered, &objects, opts).await;
        self.unlock(name, lock, result).await
    }

    async fn install_locked(
        &self,
        name: &str,
        rendered: Rendered,
        objects: &[ManifestObject],
        opts: &Options,
    ) -> Result<Release, ActionError> {
        let history = self.store.history(name).await?;
        let last = history.last();
        if let Some(l) = last
            && l.status() != Status::Uninstalled
        {
            return Err(ActionError::NameInUse {
                name: name.to_string(),
            });
        }
        let revision = last.map(|l| l.version + 1).unwrap_or(1);
        let applier = self.applier(name, opts);
        applier.check_ownership(objects).await?;
        applier.check_crd_upgrades(&crds_of(objects)).await?;
        let mut release = pending_release(
            name,
            &self.namespace,
            revision,
            rendered,
            Status::PendingInstall,
            "Initial install underway".into(),
        );
        self.store.create_with(&release, opts.max_history).await?;
        kubepkg_kube::failpoint::reached("after-pending").await;
        let hooks = (HookEvent::PreInstall, HookEvent::PostInstall);
        let outcome = self
            .run_revision(&applier, &mut release, hooks, None, objects, opts)
            .await;
        match outcome {
            Ok(()) => {
                self.record_deployed(release, opts.description_or("Install complete"))
                    .await
            }
            Err(e) => {
                let failed = format!("Release {name:?} failed: {e}");
                let mut description = self.record_failed(&mut release, failed).await?;
                if opts.atomic {
                    let _ = self
                        .uninstall_locked(
                            name,
                            &Options {
                                keep_history: false,
                                ..opts.clone()
                            },
                        )
                        .await;
                    description = format!(
                        "Release {name:?} failed and has been uninstalled due to atomic being set: {e}"
                    );
                }
                Err(ActionError::failed(description, e))
            }
        }
    }

    /// `helm upgrade` (with `install_if_missing`: `--install`).
    pub async fn upgrade(
        &self,
        name: &str,
        rendered: Rendered,
        opts: &Options,
        install_if_missing: bool,
    ) -> Result<Release, ActionError> {
        crate::storage::validate_name(name)?;
        let objects = parse_manifest(&rendered.manifest)?;
        let lock = self.lock(name, opts).await?;
        let result = async {
            let last = self.store.last(name).await?;
            match last {
                None if install_if_missing => {
                    self.install_locked(name, rendered, &objects, opts).await
                }
                None => Err(ActionError::NotFound {
                    name: name.to_string(),
                }),
                Some(l) if l.status() == Status::Uninstalled && install_if_missing => {
                    self.install_locked(name, rendered, &objects, opts).await
                }
                Some(l) => self.upgrade_locked(name, l, rendered, &objects, opts).await,
            }
        }
        .await;
        self.unlock(name, lock, result).await
    }

    /// `helm upgrade --install` of a manifest rendered under the release's Lease: `render` is
    /// given the last revision, uninstalled or not (read once, under the Lease, so the revision
    /// number and `.Release.IsUpgrade` it renders with are the ones recorded); an install when
    /// there is none or it was uninstalled, else an upgrade. `render` may act before the
    /// release is written (install its CRDs). The outer error is `render`'s (nothing recorded,
    /// the Lease freed); the inner result is the operation's.
    pub async fn install_or_upgrade_rendering<E>(
        &self,
        name: &str,
        opts: &Options,
        render: impl AsyncFnOnce(Option<&Release>) -> Result<Rendered, E>,
    ) -> Result<Result<Release, ActionError>, E> {
        if let Err(e) = crate::storage::validate_name(name) {
            return Ok(Err(e.into()));
        }
        let lock = match self.lock(name, opts).await {
            Ok(lock) => lock,
            Err(e) => return Ok(Err(e)),
        };
        let last = match self.store.last(name).await {
            Ok(last) => last,
            Err(e) => return Ok(self.unlock(name, lock, Err(e.into())).await),
        };
        let rendered = match render(last.as_ref()).await {
            Ok(r) => r,
            Err(e) => {
                lock.release().await;
                return Err(e);
            }
        };
        let result = async {
            let objects = parse_manifest(&rendered.manifest)?;
            match last {
                Some(l) if l.status() != Status::Uninstalled => {
                    self.upgrade_locked(name, l, rendered, &objects, opts).await
                }
                _ => self.install_locked(name, rendered, &objects, opts).await,
            }
        }
        .await;
        Ok(self.unlock(name, lock, result).await)
    }

    async fn upgrade_locked(
        &self,
        name: &str,
        last: Release,
        rendered: Rendered,
        objects: &[ManifestObject],
        opts: &Options,
    ) -> Result<Release, ActionError> {
        if last.status() == Status::Uninstalled {
            return Err(ActionError::InvalidState {
                name: name.to_string(),
                message: "has no deployed releases".into(),
            });
        }
        let current = match self.store.deployed(name).await? {
            Some(d) => d,
            None => last.clone(),
        };
        // What may exist: the deployed revision's objects and those a later failed
        // revision may have created before failing (Helm looks at the deployed one only
        // and so orphans the latter).
        let mut previous_objects = parse_manifest(&current.manifest)?;
        if last.version != current.version {
            previous_objects.extend(parse_manifest(&last.manifest)?);
        }
        let applier = self.applier(name, opts);
        // Objects new to the release must not belong to someone else.
        let new_objects: Vec<ManifestObject> = objects
            .iter()
            .filter(|o| !previous_objects.iter().any(|p| p.id.same_object(&o.id)))
            .cloned()
            .collect();
        applier.check_ownership(&new_objects).await?;
        // Refused CRD upgrades change nothing and record no revision.
        applier.check_crd_upgrades(&crds_of(objects)).await?;
        let mut release = pending_release(
            name,
            &self.namespace,
            last.version + 1,
            rendered,
            Status::PendingUpgrade,
            "Preparing upgrade".into(),
        );
        // The release was first deployed when the current revision says.
        if let Some(info) = &mut release.info {
            info.first_deployed = current.info.as_ref().and_then(|i| i.first_deployed);
        }
        release.labels = last.labels.clone();
        self.store.create_with(&release, opts.max_history).await?;
        kubepkg_kube::failpoint::reached("after-pending").await;
        let hooks = (HookEvent::PreUpgrade, HookEvent::PostUpgrade);
        let previous = Some(previous_objects.as_slice());
        let outcome = self
            .run_revision(&applier, &mut release, hooks, previous, objects, opts)
            .await;
        match outcome {
            Ok(()) => {
                self.supersede_if_deployed(current).await?;
                self.record_deployed(release, opts.description_or("Upgrade complete"))
                    .await
            }
            Err(e) => {
                let failed = format!("Upgrade {name:?} failed: {e}");
                let mut description = self.record_failed(&mut release, failed).await?;
                if opts.atomic {
                    let target = self
                        .store
                        .history(name)
                        .await?
                        .into_iter()
                        .rev()
                        .find(|r| matches!(r.status(), Status::Deployed | Status::Superseded));
                    if let Some(target) = target {
                        let r = self.rollback_locked(name, target.version, opts).await;
                        description = match r {
                            Ok(_) => format!(
                                "Upgrade {name:?} failed and has been rolled back due to atomic being set: {e}"
                            ),
                            Err(re) => format!(
                                "Upgrade {name:?} failed and the rollback failed too: {e}; rollback: {re}"
                            ),
                        };
                    }
                }
                Err(ActionError::failed(description, e))
            }
        }
    }

    /// `helm install/upgrade --dry-run`: the revision an install (`upgrade` false) or an
    /// upgrade (`upgrade` true; with `install_if_missing`, an install when there is no
    /// release) would write, as Helm returns it: status `pending-install`/`pending-upgrade`,
    /// description "Dry run complete" (or `--description`), nothing stored, no hooks run.
    ///
    /// With `server` the cluster checks it too (Helm only renders against the cluster):
    /// ownership of existing objects, CRD upgrade safety, and a server-side dry-run apply
    /// of every object; objects that would be deleted are reported on the progress line.
    pub async fn dry_run(
        &self,
        name: &str,
        rendered: Rendered,
        opts: &Options,
        mode: DryRun<'_>,
    ) -> Result<Release, ActionError> {
        crate::storage::validate_name(name)?;
        let objects = parse_manifest(&rendered.manifest)?;
        let last = self.store.last(name).await?;
        let live = last.as_ref().filter(|l| l.status() != Status::Uninstalled);
        let (status, previous, first_deployed) = match (live, mode.upgrade) {
            (Some(_), false) => {
                return Err(ActionError::NameInUse {
                    name: name.to_string(),
                });
            }
            (Some(l), true) => {
                let current = self
                    .store
                    .deployed(name)
                    .await?
                    .unwrap_or_else(|| l.clone());
                let mut previous = parse_manifest(&current.manifest)?;
                if l.version != current.version {
                    previous.extend(parse_manifest(&l.manifest)?);
                }
                let first = current.info.as_ref().and_then(|i| i.first_deployed);
                (Status::PendingUpgrade, previous, first)
            }
            (None, true) if !mode.install_if_missing => {
                return Err(match last {
                    Some(_) => ActionError::InvalidState {
                        name: name.to_string(),
                        message: "has no deployed releases".into(),
                    },
                    None => ActionError::NotFound {
                        name: name.to_string(),
                    },
                });
            }
            (None, _) => (Status::PendingInstall, Vec::new(), None),
        };
        let revision = last.as_ref().map_or(1, |l| l.version + 1);
        if mode.server {
            let mut applier = self.applier(name, opts);
            applier.options.dry_run = true;
            let crds = parse_manifest(mode.crds)?;
            let report = applier.dry_run_all(&objects, &crds).await?;
            self.report_each(&report.validated, |object| Message::Validated { object });
            for (id, why) in &report.unchecked {
                (self.progress)(Message::NotValidated {
                    object: id.to_string(),
                    why: why.clone(),
                });
            }
            let (gone, kept) = applier.prune(&previous, &report.validated).await?;
            self.report_each(&gone, |object| Message::WouldDelete { object });
            self.report_each(&kept, |object| Message::WouldKeep { object });
        }
        let upgrade_of = match &status {
            Status::PendingUpgrade => live.map(|l| (first_deployed, l.labels.clone())),
            _ => None,
        };
        Ok(dry_run_record(
            name,
            &self.namespace,
            revision,
            rendered,
            upgrade_of,
            opts.description.as_deref(),
        ))
    }

    /// `helm rollback NAME [REVISION]` (0: the revision before the latest).
    pub async fn rollback(
        &self,
        name: &str,
        revision: u64,
        opts: &Options,
    ) -> Result<Release, ActionError> {
        let lock = self.lock(name, opts).await?;
        let result = self.rollback_locked(name, revision, opts).await;
        self.unlock(name, lock, result).await
    }

    async fn rollback_locked(
        &self,
        name: &str,
        revision: u64,
        opts: &Options,
    ) -> Result<Release, ActionError> {
        let current = self
            .store
            .last(name)
            .await?
            .ok_or_else(|| ActionError::NotFound {
                name: name.to_string(),
            })?;
        let target_rev = if revision == 0 {
            current.version.saturating_sub(1)
        } else {
            revision
        };
        if target_rev == 0 {
            return Err(ActionError::InvalidState {
                name: name.to_string(),
                message: "no revision to roll back to".into(),
            });
        }
        let previous = match self.store.get(name, target_rev).await {
            Ok(r) => r,
            Err(crate::Error::NotFound { .. }) => {
                return Err(ActionError::NoRevision {
                    name: name.to_string(),
                    revision: target_rev,
                });
            }
            Err(e) => return Err(e.into()),
        };
        // Objects of the latest revision and of the last deployed one may exist (Helm looks
        // at the latest only and orphans what a failed revision's predecessor created).
        let mut current_objects = parse_manifest(&current.manifest)?;
        if let Some(d) = self.store.deployed(name).await?
            && d.version != current.version
        {
            current_objects.extend(parse_manifest(&d.manifest)?);
        }
        let target_objects = parse_manifest(&previous.manifest)?;
        let applier = self.applier(name, opts);
        let t = now();
        let mut release = Release {
            name: name.to_string(),
            namespace: self.namespace.clone(),
            version: current.version + 1,
            chart: previous.chart.clone(),
            config: previous.config.clone(),
            manifest: previous.manifest.clone(),
            hooks: previous.hooks.clone(),
            apply_method: "ssa".into(),
            info: Some(Info {
                first_deployed: current.info.as_ref().and_then(|i| i.first_deployed),
                last_deployed: Some(t),
                status: Status::PendingRollback,
                description: opts
                    .description
                    .clone()
                    .unwrap_or_else(|| format!("Rollback to {target_rev}")),
                notes: previous
                    .info
                    .as_ref()
                    .map(|i| i.notes.clone())
                    .unwrap_or_default(),
                ..Default::default()
            }),
            labels: previous.labels.clone(),
            ..Default::default()
        };
        self.store.create_with(&release, opts.max_history).await?;
        let hooks = (HookEvent::PreRollback, HookEvent::PostRollback);
        let previous = Some(current_objects.as_slice());
        let outcome = self
            .run_revision(
                &applier,
                &mut release,
                hooks,
                previous,
                &target_objects,
                opts,
            )
            .await;
        match outcome {
            Ok(()) => {
                for mut d in self.store.history(name).await? {
                    if d.status() == Status::Deployed && d.version != release.version {
                        supersede(&mut d);
                        self.store.update(&d).await?;
                    }
                }
                let description = release
                    .info
                    .as_ref()
                    .map(|i| i.description.clone())
                    .unwrap_or_default();
                self.record_deployed(release, description).await
            }
            Err(e) => {
                let failed = format!("Rollback {name:?} failed: {e}");
                self.supersede_if_deployed(current).await?;
                let description = self.record_failed(&mut release, failed).await?;
                Err(ActionError::failed(description, e))
            }
        }
    }

    /// `helm uninstall` (`keep_history`: `--keep-history`).
    pub async fn uninstall(&self, name: &str, opts: &Options) -> Result<Release, ActionError> {
        let lock = self.lock(name, opts).await?;
        let result = self.uninstall_locked(name, opts).await;
        self.unlock(name, lock, result).await
    }

    async fn uninstall_locked(&self, name: &str, opts: &Options) -> Result<Release, ActionError> {
        let history = self.store.history(name).await?;
        let Some(mut release) = history.last().cloned() else {
            return Err(ActionError::NotFound {
                name: name.to_string(),
            });
        };
        if release.status() == Status::Uninstalled {
            if !opts.keep_history {
                for r in &history {
                    self.store.delete(name, r.version).await?;
                }
                return Ok(release);
            }
            return Err(ActionError::InvalidState {
                name: name.to_string(),
                message: "is already deleted".into(),
            });
        }
        let applier = self.applier(name, opts);
        release.set_status(
            Status::Uninstalling,
            "Deletion in progress (or silently ignored)",
        );
        if let Some(info) = release.info.as_mut() {
            info.deleted = Some(now());
        }
        self.run_hooks(&applier, &mut release, HookEvent::PreDelete, opts)
            .await?;
        self.store.update(&release).await?;
        let objects = parse_manifest(&release.manifest)?;
        let refs: Vec<&ManifestObject> = objects.iter().collect();
        let (deleted, kept) = applier.delete_objects(&refs).await?;
        self.report_each(&kept, |object| Message::Kept { object });
        if opts.wait {
            wait::wait_deleted(self.cluster, &deleted, opts.timeout).await?;
        }
        self.run_hooks(&applier, &mut release, HookEvent::PostDelete, opts)
            .await?;
        release.set_status(
            Status::Uninstalled,
            opts.description_or("Uninstallation complete"),
        );
        if opts.keep_history {
            self.store.update(&release).await?;
        } else {
            for r in &history {
                self.store.delete(name, r.version).await?;
            }
        }
        Ok(release)
    }

    /// `helm test`: runs the latest revision's `test` hooks and records their last run.
    pub async fn test(&self, name: &str, opts: &Options) -> Result<Release, ActionError> {
        let lock = self.lock(name, opts).await?;
        let result = async {
            let mut release =
                self.store
                    .last(name)
                    .await?
                    .ok_or_else(|| ActionError::NotFound {
                        name: name.to_string(),
                    })?;
            let applier = self.applier(name, opts);
            let r = self
                .run_hooks(
                    &applier,
                    &mut release,
                    HookEvent::Test,
                    &Options {
                        no_hooks: false,
                        ..opts.clone()
                    },
                )
                .await;
            self.store.update(&release).await?;
            r.map(|()| release)
        }
        .await;
        self.unlock(name, lock, result).await
    }
}

/// The record a dry run returns (never stored): revision `revision` of `name`, status
/// `pending-install`, or `pending-upgrade` when `upgrade_of` gives the release's first
/// deployment time and labels; description "Dry run complete", or on an upgrade the
/// `--description` when given (as Helm 4).
pub fn dry_run_record(
    name: &str,
    namespace: &str,
    revision: u64,
    rendered: Rendered,
    upgrade_of: Option<(
        Option<jiff::Timestamp>,
        std::collections::BTreeMap<String, String>,
    )>,
    description: Option<&str>,
) -> Release {
    let (status, first_deployed, labels, description) = match (upgrade_of, description) {
        (Some((first, labels)), Some(d)) => (Status::PendingUpgrade, first, labels, d.to_string()),
        (Some((first, labels)), None) => (
            Status::PendingUpgrade,
            first,
            labels,
            "Dry run complete".into(),
        ),
        (None, _) => (
            Status::PendingInstall,
            None,
            Default::default(),
            "Dry run complete".into(),
        ),
    };
    let mut release = pending_release(name, namespace, revision, rendered, status, description);
    if let Some(info) = &mut release.info
        && first_deployed.is_some()
    {
        info.first_deployed = first_deployed;
    }
    release.labels = labels;
    release
}

/// Revision `version` of `name` in `namespace`, writing `rendered`, pending since now (its
/// first and last deployment) with `status` and `description`.
fn pending_release(
    name: &str,
    namespace: &str,
    version: u64,
    rendered: Rendered,
    status: Status,
    description: String,
) -> Release {
    let t = now();
    Release {
        name: name.to_string(),
        namespace: namespace.to_string(),
        version,
        chart: Some(rendered.chart),
        config: rendered.config,
        manifest: rendered.manifest,
        hooks: rendered.hooks,
        apply_method: "ssa".into(),
        info: Some(Info {
            first_deployed: Some(t),
            last_deployed: Some(t),
            status,
            description,
            notes: rendered.notes,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Identities of the objects of a manifest (for status and tests).
pub fn manifest_objects(manifest: &str) -> Result<Vec<ObjectRef>, ActionError> {
    Ok(parse_manifest(manifest)?
        .into_iter()
        .map(|o| o.id)
        .collect())
}

/// Installs or upgrades a chart's `crds/` files: each CRD created when absent (as Helm),
/// and, beyond Helm (which never touches them again), server-side applied when present if
/// the upgrade is safe (docs/rules.md#crd-upgrades, [`kubepkg_kube::crd`]: no stored version
/// dropped, no version that existing objects use unserved); all are checked before any is
/// written, then all waited to `Established`. They carry no release ownership, as in Helm.
pub async fn install_crds(
    cluster: &Cluster,
    docs: &str,
    timeout: Duration,
) -> Result<Vec<ObjectRef>, ActionError> {
    let objects = parse_manifest(docs)?;
    let api_err = |action: &'static str, id: &ObjectRef, e: kube::Error| {
        KubeError::refused(action, id.to_string(), e)
    };
    let mut located = Vec::new();
    for o in &objects {
        let (api, id) = cluster.locate(&o.id, &cluster.namespace).await?;
        let live = api
            .get_opt(&id.name)
            .await
            .map_err(|e| api_err("get", &id, e))?;
        if let Some(live) = &live {
            let live = serde_json::to_value(live).unwrap_or(Value::Null);
            kubepkg_kube::crd::check_upgrade(cluster, &live, &o.object).await?;
        }
        located.push((o, api, id, live.is_some()));
    }
    let mut ids = Vec::new();
    for (o, api, id, exists) in located {
        if let Some(observe) = &cluster.observer {
            observe(o);
        }
        let body: kube::core::DynamicObject = serde_json::from_value(o.object.clone())
            .map_err(|e| ActionError::Manifest(format!("{}: {e}", o.source)))?;
        let pp = kube::api::PatchParams::apply(kubepkg_kube::apply::FIELD_MANAGER).force();
        if exists {
            api.patch(&id.name, &pp, &kube::api::Patch::Apply(&body))
                .await
                .map_err(|e| api_err("upgrade", &id, e))?;
        } else {
            match api.create(&kube::api::PostParams::default(), &body).await {
                Ok(_) => {}
                // Our create whose answer was lost (sent again by the retry layer), or a CRD
                // created meanwhile: checked as an upgrade, then applied over.
                Err(kube::Error::Api(s)) if s.code == 409 => {
                    if let Some(live) = api
                        .get_opt(&id.name)
                        .await
                        .map_err(|e| api_err("get", &id, e))?
                    {
                        let live = serde_json::to_value(live).unwrap_or(Value::Null);
                        kubepkg_kube::crd::check_upgrade(cluster, &live, &o.object).await?;
                    }
                    api.patch(&id.name, &pp, &kube::api::Patch::Apply(&body))
                        .await
                        .map_err(|e| api_err("create", &id, e))?;
                }
                Err(e) => return Err(api_err("create", &id, e).into()),
            }
        }
        ids.push(id);
    }
    wait::wait_ready(cluster, &ids, timeout, |_| {}).await?;
    let defined: Vec<&Value> = objects
        .iter()
        .filter(|o| o.id.kind == "CustomResourceDefinition")
        .map(|o| &o.object)
        .collect();
    cluster
        .discovery
        .refresh_for_crds(&defined, timeout)
        .await?;
    Ok(ids)
}
