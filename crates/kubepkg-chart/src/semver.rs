//! Semantic versions and version constraints as Helm checks them (Masterminds `semver/v3`):
//! `Chart.yaml` versions, `kubeVersion`, dependency ranges. The implementation is the shared
//! [`kubepkg_semver`] crate (also behind Sprig's `semver`/`semverCompare`), re-exported here.

pub use kubepkg_semver::{Constraints, Part, SemverError, Version, is_compatible_range};
