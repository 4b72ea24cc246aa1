#!/usr/bin/env bash
# Two kubepkg builds side by side on the same charts: `kubepkg template` of each chart, the two
# builds interleaved run by run (so machine noise falls on both alike), and per chart each
# build's median CPU time (user+sys, from the kernel's accounting of the child), wall time and
# peak memory, and NEW's CPU time as a fraction of OLD's. For a performance change, run
# bench/same-output.sh OLD NEW as well.
#
#   RUNS=40 bench/compare-builds.sh OLD NEW CHART...
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: RUNS=N $0 OLD NEW CHART..." >&2; exit 2; }
exec python3 - "${RUNS:-40}" "$(realpath "$1")" "$(realpath "$2")" "${@:3}" <<'PY'
import os, statistics, subprocess, sys, time
runs, old, new, charts = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]

def once(binary, chart):
    start = time.monotonic()
    p = subprocess.Popen([binary, "template", "bench", chart], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        return None
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024

print(f"{'chart':<32} {'old_cpu_ms':>10} {'new_cpu_ms':>10} {'old_wall':>9} {'new_wall':>9} {'old_MB':>7} {'new_MB':>7} {'new/old':>7}")
ratios = []
for chart in charts:
    got = {old: [], new: []}
    for _ in range(runs):
        for b in (old, new):
            got[b].append(once(b, chart))
    if None in got[old] + got[new]:
        print(f"{os.path.basename(chart):<32} (does not render with its defaults: not compared)")
        continue
    med = {b: [statistics.median(x[i] for x in got[b]) for i in range(3)] for b in got}
    (oc, ow, om), (nc, nw, nm) = med[old], med[new]
    print(f"{os.path.basename(chart):<32} {oc*1000:>10.1f} {nc*1000:>10.1f} {ow*1000:>9.1f} {nw*1000:>9.1f} {om:>7.1f} {nm:>7.1f} {nc/oc:>7.2f}")
    ratios.append(nc / oc)
print(f"runs per chart and build: {runs}, interleaved; medians; times in ms")
if ratios:
    print(f"median new/old CPU over {len(ratios)} charts: {statistics.median(ratios):.2f}")
PY
