//! The integration tests of `kubepkg-template`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod common;
mod engine;
mod go_cases;
mod helm_cases;
mod limits;
