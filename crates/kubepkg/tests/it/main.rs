//! The integration tests of `kubepkg`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod helm_parity;
mod helm_template_reference;
mod package_cli;
mod release_cli;
mod support;
mod values_cli;
