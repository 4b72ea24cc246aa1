#!/usr/bin/env bash
# Fleet rollouts at scale (issue 28's benchmark; not a test): CLUSTERS target clusters, each a
# kube-apiserver of its own over the managing plane's etcd (`kpk-cluster up --etcd-of …
# --apiserver-only`, what the tests' `fleet_plane` starts), registered as kubeconfig Secrets;
# one PackageRollout of STAGES stages (a canary of one cluster, then the rest split evenly), each
# stage but the last baked BAKE; the real `kubepkg controller` in the managing plane.
#
#   bench/fleet-rollout.sh [CLUSTERS] [STAGES] [BAKE]
#   bench/fleet-rollout.sh 20 4 10s
#
# Measures, for a version change (1.0.0 installed everywhere first, then 1.1.0 rolled out):
# the time from the change to the rollout Succeeded against the sum of the bake times (the
# difference is the overhead of staging), the controller's peak RSS and CPU seconds (GNU time),
# the API requests each target cluster answered during the change (its apiserver_request_total,
# all clients: only the controller talks to it), and what one target API server costs (RSS).
# The package is one ConfigMap (a cluster of only an API server can run it; no pods).
# Uses its own plane in $BENCH_TESTENV_DIR (default <repo>/.bench-testenv), stopped at the end.
set -euo pipefail

# shellcheck source=bench/lib/plane.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/plane.sh"
clusters="${1:-20}"
stages="${2:-4}"
bake="${3:-10s}"
if [ "$clusters" -lt "$stages" ] || [ "$stages" -lt 2 ]; then
	echo "bench/fleet-rollout.sh: need at least 2 stages and one cluster per stage" >&2
	exit 2
fi

bench_kubepkg -q
kubepkg="$KUBEPKG"
bench_plane_up 1
home="$KUBEPKG_TESTENV_DIR"
trap 'if [ -n "${controller:-}" ]; then kill "$controller" 2>/dev/null || true; fi; bench_plane_down' EXIT

ns=fleet
kubectl create namespace "$ns" >/dev/null
for crd in crates/kubepkg-package-object/crd/packages.kubepkg.dev.yaml crates/kubepkg-fleet/crd/packagerollouts.kubepkg.dev.yaml; do
	kubectl apply --server-side -f "$crd" >/dev/null
done
kubectl wait --for=condition=Established crd/packages.kubepkg.dev crd/packagerollouts.kubepkg.dev --timeout=60s >/dev/null

# The target clusters, registered; stage 1 is c1, the others are dealt round the later stages.
work="$(mktemp -d)"
up_start=$(date +%s.%N)
for i in $(seq 1 "$clusters"); do
	kc="$(KUBEPKG_TESTENV_DIR="$home/fleet/c$i" "$repo/testenv/up.sh" --etcd-of "$home" \
		--etcd-prefix "/fleet-c$i" --apiserver-only)"
	if [ "$i" = 1 ]; then stage=1; else stage=$(((i - 2) % (stages - 1) + 2)); fi
	kubectl -n "$ns" create secret generic "c$i" --from-file=value="$kc" >/dev/null
	kubectl -n "$ns" label secret "c$i" kubepkg.dev/cluster=true "stage=s$stage" >/dev/null
	echo "$kc" >>"$work/kubeconfigs"
done
up_end=$(date +%s.%N)
# RSS of the target API servers (their command lines name their state directories).
fleet_rss_kib=$(ps -eo rss=,args= | awk -v d="$home/fleet/" 'index($0, d) && /apiserver/ {s += $1} END {printf "%d", s}')

# Two versions of a one-ConfigMap package, as archives in ConfigMaps of the managing plane.
for v in 1.0.0 1.1.0; do
	pkg="$work/pkg-$v"
	mkdir -p "$pkg/app/templates"
	printf 'package: {name: shop, version: %s, rollback: {safe: true}}\ncomponents:\n- {name: app, path: app}\n' "$v" >"$pkg/kubepkg.yaml"
	printf 'apiVersion: v2\nname: app\nversion: 1.0.0\n' >"$pkg/app/Chart.yaml"
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-app}\ndata: {version: "%s"}\n' "$v" >"$pkg/app/templates/app.yaml"
	tar czf "$work/pkg-$v.tgz" -C "$pkg" .
	kubectl -n "$ns" create configmap "pkg-$v" --from-file=package.tgz="$work/pkg-$v.tgz" >/dev/null
done
rollout() {
	{
		printf 'apiVersion: kubepkg.dev/v1alpha1\nkind: PackageRollout\nmetadata: {name: shop, namespace: %s}\nspec:\n' "$ns"
		printf '  package: {source: {configMapRef: {name: pkg-%s}}}\n  stages:\n' "$1"
		for s in $(seq 1 "$stages"); do
			printf '  - {name: s%s, selector: {matchLabels: {stage: s%s}}' "$s" "$s"
			if [ "$s" -lt "$stages" ]; then printf ', bake: %s' "$bake"; fi
			printf '}\n'
		done
	} | kubectl apply -f - >/dev/null
}
wait_succeeded() {
	local version="$1"
	while :; do
		local phase ready
		phase="$(kubectl -n "$ns" get packagerollout shop -o jsonpath='{.status.phase}' 2>/dev/null || true)"
		ready="$(bench_count_ready packages "$ns")"
		if [ "$phase" = Succeeded ] && [ "$ready" -ge "$clusters" ] &&
			[ "$(kubectl -n "$ns" get packages -o jsonpath='{range .items[*]}{.status.version}{"\n"}{end}' | grep -c "^$version\$")" -ge "$clusters" ]; then
			break
		fi
		bench_alive "$controller:$work/controller.log"
		sleep 1
	done
}
target_requests() {
	local sum=0 kc
	while read -r kc; do
		sum=$((sum + $(kubectl --kubeconfig "$kc" get --raw /metrics | awk '/^apiserver_request_total/ {s += $NF} END {printf "%d", s}')))
	done <"$work/kubeconfigs"
	echo "$sum"
}

bench_timed "$work/time.txt" "$work/controller.log" "$kubepkg" controller --watch-namespace "$ns" \
	--concurrency 10 --metrics-bind-address 0 --health-probe-bind-address 0 --interval 1h
controller=$bench_pid
install_start=$(date +%s.%N)
rollout 1.0.0
wait_succeeded 1.0.0
install_end=$(date +%s.%N)

before="$(target_requests)"
start=$(date +%s.%N)
rollout 1.1.0
wait_succeeded 1.1.0
end=$(date +%s.%N)
after="$(target_requests)"
bench_stop "$controller"
controller=

bake_s="$(echo "$bake" | sed -E 's/s$//; s/^([0-9.]+)m$/\1*60/' | bc -l)"
baked=$(echo "($stages - 1) * $bake_s" | bc -l)
elapsed=$(echo "$end - $start" | bc -l)
printf '%s target clusters (one API server each over the managing etcd), %s stages (1 canary + the rest dealt round), bake %s after each stage but the last\n' \
	"$clusters" "$stages" "$bake"
printf 'targets up in %.1f s (%.2f s each); their API servers %d MiB RSS together (%d MiB each)\n' \
	"$(echo "$up_end - $up_start" | bc -l)" "$(echo "($up_end - $up_start) / $clusters" | bc -l)" \
	"$((fleet_rss_kib / 1024))" "$((fleet_rss_kib / 1024 / clusters))"
printf 'first install (1.0.0, same stages and bakes): %.1f s\n' "$(echo "$install_end - $install_start" | bc -l)"
printf 'version change to all Ready: %.1f s; bake times %.1f s; overhead %.1f s (%.2f s per stage)\n' \
	"$elapsed" "$baked" "$(echo "$elapsed - $baked" | bc -l)" "$(echo "($elapsed - $baked) / $stages" | bc -l)"
printf 'controller peak RSS %d MiB; CPU %.1f s (both rollouts); API requests per target cluster during the change %d\n' \
	"$(bench_rss_mib "$work/time.txt")" "$(bench_cpu_s "$work/time.txt")" "$(((after - before) / clusters))"
rm -rf "$work"
