#!/usr/bin/env bash
# Benchmark `kubepkg template` against `helm template` (the CLI built from the Go module proxy)
# on the same charts, in one run, the two tools interleaved run by run so that the machine's
# noise falls on both alike (bench/lib/interleaved.py: one warm-up round, then RUNS rounds; no
# shell started): per tool the median whole-process wall time, CPU time (user+system, from the
# kernel's accounting of the child) and peak RSS, output to /dev/null (before 2026-12-06 each
# tool's runs came in one series, timed by hyperfine, with the mean CPU time and the peak memory
# of one run). Prints one line per chart, the median ratios, the totals (sums of
# the per-chart medians) and the goals of issue 17 (median >= 10x, total >= 3x, every chart >= 2x,
# peak memory <= Helm's on every chart).
#
#   bench/template-vs-helm.sh [CHART...]      (default: every chart that helm renders with
#                                              default arguments in the reference corpus, but
#                                              those of testdata/helm-reference/exceptions.txt)
#   bench/template-vs-helm.sh --heavy         the heavy set: the largest charts of the corpus
#                                              (testdata/charts/modules, by size) and the
#                                              synthetic charts of bench/heavy/gen.py
#
# Needs python3, helm (built by
# tools/helm-ref/install-helm.sh) and kubepkg (built here in release mode unless KUBEPKG=path).
# RUNS (default 10) sets the runs per chart and tool.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib/tools.sh
source bench/lib/tools.sh
bench_vs_helm
bench_kubepkg

charts=("$@")
if [[ "${1:-}" == "--heavy" ]]; then
  charts=()
  # The 15 largest charts of the corpus (CRD bundles, umbrellas, certificate makers).
  while read -r c; do charts+=("$c"); done < <(bench_heavy_modules)
  while read -r c; do charts+=("$c"); done < <(bench/heavy/gen.py)
elif [[ ${#charts[@]} -eq 0 ]]; then
  for c in testdata/helm-reference/cases/*/; do
    [[ "$(cat "$c/exit")" == "0" ]] || continue
    # Where kubepkg refuses on purpose what Helm renders (links in archives, ...), both tools
    # would not be doing the same work.
    ! grep -q "^$(basename "$c")"$'\t' testdata/helm-reference/exceptions.txt || continue
    read -r -a words < "$c/args"
    [[ ${#words[@]} -le 3 ]] || continue   # default renders only
    charts+=("${words[-1]}")
  done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Per command: median wall seconds, median CPU seconds (user+sys), median peak KiB, failed runs;
# helm and kubepkg interleaved run by run (bench/lib/interleaved.py).
side_by_side() { python3 bench/lib/interleaved.py "$RUNS" "$@"; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

printf "%-60s %8s %8s %7s %8s %8s %7s %7s %7s %6s\n" chart helm_ms kp_ms speedup helm_cpu kp_cpu cpu_x helm_MB kp_MB mem_x
: > "$tmp/ratios"; : > "$tmp/cpuratios"; : > "$tmp/memratios"; : > "$tmp/sums"; : > "$tmp/failed"
for chart in "${charts[@]}"; do
  { read -r ht hc hm hf; read -r kt kc km kf; } < <(side_by_side "$HELM template rel $chart" "$KUBEPKG template rel $chart")
  # A chart neither tool renders (dependencies missing from charts/) is timed on its error
  # path: marked, and named under the table.
  if [[ "$hf" != 0 || "$kf" != 0 ]]; then echo "$chart (failed runs: helm $hf, kubepkg $kf)" >> "$tmp/failed"; fi
  speed=$(awk -v h="$ht" -v k="$kt" 'BEGIN {printf "%.1f", h / k}')
  memx=$(awk -v h="$hm" -v k="$km" 'BEGIN {printf "%.1f", h / k}')
  cpux=$(awk -v h="$hc" -v k="$kc" 'BEGIN {printf "%.1f", h / k}')
  echo "$speed" >> "$tmp/ratios"; echo "$cpux" >> "$tmp/cpuratios"; echo "$memx" >> "$tmp/memratios"
  echo "$ht $kt $hc $kc $hm $km" >> "$tmp/sums"
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
awk '{ht += $1; kt += $2; hc += $3; kc += $4; if ($6 > $5) heavier++; if ($1 < 2 * $2) slow++}
  END {
    printf "total wall time: helm %.2f s, kubepkg %.2f s (%.2fx)\n", ht, kt, ht / kt
    printf "total CPU time: helm %.2f s, kubepkg %.2f s (%.2fx)\n", hc, kc, hc / kc
    printf "charts less than 2x faster than helm (wall): %d; charts using more peak memory than helm: %d\n", slow, heavier
  }' "$tmp/sums"
if [[ -s "$tmp/failed" ]]; then
  echo "timed on an error path (the render fails):"
  sed 's/^/  /' "$tmp/failed"
fi
