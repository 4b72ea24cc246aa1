#!/usr/bin/env bash
# Where a kubepkg run takes its page faults: every fault of one `kubepkg template` of each chart,
# recorded by the kernel's `exceptions:page_fault_user` tracepoint (perf), sorted by where it hit
# — the binary's code (.text), its other sections, the main thread's heap, the rest (shared
# libraries, stacks, other threads' arenas, mappings) — and for the code, how many distinct
# 64 KiB windows it touched and over how many MB of the binary they lie (a fault maps the 64 KiB
# around it: fewer windows, fewer faults). Each build's figures are the median of RUNS runs (and
# the most heap faults of any: where the heap starts moves from run to run). For comparing where
# two builds take their faults, beside bench/compare-builds.sh for their time.
#
#   RUNS=5 bench/code-faults.sh BUILD... -- CHART...
set -euo pipefail
builds=()
while [[ $# -gt 0 && "$1" != "--" ]]; do builds+=("$(realpath "$1")"); shift; done
[[ $# -ge 2 && ${#builds[@]} -ge 1 ]] || { echo "usage: RUNS=N $0 BUILD... -- CHART..." >&2; exit 2; }
shift
command -v perf >/dev/null || { echo "$0: needs perf (the Debian package linux-perf)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "${RUNS:-5}" "$work" "${#builds[@]}" "${builds[@]}" "$@" <<'PY'
import os, statistics, subprocess, sys
runs, work, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
builds, charts = sys.argv[4:4 + n], sys.argv[4 + n:]

def sections(binary):
    """(name, start, size) of each allocated section of binary (readelf)."""
    out = subprocess.run(["readelf", "-S", "-W", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[0].startswith("[") and parts[2] in ("PROGBITS", "NOBITS", "INIT_ARRAY", "FINI_ARRAY"):
            addr, size = int(parts[3], 16), int(parts[5], 16)
            if addr:
                found.append((parts[1], addr, size))
    return found

def one_run(binary, chart, secs):
    data = os.path.join(work, "faults.data")
    subprocess.run(["perf", "record", "-q", "-o", data, "-e", "exceptions:page_fault_user",
                    "-e", "syscalls:sys_exit_brk", "--",
                    binary, "template", "bench", chart],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    trace = subprocess.run(["perf", "script", "-i", data, "-F", "trace"], capture_output=True,
                           text=True, check=True).stdout
    text = next((s for s in secs if s[0] == ".text"), None)
    lo = min(s[1] for s in secs)
    hi = max(s[1] + s[2] for s in secs)
    counts = {"text": 0, "binary": 0, "heap": 0, "other": 0}
    windows = set()
    # The main thread's heap: from the first program break to the highest.
    breaks = [int(line.split()[-1], 16) for line in trace.splitlines()
              if "=" not in line and line.split() and line.split()[-1].startswith("0x")]
    heap = (min(breaks), max(breaks)) if breaks else (0, 0)
    for line in trace.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "address" not in fields:
            continue
        a = int(fields["address"], 16)
        if text and text[1] <= a < text[1] + text[2]:
            counts["text"] += 1
            windows.add((a - text[1]) >> 16)
        elif lo <= a < hi:
            counts["binary"] += 1
        elif heap[0] <= a < heap[1]:
            counts["heap"] += 1
        else:
            counts["other"] += 1
    span = (max(windows) - min(windows) + 1) * 64 / 1024 if windows else 0.0
    return counts, len(windows), span

print(f"{'chart':<34} {'build':<24} {'faults':>6} {'text':>5} {'binary':>6} {'heap':>5} {'heapmax':>7} {'other':>5} {'64K':>5} {'span_MB':>7}")
for chart in charts:
    for b in builds:
        secs = sections(b)
        got = [one_run(b, chart, secs) for _ in range(runs)]
        med = lambda f: statistics.median(f(g) for g in got)
        c = {k: med(lambda g, k=k: g[0][k]) for k in got[0][0]}
        total = med(lambda g: sum(g[0].values()))
        print(f"{os.path.basename(chart.rstrip('/'))[-34:]:<34} {os.path.basename(b)[-24:]:<24} {total:>6.0f} "
              f"{c['text']:>5.0f} {c['binary']:>6.0f} {c['heap']:>5.0f} {max(g[0]['heap'] for g in got):>7} {c['other']:>5.0f} "
              f"{med(lambda g: g[1]):>5.0f} {med(lambda g: g[2]):>7.1f}")
print(f"medians of {runs} runs each; text: the binary's .text; binary: its other sections; "
      "heap: the main thread's, between its first and highest program break (heapmax: the most of any run); 64K: distinct 64 KiB windows of .text")
PY
