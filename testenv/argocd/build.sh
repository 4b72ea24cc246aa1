#!/usr/bin/env bash
# Builds Argo CD's real binary, test tooling for kubepkg's Argo CD backend, from the Go module
# proxy at the version pinned in testenv/argocd/go.mod (a module of its own, so changing it
# never rebuilds the control plane, the registry or Flux), and copies Argo CD's CRDs from the
# same module's manifests/crds next to it. Idempotent: everything is cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/argocd/<hash of go.mod, go.sum, Go version>/
#     argocd  kpk-redis  crds/*.yaml
#     bin/argocd-application-controller, bin/argocd-repo-server, ... (symlinks to ../argocd)
#     bin/git-verify-wrapper.sh  bin/gpg-wrapper.sh
# and reused while none of those change (the hash also covers kpk-redis/*.go). Prints that directory on stdout. With --path it only
# prints where that directory is (built or not).
#
# One multi-call binary: Argo CD's cmd package picks the component from the name it is run as
# (argv[0], or $ARGOCD_BINARY_NAME): argocd-application-controller, argocd-repo-server,
# argocd-server, ... and the `argocd` CLI otherwise. Run it through a symlink of that name, or
# with ARGOCD_BINARY_NAME set. bin/ holds those symlinks and the two helper scripts Argo CD's image
# puts on PATH (taken from the same module's hack/): the repo server runs git-verify-wrapper.sh
# on every commit it renders and fails the manifest generation ("permission denied") without it.
# Put bin/ first on PATH for the repo server.
#
# kpk-redis (kpk-redis/main.go, this module's own command): the Redis both components cache
# into, github.com/alicebob/miniredis/v2 at the version Argo CD's own module graph pins (its
# `argocd --core` mode runs the same in-process server), so no system package is needed.
#
# Why a wrapper module rather than `go install module@version`: Argo CD's go.mod replaces its
# gitops-engine module with ./gitops-engine, a directory the module zip does not contain, so go
# install refuses it; go.mod here takes gitops-engine from the proxy and repeats Argo CD's other
# replace directives (the Kubernetes libraries at v0.36.1, protobuf, grpc-gateway, ...).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/gobuild.sh
source "$here/../lib/gobuild.sh"
# Layout 3 of the output directory: bump it when that changes.
gobuild_init testenv/argocd/build.sh argocd "$here" 3 kpk-redis
module=github.com/argoproj/argo-cd/v3
# Written last: its presence means the directory is complete.
done_file="$out_dir/argocd"

# Concurrent test binaries may ask at once: one builds, the others wait for it.
gobuild_cached "$out_dir" "$done_file" "${1:-}"
echo "testenv/argocd/build.sh: building Argo CD into $out_dir" >&2
gobuild_stage
(
	gobuild_env
	# Stamp the version as Argo CD's release builds do (`argocd version`, the controllers' logs).
	version="$(go list -m -f '{{.Version}}' "$module")"
	kubectl_version="$(go list -m -f '{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}' k8s.io/kubectl)"
	pkg="$module/common"
	go build -trimpath -o "$tmp/argocd" -ldflags "-s -w \
		-X $pkg.version=${version#v} -X $pkg.gitTag=$version -X $pkg.gitTreeState=clean \
		-X $pkg.kubectlVersion=$kubectl_version" "$module/cmd"
	go build -trimpath -o "$tmp/kpk-redis" -ldflags "-s -w" ./kpk-redis
	# The CRDs of exactly the version built (the build has downloaded the module).
	gobuild_crds "$module" 'manifests/crds/*-crd.yaml'
	dir="$(go list -m -f '{{.Dir}}' "$module")"
	mkdir -p "$tmp/bin"
	for script in git-verify-wrapper.sh gpg-wrapper.sh; do
		install -m 0755 "$dir/hack/$script" "$tmp/bin/"
	done
	# The component names cmd/main.go dispatches on (common/common.go's Command* constants).
	for name in argocd-application-controller argocd-repo-server argocd-server \
		argocd-applicationset-controller argocd-commit-server argocd-cmp-server \
		argocd-notifications argocd-dex argocd-git-ask-pass argocd-k8s-auth; do
		ln -s ../argocd "$tmp/bin/$name"
	done
)
gobuild_unstage argocd crds bin kpk-redis
gobuild_done "$out_dir"
