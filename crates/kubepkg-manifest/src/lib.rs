//! Helm's manifest rules, in one leaf crate that needs neither the template engine nor a
//! cluster:
//!
//! - [`order`]: Helm's install and uninstall order of kinds (`releaseutil.InstallOrder`,
//!   `UninstallOrder`), stable sorting by kind and kind groups;
//! - [`sort`]: rendered template files to release manifests — Helm's `---` split
//!   (`releaseutil.SplitManifests`), document heads (`SimpleHead`), hooks separated from plain
//!   manifests and both sorted (`releaseutil.SortManifests`);
//! - [`object`]: the one conversion of a rendered manifest into Kubernetes objects
//!   ([`object::parse`]): identity ([`ObjectRef`]), the document text and the object JSON with
//!   integers kept. Plan, apply, status, prune and the test kit all read manifests through it,
//!   so what `plan` shows is what apply sends.
#![forbid(unsafe_code)]

pub mod object;
pub mod order;
pub mod sort;

pub use object::{HOOK_ANNOTATION, ManifestError, ManifestObject, ObjectRef, parse};
pub use order::{INSTALL_ORDER, UNINSTALL_ORDER, kind_groups, sort_by_kind};
pub use sort::{Head, Hook, Manifest, parse_head, sort_manifests, split_manifests};
