#!/usr/bin/env bash
# Builds kpk-registry, kubepkg's test OCI registry (the CNCF distribution
# registry in-process, plus htpasswd, certificate and image helpers) and kpk-pause (the real
# node's pod sandbox process), from the Go
# module proxy at the versions pinned in testenv/registry/go.mod. Its own Go
# module, so that changing it never rebuilds the control plane (but for ../pki, the
# certificate helpers both share). Idempotent: the binary is cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/registry/<hash of go.mod, go.sum, sources, Go version>/
# and reused while none of those change. Prints the binary's path on stdout.
# With --path it only prints where that binary is (built or not).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/gobuild.sh
source "$here/../lib/gobuild.sh"
gobuild_init testenv/registry/build.sh registry "$here" "" "kpk-registry kpk-pause ../pki"
bin="$out_dir/kpk-registry"

# Concurrent test binaries may ask at once: one builds, the others wait for it.
gobuild_cached "$bin" "$bin" "${1:-}"
# kpk-pause (the real node's sandbox process) beside it; kpk-registry, written last, marks the build done.
gobuild_go build -trimpath -ldflags "-s -w" -o "$out_dir/kpk-pause" ./kpk-pause
gobuild_binary kpk-registry ./kpk-registry
