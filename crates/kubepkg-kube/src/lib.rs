//! kubepkg-kube: kubepkg's cluster layer.
//!
//! - [`readiness`]: kstatus' readiness rules as pure functions over object JSON.
//! - [`order`]: Helm's install and uninstall order of kinds.
//! - [`manifest`]: a rendered manifest split into objects with their template source.
//! - [`ownership`]: Helm's release ownership labels/annotations and the adoption rules.
#![forbid(unsafe_code)]

pub mod manifest;
pub mod order;
pub mod ownership;
pub mod readiness;
