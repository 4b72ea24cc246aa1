#!/usr/bin/env bash
# Builds kpk-bench-peer (bench/peer/main.go: Go's RSA key generation and Helm's SDK render
# loop, the peers of bench/rsa-keygen.sh and bench/render-api.sh) from the Go module proxy at the
# versions of bench/peer/go.mod. Idempotent: cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/bench-peer/<hash of go.mod, go.sum, *.go, Go version>/
# Prints the binary's path on stdout (the steps of testenv/lib/gobuild.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../testenv/lib/gobuild.sh
source "$here/../../testenv/lib/gobuild.sh"
gobuild_init bench/peer/build.sh bench-peer "$here" "" .
bin="$out_dir/kpk-bench-peer"

gobuild_cached "$bin" "$bin"
gobuild_binary kpk-bench-peer .
