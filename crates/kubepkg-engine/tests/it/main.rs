//! The integration tests of `kubepkg-engine`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod concurrency;
mod discovery;
mod examples;
mod faults;
mod kstatus;
mod package_object;
mod requires;
mod rules;
/// The shared test support, from the test kit: packages and charts written for a test
/// (`kubepkg_testkit::charts`) and the engine driven over a test namespace
/// (`kubepkg_testkit::engine`).
mod support {
    pub use kubepkg_testkit::charts::*;
    pub use kubepkg_testkit::engine::*;
    pub use kubepkg_testkit::eventually;
}
