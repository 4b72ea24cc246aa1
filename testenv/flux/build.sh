#!/usr/bin/env bash
# Builds Flux's real source-controller and helm-controller, test tooling for kubepkg's Flux
# backend, from the Go module proxy at the versions pinned in testenv/flux/go.mod (a module of
# its own that requires both controllers as `tool`s, so changing it never rebuilds the control
# plane or the registry), and copies Flux's CRDs from the same modules' config/crd/bases next
# to them. Idempotent: everything is cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/flux/<hash of go.mod, go.sum, Go version>/
#     source-controller  helm-controller  crds/*.yaml
# and reused while none of those change. Prints that directory on stdout. With --path it only
# prints where that directory is (built or not).
#
# Two binaries, not one multi-call binary: each controller's setup (flags, manager, reconcilers)
# lives in its module's `package main` and `internal/` packages, which no other module can
# import. One `go build` compiles both, so the dependencies they share (Kubernetes libraries,
# controller-runtime, Helm) compile once.
#
# Why a wrapper module rather than `go install module@version`: both controllers' go.mod files
# replace their `api` module with `./api`, a directory the module zip does not contain, so go
# install refuses them; go.mod here takes the api modules from the proxy and repeats the
# controllers' other replace directives (go-digest, kustomize).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/gobuild.sh
source "$here/../lib/gobuild.sh"
# Layout 1 of the output directory: bump it when that changes.
gobuild_init testenv/flux/build.sh flux "$here" 1
# Written last: its presence means the directory is complete.
done_file="$out_dir/helm-controller"

# Concurrent test binaries may ask at once: one builds, the others wait for it.
gobuild_cached "$out_dir" "$done_file" "${1:-}"
echo "testenv/flux/build.sh: building source-controller and helm-controller into $out_dir" >&2
gobuild_stage
(
	gobuild_env
	go build -trimpath -ldflags "-s -w" -o "$tmp/" \
		github.com/fluxcd/source-controller github.com/fluxcd/helm-controller
	# The CRDs of exactly the versions built (the build has downloaded both modules).
	for module in github.com/fluxcd/source-controller github.com/fluxcd/helm-controller; do
		gobuild_crds "$module" 'config/crd/bases/*.yaml'
	done
)
gobuild_unstage helm-controller crds source-controller
gobuild_done "$out_dir"
