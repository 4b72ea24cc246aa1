//! The integration tests of `kubepkg-chart`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file; shared helpers are modules too.

mod fuzz;
mod kustomize_oracle;
mod lazy_files;
mod no_panic;
mod release_object;
mod sdk_reference;
mod walk;
