#!/usr/bin/env bash
# Builds kpk-bench-peer (bench/peer/main.go: Go's RSA key generation and Helm's SDK render
# loop, the peers of bench/rsa-keygen.sh and bench/render-api.sh) from the Go module proxy at the
# versions of bench/peer/go.mod. Idempotent: cached outside the clone in
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/bench-peer/<hash of go.mod, go.sum, main.go, Go version>/
# Prints the binary's path on stdout.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${KUBEPKG_CACHE_DIR:-$HOME/.cache/kubepkg}/bench-peer"
if ! command -v go >/dev/null 2>&1; then
	echo "bench/peer/build.sh: the go command is missing; install Go 1.26 (see .ci/run)" >&2
	exit 1
fi
hash="$(cd "$here" && { go env GOVERSION; cat go.mod go.sum main.go; } | sha256sum | cut -c1-16)"
out_dir="$cache_root/$hash"
bin="$out_dir/kpk-bench-peer"
if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$out_dir"
exec 9>"$out_dir/.build.lock"
flock 9
if [[ ! -x "$bin" ]]; then
	echo "bench/peer/build.sh: building kpk-bench-peer into $out_dir" >&2
	start=$(date +%s)
	(cd "$here" && GOCACHE="$cache_root/go-build" CGO_ENABLED=0 \
		go build -trimpath -ldflags "-s -w" -o "$out_dir/kpk-bench-peer.tmp.$$" .)
	mv -f "$out_dir/kpk-bench-peer.tmp.$$" "$bin"
	echo "bench/peer/build.sh: built in $(( $(date +%s) - start )) s" >&2
fi
echo "$bin"
