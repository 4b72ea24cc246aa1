#!/usr/bin/env bash
# The dashboard's package list at scale (issue 30; not a test): N one-component packages applied
# with `kubepkg apply` into one namespace of a local control plane of its own, then
# `kubepkg dashboard` on that namespace; measures the load time of the package list (`GET /`:
# every package's latest revision and live status read, the page rendered) and of one
# package's page, the median of RUNS requests each (curl's time_total, the whole response),
# and the list's size in bytes.
#
#   bench/dashboard-list.sh [PACKAGES]      # default 1000
#   RUNS=10 KUBEPKG=target/release/kubepkg bench/dashboard-list.sh 1000
#
# Uses its own plane in $BENCH_TESTENV_DIR (default <repo>/.bench-testenv), stopped at the end
# (bench/lib/plane.sh). Needs curl.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
packages="${1:-1000}"
runs="${RUNS:-5}"
nodes=$((packages / 100 + 2))
# shellcheck source=bench/lib/plane.sh
source "$repo/bench/lib/plane.sh"
# shellcheck source=bench/lib/tools.sh
source "$repo/bench/lib/tools.sh"

bench_kubepkg -q
kubepkg="$KUBEPKG"
bench_plane_up "$nodes"
trap 'if [ -n "${dashboard:-}" ]; then kill "$dashboard" 2>/dev/null || true; fi; bench_plane_down' EXIT

ns=bench
kubectl create namespace "$ns" >/dev/null
work="$(mktemp -d)"
pkg="$work/pkg"
bench_chart "$pkg/web" web
echo "package: {name: bench, version: 1.0.0}" >"$pkg/kubepkg.yaml"
echo "components: [{name: web, path: web}]" >>"$pkg/kubepkg.yaml"

echo "applying $packages packages (8 at a time)…" >&2
start=$(date +%s)
seq 1 "$packages" | xargs -P 8 -I{} "$kubepkg" apply "p{}" "$pkg" -n "$ns" --kubeconfig "$KUBECONFIG" --progress plain >/dev/null 2>&1
echo "applied in $(($(date +%s) - start)) s" >&2

"$kubepkg" dashboard -n "$ns" --port 0 --kubeconfig "$KUBECONFIG" >"$work/dashboard.out" 2>&1 &
dashboard=$!
for _ in $(seq 1 100); do
	url="$(grep -o 'http://[^ ]*' "$work/dashboard.out" || true)"
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || {
	cat "$work/dashboard.out" >&2
	exit 1
}

# The median of RUNS loads of URL (seconds), after one load to warm the connection pools.
median() {
	local target="$1"
	curl -fsS -o /dev/null "$target"
	for _ in $(seq 1 "$runs"); do
		curl -fsS -o /dev/null -w '%{time_total}\n' "$target"
	done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

list_s="$(median "$url")"
package_s="$(median "${url}packages/$ns/p1")"
bytes="$(curl -fsS "$url" | wc -c)"
printf '| packages | list load (median of %s) | list HTML | one package page |\n|---|---|---|---|\n' "$runs"
printf '| %s | %s s | %s bytes | %s s |\n' "$packages" "$list_s" "$bytes" "$package_s"
