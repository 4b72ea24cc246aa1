#!/usr/bin/env bash
# The CLI against helmfile (issue 31 goal 1, the CLI's part; not a test): `kubepkg apply` of a
# package of COMPONENTS charts, each installed after the one before it is ready, against
# `helmfile sync` of the same charts as COMPONENTS releases with `needs:` in the same order and
# helm's `--wait`, side by side in one invocation. Each run is on a fresh plane of the same
# configuration (bench/lib/plane.sh: 3 simulated nodes, so each Deployment becomes ready as it
# would). Per tool: the wall time of the command (median of RUNS), the API requests of all clients
# over the run (`apiserver_request_total`; the plane's own controllers add the same for both, as
# both create the same Deployments), and for kubepkg its own requests from its trail (`--debug`).
#
#   bench/cli-vs-helmfile.sh [COMPONENTS]     (default 5; RUNS default 3)
#
# Needs Go (helmfile v1.8.0 and helm v4.3.1 built from the Go module proxy as bench tooling:
# bench/lib/install-helmfile.sh, tools/helm-ref/install-helm.sh), cargo (kubepkg in release mode
# unless KUBEPKG=path) and jq.
set -euo pipefail
# shellcheck source=bench/lib/plane.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/plane.sh"
components="${1:-5}"
runs="${RUNS:-3}"
bench_kubepkg -q
kubepkg="$(realpath "$KUBEPKG")"
helm="$(tools/helm-ref/install-helm.sh v4.3.1)"
helmfile="$(bench/lib/install-helmfile.sh v1.8.0)"
trap bench_plane_down EXIT

work="$(mktemp -d)"
pkg="$work/pkg"
bench_package "$pkg" "$components"
{
	echo "helmDefaults: {wait: true, timeout: 300}"
	echo "releases:"
	for c in $(seq 1 "$components"); do
		echo "- name: bench-c$c"
		echo "  namespace: bench"
		echo "  chart: $pkg/c$c"
		if [ "$c" -gt 1 ]; then echo "  needs: [bench/bench-c$((c - 1))]"; fi
	done
} >"$work/helmfile.yaml"

# One run of TOOL on a fresh plane: "seconds requests own-requests".
run() {
	local tool="$1" before after start end own=0
	bench_plane_up 3 >/dev/null
	kubectl create namespace bench >/dev/null
	before="$(bench_requests)"
	start=$(date +%s.%N)
	case "$tool" in
	kubepkg)
		"$kubepkg" --debug apply bench "$pkg" -n bench >"$work/kubepkg.out" 2>"$work/kubepkg.err"
		own=$(grep -c '^debug:' "$work/kubepkg.err" || true)
		;;
	helmfile)
		(cd "$work" && "$helmfile" --helm-binary "$helm" --file helmfile.yaml sync \
			>"$work/helmfile.out" 2>&1)
		;;
	esac
	end=$(date +%s.%N)
	after="$(bench_requests)"
	# Both did the whole job: every Deployment there and available.
	local available
	available=$(kubectl -n bench get deployments -o jsonpath='{range .items[*]}{.status.availableReplicas}{"\n"}{end}' | grep -c '^1$' || true)
	if [ "$available" != "$components" ]; then
		echo "$tool left $available of $components Deployments available" >&2
		exit 1
	fi
	echo "$(echo "$end - $start" | bc) $((after - before)) $own"
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
for tool in kubepkg helmfile; do
	: >"$work/$tool.runs"
	for _ in $(seq 1 "$runs"); do run "$tool" >>"$work/$tool.runs"; done
done
printf '%s components, %s runs each, fresh plane per run (3 simulated nodes, plane controllers at %s QPS)\n' \
	"$components" "$runs" "$bench_qps"
printf '%-9s %10s %22s %22s\n' tool wall_s "requests (all clients)" "own requests (trail)"
for tool in kubepkg helmfile; do
	wall=$(cut -d' ' -f1 "$work/$tool.runs" | median)
	req=$(cut -d' ' -f2 "$work/$tool.runs" | median)
	own=$(cut -d' ' -f3 "$work/$tool.runs" | median)
	[ "$tool" = helmfile ] && own="-"
	printf '%-9s %10.2f %22s %22s\n' "$tool" "$wall" "$req" "$own"
	eval "${tool}_wall=$wall ${tool}_req=$req"
done
# shellcheck disable=SC2154
printf 'kubepkg / helmfile: wall %.2fx, requests (all clients) %.2fx\n' \
	"$(echo "$kubepkg_wall / $helmfile_wall" | bc -l)" "$(echo "$kubepkg_req / $helmfile_req" | bc -l)"
printf 'each run (seconds, all-client requests, own requests):\n'
for tool in kubepkg helmfile; do sed "s/^/  $tool /" "$work/$tool.runs"; done
rm -rf "$work"
