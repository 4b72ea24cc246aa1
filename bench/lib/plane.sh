# Sourced by the cluster benchmarks (controller-scale.sh, controller-vs-flux.sh, fleet-rollout.sh,
# cli-vs-helmfile.sh): a local control plane of the benchmark's own, the charts and package they
# deploy, and the measurement of a controller process (GNU time) and of the plane's own components.
# Not a script: `source bench/lib/plane.sh` sets `repo` (the repository root), enters it and
# brings bench/lib/tools.sh along (bench_kubepkg, …).
#
#   bench_plane_up NODES        a fresh plane in $KUBEPKG_TESTENV_DIR (never the shared .testenv)
#   bench_plane_down            stops it (only it)
#   bench_chart DIR NAME        chart NAME 1.0.0: one simulated Deployment, Ready at once
#   bench_package DIR N         package `bench` 1.0.0 in DIR: charts c1..cN, each depending on
#                               the one before
#   bench_timed OUT LOG CMD...  runs CMD under GNU time in the background; sets bench_pid
#   bench_stop PID              SIGTERM to the process GNU time runs, waits for the report
#   bench_rss_mib OUT / bench_cpu_s OUT    peak RSS (MiB) and user+sys seconds of a report
#   bench_plane_cpu             CPU seconds each plane component used so far (one line each)
#   bench_requests              apiserver_request_total, all clients
#   bench_count_ready KIND NS   how many objects of KIND in NS have Ready=True
#   bench_alive PID:LOG...      ends the benchmark, showing LOG's end, when process PID exited
#   bench_wait_ready KIND NS N PID:LOG...
#                               waits until N objects of KIND in NS are Ready (bench_alive
#                               every 2 s meanwhile)
# shellcheck shell=bash

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo" || exit 1
# shellcheck source=bench/lib/tools.sh
source "$repo/bench/lib/tools.sh"
export KUBEPKG_TESTENV_DIR="${BENCH_TESTENV_DIR:-$repo/.bench-testenv}"
# The shared plane of the tests is never the benchmark's (it is stopped and wiped here).
if [ "$(realpath -m "$KUBEPKG_TESTENV_DIR")" = "$(realpath -m "$repo/.testenv")" ]; then
	echo "bench: BENCH_TESTENV_DIR must not be the tests' plane ($repo/.testenv)" >&2
	exit 2
fi
# kube-controller-manager and kube-scheduler at Kubernetes' default API rate (20 and 50 QPS)
# turn 1000 Deployments into Pods slower than any controller under test creates them; the
# plane's own components get CONTROLLER_QPS (default 200) so the figure is the controller's.
bench_qps="${CONTROLLER_QPS:-200}"

kubectl() { "$KUBEPKG_TESTENV_DIR/bin/kubectl" "$@"; }

bench_plane_down() {
	"$repo/testenv/down.sh" >/dev/null 2>&1 || true
}

# A plane from scratch (an earlier run's objects would hold their finalizers and load it).
bench_plane_up() {
	local nodes="$1"
	bench_plane_down
	rm -rf "$KUBEPKG_TESTENV_DIR"
	KUBECONFIG="$("$repo/testenv/up.sh" --nodes "$nodes" --controller-qps "$bench_qps")"
	export KUBECONFIG
}

# The tests' chart of one simulated Deployment (kubepkg_testkit::charts::deploy_chart).
bench_chart() {
	local dir="$1" name="$2"
	mkdir -p "$dir/templates"
	printf 'apiVersion: v2\nname: %s\nversion: 1.0.0\n' "$name" >"$dir/Chart.yaml"
	printf 'sim: ok\nimage: registry.invalid/bench:1\n' >"$dir/values.yaml"
	cp "$repo/crates/kubepkg-testkit/src/charts/deployment.yaml" "$dir/templates/"
}

bench_package() {
	local dir="$1" components="$2" c
	mkdir -p "$dir"
	{
		echo "package: {name: bench, version: 1.0.0, rollback: {safe: true}}"
		echo "components:"
		for c in $(seq 1 "$components"); do
			if [ "$c" = 1 ]; then
				echo "- {name: c$c, path: c$c}"
			else
				echo "- {name: c$c, path: c$c, install: {dependsOn: [c$((c - 1))]}}"
			fi
			bench_chart "$dir/c$c" "c$c"
		done
	} >"$dir/kubepkg.yaml"
}

bench_timed() {
	local out="$1" log="$2"
	shift 2
	/usr/bin/time -v -o "$out" "$@" >"$log" 2>&1 &
	bench_pid=$!
}

# SIGTERM to the measured process itself (GNU time would die of it without reporting).
bench_stop() {
	local pid="$1"
	pkill -TERM -P "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

bench_rss_mib() {
	awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); printf "%d", $2 / 1024}' "$1"
}

bench_cpu_s() {
	awk -F: '/User time/ {gsub(/ /, "", $2); u = $2} /System time/ {gsub(/ /, "", $2); s = $2} END {printf "%.1f", u + s}' "$1"
}

# "component seconds" per line, from /proc of the pids the plane's state.json records.
bench_plane_cpu() {
	local tck
	tck="$(getconf CLK_TCK)"
	jq -r '.pids | to_entries[] | "\(.key) \(.value)"' "$KUBEPKG_TESTENV_DIR/state.json" |
		while read -r name pid; do
			awk -v n="$name" -v t="$tck" '{printf "%s %.1f\n", n, ($14 + $15) / t}' "/proc/$pid/stat"
		done
}

# The CPU seconds each plane component used between two bench_plane_cpu outputs, and the sum.
bench_plane_cpu_delta() {
	local before="$1" after="$2"
	join <(sort "$before") <(sort "$after") |
		awk '{d = $3 - $2; s += d; printf "%s %.1f s, ", $1, d} END {printf "plane total %.1f s", s}'
}

bench_requests() {
	kubectl get --raw /metrics | awk '/^apiserver_request_total/ {s += $NF} END {printf "%d", s}'
}

bench_count_ready() {
	kubectl -n "$2" get "$1" -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
		grep -c '^True$' || true
}

bench_alive() {
	local entry
	for entry in "$@"; do
		if ! kill -0 "${entry%%:*}" 2>/dev/null; then
			echo "bench: a measured process exited; the end of its log ${entry#*:}:" >&2
			tail -20 "${entry#*:}" >&2
			exit 1
		fi
	done
}

bench_wait_ready() {
	local kind="$1" ns="$2" n="$3"
	shift 3
	until [ "$(bench_count_ready "$kind" "$ns")" -ge "$n" ]; do
		bench_alive "$@"
		sleep 2
	done
}
