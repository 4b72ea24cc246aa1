#!/usr/bin/env bash
# Measures the local control plane: warm start (binary cached, plane down ->
# usable: /readyz, default ServiceAccount, nodes Ready), attach to a running
# plane, and stop. With --cold it first empties the build cache
# (~/.cache/kubepkg/testenv) and times testenv/build.sh from scratch (Go
# modules already downloaded stay in the Go module cache).
# Usage: bench/testenv.sh [--cold] [runs]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export KUBEPKG_TESTENV_DIR="${KUBEPKG_TESTENV_DIR:-$repo/.testenv}"
cold=false
if [[ "${1:-}" == "--cold" ]]; then cold=true; shift; fi
runs="${1:-3}"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

if $cold; then
	rm -rf "${KUBEPKG_CACHE_DIR:-$HOME/.cache/kubepkg}/testenv"
	# An empty Go build cache of its own: the shared one would make the build warm.
	KUBEPKG_GOCACHE="$(mktemp -d)"
	export KUBEPKG_GOCACHE
	t=$(now)
	"$repo/testenv/build.sh" >/dev/null
	echo "cold build: $(since "$t") s"
	rm -rf "$KUBEPKG_GOCACHE"
	unset KUBEPKG_GOCACHE
fi
"$repo/testenv/build.sh" >/dev/null
for i in $(seq 1 "$runs"); do
	"$repo/testenv/down.sh"
	t=$(now)
	"$repo/testenv/up.sh" >/dev/null 2>&1
	echo "warm start $i: $(since "$t") s"
done
t=$(now)
"$repo/testenv/up.sh" >/dev/null 2>&1
echo "attach: $(since "$t") s"
t=$(now)
"$repo/testenv/down.sh"
echo "stop: $(since "$t") s"
