#!/usr/bin/env bash
# Builds kpk-cluster, the multi-call binary of kubepkg's local control plane
# (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# node simulator), from the Go module proxy at the versions pinned in
# testenv/go.mod. Idempotent: the binary is cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/testenv/<hash of go.mod, go.sum, sources, Go version>/
# and reused while none of those change. Prints the binary's path on stdout.
# With --path it only prints where that binary is (built or not) and builds
# nothing: the test kit finds the binary of the current sources that way.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/gobuild.sh
source "$here/lib/gobuild.sh"
gobuild_init testenv/build.sh testenv "$here" "" "kpk-cluster pki"
bin="$out_dir/kpk-cluster"

gobuild_cached "$bin" "$bin" "${1:-}"

# The Kubernetes version stamped into /version (charts check kubeVersion
# against it), read from go.mod so it always matches what is linked.
kube_version="$(cd "$here" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
major="${kube_version#v}"; major="${major%%.*}"
minor="${kube_version#v*.}"; minor="${minor%%.*}"
build_date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
	ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done

echo "testenv/build.sh: Kubernetes $kube_version; a cold build takes several minutes" >&2
gobuild_binary kpk-cluster ./kpk-cluster "$ldflags"
