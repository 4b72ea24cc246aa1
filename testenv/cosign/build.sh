#!/usr/bin/env bash
# Builds the real cosign CLI (github.com/sigstore/cosign/v2/cmd/cosign), test tooling for
# kubepkg's signatures: the signer and verifier oracle of the classic key-based cosign
# signature format. Built from the Go module proxy at the version pinned in
# testenv/cosign/go.mod (a module of its own that requires cosign as a `tool`, so changing it
# never rebuilds the control plane, the registry or Flux). Idempotent: the binary is cached
# outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/cosign/<hash of go.mod, go.sum, Go version>/cosign
# and reused while none of those change. Prints the binary's path on stdout. With --path it
# only prints where that binary is (built or not).
#
# The tests run it key-based only and offline: `generate-key-pair`, `sign --key
# --tlog-upload=false`, `verify --key --insecure-ignore-tlog=true` (no Rekor, Fulcio or TUF).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/gobuild.sh
source "$here/../lib/gobuild.sh"
gobuild_init testenv/cosign/build.sh cosign "$here"

# Concurrent test binaries may ask at once: one builds, the others wait for it.
gobuild_cached "$out_dir/cosign" "$out_dir/cosign" "${1:-}"
# Stamp the version as cosign's release builds do (`cosign version`).
version="$(gobuild_go list -m -f '{{.Version}}' github.com/sigstore/cosign/v2)"
gobuild_binary cosign github.com/sigstore/cosign/v2/cmd/cosign \
	"-X sigs.k8s.io/release-utils/version.gitVersion=$version"
