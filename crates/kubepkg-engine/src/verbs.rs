//! The single-release verbs that render a chart — `helm install` and `helm upgrade`, with
//! their dry runs — and the values rules around them, as Helm runs them (`pkg/action`
//! `install.go`, `upgrade.go`), returning the release record. The other verbs are the release
//! layer's ([`kubepkg_release::action::Releases`] for rollback/uninstall/test,
//! [`kubepkg_release::query`] for list/history/status/get), the printing
//! [`kubepkg_release::output`]'s.
//!
//! Values are coalesced by the chart layer (`kubepkg_chart::values`, Helm's `CoalesceTables`
//! and `CoalesceValues`, with their rule that a `null` deletes a key), crossing from the
//! releases' JSON through [`kubepkg_model::chart_adapter`]:
//! - [`upgrade_values`]: `--reuse-values`, `--reset-values`, `--reset-then-reuse-values` and
//!   the default (reuse the previous values when none are given), over the *current*
//!   release (the deployed one, else the latest failed or superseded one);
//! - [`computed_values`]: what `helm get values --all` prints.
//!
//! An upgrade is found first ([`upgrade_target`]: does it install?) and then rendered, so a
//! caller can say "Installing it now" before rendering, as `helm upgrade --install` does.

use kubepkg_chart::postrender::PostRenderers;
use std::path::Path;

use kubepkg_chart::ValueOptions;
use kubepkg_kube::Cluster;
use kubepkg_model::chart_adapter::{from_chart_value, to_chart_value};
use kubepkg_release::action::{ActionError, DryRun, Options, Releases, dry_run_record};
use kubepkg_release::record::Release;
use kubepkg_release::{Driver, Status, Store};
use kubepkg_value::Value as GoValue;
use serde_json::{Map, Value};

use crate::chart::{
    ClusterCapabilities, ComponentRelease, PayloadError, ReleaseTarget, recorded_values,
    release_payload,
};

/// Why an install or upgrade could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum VerbError {
    /// `-f`/`--set…` could not be read (the chart layer's message).
    #[error("{0}")]
    Values(kubepkg_chart::ChartError),
    /// The chart could not be loaded or rendered.
    #[error(transparent)]
    Payload(#[from] PayloadError),
    /// The previous release's values could not be coalesced with its chart (Helm's text).
    #[error("failed to rebuild old values: {0}")]
    OldValues(String),
    /// `--dry-run` has no such mode (Helm's text).
    #[error("invalid dry-run value ({0:?}). Must be \"none\", \"server\", or \"client\"")]
    DryRun(String),
    #[error(transparent)]
    Store(#[from] kubepkg_release::Error),
    #[error(transparent)]
    Cluster(#[from] kubepkg_kube::KubeError),
    #[error(transparent)]
    Action(#[from] ActionError),
}

/// `--dry-run` as Helm 4 reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRunMode {
    /// Render only (an install needs no cluster at all).
    Client,
    /// Render with the cluster's capabilities and validate every object on the server.
    Server,
}

impl DryRunMode {
    /// `client` (also the bare flag and a true boolean) or `server`; `none` and a false
    /// boolean (or no flag) mean no dry run.
    pub fn parse(flag: Option<&str>) -> Result<Option<DryRunMode>, VerbError> {
        match flag {
            None | Some("none" | "0" | "f" | "F" | "FALSE" | "false" | "False") => Ok(None),
            Some("client" | "1" | "t" | "T" | "TRUE" | "true" | "True") => {
                Ok(Some(DryRunMode::Client))
            }
            Some("server") => Ok(Some(DryRunMode::Server)),
            Some(v) => Err(VerbError::DryRun(v.to_string())),
        }
    }
}

/// Helm's warning when a dry run meets a chart with `crds/`.
pub const DRY_RUN_CRDS_WARNING: &str = "level=WARN msg=\"This chart or one of its subcharts contains CRDs. Rendering may fail or contain inaccuracies.\"";

/// Which values an upgrade starts from (Helm's flags; `--reset-values` wins over
/// `--reuse-values`, which wins over `--reset-then-reuse-values`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValuesMode {
    /// The values given now; the previous ones when none are given.
    #[default]
    Default,
    /// `--reuse-values`: the previous user values under the new ones, and the previous
    /// release's values (its chart's defaults with its user values) as the chart's defaults.
    Reuse,
    /// `--reset-values`: only the values given now.
    Reset,
    /// `--reset-then-reuse-values`: the new chart's defaults, then the previous user values,
    /// then the new ones.
    ResetThenReuse,
}

impl ValuesMode {
    /// The mode Helm's three flags select.
    pub fn from_flags(reuse: bool, reset: bool, reset_then_reuse: bool) -> ValuesMode {
        if reset {
            ValuesMode::Reset
        } else if reuse {
            ValuesMode::Reuse
        } else if reset_then_reuse {
            ValuesMode::ResetThenReuse
        } else {
            ValuesMode::Default
        }
    }
}

/// The user values of `-f`/`--set…` merged by the chart layer, as JSON (Go's number types
/// kept in memory: see [`crate::chart`]).
pub fn user_values(opts: &ValueOptions) -> Result<Map<String, Value>, VerbError> {
    let merged = opts.merge().map_err(VerbError::Values)?;
    Ok(crate::chart::user_values(&merged))
}

fn go_map(m: &Map<String, Value>) -> GoValue {
    to_chart_value(&Value::Object(m.clone()))
}

fn json_map(v: &GoValue) -> Map<String, Value> {
    match from_chart_value(v) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Helm's `CoalesceTables(dst, src)`: `dst` over `src`, maps merged key by key; a `null` in
/// `dst` deletes the key `src` sets.
pub fn coalesce_tables(dst: &Map<String, Value>, src: &Map<String, Value>) -> Map<String, Value> {
    let (d, s) = (go_map(dst), go_map(src));
    if let (GoValue::Map(dm), GoValue::Map(sm)) = (&d, &s) {
        kubepkg_chart::values::coalesce_tables(dm, sm, false);
    }
    json_map(&d)
}

/// Helm's `CoalesceValues(chart, values)` for a chart as a release stores it (its default
/// `values`, no subcharts): the defaults under `values`, a `null` deleting a default; Helm's
/// text when they do not coalesce.
pub fn coalesce_values(
    defaults: &Map<String, Value>,
    values: &Map<String, Value>,
) -> Result<Map<String, Value>, VerbError> {
    let chart = kubepkg_chart::Chart {
        metadata: Default::default(),
        lock: None,
        templates: Vec::new(),
        values: go_map(defaults),
        schema: None,
        files: Vec::new(),
        dependencies: Vec::new(),
    };
    kubepkg_chart::values::coalesce_values(&chart, &go_map(values))
        .map(|v| json_map(&v))
        .map_err(VerbError::OldValues)
}

/// `helm get values --all`: the stored chart's defaults coalesced under the user values.
pub fn computed_values(r: &Release) -> Map<String, Value> {
    let defaults = r
        .chart
        .as_ref()
        .and_then(|c| c.values.clone())
        .unwrap_or_default();
    coalesce_values(&defaults, &r.config).unwrap_or_else(|_| r.config.clone())
}

/// The values an upgrade renders with.
#[derive(Debug, Clone, PartialEq)]
pub struct UpgradeValues {
    /// The user values, stored as the revision's `config`.
    pub config: Map<String, Value>,
    /// `--reuse-values`: the chart's defaults to render and store the chart with.
    pub chart_defaults: Option<Map<String, Value>>,
}

impl UpgradeValues {
    fn new(config: Map<String, Value>) -> UpgradeValues {
        UpgradeValues {
            config,
            chart_defaults: None,
        }
    }
}

/// The values an upgrade renders with (Helm's `reuseValues`). `current` is the release the
/// upgrade replaces; its values are read as Helm reads a stored release (numbers are
/// `float64`).
pub fn upgrade_values(
    mode: ValuesMode,
    new: Map<String, Value>,
    current: Option<&Release>,
) -> Result<UpgradeValues, VerbError> {
    let Some(current) = current else {
        return Ok(UpgradeValues::new(new));
    };
    let previous = recorded_values(&current.config);
    Ok(match mode {
        ValuesMode::Reset => UpgradeValues::new(new),
        ValuesMode::Reuse => {
            let chart_values = current
                .chart
                .as_ref()
                .and_then(|c| c.values.as_ref())
                .map(recorded_values)
                .unwrap_or_default();
            let old = coalesce_values(&chart_values, &previous)?;
            UpgradeValues {
                config: coalesce_tables(&new, &previous),
                chart_defaults: Some(old),
            }
        }
        ValuesMode::ResetThenReuse => UpgradeValues::new(coalesce_tables(&new, &previous)),
        ValuesMode::Default if new.is_empty() => UpgradeValues::new(previous),
        ValuesMode::Default => UpgradeValues::new(new),
    })
}

/// A chart rendered for an install or an upgrade, ready to run.
#[derive(Debug)]
pub struct Prepared {
    name: String,
    payload: ComponentRelease,
    /// `Some(install_if_missing)` for an upgrade.
    upgrade: Option<bool>,
}

impl Prepared {
    /// Helm's warning for a dry run of a chart with CRDs, when it applies.
    pub fn dry_run_warning(&self, dry_run: Option<DryRunMode>) -> Option<&'static str> {
        (dry_run.is_some() && !self.payload.crds.is_empty()).then_some(DRY_RUN_CRDS_WARNING)
    }

    /// Installs or upgrades (CRDs of `crds/` first), or with `dry_run` returns the record the
    /// operation would write, having the server validate it for [`DryRunMode::Server`] (and
    /// for any dry run of an install, which a client dry run never reaches: see
    /// [`install_offline`]).
    pub async fn run<D: Driver>(
        self,
        releases: &Releases<'_, D>,
        opts: &Options,
        dry_run: Option<DryRunMode>,
    ) -> Result<Release, VerbError> {
        let ComponentRelease { rendered, crds } = self.payload;
        if let Some(mode) = dry_run {
            let mode = DryRun {
                upgrade: self.upgrade.is_some(),
                install_if_missing: self.upgrade.unwrap_or(true),
                server: self.upgrade.is_none() || mode == DryRunMode::Server,
                crds: &crds,
            };
            return Ok(releases.dry_run(&self.name, rendered, opts, mode).await?);
        }
        if !crds.is_empty() {
            kubepkg_release::action::install_crds(releases.cluster, &crds, opts.timeout).await?;
        }
        Ok(match self.upgrade {
            None => releases.install(&self.name, rendered, opts).await?,
            Some(install) => {
                releases
                    .upgrade(&self.name, rendered, opts, install)
                    .await?
            }
        })
    }
}

/// Renders `chart` as the first revision of release `name` in `namespace`.
pub fn prepare_install(
    name: &str,
    namespace: &str,
    chart: &Path,
    values: Map<String, Value>,
    caps: &ClusterCapabilities,
    post_renderers: &PostRenderers,
) -> Result<Prepared, VerbError> {
    let target = ReleaseTarget {
        release: name,
        namespace,
        last_revision: None,
        post_renderers,
    };
    Ok(Prepared {
        name: name.to_string(),
        payload: release_payload(chart, target, &values, None, caps)?,
        upgrade: None,
    })
}

/// `helm install --dry-run[=client]`: the record an install would write, rendered with Helm's
/// default capabilities, without a cluster.
pub fn install_offline(
    name: &str,
    namespace: &str,
    chart: &Path,
    values: Map<String, Value>,
    description: Option<&str>,
    post_renderers: &PostRenderers,
) -> Result<Release, VerbError> {
    let prepared = prepare_install(
        name,
        namespace,
        chart,
        values,
        &ClusterCapabilities::default(),
        post_renderers,
    )?;
    kubepkg_release::storage::validate_name(name)?;
    Ok(dry_run_record(
        name,
        namespace,
        1,
        prepared.payload.rendered,
        None,
        description,
    ))
}

/// The release an upgrade replaces, found before rendering.
#[derive(Debug)]
pub struct UpgradeTarget {
    name: String,
    /// `upgrade --install`.
    install: bool,
    last: Option<Release>,
    current: Option<Release>,
}

/// Finds what `helm upgrade NAME` (`install`: `--install`) replaces: the latest revision, and
/// the current one whose values it reuses (the deployed revision; without one, the latest).
pub async fn upgrade_target<D: Driver>(
    store: &Store<D>,
    name: &str,
    install: bool,
) -> Result<UpgradeTarget, VerbError> {
    let last = store.last(name).await?;
    let current = match &last {
        Some(l) if l.status() == Status::Deployed => Some(l.clone()),
        Some(_) => store.deployed(name).await?.or_else(|| last.clone()),
        None => None,
    };
    Ok(UpgradeTarget {
        name: name.to_string(),
        install,
        last,
        current,
    })
}

impl UpgradeTarget {
    /// Whether the upgrade installs: `--install` and no release (or only an uninstalled one
    /// kept with its history).
    pub fn installs(&self) -> bool {
        self.install
            && self
                .last
                .as_ref()
                .is_none_or(|l| l.status() == Status::Uninstalled)
    }

    /// Renders `chart` as the next revision with `new` user values under `mode`.
    pub fn prepare(
        &self,
        namespace: &str,
        chart: &Path,
        new: Map<String, Value>,
        mode: ValuesMode,
        caps: &ClusterCapabilities,
        post_renderers: &PostRenderers,
    ) -> Result<Prepared, VerbError> {
        let current = if self.installs() {
            None
        } else {
            self.current.as_ref()
        };
        let values = upgrade_values(mode, new, current)?;
        let target = ReleaseTarget {
            release: &self.name,
            namespace,
            last_revision: self.last.as_ref().map(|r| r.version),
            post_renderers,
        };
        Ok(Prepared {
            name: self.name.clone(),
            payload: release_payload(
                chart,
                target,
                &values.config,
                values.chart_defaults.as_ref(),
                caps,
            )?,
            upgrade: Some(self.install),
        })
    }
}

/// The cluster's `.Capabilities`, asked once per command.
pub async fn capabilities(cluster: &Cluster) -> Result<ClusterCapabilities, VerbError> {
    Ok(ClusterCapabilities::discover(&cluster.client).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(
        mode: ValuesMode,
        new: Map<String, Value>,
        current: Option<&Release>,
    ) -> (Map<String, Value>, Option<Map<String, Value>>) {
        let v = upgrade_values(mode, new, current).unwrap();
        (v.config, v.chart_defaults)
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn release(config: Value, chart_values: Value) -> Release {
        Release {
            config: map(config),
            chart: Some(kubepkg_release::Chart {
                values: Some(map(chart_values)),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn dry_run_values_read_as_helm_4() {
        assert_eq!(DryRunMode::parse(None).unwrap(), None);
        assert_eq!(DryRunMode::parse(Some("none")).unwrap(), None);
        assert_eq!(DryRunMode::parse(Some("false")).unwrap(), None);
        assert_eq!(
            DryRunMode::parse(Some("client")).unwrap(),
            Some(DryRunMode::Client)
        );
        assert_eq!(
            DryRunMode::parse(Some("true")).unwrap(),
            Some(DryRunMode::Client)
        );
        assert_eq!(
            DryRunMode::parse(Some("server")).unwrap(),
            Some(DryRunMode::Server)
        );
        assert_eq!(
            DryRunMode::parse(Some("sever")).unwrap_err().to_string(),
            r#"invalid dry-run value ("sever"). Must be "none", "server", or "client""#
        );
    }

    #[test]
    fn helms_flag_precedence() {
        assert_eq!(ValuesMode::from_flags(true, true, true), ValuesMode::Reset);
        assert_eq!(ValuesMode::from_flags(true, false, true), ValuesMode::Reuse);
        assert_eq!(
            ValuesMode::from_flags(false, false, true),
            ValuesMode::ResetThenReuse
        );
        assert_eq!(
            ValuesMode::from_flags(false, false, false),
            ValuesMode::Default
        );
    }

    /// Regression: `--reuse-values --set k=null` must delete `k` (Helm's `CoalesceTables`),
    /// where the CLI's own serde_json merge kept `k: null` in the stored values.
    #[test]
    fn reuse_values_set_null_deletes_the_key() {
        let current = release(
            json!({"message": "hi", "extra": {"a": 1, "b": 2}, "keep": true}),
            json!({"message": "hello", "web": "ok"}),
        );
        let new = map(json!({"message": null, "extra": {"a": null}, "web": "down"}));
        let (config, defaults) = run(ValuesMode::Reuse, new, Some(&current));
        assert_eq!(
            Value::Object(config),
            json!({"extra": {"b": 2.0}, "keep": true, "web": "down"})
        );
        // The chart renders with the previous release's values as its defaults (Helm's
        // `chart.Values = oldVals`), numbers read back as float64.
        assert_eq!(
            Value::Object(defaults.unwrap()),
            json!({"extra": {"a": 1.0, "b": 2.0}, "keep": true, "message": "hi", "web": "ok"})
        );
    }

    #[test]
    fn a_null_for_a_key_nobody_set_is_kept() {
        // Helm keeps it (a null for a key the source does not set nullifies nothing).
        let current = release(json!({"a": 1}), json!({}));
        let (config, _) = run(
            ValuesMode::ResetThenReuse,
            map(json!({"b": null})),
            Some(&current),
        );
        assert_eq!(Value::Object(config), json!({"a": 1.0, "b": null}));
    }

    #[test]
    fn the_other_modes() {
        let current = release(json!({"a": 1}), json!({"d": 0}));
        let new = || map(json!({"b": 2}));
        let (c, d) = run(ValuesMode::Reset, new(), Some(&current));
        assert_eq!((Value::Object(c), d), (json!({"b": 2}), None));
        let (c, _) = run(ValuesMode::Default, new(), Some(&current));
        assert_eq!(Value::Object(c), json!({"b": 2}));
        // No values given: the previous ones, as Helm read them back (float64).
        let (c, d) = run(ValuesMode::Default, Map::new(), Some(&current));
        assert_eq!((Value::Object(c), d), (json!({"a": 1.0}), None));
        let (c, d) = run(ValuesMode::ResetThenReuse, new(), Some(&current));
        assert_eq!((Value::Object(c), d), (json!({"a": 1.0, "b": 2}), None));
        // Nothing to reuse on a first install.
        let (c, d) = run(ValuesMode::Reuse, new(), None);
        assert_eq!((Value::Object(c), d), (json!({"b": 2}), None));
    }

    #[test]
    fn computed_values_coalesce_the_stored_defaults_with_nulls_deleting() {
        let r = release(
            json!({"message": null, "n": 3, "m": {"x": 1}}),
            json!({"message": "hello", "web": "ok", "m": {"y": 2}}),
        );
        assert_eq!(
            Value::Object(computed_values(&r)),
            json!({"m": {"x": 1, "y": 2}, "n": 3, "web": "ok"})
        );
    }
}
