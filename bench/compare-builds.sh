#!/usr/bin/env bash
# Two kubepkg builds side by side on the same charts: `kubepkg template` of each chart, the two
# builds interleaved run by run (so machine noise falls on both alike), and per chart each
# build's median CPU time (user+sys, from the kernel's accounting of the child) and wall time,
# its peak memory from one more run under GNU time (bench/lib/interleaved.py), and NEW's CPU
# time as a fraction of OLD's. For a performance change, run bench/same-output.sh OLD NEW too.
#
#   RUNS=40 bench/compare-builds.sh OLD NEW CHART...
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: RUNS=N $0 OLD NEW CHART..." >&2; exit 2; }
BENCH_LIB="$(dirname "$(realpath "$0")")/lib" exec python3 - "${RUNS:-40}" "$(realpath "$1")" "$(realpath "$2")" "${@:3}" <<'PY'
import os, statistics, sys
sys.path.insert(0, os.environ["BENCH_LIB"])
from interleaved import measure, medians, peak_kib
runs, old, new, charts = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]

print(f"{'chart':<32} {'old_cpu_ms':>10} {'new_cpu_ms':>10} {'old_wall':>9} {'new_wall':>9} {'old_MB':>7} {'new_MB':>7} {'new/old':>7}")
ratios = []
for chart in charts:
    argvs = [[old, "template", "bench", chart], [new, "template", "bench", chart]]
    got = measure(argvs, runs)
    if any(s[2] != 0 for s in got[0] + got[1]):
        print(f"{os.path.basename(chart):<32} (does not render with its defaults: not compared)")
        continue
    (ow, oc), (nw, nc) = medians(got[0]), medians(got[1])
    om, nm = (peak_kib(a) / 1024 for a in argvs)
    print(f"{os.path.basename(chart):<32} {oc*1000:>10.1f} {nc*1000:>10.1f} {ow*1000:>9.1f} {nw*1000:>9.1f} {om:>7.1f} {nm:>7.1f} {nc/oc:>7.2f}")
    ratios.append(nc / oc)
print(f"runs per chart and build: {runs}, interleaved; medians; times in ms")
if ratios:
    print(f"median new/old CPU over {len(ratios)} charts: {statistics.median(ratios):.2f}")
PY
