#!/usr/bin/env bash
# Renders the template corpus with kubepkg's engine and with Helm's (the Go oracle) in one run and
# reports, per case, how many times faster kubepkg is: the median of the per-case ratios
# (Go median time / kubepkg median time), plus the ratio of the summed medians.
# Only exact cases that kubepkg renders exactly like Helm are compared.
#   bench/template-bench.sh [ITERATIONS]   (default 50 per case and engine)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-50}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
oracle="$("$root/oracle/build.sh")"
(cd "$root" && cargo bench -q -p kubepkg-funcs --bench corpus --no-run >&2)
echo "timing kubepkg ($n iterations per case)..." >&2
(cd "$root" && cargo bench -q -p kubepkg-funcs --bench corpus -- "$n") > "$work/rust.tsv"
echo "timing Helm's engine ($n iterations per case)..." >&2
TZ=UTC "$oracle" bench "$n" "$root"/testdata/template-corpus/*.jsonl > "$work/go.tsv"
awk -F'\t' '
  NR == FNR { go[$1] = $2; next }
  ($1 in go) && $2 > 0 { r[++k] = go[$1] / $2; sg += go[$1]; sr += $2 }
  END {
    if (k == 0) { print "no comparable cases"; exit 1 }
    # sort ratios (insertion sort; a few thousand values)
    for (i = 2; i <= k; i++) { v = r[i]; j = i - 1; while (j > 0 && r[j] > v) { r[j+1] = r[j]; j-- } r[j+1] = v }
    med = (k % 2) ? r[(k+1)/2] : (r[k/2] + r[k/2+1]) / 2
    printf "cases compared: %d\n", k
    printf "median per-case speedup (Go/kubepkg): %.2fx\n", med
    printf "p10 / p90 per-case speedup: %.2fx / %.2fx\n", r[int(k*0.1)+1], r[int(k*0.9)]
    printf "total time Go %.1f ms, kubepkg %.1f ms (%.2fx)\n", sg/1e6, sr/1e6, sg/sr
  }' "$work/go.tsv" "$work/rust.tsv"
