//! The integration tests of `kubepkg-yaml`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod alias_bomb;
mod corpus;
mod keeping;
mod limits;
mod located;
mod no_panic;
