//! The integration tests of `kubepkg-funcs`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod bounds;
mod changed_arguments;
mod corpus;
mod function_names;
mod support;
