#!/usr/bin/env bash
# Benchmark `kubepkg template` against `helm template` (the CLI built from the Go module proxy)
# on the same charts: whole-process wall time (median of RUNS runs, measured by hyperfine
# without a shell), CPU time (user+system, robust on a busy machine) and peak RSS (GNU time), output to /dev/null. Prints one line per chart and
# the median ratios over all charts.
#
#   bench/template-vs-helm.sh [CHART...]      (default: every chart that helm renders with
#                                              default arguments in the reference corpus)
#
# Needs hyperfine and GNU time (apt packages, installed here if missing), helm (built by
# tools/helm-ref/install-helm.sh) and kubepkg (built here in release mode unless KUBEPKG=path).
# RUNS (default 10) sets the runs per chart and tool.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-10}"
HELM_VERSION="${HELM_VERSION:-v4.3.1}"
command -v hyperfine >/dev/null || apt-get install -y hyperfine >/dev/null
[[ -x /usr/bin/time ]] || apt-get install -y time >/dev/null
HELM="$(tools/helm-ref/install-helm.sh "$HELM_VERSION")"
if [[ -z "${KUBEPKG:-}" ]]; then
  cargo build --release -p kubepkg >&2
  KUBEPKG="${CARGO_TARGET_DIR:-target}/release/kubepkg"
fi

charts=("$@")
if [[ ${#charts[@]} -eq 0 ]]; then
  for c in testdata/helm-reference/cases/*/; do
    [[ "$(cat "$c/exit")" == "0" ]] || continue
    read -r -a words < "$c/args"
    [[ ${#words[@]} -le 3 ]] || continue   # default renders only
    charts+=("${words[-1]}")
  done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
median_time() { # "median-wall-seconds mean-cpu-seconds" of "$@" over RUNS runs
  hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$tmp/h.json" "$*" >/dev/null 2>&1 || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["median"], r["user"]+r["system"])' "$tmp/h.json"
}
peak_kb() { # peak RSS in KiB of one run of "$@"
  /usr/bin/time -f "%M" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$tmp/t"
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

printf "%-60s %8s %8s %7s %8s %8s %7s %7s %7s %6s\n" chart helm_ms kp_ms speedup helm_cpu kp_cpu cpu_x helm_MB kp_MB mem_x
: > "$tmp/ratios"; : > "$tmp/cpuratios"; : > "$tmp/memratios"
for chart in "${charts[@]}"; do
  read -r ht hc < <(median_time "$HELM" template rel "$chart")
  read -r kt kc < <(median_time "$KUBEPKG" template rel "$chart")
  hm=$(peak_kb "$HELM" template rel "$chart")
  km=$(peak_kb "$KUBEPKG" template rel "$chart")
  speed=$(awk -v h="$ht" -v k="$kt" 'BEGIN {printf "%.1f", h / k}')
  memx=$(awk -v h="$hm" -v k="$km" 'BEGIN {printf "%.1f", h / k}')
  cpux=$(awk -v h="$hc" -v k="$kc" 'BEGIN {printf "%.1f", h / k}')
  echo "$speed" >> "$tmp/ratios"; echo "$cpux" >> "$tmp/cpuratios"; echo "$memx" >> "$tmp/memratios"
  label="$chart"; (( ${#label} > 60 )) && label="...${label:${#label}-57}"
  printf "%-60s %8.1f %8.1f %7s %8.1f %8.1f %7s %7.1f %7.1f %6s\n" "$label" \
    "$(awk -v t="$ht" 'BEGIN{print t*1000}')" "$(awk -v t="$kt" 'BEGIN{print t*1000}')" "$speed" \
    "$(awk -v t="$hc" 'BEGIN{print t*1000}')" "$(awk -v t="$kc" 'BEGIN{print t*1000}')" "$cpux" \
    "$(awk -v m="$hm" 'BEGIN{print m/1024}')" "$(awk -v m="$km" 'BEGIN{print m/1024}')" "$memx"
done
echo "charts: ${#charts[@]}  runs each: $RUNS  helm: $HELM_VERSION"
echo "median speedup (helm time / kubepkg time): $(median < "$tmp/ratios")x"
echo "median CPU-time ratio (helm user+sys / kubepkg user+sys): $(median < "$tmp/cpuratios")x"
echo "median peak-memory ratio (helm / kubepkg): $(median < "$tmp/memratios")x"
