//! The integration tests of `kubepkg-testkit`, in one test binary (one link for CI, as ripgrep
//! and uv do). Each module is one former test file: the kit's own smoke tests against the local
//! control plane and Argo CD, `scripts/lib/needs.sh`, and the project's rules for tests.

mod argocd;
mod needs;
mod smoke;
mod test_rules;
