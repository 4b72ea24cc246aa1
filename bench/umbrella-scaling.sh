#!/usr/bin/env bash
# How `kubepkg template` and `helm template` scale with an umbrella chart's subchart count: the
# same synthetic umbrella (bench/heavy/gen.py --umbrellas: 50, 100 and 200 subcharts, each the
# `helm create` scaffold enabled by a condition, global values passed down) measured side by side
# by bench/template-vs-helm.sh, then for each tool the exponent k of time ~ subcharts^k (a
# least-squares fit of log time on log count over the three sizes; 1.0 is linear) and the ratio
# at 200 subcharts.
#
#   RUNS=5 KUBEPKG=target/release/kubepkg bench/umbrella-scaling.sh
#   RUNS=5 KUBEPKG=target/release/kubepkg bench/umbrella-scaling.sh --library
#
# --library measures umbrella-lib-50/100/200 instead: the same umbrellas whose every subchart
# depends on a library chart of its own (bitnami's `common` pattern), so each subchart's
# dependency conditions are worked out from its parent's values as well.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
"") kind=umbrellas prefix=umbrella ;;
--library) kind=library-umbrellas prefix=umbrella-lib ;;
*)
	echo "usage: RUNS=N KUBEPKG=path $0 [--library]" >&2
	exit 2
	;;
esac
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
bench/heavy/gen.py "--$kind" "$dir" >/dev/null
out="$(bench/template-vs-helm.sh "$dir/$prefix-50" "$dir/$prefix-100" "$dir/$prefix-200")"
echo "$out"
# Columns of a chart line: chart helm_ms kp_ms speedup helm_cpu kp_cpu cpu_x helm_MB kp_MB mem_x.
echo "$out" | awk '
  $1 ~ /umbrella-(lib-)?[0-9]+$/ {
    n = $1; sub(/.*-/, "", n)
    x[++k] = log(n); hw[k] = log($2); kw[k] = log($3); hc[k] = log($5); kc[k] = log($6)
    last_h = $2; last_k = $3; last_hc = $5; last_kc = $6
  }
  function slope(y,   i, mx, my, sxy, sxx) {
    mx = 0; my = 0
    for (i = 1; i <= k; i++) { mx += x[i] / k; my += y[i] / k }
    sxy = 0; sxx = 0
    for (i = 1; i <= k; i++) { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ^ 2 }
    return sxy / sxx
  }
  END {
    if (k < 3) { print "umbrella-scaling: expected three umbrella lines" > "/dev/stderr"; exit 1 }
    printf "scaling exponent (wall): helm %.2f, kubepkg %.2f\n", slope(hw), slope(kw)
    printf "scaling exponent (CPU):  helm %.2f, kubepkg %.2f\n", slope(hc), slope(kc)
    printf "at 200 subcharts: wall %.1fx, CPU %.1fx faster than helm\n", last_h / last_k, last_hc / last_kc
  }'
