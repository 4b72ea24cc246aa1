#!/usr/bin/env bash
# Engine benchmark: Go's text/template vs kubepkg-template on every successful case of
# ../go-cases.jsonl (parse + execute each iteration). Prints per-engine medians and the median of
# per-case ratios (Go time / our time). Usage: bench.sh [iterations]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
n="${1:-2000}"
bin="$(mktemp -d)/go-oracle"
(cd "$here" && go build -o "$bin" .)
"$bin" bench "$n" < "$here/../go-cases.jsonl" > /tmp/kubepkg-template-bench-go.tsv
(cd "$here/../.." && BENCH_ITERS="$n" cargo bench -q --bench engine) > /tmp/kubepkg-template-bench-rs.tsv
python3 - <<'PY'
import statistics
go = dict(l.split("\t") for l in open("/tmp/kubepkg-template-bench-go.tsv").read().split("\n") if l)
rs = dict(l.split("\t") for l in open("/tmp/kubepkg-template-bench-rs.tsv").read().split("\n") if l)
keys = sorted(set(go) & set(rs), key=int)
ratios = [int(go[k]) / max(int(rs[k]), 1) for k in keys]
print(f"cases: {len(keys)}")
print(f"median Go ns/case:   {statistics.median(int(go[k]) for k in keys):.0f}")
print(f"median ours ns/case: {statistics.median(int(rs[k]) for k in keys):.0f}")
print(f"median speedup (Go/ours): {statistics.median(ratios):.2f}x; min {min(ratios):.2f}x; max {max(ratios):.2f}x")
PY
