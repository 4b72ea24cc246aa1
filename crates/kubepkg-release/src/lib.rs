//! kubepkg-release: Helm's release record and its storage, exactly as Helm writes them, so
//! that `helm` and kubepkg read and write each other's releases.
//!
//! - [`record`]: the `Release` type with Helm's JSON field names and omission rules.
//! - [`codec`]: JSON → gzip → base64 and back; [`gojson`] writes JSON as Go does.
//! - [`storage`]: storage objects (`sh.helm.release.v1.<name>.v<rev>`), labels, drivers
//!   (Secret, ConfigMap, memory), history limit and listing that decodes only what it must.
//! - [`action`]: install/upgrade/rollback/uninstall/test on a cluster with hooks and a lease.
//! - [`query`]: the read verbs (`list`, `history`, the revision `status`/`get` read, live
//!   resources), returning data; [`output`]: what Helm prints for every release verb.
//!
//! [`AnyDriver`] is the storage driver `$HELM_DRIVER` picks. Each action holds the release's
//! Lease (`kubepkg_kube::lease::LeaseLock`, named `kubepkg-release-<name>`). Progress goes out
//! as typed `kubepkg_progress::Message`s, which know no package or component. The crate builds
//! without the template engine and the chart layer.
#![forbid(unsafe_code)]

pub mod action;
pub mod codec;
pub mod error;
pub mod gojson;
pub mod output;
pub mod query;
pub mod record;
pub mod storage;

pub use error::Error;
pub use record::{
    Chart, File, Hook, HookDeletePolicy, HookEvent, HookExecution, HookOutputLogPolicy, HookPhase,
    Info, Metadata, Release, Status,
};
pub use storage::{AnyDriver, Driver, DriverKind, MemoryDriver, Store, StoredObject};
