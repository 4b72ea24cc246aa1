#!/usr/bin/env bash
# Build the real `helm` CLI from the Go module proxy into ~/.cache/kubepkg/helm/<version>/helm.
# Usage: install-helm.sh [VERSION]   (default v4.3.1; also used with v3.22.0)
# Prints the path of the binary. Cached: a second run with the same version does nothing.
set -euo pipefail
# shellcheck source=../../testenv/lib/gobuild.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../testenv/lib/gobuild.sh"
version="${1:-v4.3.1}"
major="${version%%.*}"            # v4 or v3
cache="${KUBEPKG_CACHE:-$HOME/.cache/kubepkg}/helm/${version}"
bin="${cache}/helm"
# One build at a time per version: a concurrent caller (scripts/test builds the test tools in
# the background while tests may ask for helm) waits and then finds the binary.
gobuild_cached "${bin}" "${bin}"
module="helm.sh/helm/${major}"
GOBIN="${cache}" GOFLAGS="-trimpath" CGO_ENABLED=0 GOCACHE="$(gobuild_gocache)" \
  go install -ldflags "-s -w -X ${module}/internal/version.version=${version}" \
  "${module}/cmd/helm@${version}" >&2
echo "${bin}"
