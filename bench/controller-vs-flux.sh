#!/usr/bin/env bash
# kubepkg's controller against Flux's (issue 13's benchmark; not a test), side by side in one
# invocation on a local control plane of the benchmark's own: N objects of one small chart (a
# simulated Deployment, Ready once its Pod runs on a simulated node), created at once, reconciled
# one run after the other, each run on a fresh plane of the same configuration (so neither sees
# the other's objects, Pods or etcd history):
#
#   kubepkg  N Packages (backend helm) by `kubepkg controller` (a release build), once per entry
#            of KUBEPKG_CONCURRENCY; the package
#            pulled from the test registry (`source.oci`; KUBEPKG_SOURCE=configmap: an archive in
#            one ConfigMap, as controller-scale.sh)
#   flux     N HelmReleases of the same chart from the same registry by Flux's real
#            helm-controller and source-controller (testenv/flux/build.sh), once per entry of
#            FLUX_CONCURRENCY ("HELM/SOURCE" --concurrent pairs; default "4/2 10/10": Flux's
#            defaults, then the concurrency of Flux's published benchmark). The chart source is
#            FLUX_SOURCE: `helmrepository` (default: one shared HelmRepository of type oci, a
#            HelmChart per release, as Flux's benchmark and most Flux users do) or
#            `ocirepository` (an OCIRepository per release with chartRef, as kubepkg's Flux
#            backend compiles).
#
# For each run: the time from creating the objects (with the controllers just started) until all
# N are Ready, peak RSS and CPU seconds of each controller process (GNU time), the CPU seconds of
# each plane component (kube-apiserver, etcd, …) over the run, API requests per object (all
# clients); then the ratios kubepkg/Flux.
#
#   bench/controller-vs-flux.sh [N]          # default 1000
#   FLUX_CONCURRENCY=10/10 bench/controller-vs-flux.sh 100
#
# Environment: KUBEPKG_CONCURRENCY (the controller's --concurrency, one run per entry of the
# list; default "10", the concurrency of Flux's published benchmark), CONTROLLER_QPS (the plane's own controllers,
# default 200), BENCH_TESTENV_DIR (default <repo>/.bench-testenv; stopped at the end).
set -euo pipefail

# shellcheck source=bench/lib/plane.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/plane.sh"
n="${1:-1000}"
kp_concurrency="${KUBEPKG_CONCURRENCY:-10}"
flux_runs="${FLUX_CONCURRENCY:-4/2 10/10}"
flux_source="${FLUX_SOURCE:-helmrepository}"
kp_source="${KUBEPKG_SOURCE:-oci}"
case "$flux_source" in helmrepository | ocirepository) ;; *)
	echo "FLUX_SOURCE must be helmrepository or ocirepository, not $flux_source" >&2
	exit 2
	;;
esac
case "$kp_source" in oci | configmap) ;; *)
	echo "KUBEPKG_SOURCE must be oci or configmap, not $kp_source" >&2
	exit 2
	;;
esac
# 110 pods per simulated node; a few spare.
nodes=$((n / 100 + 2))

bench_kubepkg -q
kubepkg="$KUBEPKG"
flux_dir="$(testenv/flux/build.sh)"
registry_bin="$(testenv/registry/build.sh)"
work="$(mktemp -d)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	bench_plane_down
	rm -rf "$work"
}
trap cleanup EXIT
ns=bench

# The test registry (plain HTTP on loopback), holding the chart and the package.
"$registry_bin" serve --root "$work/registry" >"$work/registry.out" 2>"$work/registry.log" &
pids+=($!)
for _ in $(seq 1 100); do
	grep -q '^listening on ' "$work/registry.out" 2>/dev/null && break
	sleep 0.1
done
registry="$(sed -n 's/^listening on //p' "$work/registry.out")"
[ -n "$registry" ] || {
	echo "kpk-registry did not start: $(cat "$work/registry.log")" >&2
	exit 1
}
pkg="$work/pkg"
bench_chart "$pkg/c1" bench
echo "package: {name: bench, version: 1.0.0, rollback: {safe: true}}
components:
- {name: c1, path: c1}" >"$pkg/kubepkg.yaml"
(cd "$work" && "$kubepkg" package pack "$pkg/c1" >/dev/null)
"$kubepkg" push "$work/bench-1.0.0.tgz" "oci://$registry/charts" --plain-http >/dev/null 2>&1
"$kubepkg" package push "$pkg" "oci://$registry/packages" --plain-http >/dev/null 2>&1
tar czf "$work/pkg.tgz" -C "$pkg" .

# Runs one controller set against N objects: NAME KIND OBJECTS.yaml CMD-SPECS…; each CMD-SPEC
# is "label|command line" (the label names its GNU time report). Prints one result line.
results=()
run() {
	local name="$1" kind="$2" objects="$3"
	shift 3
	local before after start end plane_before="$work/$name.plane0" plane_after="$work/$name.plane1"
	local labels=() timers=() watched=()
	bench_plane_cpu >"$plane_before"
	before="$(bench_requests)"
	start=$(date +%s.%N)
	for spec in "$@"; do
		local label="${spec%%|*}" cmd="${spec#*|}"
		# shellcheck disable=SC2086 # the command line is split into words on purpose
		bench_timed "$work/$name.$label.time" "$work/$name.$label.log" $cmd
		labels+=("$label")
		timers+=("$bench_pid")
		watched+=("$bench_pid:$work/$name.$label.log")
		pids+=("$bench_pid")
	done
	kubectl apply -f "$objects" >/dev/null
	bench_wait_ready "$kind" "$ns" "$n" "${watched[@]}"
	end=$(date +%s.%N)
	after="$(bench_requests)"
	bench_plane_cpu >"$plane_after"
	for p in "${timers[@]}"; do bench_stop "$p"; done
	local elapsed rss=0 cpu=0 detail=""
	elapsed=$(echo "$end - $start" | bc)
	for label in "${labels[@]}"; do
		local r c
		r=$(bench_rss_mib "$work/$name.$label.time")
		c=$(bench_cpu_s "$work/$name.$label.time")
		rss=$((rss + r))
		cpu=$(echo "$cpu + $c" | bc)
		detail+="$label ${r} MiB ${c} s; "
	done
	results+=("$(printf '%s|%.1f|%d|%.1f|%s|%d|%s' "$name" "$elapsed" "$rss" "$cpu" "${detail%; }" \
		$(((after - before) / n)) "$(bench_plane_cpu_delta "$plane_before" "$plane_after")")")
	printf '%s: all %s Ready after %.1f s; peak RSS %d MiB, CPU %.1f s (%s); %d API requests per object; %s\n' \
		"$name" "$n" "$elapsed" "$rss" "$cpu" "${detail%; }" $(((after - before) / n)) \
		"$(bench_plane_cpu_delta "$plane_before" "$plane_after")"
}

# --- kubepkg: N Packages, backend helm, once per concurrency.
if [ "$kp_source" = oci ]; then
	source_spec="{oci: \"oci://$registry/packages/bench\", version: 1.0.0, insecure: true}"
else
	source_spec="{configMapRef: {name: bench-pkg}}"
fi
for i in $(seq 1 "$n"); do
	printf -- '---\napiVersion: kubepkg.dev/v1alpha1\nkind: Package\nmetadata: {name: p%s, namespace: %s}\nspec:\n  source: %s\n' "$i" "$ns" "$source_spec"
done >"$work/packages.yaml"
for c in $kp_concurrency; do
	bench_plane_up "$nodes"
	kubectl create namespace "$ns" >/dev/null
	kubectl apply --server-side -f crates/kubepkg-package-object/crd/packages.kubepkg.dev.yaml >/dev/null
	kubectl wait --for=condition=Established crd/packages.kubepkg.dev --timeout=60s >/dev/null
	if [ "$kp_source" = configmap ]; then
		kubectl -n "$ns" create configmap bench-pkg --from-file=package.tgz="$work/pkg.tgz" >/dev/null
	fi
	run "kubepkg(c=$c)" packages "$work/packages.yaml" \
		"kubepkg|$kubepkg controller --watch-namespace $ns --concurrency $c --metrics-bind-address 0 --health-probe-bind-address 0 --interval 1h"
done

# --- Flux: N HelmReleases, once per concurrency pair.
{
	if [ "$flux_source" = helmrepository ]; then
		printf -- '---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: charts, namespace: %s}\nspec: {type: oci, url: "oci://%s/charts", insecure: true, interval: 1h}\n' "$ns" "$registry"
	fi
	for i in $(seq 1 "$n"); do
		if [ "$flux_source" = helmrepository ]; then
			chart="chart: {spec: {chart: bench, version: 1.0.0, interval: 1h, sourceRef: {kind: HelmRepository, name: charts}}}"
		else
			printf -- '---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: p%s, namespace: %s}\nspec: {url: "oci://%s/charts/bench", ref: {tag: 1.0.0}, insecure: true, interval: 1h, layerSelector: {mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip, operation: copy}}\n' "$i" "$ns" "$registry"
			chart="chartRef: {kind: OCIRepository, name: p$i}"
		fi
		printf -- '---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: p%s, namespace: %s}\nspec:\n  interval: 1h\n  releaseName: p%s-c1\n  %s\n' "$i" "$ns" "$i" "$chart"
	done
} >"$work/helmreleases.yaml"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for pair in $flux_runs; do
	helm_c="${pair%/*}" source_c="${pair#*/}"
	bench_plane_up "$nodes"
	kubectl create namespace "$ns" >/dev/null
	kubectl apply --server-side -f "$flux_dir/crds" >/dev/null
	kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
	home="$work/flux-home-$helm_c"
	rm -rf "$home" && mkdir -p "$home/storage"
	storage="127.0.0.1:$(free_port)"
	common="--watch-all-namespaces=false --enable-leader-election=false --log-encoding=json"
	env="env RUNTIME_NAMESPACE=$ns HOME=$home"
	run "flux(helm=$helm_c,source=$source_c)" helmreleases.helm.toolkit.fluxcd.io "$work/helmreleases.yaml" \
		"source-controller|$env $flux_dir/source-controller $common --concurrent=$source_c --metrics-addr=127.0.0.1:$(free_port) --health-addr=127.0.0.1:$(free_port) --storage-path=$home/storage --storage-addr=$storage --storage-adv-addr=$storage" \
		"helm-controller|$env $flux_dir/helm-controller $common --concurrent=$helm_c --metrics-addr=127.0.0.1:$(free_port) --health-addr=127.0.0.1:$(free_port)"
done

echo
echo "N=$n, $nodes simulated nodes, plane controllers at $bench_qps QPS, $(nproc) cores, kubepkg package source: $kp_source, Flux chart source: $flux_source"
echo "| run | all Ready after | peak RSS | CPU | per process | API requests per object | plane CPU over the run |"
echo "|---|---|---|---|---|---|---|"
for r in "${results[@]}"; do
	IFS='|' read -r name t m c d q p <<<"$r"
	echo "| $name | $t s | $m MiB | $c s | $d | $q | $p |"
done
for k in "${results[@]}"; do
	IFS='|' read -r kname kt km kc _ <<<"$k"
	[[ $kname == kubepkg* ]] || continue
	for r in "${results[@]}"; do
		IFS='|' read -r name t m c _ <<<"$r"
		[[ $name == flux* ]] || continue
		printf '%s / %s: time %.2fx, peak RSS %.2fx, CPU %.2fx (goal: under 0.25x time and memory)\n' \
			"$kname" "$name" "$(echo "$kt / $t" | bc -l)" "$(echo "$km / $m" | bc -l)" "$(echo "$kc / $c" | bc -l)"
	done
done
