#!/usr/bin/env bash
# The controller at scale (issue 11's benchmark; not a test): N Packages created at once on a
# local control plane of its own (enough simulated nodes for their pods), each an archive in one
# ConfigMap; measures the time until every Package is Ready, the controller's peak RSS and CPU
# seconds (GNU time), and API requests per Package (the API server's
# apiserver_request_total, all clients: the controller, the node simulator, kube's controllers).
#
#   bench/controller-scale.sh [PACKAGES] [COMPONENTS] [CONCURRENCY]
#   bench/controller-scale.sh 1000 1 10     # 1000 Packages of one small component
#   bench/controller-scale.sh 100 5 10      # 100 Packages of 5 components
#   BENCH_SERVICE_ACCOUNT=deployer bench/controller-scale.sh 100 1 10
#                                           # each Package applied as a ServiceAccount
#                                           # (impersonation; it gets cluster-admin in the
#                                           # namespace by a RoleBinding)
#   SHARDS=2 bench/controller-scale.sh 5000 1 10
#                                           # two controllers, each reconciling the Packages
#                                           # labelled kubepkg.dev/shard=sK
#                                           # (--watch-label-selector), Packages spread
#                                           # round-robin; each one's RSS and CPU, and the
#                                           # p50/p99 time from a Package's creation to Ready
#   BENCH_TRAIL=1 bench/controller-scale.sh 100 1 10
#                                           # also the controller's own requests per Package,
#                                           # by verb and resource (`kubepkg --debug
#                                           # controller`: its request trail; costs some CPU)
#
# The ratio printed is against Flux's published figure for the same shape of work: 1000
# HelmReleases of one small chart Ready in 4m39s at 361 MiB (Flux 2.9);
# bench/controller-vs-flux.sh runs Flux's real controllers side by side instead.
# Uses its own plane in $BENCH_TESTENV_DIR (default <repo>/.bench-testenv), stopped at the end
# (bench/lib/plane.sh).
set -euo pipefail

# shellcheck source=bench/lib/plane.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/plane.sh"
packages="${1:-1000}"
components="${2:-1}"
concurrency="${3:-10}"
# 110 pods per simulated node; a few spare.
nodes=$(((packages * components) / 100 + 2))

bench_kubepkg -q
kubepkg="$KUBEPKG"
bench_plane_up "$nodes"
qps="$bench_qps"
# (kill 0 would signal the whole process group: only a running controller is killed)
trap 'if [ -n "${controller:-}" ]; then kill $controller 2>/dev/null || true; fi; bench_plane_down' EXIT

ns=bench
kubectl create namespace "$ns" >/dev/null
kubectl apply --server-side -f crates/kubepkg-package-object/crd/packages.kubepkg.dev.yaml >/dev/null
kubectl wait --for=condition=Established crd/packages.kubepkg.dev --timeout=60s >/dev/null

# One package of COMPONENTS charts, each a simulated Deployment (ready at once).
work="$(mktemp -d)"
pkg="$work/pkg"
bench_package "$pkg" "$components"
tar czf "$work/pkg.tgz" -C "$pkg" .
kubectl -n "$ns" create configmap bench-pkg --from-file=package.tgz="$work/pkg.tgz" >/dev/null
sa="${BENCH_SERVICE_ACCOUNT:-}"
identity=""
if [ -n "$sa" ]; then
	kubectl -n "$ns" create serviceaccount "$sa" >/dev/null
	kubectl -n "$ns" create rolebinding "$sa-admin" --clusterrole=cluster-admin \
		--serviceaccount="$ns:$sa" >/dev/null
	identity="  serviceAccountName: $sa\n"
fi
shards="${SHARDS:-1}"
for i in $(seq 1 "$packages"); do
	labels=""
	if [ "$shards" -gt 1 ]; then labels=", labels: {kubepkg.dev/shard: s$((i % shards))}"; fi
	printf -- "---\napiVersion: kubepkg.dev/v1alpha1\nkind: Package\nmetadata: {name: p%s, namespace: %s%s}\nspec:\n  source: {configMapRef: {name: bench-pkg}}\n$identity" "$i" "$ns" "$labels"
done >"$work/packages.yaml"

before="$(bench_requests)"
start=$(date +%s.%N)
trail=()
if [ "${BENCH_TRAIL:-}" = 1 ]; then trail=(--debug); fi
# One controller, or one per shard (its log and time file suffixed with the shard).
controllers=() watched=()
for k in $(seq 0 $((shards - 1))); do
	suffix="" selector=()
	if [ "$shards" -gt 1 ]; then suffix="-s$k" selector=(--watch-label-selector "kubepkg.dev/shard=s$k"); fi
	bench_timed "$work/time$suffix.txt" "$work/controller$suffix.log" "$kubepkg" "${trail[@]}" controller \
		--watch-namespace "$ns" "${selector[@]}" \
		--concurrency "$concurrency" --metrics-bind-address 0 --health-probe-bind-address 0 \
		--interval 1h
	controllers+=("$bench_pid")
	watched+=("$bench_pid:$work/controller$suffix.log")
done
controller="${controllers[*]}"
kubectl apply -f "$work/packages.yaml" >/dev/null
bench_wait_ready packages "$ns" "$packages" "${watched[@]}"
end=$(date +%s.%N)
after="$(bench_requests)"
for pid in "${controllers[@]}"; do bench_stop "$pid"; done
controller=
elapsed=$(echo "$end - $start" | bc)
rss_mib=0 cpu=0
for t in "$work"/time*.txt; do
	rss_mib=$((rss_mib + $(bench_rss_mib "$t")))
	cpu=$(echo "$cpu + $(bench_cpu_s "$t")" | bc)
done
if [ "$shards" -gt 1 ]; then
	for k in $(seq 0 $((shards - 1))); do
		printf 'shard s%s: peak RSS %d MiB, CPU %.1f s, %d Packages\n' "$k" "$(bench_rss_mib "$work/time-s$k.txt")" \
			"$(bench_cpu_s "$work/time-s$k.txt")" "$(grep -c "kubepkg.dev/shard: s$k}" "$work/packages.yaml")"
	done
fi
# Each Package's time from creation to Ready (its Ready condition's last transition).
kubectl -n "$ns" get packages -o json | jq -r '.items[] | [.metadata.creationTimestamp,
	(.status.conditions[] | select(.type == "Ready") | .lastTransitionTime)] | @tsv' |
	while IFS=$'\t' read -r created ready_at; do
		echo "$(date -d "$ready_at" +%s.%N) - $(date -d "$created" +%s)" | bc
	done | sort -n >"$work/to-ready.txt"
count=$(wc -l <"$work/to-ready.txt")
p50=$(sed -n "$(((count + 1) / 2))p" "$work/to-ready.txt")
p99=$(sed -n "$(((count * 99 + 99) / 100))p" "$work/to-ready.txt")
printf 'time from creation to Ready: p50 %.1f s, p99 %.1f s, max %.1f s (creation in whole seconds)\n' "$p50" "$p99" "$(tail -1 "$work/to-ready.txt")"
per_pkg=$(((after - before) / packages))
printf '%s Packages x %s components, concurrency %s, %s simulated nodes, plane controllers at %s QPS, applied as %s, %s controller(s)\n' "$packages" "$components" "$concurrency" "$nodes" "$qps" "${sa:-the controller}" "$shards"
printf 'all Ready after %.1f s; controller peak RSS %d MiB; CPU %.1f s; API requests %d per Package (all clients)\n' \
	"$elapsed" "$rss_mib" "$cpu" "$per_pkg"
if [ "${BENCH_TRAIL:-}" = 1 ]; then
	own=$(cat "$work"/controller*.log | grep -c '^debug:' || true)
	printf 'the controller itself: %d requests per Package; by verb and resource (all Packages):\n' "$((own / packages))"
	# METHOD URL → METHOD /path with namespaces and object names folded, watches marked.
	cat "$work"/controller*.log | grep '^debug:' | awk '{
		m = $2; u = $3; sub(/^https?:\/\/[^\/]*/, "", u)
		w = (u ~ /watch=true/) ? " (watch)" : ""; sub(/\?.*/, "", u)
		gsub(/\/namespaces\/[^\/]+/, "/namespaces/NS", u)
		print m, u w
	}' | sed -E 's#/(secrets|leases|configmaps|packages|deployments|events|services|serviceaccounts)/[^/ ]+#/\1/NAME#g' |
		sort | uniq -c | sort -rn | sed 's/^/  /'
fi
if [ "$packages" = 1000 ] && [ "$components" = 1 ]; then
	printf 'against Flux 2.9 (1000 HelmReleases in 279 s at 361 MiB): time %.2fx, memory %.2fx (goal: under 0.25x both)\n' \
		"$(echo "$elapsed / 279" | bc -l)" "$(echo "$rss_mib / 361" | bc -l)"
fi
if [ -n "${BENCH_KEEP_LOG:-}" ]; then cat "$work"/controller*.log >"$BENCH_KEEP_LOG"; fi
rm -rf "$work"
