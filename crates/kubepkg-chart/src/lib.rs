//! Helm charts for kubepkg: everything between a chart on disk and the manifests `helm
//! template` prints.
//!
//! - [`chart`]: loading directories and archives ([`archive`] extracts safely, [`ignore`]
//!   applies `.helmignore`) into a [`Chart`] tree, files no render needs left on disk until
//!   used ([`file_data`]); [`metadata`] decodes and validates
//!   `Chart.yaml`, `requirements.yaml` and lock files; [`semver`] checks versions and ranges.
//! - [`values`] coalesces chart defaults with user values; [`strvals`] parses `--set*`;
//!   [`dependencies`] enables subcharts and imports values; [`schema`] validates
//!   `values.schema.json`, loading the documents it refers to by URL with [`schema_refs`].
//! - [`save`] writes a chart back out as `helm package` and `helm show chart` do; [`create`] writes a new chart as `helm create` does.
//! - [`render`] executes templates with Helm's built-in objects ([`objects`]); [`manifest`]
//!   (the leaf crate `kubepkg-manifest`) splits, sorts and separates hooks; [`action`] ties it together as `helm template`.
//! - [`postrender`] runs post-renderers between the templates and the sort, as Helm 4 does;
//!   [`plugin`] finds Helm's plugins and runs `postrenderer/v1` ones; [`kustomize`] is the
//!   declarative one (Flux's `postRenderers[].kustomize`: patches and images).
//!
//! One path each: [`archive::read_entries`] is the one archive reader (links refused; entry
//! count, size and ratio capped; package archives use it too); [`values::read_values_file`] is
//! the one reader of values files (size-capped); [`render::render_lint`] is Helm's lint mode of
//! the one render path. Schema `$ref` URLs are fetched through `kubepkg-fetch`, bounded and
//! cached in the process and on disk. `create`'s scaffold (`scaffold/`) is regenerated from the
//! real `helm` by `tools/lint-ref/scaffold.sh`. Errors are [`ChartError`] `{ path, kind }`.
//! [`semver`] and [`manifest`] re-export `kubepkg-semver` and `kubepkg-manifest`.

// One `unsafe` block, audited where it is: `file_data::zeroed`.
#![deny(unsafe_code)]

pub mod action;
pub mod archive;
pub mod chart;
pub mod create;
pub mod dependencies;
pub mod error;
pub mod file_data;
pub mod ignore;
pub mod json_values;
pub mod kustomize;
pub mod merge_keys;
pub mod metadata;
pub mod objects;
pub mod pattern;
pub mod plugin;
pub mod postrender;
pub mod render;
pub mod save;
pub mod schema;
pub mod schema_refs;
pub mod semver;
pub mod strvals;
pub mod values;

pub use action::{RenderedRelease, TemplateOptions, ValueOptions, render_release, template};
pub use chart::{Chart, ChartFile, load};
pub use error::{ChartError, ChartErrorKind, Result};
pub use file_data::FileData;
/// Helm's manifest rules (split, heads, hooks, kind order) live in the leaf crate
/// `kubepkg-manifest`; re-exported here for the render pipeline's users.
pub use kubepkg_manifest as manifest;
