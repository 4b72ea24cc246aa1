//! The integration tests of `kubepkg-engine`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod concurrency;
mod examples;
mod faults;
mod kstatus;
mod package_object;
mod requires;
mod rules;
#[path = "../support/mod.rs"]
mod support;
