#!/usr/bin/env bash
# Builds the real kustomize CLI (sigs.k8s.io/kustomize/kustomize/v5), test tooling only: the
# oracle of kubepkg's declarative post-renderers (Flux's `postRenderers[].kustomize`:
# strategic-merge and JSON 6902 patches, images). Built from the Go module proxy at the version
# pinned in testenv/kustomize/go.mod (a module of its own that requires kustomize as a `tool`).
# Idempotent: the binary is cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/kustomize/<hash of go.mod, go.sum, Go version>/kustomize
# and reused while none of those change. Prints the binary's path on stdout. With --path it
# only prints where that binary is (built or not).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/gobuild.sh
source "$here/../lib/gobuild.sh"
gobuild_init testenv/kustomize/build.sh kustomize "$here"

# Concurrent test binaries may ask at once: one builds, the others wait for it.
gobuild_cached "$out_dir/kustomize" "$out_dir/kustomize" "${1:-}"
gobuild_binary kustomize sigs.k8s.io/kustomize/kustomize/v5
