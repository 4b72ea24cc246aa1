#!/usr/bin/env bash
# Starts kubepkg's local control plane, or attaches to it if it already runs
# healthy: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
# simulated nodes, on free loopback ports. Builds the binary first if the
# cache lacks it (testenv/build.sh). Returns once the API server is ready,
# the default ServiceAccount exists and every node is Ready; prints the
# admin kubeconfig's path on stdout.
#
# State (kubeconfig, certificates, logs/<component>.log, state.json) lives in
# $KUBEPKG_TESTENV_DIR, default <repo>/.testenv. On failure the failing
# component's log tail is printed and the exit status is non-zero.
# Options are passed to `kpk-cluster up` (e.g. --nodes 3). With --real-node the
# plane also has a real node (kubelet, containerd, runc, CNI: pods really run;
# needs root and the Debian packages scripts/lib/needs.sh lists); a running
# plane without one gains it. See README.md "The real node".
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
export KUBEPKG_TESTENV_DIR="${KUBEPKG_TESTENV_DIR:-$repo/.testenv}"
mkdir -p "$KUBEPKG_TESTENV_DIR/bin"

bin="$("$here/build.sh")"
# The same binary is kubectl when called by that name.
ln -sfn "$bin" "$KUBEPKG_TESTENV_DIR/bin/kubectl"
ln -sfn "$bin" "$KUBEPKG_TESTENV_DIR/bin/kpk-cluster"
extra=()
for arg in "$@"; do
	if [[ "$arg" == "--real-node" ]]; then
		# The real node's registry and its pause binary.
		extra=(--registry-binary "$("$here/registry/build.sh")")
	fi
done
exec "$bin" up --dir "$KUBEPKG_TESTENV_DIR" "$@" "${extra[@]}"
