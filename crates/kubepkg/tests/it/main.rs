//! The integration tests of `kubepkg`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod airgap;
mod argocd;
mod backends;
mod chart_verbs;
mod client_certs;
mod controller;
mod controller_chart;
mod controller_tenancy_chart;
mod conventions;
mod dashboard;
mod docs_commands;
mod fleet;
mod flux;
mod flux_source;
mod git_source;
mod helm_flags;
mod helm_parity;
mod helm_template_reference;
mod help;
mod native;
mod oci;
mod package_cli;
mod post_render;
mod proxy;
mod real_node;
mod release_cli;
mod remote;
mod repo;
mod schema_refs;
mod signatures;
mod support;
mod tenancy;
mod terminal;
mod values_cli;
