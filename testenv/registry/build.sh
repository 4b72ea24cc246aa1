#!/usr/bin/env bash
# Builds kpk-registry, kubepkg's test OCI registry (the CNCF distribution
# registry in-process, plus htpasswd and certificate helpers), from the Go
# module proxy at the versions pinned in testenv/registry/go.mod. Its own Go
# module, so that changing it never rebuilds the control plane. Idempotent: the
# binary is cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/registry/<hash of go.mod, go.sum, sources, Go version>/
# and reused while none of those change. Prints the binary's path on stdout.
# With --path it only prints where that binary is (built or not).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${KUBEPKG_CACHE_DIR:-$HOME/.cache/kubepkg}/registry"

if ! command -v go >/dev/null 2>&1; then
	echo "testenv/registry/build.sh: the go command is missing; install Go 1.26 (see .ci/run)" >&2
	exit 1
fi

go_version="$(go env GOVERSION)"
hash="$(
	cd "$here"
	{
		echo "$go_version"
		cat go.mod go.sum
		for f in kpk-registry/*.go; do echo "== $f"; cat "$f"; done
	} | sha256sum | cut -c1-16
)"
out_dir="$cache_root/$hash"
bin="$out_dir/kpk-registry"

if [[ "${1:-}" == "--path" ]]; then
	echo "$bin"
	exit 0
fi

if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$out_dir"
# Concurrent test binaries may ask at once: one builds, the others wait for it.
exec 9>"$out_dir/.build.lock"
flock 9
if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi
echo "testenv/registry/build.sh: building kpk-registry into $out_dir" >&2
start=$(date +%s)
tmp="$out_dir/kpk-registry.tmp.$$"
(
	cd "$here"
	export GOCACHE="$cache_root/go-build"
	export CGO_ENABLED=0
	go build -trimpath -ldflags "-s -w" -o "$tmp" ./kpk-registry
)
mv -f "$tmp" "$bin"
echo "testenv/registry/build.sh: built in $(( $(date +%s) - start )) s" >&2
echo "$bin"
