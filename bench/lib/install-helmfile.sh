#!/usr/bin/env bash
# Builds the real `helmfile` CLI from the Go module proxy (bench tooling, never part of kubepkg)
# into ~/.cache/kubepkg/helmfile/<version>/helmfile and prints its path. Cached: a second run
# with the same version does nothing. helmfile runs `helm` (bench_vs_helm's build). Needs jq.
#
#   bench/lib/install-helmfile.sh [VERSION]   (default v1.8.0)
set -euo pipefail
# shellcheck source=../../testenv/lib/gobuild.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../testenv/lib/gobuild.sh"
version="${1:-v1.8.0}"
cache="${KUBEPKG_CACHE:-$HOME/.cache/kubepkg}/helmfile/${version}"
bin="${cache}/helmfile"
# One build at a time per version; a concurrent caller waits and then finds the binary.
gobuild_cached "${bin}" "${bin}"
# helmfile's go.mod has replace directives, which `go install PKG@VERSION` refuses: its module
# is built as the main module, from a copy of the module cache's (read-only) tree.
dir="$(go mod download -json "github.com/helmfile/helmfile@${version}" | jq -r .Dir)"
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
cp -r "${dir}/." "$src"
chmod -R u+w "$src"
(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${bin}" . >&2)
echo "${bin}"
