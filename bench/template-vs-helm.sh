#!/usr/bin/env bash
# Benchmark `kubepkg template` against `helm template` (the CLI built from the Go module proxy)
# on the same charts: whole-process wall time (median of RUNS runs) and peak RSS (max over runs),
# one process per run, output to /dev/null. Prints a table and the median ratios.
#
#   bench/template-vs-helm.sh [CHART...]      (default: the successful charts of the corpus)
#
# Needs: GNU time (apt `time`), a release build of kubepkg (built here), helm (built by
# tools/helm-ref/install-helm.sh). RUNS (default 10) sets the number of runs per chart;
# KUBEPKG=path uses an existing kubepkg binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-10}"
HELM_VERSION="${HELM_VERSION:-v4.3.1}"
if [[ ! -x /usr/bin/time ]]; then
  apt-get install -y time >/dev/null
fi
HELM="$(tools/helm-ref/install-helm.sh "$HELM_VERSION")"
if [[ -z "${KUBEPKG:-}" ]]; then
  cargo build --release -p kubepkg >&2
  KUBEPKG="${CARGO_TARGET_DIR:-target}/release/kubepkg"
fi

charts=("$@")
if [[ ${#charts[@]} -eq 0 ]]; then
  for c in testdata/helm-reference/cases/*/; do
    [[ "$(cat "$c/exit")" == "0" ]] || continue
    args="$(cat "$c/args")"
    # only default renders (`template CHART` or `template NAME CHART`) of distinct charts
    set -- $args
    [[ $# -le 3 ]] || continue
    charts+=("${@: -1}")
  done
fi

measure() { # prints "seconds kilobytes" for one run of "$@"
  /usr/bin/time -f "%e %M" -o /tmp/kubepkg-bench.$$ "$@" >/dev/null 2>&1 || true
  cat /tmp/kubepkg-bench.$$
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

printf "%-70s %9s %9s %7s %9s %9s %7s\n" chart helm_s kubepkg_s speedup helm_MB kp_MB mem_x
ratios=(); memratios=()
for chart in "${charts[@]}"; do
  ht=(); kt=(); hm=0; km=0
  for ((i = 0; i < RUNS; i++)); do
    read -r t m < <(measure "$HELM" template rel "$chart")
    ht+=("$t"); (( m > hm )) && hm=$m
    read -r t m < <(measure "$KUBEPKG" template rel "$chart")
    kt+=("$t"); (( m > km )) && km=$m
  done
  hmed=$(printf "%s\n" "${ht[@]}" | median)
  kmed=$(printf "%s\n" "${kt[@]}" | median)
  # /usr/bin/time has 10 ms resolution; floor at 5 ms to keep ratios finite.
  speed=$(awk -v h="$hmed" -v k="$kmed" 'BEGIN {if (k < 0.005) k = 0.005; if (h < 0.005) h = 0.005; printf "%.1f", h / k}')
  memx=$(awk -v h="$hm" -v k="$km" 'BEGIN {printf "%.1f", h / k}')
  ratios+=("$speed"); memratios+=("$memx")
  printf "%-70s %9s %9s %7s %9.1f %9.1f %7s\n" "${chart: -70}" "$hmed" "$kmed" "$speed" "$(awk -v m="$hm" 'BEGIN{print m/1024}')" "$(awk -v m="$km" 'BEGIN{print m/1024}')" "$memx"
done
rm -f /tmp/kubepkg-bench.$$
echo "charts: ${#charts[@]}  runs each: $RUNS"
echo "median speedup (helm time / kubepkg time): $(printf "%s\n" "${ratios[@]}" | median)x"
echo "median peak-memory ratio (helm / kubepkg): $(printf "%s\n" "${memratios[@]}" | median)x"
