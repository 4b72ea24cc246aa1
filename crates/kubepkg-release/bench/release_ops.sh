#!/usr/bin/env bash
# Benchmark (not a test): kubepkg vs real Helm 3 on the local control plane.
#  1. install + upgrade (--wait) of the same chart, N times each, wall time per operation;
#  2. `list -a` over 200 releases × 10 revisions (Helm decodes all 2000 records; kubepkg
#     reads labels and decodes the latest record of each release only).
# Usage: crates/kubepkg-release/bench/release_ops.sh [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cd "$repo"
n="${1:-5}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
# KUBEPKG_BENCH_PROFILE=debug measures the debug build (quicker to build, slower to run).
profile="${KUBEPKG_BENCH_PROFILE:-release}"
flag=$([ "$profile" = release ] && echo --release || true)
cargo build $flag -q -p kubepkg
cargo build $flag -q -p kubepkg-release --example seed_releases
kp="$CARGO_TARGET_DIR/$profile/kubepkg"
seed="$CARGO_TARGET_DIR/$profile/examples/seed_releases"
helm="$(tools/helm-ref/install-helm.sh v3.22.0)"
export KUBECONFIG="$(testenv/up.sh)"
kubectl="$repo/.testenv/bin/kubectl"
chart="$repo/crates/kubepkg/tests/charts/crashy"
ns="bench-ops-$$"
lns="bench-list-$$"
"$kubectl" create namespace "$ns" >/dev/null
"$kubectl" create namespace "$lns" >/dev/null
trap '"$kubectl" delete namespace "$ns" "$lns" --wait=false >/dev/null 2>&1 || true' EXIT

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
elapsed() { calc "$2 - $1"; }
time_ops() { # tool label
	local tool="$1" t0 t1 t2 inst=0 upg=0
	for i in $(seq 1 "$n"); do
		t0=$(now)
		"$tool" install "$2-$i" "$chart" -n "$ns" --wait >/dev/null 2>&1
		t1=$(now)
		"$tool" upgrade "$2-$i" "$chart" -n "$ns" --wait --set message=v2 >/dev/null 2>&1
		t2=$(now)
		inst=$(calc "$inst + $(elapsed "$t0" "$t1")")
		upg=$(calc "$upg + $(elapsed "$t1" "$t2")")
	done
	printf '%s install: %.3fs  upgrade: %.3fs (mean of %d)\n' "$2" "$(calc "$inst / $n")" "$(calc "$upg / $n")" "$n"
}
time_ops "$kp" kubepkg
time_ops "$helm" helm

"$seed" "$lns" 200 10
time_list() { # label cmd...
	local label="$1" t0 t1 total=0
	shift
	for _ in 1 2 3; do
		t0=$(now); "$@" >/dev/null; t1=$(now)
		total=$(calc "$total + $(elapsed "$t0" "$t1")")
	done
	printf '%s list -a (200 releases x 10 revisions): %.3fs (mean of 3)\n' "$label" "$(calc "$total / 3")"
}
time_list kubepkg "$kp" list -a -n "$lns"
time_list helm "$helm" list -a -n "$lns"
